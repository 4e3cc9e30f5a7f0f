import { createHmac } from 'node:crypto';

import { createAccount, listAll, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { StandIn } from '../gateway/stand-in';
import { CREDENTIAL, createHost, runLeadChat, triggerNode, type Host } from './helpers/n8n';
import { WebhookHost } from './helpers/webhookHost';

const PAGE_ID = '110200300400500';
const INSTAGRAM_ID = '17841400000000001';
const messenger = {
  pageId: PAGE_ID,
  pageAccessToken: 'EAAB-token-0123456789',
  appSecret: 'a1'.repeat(16),
  verifyToken: 'verify-token-1',
};
const instagram = {
  instagramAccountId: INSTAGRAM_ID,
  accessToken: 'IGAA-token-0123456789',
  appSecret: 'b2'.repeat(16),
  verifyToken: 'verify-token-2',
};
const MESSENGER_PSID = '7000000000000001';
const INSTAGRAM_IGSID = '8000000000000002';

/**
 * Messenger and Instagram through the n8n nodes, against a real gateway whose Graph API (Meta's profiles and Send
 * API) is a stand-in on 127.0.0.1, so nothing leaves this machine: a Messenger campaign created by the node (and one
 * with an opening message refused), the Get Many channel filter, and Message Received naming the channel.
 */
describe('LeadChat nodes: Messenger and Instagram', () => {
  let graph: StandIn;
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  let hooks: WebhookHost;

  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });

  /** A contact's message as Meta posts it to the gateway, signed with the app secret over the raw body. */
  const metaMessage = async (channel: 'messenger' | 'instagram', sender: string, mid: string, text: string) => {
    const page = channel === 'messenger' ? PAGE_ID : INSTAGRAM_ID;
    const at = Date.now();
    const body = JSON.stringify({
      object: channel === 'messenger' ? 'page' : 'instagram',
      entry: [
        {
          id: page,
          time: at,
          messaging: [{ sender: { id: sender }, recipient: { id: page }, timestamp: at, message: { mid, text } }],
        },
      ],
    });
    const secret = channel === 'messenger' ? messenger.appSecret : instagram.appSecret;
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const res = await request(gw, 'POST', `/v1/channels/${channel}/${account.id}/webhook`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    });
    expect(res.status).toBe(200);
  };

  /** The Message Received items the trigger produced so far, in the order the executions ended. */
  const received = () =>
    hooks.executions
      .map((run) => run.output('LeadChat Trigger')[0]!.json)
      .filter((item) => item.event === 'message_received');

  beforeAll(async () => {
    graph = await new StandIn((req) => {
      if (req.method === 'GET')
        return {
          status: 200,
          body: { id: req.url.split(/[/?]/)[2], first_name: 'Marta', last_name: 'Ruiz', name: 'Marta Ruiz' },
        };
      return { status: 200, body: { recipient_id: 'x', message_id: `m_${graph.requests.length}` } };
    }).start('/v23.0');
    gw = await startGateway({ LEADCHAT_MESSENGER_API_URL: graph.url, LEADCHAT_INSTAGRAM_API_URL: graph.url });
    account = await createAccount(gw);
    const credentials = { [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } };
    host = await createHost(credentials);
    expect((await api('PUT', '/channels/messenger', messenger)).status).toBe(200);
    expect((await api('PUT', '/channels/instagram', instagram)).status).toBe(200);
    // The contacts' messages land on a Live campaign whose bot stays silent: nothing goes to the Send API.
    for (const channel of ['messenger', 'instagram']) {
      expect(
        (await api('POST', '/campaigns', { name: `Inbox ${channel}`, channel, status: 'live', bot: { active: false } }))
          .status,
      ).toBe(201);
    }

    hooks = await WebhookHost.start(
      credentials,
      { nodes: [triggerNode({ events: ['message_received'], registration: 'automatic' })] },
      'LeadChat Trigger',
    );
    await hooks.activate();

    await metaMessage('messenger', MESSENGER_PSID, 'm1', 'Hi');
    await metaMessage('instagram', INSTAGRAM_IGSID, 'ig1', 'Hello from Instagram');
    expect((await api('POST', '/channels/sms/incoming', { phone: '+14155550190', body: 'Hello by SMS' })).status).toBe(
      200,
    );
    const custom = await api('POST', '/incoming_custom_channel_message', {
      customData: {
        messageSid: 'web-1',
        fromId: 'visitor-1',
        toId: 'acme',
        body: 'Hello from the web chat',
        channel: 'webchat',
      },
    });
    expect(custom.status).toBe(200);
    await hooks.waitFor(() => received().length >= 4, 'the four Message Received executions');
  }, 60_000);
  afterAll(async () => {
    await hooks?.deactivate();
    await hooks?.close();
    await gw?.stop();
    await graph?.close();
  });

  test("the gateway asked only the stand-in Graph API (the new contacts' profiles), and sent nothing", () => {
    expect(graph.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(graph.requests.map((r) => r.url.split('?')[0]).sort()).toEqual(
      [`/v23.0/${MESSENGER_PSID}`, `/v23.0/${INSTAGRAM_IGSID}`].sort(),
    );
  });

  describe('LeadChat Trigger', () => {
    test("a Message Received item for a Messenger message names channel 'messenger' and the sender's Messenger id", async () => {
      const item = received().find((e) => e.body === 'Hi');
      expect(item).toEqual({
        event: 'message_received',
        deliveryId: expect.any(String),
        type: 'message_received',
        occurredAt: expect.any(String),
        contactId: expect.stringMatching(/\S/),
        conversationId: expect.stringMatching(/\S/),
        messageId: expect.stringMatching(/\S/),
        channel: 'messenger',
        customChannel: null,
        body: 'Hi',
        fromId: MESSENGER_PSID,
        mediaUrl: null,
      });
      const contact = await api('GET', `/contacts/${item!.contactId}`);
      expect(contact.body).toMatchObject({ firstName: 'Marta', externalIds: { messenger: MESSENGER_PSID } });
    });

    test('each channel is told apart by the channel field', () => {
      const channelOf = Object.fromEntries(received().map((e) => [e.body, e.channel]));
      expect(channelOf).toEqual({
        Hi: 'messenger',
        'Hello from Instagram': 'instagram',
        'Hello by SMS': 'sms',
        'Hello from the web chat': 'custom',
      });
    });
  });

  describe('Conversation › Get Many', () => {
    test('the Messenger filter returns only the Messenger conversations', async () => {
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: true,
        filters: { channel: 'messenger' },
      });
      expect(run.error).toBeUndefined();
      const items = run.output('LeadChat').map((i) => i.json);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({
        channel: 'messenger',
        contact: expect.objectContaining({ externalIds: expect.objectContaining({ messenger: MESSENGER_PSID }) }),
        lastMessage: expect.objectContaining({ body: 'Hi', direction: 'incoming' }),
      });
      // The account has conversations on four channels; the filter let the other three through to none.
      expect((await listAll(gw, account.apiKey, '/conversations')).map((c) => c.channel).sort()).toEqual([
        'custom',
        'instagram',
        'messenger',
        'sms',
      ]);
    });

    test('the Instagram filter returns only the Instagram conversations', async () => {
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: true,
        filters: { channel: 'instagram' },
      });
      expect(run.error).toBeUndefined();
      const items = run.output('LeadChat').map((i) => i.json);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({
        channel: 'instagram',
        contact: expect.objectContaining({ externalIds: expect.objectContaining({ instagram: INSTAGRAM_IGSID }) }),
      });
    });

    test('the filter offers both channels, each with a description', () => {
      const node = host.nodeTypes.getByNameAndVersion('n8n-nodes-leadchat.leadChat', 1);
      const filters = node.description.properties.find(
        (p) => p.name === 'filters' && p.displayOptions?.show?.resource?.includes('conversation'),
      )!;
      const channel = (
        filters.options as Array<{
          name: string;
          options?: Array<{ name: string; value: string; description?: string }>;
        }>
      ).find((o) => o.name === 'channel')!;
      expect(channel.options!.map((o) => o.value)).toEqual(['custom', 'instagram', 'messenger', 'sms', 'whatsapp']);
      for (const option of channel.options!) expect(option.description).toMatch(/\S/);
    });
  });

  describe('Campaign › Create', () => {
    test('a Live Messenger campaign is created: no list, no opening message, the bot set up', async () => {
      const run = await runLeadChat(host, {
        resource: 'campaign',
        operation: 'create',
        name: 'Page answers',
        channel: 'messenger',
        status: 'live',
        additionalFields: {
          botActive: false,
          goal: 'The contact books a visit',
          faqs: { faq: [{ question: 'Do you open on Sundays?', answer: 'No, Monday to Saturday only.' }] },
        },
      });
      expect(run.error).toBeUndefined();
      const [item] = run.output('LeadChat');
      expect(item!.pairedItem).toEqual({ item: 0 });
      expect(item!.json).toMatchObject({
        id: expect.stringMatching(/\S/),
        name: 'Page answers',
        channel: 'messenger',
        status: 'live',
        listId: null,
        openingMessage: null,
        bot: expect.objectContaining({
          active: false,
          goal: 'The contact books a visit',
          faqs: [{ question: 'Do you open on Sundays?', answer: 'No, Monday to Saturday only.' }],
        }),
      });
      expect((await api('GET', `/campaigns/${item!.json.id}`)).body).toMatchObject({
        name: 'Page answers',
        channel: 'messenger',
        status: 'live',
      });
    });

    test("an opening message on Messenger (the channel given by an expression) fails the item with the gateway's NO_FIRST_MESSAGE and what to do", async () => {
      const before = (await listAll(gw, account.apiKey, '/campaigns')).length;
      const run = await runLeadChat(
        host,
        {
          resource: 'campaign',
          operation: 'create',
          name: '={{ $json.name }}',
          channel: '={{ $json.channel }}',
          openingMessage: 'Hi {{first_name|there}}, want a demo?',
          status: 'draft',
        },
        [{ json: { name: 'Sheet row 7', channel: 'messenger' } }],
      );
      expect(run.error).toBeDefined();
      expect(run.error!.message).toBe(
        'LeadChat: openingMessage: Messenger does not let a business write first: the campaign answers the contacts who write; leave openingMessage empty',
      );
      expect(run.error!.description).toMatch(/^HTTP 400 NO_FIRST_MESSAGE from POST \/campaigns\. /);
      expect(run.error!.description).toContain('leave Opening Message and Opening Template empty');
      expect(run.error!.httpCode).toBe('400');
      expect((await listAll(gw, account.apiKey, '/campaigns')).length).toBe(before);
    });

    test('with Continue on Fail the refusal becomes the item, and the other items are created', async () => {
      const run = await runLeadChat(
        host,
        {
          resource: 'campaign',
          operation: 'create',
          name: '={{ $json.name }}',
          channel: '={{ $json.channel }}',
          openingMessage: '={{ $json.opening }}',
        },
        [
          { json: { name: 'Instagram opener', channel: 'instagram', opening: 'Hello!' } },
          { json: { name: 'SMS opener', channel: 'sms', opening: 'Hello {{first_name|there}}!' } },
        ],
        { onError: 'continueRegularOutput' },
      );
      expect(run.error).toBeUndefined();
      const [refused, created] = run.output('LeadChat').map((i) => i.json);
      expect(refused).toMatchObject({
        httpCode: '400',
        error: expect.stringContaining('Instagram does not let a business write first'),
      });
      expect(refused!.details).toContain('NO_FIRST_MESSAGE');
      expect(created).toMatchObject({
        name: 'SMS opener',
        channel: 'sms',
        status: 'draft',
        openingMessage: 'Hello {{first_name|there}}!',
      });
    });

    test('the Channel options name Messenger and Instagram as answering only', () => {
      const node = host.nodeTypes.getByNameAndVersion('n8n-nodes-leadchat.leadChat', 1);
      const channel = node.description.properties.find(
        (p) => p.name === 'channel' && p.displayOptions?.show?.operation?.includes('create'),
      )!;
      const options = channel.options as Array<{ value: string; description: string }>;
      expect(options.map((o) => o.value)).toEqual(['custom', 'instagram', 'messenger', 'sms', 'whatsapp']);
      expect(options.find((o) => o.value === 'messenger')!.description).toBe(
        'Answers those who write to your Page; sends no opening message',
      );
      expect(options.find((o) => o.value === 'instagram')!.description).toMatch(/sends no opening message$/);
      // The editor hides what a Meta campaign cannot have.
      for (const name of ['openingMessage', 'list']) {
        const property = node.description.properties.find(
          (p) => p.name === name && p.displayOptions?.show?.operation?.includes('create'),
        )!;
        expect(property.displayOptions!.hide).toEqual({ channel: ['messenger', 'instagram'] });
      }
    });
  });
});
