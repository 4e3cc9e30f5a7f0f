import { NodeHelpers, type INodeTypeDescription } from 'n8n-workflow';

import { createAccount, listAll, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { HANDOFF_NOTICE } from '../gateway/api-support';
import { CREDENTIAL, LEADCHAT, createHost, listSearch, listSearchAll, runLeadChat, type Host } from './helpers/n8n';

/** The contact and conversation pickers (server-side search, a page at a time), version 2's pickers, and Simplify. */
describe('LeadChat node: contact and conversation pickers, Simplify', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  const contacts: Array<{ id: string; firstName: string }> = [];

  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });

  beforeAll(async () => {
    gw = await startGateway();
    account = await createAccount(gw);
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
    // 60 visitors named Ivy who write on a custom channel, each a contact with one conversation; and Noah, on two channels.
    for (let start = 0; start < 60; start += 15) {
      await Promise.all(
        Array.from({ length: 15 }, (_, k) => start + k).map((n) =>
          api('POST', '/incoming_custom_channel_message', {
            customData: {
              messageSid: `ivy-${n}`,
              fromId: `ivy-${n}`,
              toId: 'acme',
              body: `Question ${n}`,
              channel: 'webchat',
              firstName: 'Ivy',
              lastName: `Visitor${n}`,
            },
          }),
        ),
      );
    }
    const noah = (
      await api('POST', '/contacts', {
        phone: '+14155550501',
        firstName: 'Noah',
        lastName: 'Lee',
        email: 'noah@example.com',
        externalIds: { webchat: 'noah-web' },
      })
    ).body;
    await api('POST', '/incoming_custom_channel_message', {
      customData: {
        messageSid: 'noah-1',
        fromId: 'noah-web',
        toId: 'acme',
        body: 'Hi from the web',
        channel: 'webchat',
      },
    });
    await api('POST', '/channels/sms/incoming', { phone: '+14155550501', body: 'Hi by SMS' });
    contacts.push(noah);
  }, 120_000);
  afterAll(async () => {
    await gw.stop();
  });

  describe('the Contact picker', () => {
    test('lists nothing before a search; finds by name, email or phone digits, with phone and email below', async () => {
      expect(await listSearch(host, 'searchContacts')).toEqual({ results: [] });
      const noah = contacts[0]!;
      const expected = [{ name: 'Noah Lee', value: noah.id, description: '+14155550501 · noah@example.com' }];
      expect((await listSearch(host, 'searchContacts', 'noah')).results).toEqual(expected);
      expect((await listSearch(host, 'searchContacts', 'noah@ex')).results).toEqual(expected);
      expect((await listSearch(host, 'searchContacts', '0501')).results).toEqual(expected);
      // Too short for the server to search: nothing yet, not an error.
      expect(await listSearch(host, 'searchContacts', 'n')).toEqual({ results: [] });
    });

    test('pages with the server cursor as the pagination token', async () => {
      const first = await listSearch(host, 'searchContacts', 'ivy');
      expect(first.results).toHaveLength(50);
      expect(first.paginationToken).toEqual(expect.any(String));
      const all = await listSearchAll(host, 'searchContacts', 'ivy');
      expect(all.pages).toBe(2);
      expect(new Set(all.results.map((r) => r.value)).size).toBe(60);
      expect(all.results.every((r) => /^Ivy Visitor\d+$/.test(r.name))).toBe(true);
    });
  });

  describe('the Conversation picker', () => {
    test('before a search: the inbox, newest activity first, a page at a time', async () => {
      const inbox = (await listAll(gw, account.apiKey, '/conversations')).map((c) => c.id);
      const all = await listSearchAll(host, 'searchConversations');
      expect(all.pages).toBe(Math.ceil(inbox.length / 50));
      expect(all.results.map((r) => r.value)).toEqual(inbox);
      expect(all.results[0]).toEqual({
        name: 'Noah Lee · SMS',
        value: inbox[0],
        description: `handed off, "${HANDOFF_NOTICE.slice(0, 59)}…"`,
      });
    });

    test("a search finds the contacts on the server and shows each one's conversations", async () => {
      const found = await listSearch(host, 'searchConversations', 'noah lee');
      expect(found.results.map((r) => r.name).sort()).toEqual(['Noah Lee · SMS', 'Noah Lee · webchat']);
      const ivy = await listSearchAll(host, 'searchConversations', 'ivy');
      expect(ivy.pages).toBe(6);
      expect(ivy.results).toHaveLength(60);
    });
  });

  describe('version 2 picks, version 1 keeps its ID fields', () => {
    test('Hand Off takes a picked contact in version 2 and a typed Contact ID in version 1', async () => {
      const noah = contacts[0]!;
      const v2 = await runLeadChat(
        host,
        {
          resource: 'conversation',
          operation: 'handOff',
          contactId: { __rl: true, mode: 'list', value: noah.id, cachedResultName: 'Noah Lee' },
        },
        [{ json: {} }],
        { typeVersion: 2 },
      );
      expect(v2.error).toBeUndefined();
      expect(v2.output('LeadChat')[0]!.json).toMatchObject({ success: true, contactId: noah.id, active: false });
      const v1 = await runLeadChat(
        host,
        { resource: 'conversation', operation: 'resumeBot', contactId: noah.id },
        [{ json: {} }],
        { typeVersion: 1 },
      );
      expect(v1.output('LeadChat')[0]!.json).toMatchObject({ success: true, contactId: noah.id, active: true });
    });

    test('the editor shows the text field in version 1 and the picker in version 2', async () => {
      const description = host.nodeTypes.getByNameAndVersion(LEADCHAT, 2).description;
      const shown = (version: number, parameters: Record<string, string>) =>
        description.properties
          .filter(
            (p) =>
              p.name === 'contactId' &&
              NodeHelpers.displayParameter({ ...parameters }, p, { typeVersion: version }, description),
          )
          .map((p) => p.type);
      expect(shown(1, { resource: 'conversation', operation: 'sendAsTeamMember' })).toEqual(['string']);
      expect(shown(2, { resource: 'conversation', operation: 'sendAsTeamMember' })).toEqual(['resourceLocator']);
      expect(shown(1, { resource: 'list', operation: 'addContact' })).toEqual(['string']);
      expect(shown(2, { resource: 'list', operation: 'addContact' })).toEqual(['resourceLocator']);
    });
  });

  describe('Simplify', () => {
    test('a conversation keeps 15 keys: whose, where, its state, whether it waits or is snoozed, its labels, its last message', async () => {
      const [latest] = await listAll(gw, account.apiKey, '/conversations');
      const full = await runLeadChat(host, { resource: 'conversation', operation: 'get', conversationId: latest!.id });
      expect(Object.keys(full.output('LeadChat')[0]!.json)).toHaveLength(27);
      const simple = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'get',
        conversationId: latest!.id,
        simplify: true,
      });
      expect(simple.output('LeadChat')[0]!.json).toEqual({
        id: latest!.id,
        contactId: contacts[0]!.id,
        contactName: 'Noah Lee',
        channel: 'sms',
        campaignId: null,
        status: expect.any(String),
        botActive: expect.any(Boolean),
        assigneeId: null,
        needsReply: latest!.needsReply,
        unread: expect.any(Number),
        snoozedUntil: null,
        labels: [],
        // No campaign answers Noah: the gateway's hand-off notice is the last message.
        lastMessage: HANDOFF_NOTICE,
        lastMessageFrom: 'system',
        lastActivityAt: latest!.lastActivityAt,
      });
      const many = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: false,
        limit: 5,
        simplify: true,
      });
      expect(many.output('LeadChat')).toHaveLength(5);
      expect(many.output('LeadChat').every((item) => Object.keys(item.json).length === 15)).toBe(true);
    });

    test('is on by default for the AI tool from version 2, and off in a workflow or in version 1', async () => {
      const node = host.nodeTypes.getByNameAndVersion(LEADCHAT, 2).description;
      // n8n makes the tool from the node's description, named with "Tool" at the end (convertNodeToAiTool).
      const tool: INodeTypeDescription = { ...node, name: `${node.name}Tool` };
      const simplify = (description: INodeTypeDescription, typeVersion: number) =>
        NodeHelpers.getNodeParameters(
          description.properties,
          { resource: 'conversation', operation: 'getAll' },
          true,
          false,
          { typeVersion },
          description,
        )?.simplify;
      expect(simplify(tool, 2)).toBe(true);
      expect(simplify(tool, 1)).toBe(false);
      expect(simplify(node, 2)).toBe(false);
      expect(simplify(node, 1)).toBe(false);
    });
  });
});
