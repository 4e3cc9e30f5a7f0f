import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { NodeHelpers, type IConnections, type INode, type INodeParameters } from 'n8n-workflow';

import { createAccount, request, startGateway, type TestGateway } from '../helpers/gateway';
import { CREDENTIAL, PACKAGE, PACKAGE_ROOT, createHost, loadPackage, runWorkflow } from './helpers/n8n';
import { WebhookHost } from './helpers/webhookHost';

interface WorkflowFile {
  name: string;
  nodes: INode[];
  connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}

const EXAMPLES = path.join(PACKAGE_ROOT, 'examples');
const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));
const read = (file: string) => JSON.parse(readFileSync(path.join(EXAMPLES, file), 'utf8')) as WorkflowFile;

/** The example workflows users import: well-formed, and their LeadChat nodes set only parameters the nodes show. */
describe('example workflows', () => {
  test('there are the four documented examples', () => {
    expect(files.sort()).toEqual([
      'auto-recharge-handler.json',
      'custom-channel-bridge.json',
      'handoff-alert.json',
      'lead-capture-funnel.json',
    ]);
  });

  test.each(files)(
    '%s: connections join existing nodes; LeadChat nodes use the credential and real parameters',
    async (file) => {
      const workflow = read(file);
      const names = new Set(workflow.nodes.map((n) => n.name));
      for (const [from, { main }] of Object.entries(workflow.connections)) {
        expect(names).toContain(from);
        for (const target of main.flat()) expect(names).toContain(target.node);
      }
      const loader = await loadPackage();
      const ours = workflow.nodes.filter((n) => n.type.startsWith(`${PACKAGE}.`));
      expect(ours.length).toBeGreaterThan(0);
      for (const node of ours) {
        const type = loader.nodeTypes[node.type.slice(PACKAGE.length + 1)]!.type;
        expect(node.typeVersion).toBe(1);
        expect(node.credentials?.[CREDENTIAL]?.name).toBe('LeadChat account');
        const { description } = NodeHelpers.getVersionedNodeType(type, 1);
        const shown =
          NodeHelpers.getNodeParameters(description.properties, node.parameters, true, false, node, description) ?? {};
        const unknown = Object.keys(node.parameters).filter((key) => !(key in (shown as INodeParameters)));
        expect({ node: node.name, unknown }).toEqual({ node: node.name, unknown: [] });
      }
    },
  );

  describe('their LeadChat steps, run against the gateway with the data their webhooks receive', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startGateway();
    });
    afterAll(async () => {
      await gw.stop();
    });

    test('lead-capture-funnel: a form post becomes a contact on the chosen list', async () => {
      const account = await createAccount(gw);
      const list = await request(gw, 'POST', '/v1/lists', { apiKey: account.apiKey, body: { name: 'Form leads' } });
      const node = read('lead-capture-funnel.json').nodes.find((n) => n.name === 'Capture Lead')!;
      node.parameters.list = { __rl: true, mode: 'list', value: list.body.id, cachedResultName: 'Form leads' };
      const host = await createHost({
        [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true },
      });
      const run = await runWorkflow(host, { nodes: [node] }, node.name, [
        { json: { headers: {}, params: {}, query: {}, body: { phone: '+1 (646) 555-0147', first_name: 'Dana' } } },
      ]);
      expect(run.error).toBeUndefined();
      expect(run.output('Capture Lead')[0]!.json).toMatchObject({
        phone: '+16465550147',
        firstName: 'Dana',
        created: true,
        addedToList: true,
      });
      const members = await request(gw, 'GET', `/v1/lists/${list.body.id}/contacts`, { apiKey: account.apiKey });
      expect(members.body.data).toHaveLength(1);
    });

    test('custom-channel-bridge: a chat message reaches the inbox once, however often it is posted', async () => {
      const account = await createAccount(gw);
      const node = read('custom-channel-bridge.json').nodes.find((n) => n.name === 'Post to Inbox')!;
      const host = await createHost({
        [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true },
      });
      const post = {
        json: {
          headers: {},
          params: {},
          query: {},
          body: { id: 'chat-1', userId: 'u-77', text: 'Is it in stock?', name: 'Ola' },
        },
      };
      const first = await runWorkflow(host, { nodes: [node] }, node.name, [post]);
      const again = await runWorkflow(host, { nodes: [node] }, node.name, [post]);
      const { messageId } = first.output('Post to Inbox')[0]!.json;
      expect(again.output('Post to Inbox')[0]!.json.messageId).toBe(messageId);
      const message = await request(gw, 'GET', `/v1/messages/${messageId}`, { apiKey: account.apiKey });
      expect(message.body).toMatchObject({ body: 'Is it in stock?', channel: 'website-chat' });
    });

    test("handoff-alert: a lead asking for a person starts it, and Get Conversation adds the lead's name, phone and channel", async () => {
      const account = await createAccount(gw);
      const workflow = read('handoff-alert.json');
      // The alert's HTTP Request is n8n's own node, outside this package: the run stops at Get Conversation.
      const nodes = workflow.nodes.filter((n) => n.type.startsWith(`${PACKAGE}.`));
      const host = await WebhookHost.start(
        { [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } },
        { nodes, connections: { 'On Hand-Off': workflow.connections['On Hand-Off'] } as unknown as IConnections },
        'On Hand-Off',
      );
      try {
        await host.activate();
        const subscriptions = await request(gw, 'GET', '/v1/webhooks', { apiKey: account.apiKey });
        expect(subscriptions.body.data).toEqual([expect.objectContaining({ url: host.url, events: ['handoff'] })]);

        await request(gw, 'POST', '/v1/contacts', {
          apiKey: account.apiKey,
          body: { phone: '+14155550188', firstName: 'Maya', lastName: 'Lopez' },
        });
        const asked = await request(gw, 'POST', '/v1/channels/sms/incoming', {
          apiKey: account.apiKey,
          body: { phone: '+14155550188', body: 'Can I talk to a human, please?' },
        });
        expect(asked.status).toBe(200);
        await host.waitFor(() => host.executions.length === 1, 'the hand-off execution');
        const run = host.executions[0]!;
        expect(run.error).toBeUndefined();
        expect(run.output('On Hand-Off')[0]!.json).toMatchObject({
          event: 'handoff',
          contactId: asked.body.contactId,
          conversationId: asked.body.conversationId,
          reason: 'contact_asked',
          body: 'Can I talk to a human, please?',
        });
        expect(run.output('Get Conversation')[0]!.json).toMatchObject({
          id: asked.body.conversationId,
          contactId: asked.body.contactId,
          channel: 'sms',
          status: 'handed_off',
          contact: { firstName: 'Maya', lastName: 'Lopez', phone: '+14155550188' },
        });
      } finally {
        await host.deactivate();
        await host.close();
      }
    });
  });
});
