import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { createAccount, listAll, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { CREDENTIAL, createHost, runLeadChat, type Host } from './helpers/n8n';

/** More conversations than one page of Return All (100), so Get Many has to follow nextCursor. */
const MANY = 130;

/** Conversation › Get, Get Many, Hand Off, Resume Bot, Send as Team Member, run as workflows against the gateway. */
describe('LeadChat node: conversations', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  let campaignId: string;
  /** The team's custom-channel system: it takes every reply, so the team's messages go out. */
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  /** Contact IDs of the custom-channel conversations, by fromId. */
  const contacts = new Map<string, string>();

  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });

  /** Every conversation as the API lists them (newest activity first), walked page by page. */
  const listed = (query = '') => listAll(gw, account.apiKey, '/conversations', query);

  beforeAll(async () => {
    gw = await startGateway();
    account = await createAccount(gw);
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/replies`;
    expect((await api('PUT', '/settings', { customChannelWebhookUrl: receiverUrl })).status).toBe(200);
    const list = (await api('POST', '/lists', { name: 'Web chat leads' })).body;
    const campaign = await api('POST', '/campaigns', {
      name: 'Web chat',
      channel: 'custom',
      customChannel: 'webchat',
      listId: list.id,
      openingMessage: 'Hi {{first_name|there}}!',
      triggerOnNewContacts: true,
      status: 'live',
      // The team answers these visitors from n8n: no bot speaks (or hands off) on its own.
      bot: { active: false },
    });
    expect(campaign.status).toBe(201);
    campaignId = campaign.body.id;
    // Each visitor who writes on the custom channel is a contact with a conversation of the campaign.
    for (let n = 0; n < MANY; n++) {
      const fromId = `visitor-${n}`;
      const res = await api('POST', '/incoming_custom_channel_message', {
        customData: {
          messageSid: `m-${n}`,
          fromId,
          toId: 'acme',
          body: `Question ${n}`,
          channel: 'webchat',
          campaignId,
          firstName: `V${n}`,
        },
      });
      expect(res.status).toBe(200);
      const message = await api('GET', `/messages/${res.body.messageId}`);
      contacts.set(fromId, message.body.contactId);
    }
    // And one SMS conversation of no campaign.
    expect((await api('POST', '/channels/sms/incoming', { phone: '+14155550190', body: 'Hello by SMS' })).status).toBe(
      200,
    );
  }, 120_000);
  afterAll(async () => {
    await gw.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  describe('Get Many', () => {
    test('Return All walks every page: each conversation once, in the API order, one item each paired to the input', async () => {
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: true,
        filters: { campaignId },
      });
      expect(run.error).toBeUndefined();
      const items = run.output('LeadChat');
      expect(items).toHaveLength(MANY);
      expect(new Set(items.map((i) => i.json.id)).size).toBe(MANY);
      expect(items.map((i) => i.json.id)).toEqual((await listed(`&campaignId=${campaignId}`)).map((c) => c.id));
      for (const item of items) expect(item.pairedItem).toEqual({ item: 0 });
      expect(items[0]!.json).toMatchObject({
        id: expect.stringMatching(/\S/),
        contactId: expect.any(String),
        contact: expect.objectContaining({ firstName: expect.stringMatching(/^V\d+$/) }),
        campaignId,
        channel: 'custom',
        customChannel: 'webchat',
        status: 'active',
        bot: { active: true },
        lastMessage: expect.objectContaining({ direction: 'incoming' }),
      });
    });

    test('Limit stops after that many, across pages; the default is 50', async () => {
      const all = await listed(`&campaignId=${campaignId}`);
      const over = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: false,
        limit: 115,
        filters: { campaignId },
      });
      expect(over.output('LeadChat').map((i) => i.json.id)).toEqual(all.slice(0, 115).map((c) => c.id));
      const small = await runLeadChat(host, { resource: 'conversation', operation: 'getAll', limit: 3 });
      expect(small.output('LeadChat')).toHaveLength(3);
      const byDefault = await runLeadChat(host, { resource: 'conversation', operation: 'getAll' });
      expect(byDefault.output('LeadChat')).toHaveLength(50);
    });

    test('Return All without filters includes every channel; the Channel filter keeps one', async () => {
      const everything = await runLeadChat(host, { resource: 'conversation', operation: 'getAll', returnAll: true });
      expect(everything.output('LeadChat')).toHaveLength(MANY + 1);
      const sms = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: true,
        filters: { channel: 'sms' },
      });
      expect(sms.output('LeadChat').map((i) => i.json)).toEqual([
        expect.objectContaining({
          channel: 'sms',
          campaignId: null,
          contact: expect.objectContaining({ phone: '+14155550190' }),
        }),
      ]);
    });

    test("the Contact ID filter keeps each input item's contact's conversations, paired to it; an unknown contact fails saying so", async () => {
      const visitors = ['visitor-3', 'visitor-7'];
      const run = await runLeadChat(
        host,
        { resource: 'conversation', operation: 'getAll', returnAll: true, filters: { contactId: '={{ $json.id }}' } },
        visitors.map((visitor) => ({ json: { id: contacts.get(visitor) } })),
      );
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat').map((i) => [i.json.contactId, i.json.customChannel, i.pairedItem])).toEqual([
        [contacts.get('visitor-3'), 'webchat', { item: 0 }],
        [contacts.get('visitor-7'), 'webchat', { item: 1 }],
      ]);
      const unknown = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        filters: { contactId: 'ct_nobody' },
      });
      expect(unknown.error?.description).toMatch(
        /^HTTP 404 CONTACT_NOT_FOUND from GET \/conversations\. Check the Contact ID/,
      );
    });

    test('a filter that matches nothing outputs no items', async () => {
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: true,
        filters: { status: 'closed' },
      });
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')).toEqual([]);
    });

    test('every input item gets its own conversations, paired to it', async () => {
      const run = await runLeadChat(host, { resource: 'conversation', operation: 'getAll', limit: '={{ $json.n }}' }, [
        { json: { n: 2 } },
        { json: { n: 1 } },
      ]);
      expect(run.output('LeadChat').map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 1 }]);
    });
  });

  describe('Get', () => {
    test('by ID, with its contact', async () => {
      const [first] = await listed(`&campaignId=${campaignId}`);
      const run = await runLeadChat(host, { resource: 'conversation', operation: 'get', conversationId: first!.id });
      expect(run.output('LeadChat')).toEqual([{ json: first, pairedItem: { item: 0 } }]);
    });

    test('an unknown ID fails with the API message and what to check', async () => {
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'get',
        conversationId: 'cnv_missing',
      });
      expect(run.error?.message).toMatch(/^LeadChat: Conversation not found$/);
      expect(run.error?.description).toMatch(
        /HTTP 404 CONVERSATION_NOT_FOUND from GET \/conversations\/cnv_missing\. Check the Conversation ID/,
      );
    });

    test('an empty ID fails before calling the API', async () => {
      const run = await runLeadChat(host, { resource: 'conversation', operation: 'get', conversationId: ' ' });
      expect(run.error?.message).toBe('Conversation ID is empty');
    });
  });

  describe('Hand Off and Resume Bot', () => {
    test("Hand Off silences the bot on the contact's conversations; Get Many finds them handed off; Resume Bot gives them back", async () => {
      const contactId = contacts.get('visitor-7')!;
      const off = await runLeadChat(host, { resource: 'conversation', operation: 'handOff', contactId });
      expect(off.output('LeadChat')[0]).toEqual({
        json: {
          success: true,
          contactId,
          active: false,
          conversations: [
            expect.objectContaining({ contactId, status: 'handed_off', bot: { active: false, answers: false } }),
          ],
        },
        pairedItem: { item: 0 },
      });
      const handedOff = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: true,
        filters: { status: 'handed_off', channel: 'custom' },
      });
      expect(handedOff.output('LeadChat').map((i) => i.json.contactId)).toEqual([contactId]);

      const on = await runLeadChat(host, { resource: 'conversation', operation: 'resumeBot', contactId });
      expect(on.output('LeadChat')[0]!.json).toMatchObject({
        success: true,
        contactId,
        active: true,
        conversations: [
          expect.objectContaining({
            status: 'active',
            bot: { active: true, since: expect.any(String), answers: false },
          }),
        ],
      });
      const conversation = (await listed(`&campaignId=${campaignId}`)).find((c) => c.contactId === contactId)!;
      expect(conversation).toMatchObject({ status: 'active', bot: { active: true } });
    });

    test('an unknown contact fails with what to check; Continue On Fail keeps the other items going', async () => {
      const run = await runLeadChat(
        host,
        { resource: 'conversation', operation: 'handOff', contactId: '={{ $json.id }}' },
        [{ json: { id: 'ct_nobody' } }, { json: { id: contacts.get('visitor-8') } }],
        { continueOnFail: true },
      );
      const [missing, done] = run.output('LeadChat');
      expect(missing).toEqual({
        json: {
          error: 'LeadChat: Contact not found',
          details: expect.stringMatching(
            /^HTTP 404 CONTACT_NOT_FOUND from POST \/contacts\/ct_nobody\/bot\. Check the Contact ID/,
          ),
          httpCode: '404',
          errorCode: 'CONTACT_NOT_FOUND',
        },
        pairedItem: { item: 0 },
      });
      expect(done).toMatchObject({ json: { success: true, active: false }, pairedItem: { item: 1 } });
    });
  });

  describe('Send as Team Member', () => {
    test("the message goes out on the contact's conversation as the team's, and hands it off", async () => {
      const contactId = contacts.get('visitor-11')!;
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'sendAsTeamMember',
        contactId,
        text: 'Hi, Sam from the team here',
      });
      const message = run.output('LeadChat')[0]!.json;
      expect(message).toMatchObject({
        id: expect.stringMatching(/\S/),
        contactId,
        direction: 'outgoing',
        body: 'Hi, Sam from the team here',
        author: 'team',
        channel: 'webchat',
        conversationId: expect.any(String),
      });
      const conversation = await api('GET', `/conversations/${message.conversationId}`);
      expect(conversation.body).toMatchObject({
        contactId,
        status: 'handed_off',
        bot: { active: false },
        lastMessage: { id: message.id },
      });
    });

    test('with an Idempotency Key, a run made again (its answer lost) sends once and outputs the first reply; the key again with other text fails, saying why', async () => {
      const contactId = contacts.get('visitor-14')!;
      const send = (text: string) =>
        runLeadChat(host, {
          resource: 'conversation',
          operation: 'sendAsTeamMember',
          contactId,
          text,
          additionalFields: { idempotencyKey: ' ticket-4711 ' },
        });
      const first = await send('Your order ships today');
      expect(first.error).toBeUndefined();
      const again = await send('Your order ships today');
      expect(again.output('LeadChat')[0]!.json).toEqual(first.output('LeadChat')[0]!.json);
      const team = (await api('GET', `/contacts/${contactId}/messages`)).body.data.filter(
        (m: { author: string }) => m.author === 'team',
      );
      expect(team).toHaveLength(1);

      const reused = await send('Another answer');
      expect(reused.error?.description).toMatch(
        /^HTTP 422 IDEMPOTENCY_KEY_REUSED from POST \/contacts\/\S+\/messages\. This Idempotency Key was already used for another request/,
      );
    });

    test('with a Conversation ID, on that conversation; one of another contact is refused with the API message', async () => {
      const contactId = contacts.get('visitor-12')!;
      const [own] = (await listed(`&campaignId=${campaignId}`)).filter((c) => c.contactId === contactId);
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'sendAsTeamMember',
        contactId,
        text: 'Following up',
        additionalFields: { conversationId: own!.id },
      });
      expect(run.output('LeadChat')[0]!.json).toMatchObject({ conversationId: own!.id, body: 'Following up' });

      const other = (await listed(`&campaignId=${campaignId}`)).find(
        (c) => c.contactId === contacts.get('visitor-13'),
      )!;
      const wrong = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'sendAsTeamMember',
        contactId,
        text: 'Oops',
        additionalFields: { conversationId: other.id },
      });
      expect(wrong.error?.message).toBe('LeadChat: conversationId: the conversation is not one of this contact');
      expect(wrong.error?.description).toMatch(/^HTTP 400 VALIDATION_ERROR from POST \/contacts\/ct_\w+\/messages\./);
    });

    test('a message stored failed (nothing receives the custom channel) fails the item, or becomes an error item on Continue On Fail', async () => {
      const contactId = contacts.get('visitor-14')!;
      const settings = await api('GET', '/settings');
      expect((await api('PUT', '/settings', { customChannelWebhookUrl: null })).status).toBe(200);
      try {
        const run = await runLeadChat(host, {
          resource: 'conversation',
          operation: 'sendAsTeamMember',
          contactId,
          text: 'Anyone there?',
        });
        expect(run.error?.message).toMatch(
          /^LeadChat: the message was stored as failed: No Custom Channel Webhook URL is configured/,
        );
        expect(run.error?.description).toMatch(
          /^Message msg_\w+ was not sent \(NO_RECEIVER\)\. .*Custom Channel Webhook/,
        );
        const stored = (await api('GET', `/contacts/${contactId}/messages`)).body.data.at(-1);
        expect(stored).toMatchObject({ body: 'Anyone there?', status: 'failed', errorCode: 'NO_RECEIVER' });

        const continued = await runLeadChat(
          host,
          { resource: 'conversation', operation: 'sendAsTeamMember', contactId, text: 'Still there?' },
          [{ json: {} }],
          { continueOnFail: true },
        );
        const retryable = (await api('GET', `/contacts/${contactId}/messages`)).body.data.at(-1);
        expect(continued.output('LeadChat')).toEqual([
          {
            json: {
              error: expect.stringMatching(/stored as failed/),
              details: expect.stringMatching(/NO_RECEIVER/),
              messageId: retryable.id,
              errorCode: 'NO_RECEIVER',
            },
            pairedItem: { item: 0 },
          },
        ]);
      } finally {
        await api('PUT', '/settings', { customChannelWebhookUrl: settings.body.customChannelWebhookUrl });
      }
    });

    test('a contact with no conversation yet is told how one starts', async () => {
      const fresh = await api('POST', '/contacts', { email: 'quiet@example.com' });
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'sendAsTeamMember',
        contactId: fresh.body.id,
        text: 'Hello?',
      });
      expect(run.error?.message).toMatch(/^LeadChat: The contact has no conversation yet/);
      expect(run.error?.description).toMatch(
        /HTTP 409 NO_CONVERSATION .*campaign's opening message or a message from the contact/,
      );
    });

    test('a contact who opted out gets nothing, and the item says why', async () => {
      const stop = await api('POST', '/incoming_custom_channel_message', {
        customData: { messageSid: 'm-stop', fromId: 'visitor-20', toId: 'acme', body: 'STOP', channel: 'webchat' },
      });
      expect(stop.status).toBe(200);
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'sendAsTeamMember',
        contactId: contacts.get('visitor-20')!,
        text: 'Are you sure?',
      });
      expect(run.error?.message).toMatch(/^LeadChat: The contact opted out/);
      expect(run.error?.description).toMatch(/HTTP 409 CONTACT_OPTED_OUT .*until they write START/);
      const optedOut = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: true,
        filters: { status: 'opted_out' },
      });
      expect(optedOut.output('LeadChat').map((i) => i.json.contactId)).toEqual([contacts.get('visitor-20')]);
    });

    test('an empty text or contact fails before calling the API', async () => {
      const noText = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'sendAsTeamMember',
        contactId: 'ct_x',
        text: '  ',
      });
      expect(noText.error?.message).toBe('Text is empty');
      // An expression that comes out empty: n8n itself stops a workflow whose required field is left blank.
      const noContact = await runLeadChat(
        host,
        { resource: 'conversation', operation: 'sendAsTeamMember', contactId: '={{ $json.id }}', text: 'Hi' },
        [{ json: { id: ' ' } }],
      );
      expect(noContact.error?.message).toBe('Contact ID is empty');
    });
  });
});
