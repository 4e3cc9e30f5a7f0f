import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { createHost, listSearch, listSearchAll, runLeadChat, type Host } from './helpers/n8n';

const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** List > Add Contact (and its list dropdown), Message > Send / Receive, Credit > Grant, against the gateway. */
describe('LeadChat node: lists, messages, credits', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;

  beforeAll(async () => {
    gw = await startGateway();
    account = await createAccount(gw);
    host = await createHost({ leadChatApi: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  describe('List', () => {
    test('the List dropdown shows the lists of the account, filtered by name', async () => {
      const a = await request(gw, 'POST', '/v1/lists', { apiKey: account.apiKey, body: { name: 'Webinar leads' } });
      const b = await request(gw, 'POST', '/v1/lists', { apiKey: account.apiKey, body: { name: 'Ebook leads' } });
      const all = await listSearch(host, 'searchLists');
      expect(all.results).toEqual(
        expect.arrayContaining([
          { name: 'Webinar leads', value: a.body.id },
          { name: 'Ebook leads', value: b.body.id },
        ]),
      );
      const filtered = await listSearch(host, 'searchLists', 'webinar');
      expect(filtered.results).toEqual([{ name: 'Webinar leads', value: a.body.id }]);
    });

    test('the List dropdown reads the lists a page at a time, as the user scrolls', async () => {
      const other = await createAccount(gw);
      const otherHost = await createHost({
        leadChatApi: { baseUrl: gw.apiBase, apiKey: other.apiKey, ignoreSslIssues: true },
      });
      for (let n = 0; n < 120; n++) {
        await request(gw, 'POST', '/v1/lists', {
          apiKey: other.apiKey,
          body: { name: `Campaign list ${String(n).padStart(3, '0')}` },
        });
      }
      expect((await listSearch(otherHost, 'searchLists')).results).toHaveLength(50);
      const all = await listSearchAll(otherHost, 'searchLists');
      expect(all.pages).toBe(3);
      expect(all.results).toHaveLength(120);
      expect(all.results.at(-1)!.name).toBe('Campaign list 119');
      // The search runs on the server, over every list, not only the first page.
      expect((await listSearch(otherHost, 'searchLists', 'list 11')).results.map((r) => r.name)).toEqual(
        Array.from({ length: 10 }, (_, n) => `Campaign list ${110 + n}`),
      );
    });

    test('Add Contact: added once, then reported as already on the list', async () => {
      const list = await request(gw, 'POST', '/v1/lists', { apiKey: account.apiKey, body: { name: 'VIP' } });
      const contact = await request(gw, 'POST', '/v1/contacts', {
        apiKey: account.apiKey,
        body: { phone: '+15005550006' },
      });
      const params = {
        resource: 'list',
        operation: 'addContact',
        list: { __rl: true, mode: 'list', value: list.body.id, cachedResultName: 'VIP' },
        contactId: contact.body.id,
      };
      const first = await runLeadChat(host, params);
      expect(first.output('LeadChat')[0]!.json).toEqual({
        success: true,
        listId: list.body.id,
        contactId: contact.body.id,
        added: true,
      });
      const second = await runLeadChat(host, params);
      expect(second.output('LeadChat')[0]!.json).toMatchObject({ added: false });
    });

    test('Add Contact: an unknown contact fails with what to check', async () => {
      const list = await request(gw, 'POST', '/v1/lists', { apiKey: account.apiKey, body: { name: 'Empty' } });
      const run = await runLeadChat(host, {
        resource: 'list',
        operation: 'addContact',
        list: { __rl: true, mode: 'id', value: list.body.id },
        contactId: 'ct_nobody',
      });
      expect(run.error?.message).toMatch(/^LeadChat: Contact not found$/);
      expect(run.error?.description).toMatch(/Check the List and the Contact ID/);
    });
  });

  describe('Message', () => {
    test('Send: with Continue On Fail, a message stored failed gives an error item with the failed message ID, for Message > Retry', async () => {
      const params = {
        resource: 'message',
        operation: 'send',
        fromId: 'crm-2002',
        customChannel: 'crm-retry',
        text: 'Your quote is ready',
      };
      const run = await runLeadChat(host, params, [{ json: {} }], { continueOnFail: true });
      const [item] = run.output('LeadChat');
      expect(item!.json).toEqual({
        error: expect.stringMatching(/^LeadChat: Message not sent \(NO_RECEIVER\)/),
        details: expect.stringMatching(/stored as failed/),
        messageId: expect.stringMatching(/^msg_\w+$/),
        errorCode: 'NO_RECEIVER',
      });
      const stored = await request(gw, 'GET', `/v1/messages/${String(item!.json.messageId)}`, {
        apiKey: account.apiKey,
      });
      expect(stored.body).toMatchObject({ status: 'failed', errorCode: 'NO_RECEIVER', body: 'Your quote is ready' });
    });

    test("Send: a chat system's numeric user ID and name, mapped by expression, are sent as text", async () => {
      const run = await runLeadChat(
        host,
        {
          resource: 'message',
          operation: 'send',
          fromId: '={{ $json.userId }}',
          customChannel: 'crm-numeric',
          text: '={{ $json.code }}',
          additionalFields: { firstName: '={{ $json.first }}' },
        },
        [{ json: { userId: 4242, code: 1234, first: 7 } }],
        { continueOnFail: true },
      );
      const [item] = run.output('LeadChat');
      // Nothing receives the channel: the message is stored failed, which shows what was sent.
      expect(item!.json).toMatchObject({ errorCode: 'NO_RECEIVER', messageId: expect.stringMatching(/^msg_/) });
      const stored = await request(gw, 'GET', `/v1/messages/${String(item!.json.messageId)}`, {
        apiKey: account.apiKey,
      });
      expect(stored.body).toMatchObject({ body: '1234' });
      const contact = await request(gw, 'GET', `/v1/contacts/${String(stored.body.contactId)}`, {
        apiKey: account.apiKey,
      });
      expect(contact.body).toMatchObject({ firstName: '7', externalIds: { 'crm-numeric': '4242' } });
    });

    test('Send: a text too large for the API is told to be shortened, not to host a file it does not have', async () => {
      const run = await runLeadChat(host, {
        resource: 'message',
        operation: 'send',
        fromId: 'crm-3003',
        customChannel: 'crm',
        text: 'x'.repeat(200_000),
      });
      expect(run.error?.description).toMatch(/^HTTP 413 .*Shorten the text or the fields sent\.$/);
      expect(run.error?.description).not.toMatch(/Media URL/);
    });

    test('Send: the message goes out on the custom channel and names the contact it created; with nothing to receive it, the node says so and how to fix it', async () => {
      const send = () =>
        runLeadChat(host, {
          resource: 'message',
          operation: 'send',
          fromId: 'crm-1001',
          customChannel: 'crm',
          text: 'Your demo is booked',
          additionalFields: { firstName: 'Lee', email: 'lee@example.com' },
        });
      const unsent = await send();
      expect(unsent.error?.message).toMatch(/^LeadChat: Message not sent \(NO_RECEIVER\)/);
      expect(unsent.error?.description).toMatch(/stored as failed .*set the Custom Channel Webhook/);

      const receiver = createServer((req, res) => req.resume().on('end', () => res.end()));
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/replies`;
        const settings = { apiKey: account.apiKey, body: { customChannelWebhookUrl: url } };
        expect((await request(gw, 'PUT', '/v1/settings', settings)).status).toBe(200);
        const out = (await send()).output('LeadChat')[0]!.json;
        expect(out).toMatchObject({
          success: true,
          messageId: expect.any(String),
          contactId: expect.any(String),
          message: expect.any(String),
          errorCode: null,
        });
        const contact = await request(gw, 'GET', `/v1/contacts/${out.contactId}`, { apiKey: account.apiKey });
        expect(contact.body).toMatchObject({ firstName: 'Lee', email: 'lee@example.com' });
      } finally {
        const settings = { apiKey: account.apiKey, body: { customChannelWebhookUrl: null } };
        await request(gw, 'PUT', '/v1/settings', settings);
        await new Promise((resolve) => receiver.close(resolve));
      }
    });

    test('Receive: a text message with every optional field; the same Message ID again is not processed twice', async () => {
      const campaign = await request(gw, 'POST', '/v1/campaigns', { apiKey: account.apiKey, body: { name: 'Spring' } });
      const params = {
        resource: 'message',
        operation: 'receive',
        messageSid: '={{ $json.id }}',
        fromId: 'visitor-55',
        toId: 'support@acme.test',
        messageType: 'text',
        text: '={{ $json.text }}',
        media: 'url',
        mediaUrl: 'https://cdn.example.com/brochure.pdf',
        mediaContentType: 'application/pdf',
        additionalFields: {
          status: 'received',
          channel: 'livechat',
          campaignId: campaign.body.id,
          firstName: 'Vera',
          lastName: 'Visitor',
          email: 'vera@example.com',
        },
      };
      const first = await runLeadChat(host, params, [{ json: { id: 'lc-msg-1', text: 'Do you ship to Norway?' } }]);
      const { messageId } = first.output('LeadChat')[0]!.json;
      expect(first.output('LeadChat')[0]!.json).toEqual({ success: true, messageId: expect.any(String) });
      const stored = await request(gw, 'GET', `/v1/messages/${messageId}`, { apiKey: account.apiKey });
      expect(stored.body).toMatchObject({
        body: 'Do you ship to Norway?',
        channel: 'livechat',
        campaignId: campaign.body.id,
        media: { url: 'https://cdn.example.com/brochure.pdf', contentType: 'application/pdf' },
      });
      const again = await runLeadChat(host, params, [{ json: { id: 'lc-msg-1', text: 'Do you ship to Norway?' } }]);
      expect(again.output('LeadChat')[0]!.json.messageId).toBe(messageId);
    });

    test('Receive: a file from an n8n binary property is sent as a data URI and stored', async () => {
      const run = await runLeadChat(
        host,
        {
          resource: 'message',
          operation: 'receive',
          messageSid: 'lc-msg-png',
          fromId: 'visitor-56',
          toId: 'support',
          text: 'Here is a screenshot',
          media: 'binary',
          binaryPropertyName: 'screenshot',
        },
        [{ json: {}, binary: { screenshot: { data: PNG_1x1, mimeType: 'image/png', fileName: 'shot.png' } } }],
      );
      const { messageId } = run.output('LeadChat')[0]!.json;
      const stored = await request(gw, 'GET', `/v1/messages/${messageId}`, { apiKey: account.apiKey });
      expect(stored.body.media).toMatchObject({ contentType: 'image/png', mediaId: expect.any(String) });
      const file = await request(gw, 'GET', stored.body.media.url, { apiKey: account.apiKey });
      expect(Buffer.from(file.text, 'latin1').length).toBeGreaterThan(0);
      expect(file.headers['content-type']).toMatch(/image\/png/);
    });

    test('Receive: a file whose declared type does not match its content fails with the API message', async () => {
      const run = await runLeadChat(
        host,
        {
          resource: 'message',
          operation: 'receive',
          messageSid: 'lc-msg-bad',
          fromId: 'visitor-57',
          toId: 'support',
          text: 'Wrong type',
          media: 'binary',
          binaryPropertyName: 'data',
          additionalFields: { mediaContentType: 'application/pdf' },
        },
        [{ json: {}, binary: { data: { data: PNG_1x1, mimeType: 'image/png' } } }],
      );
      expect(run.error?.message).toBe(
        'LeadChat: mediaContentType: declared application/pdf but the file content is image/png',
      );
      expect(run.error?.description).toMatch(/^HTTP 400 from POST \/incoming_custom_channel_message\./);
    });

    test('Receive: a reaction', async () => {
      const run = await runLeadChat(host, {
        resource: 'message',
        operation: 'receive',
        messageSid: 'lc-msg-reaction',
        fromId: 'visitor-55',
        toId: 'support@acme.test',
        messageType: 'reaction',
        text: '👍',
      });
      const { messageId } = run.output('LeadChat')[0]!.json;
      const stored = await request(gw, 'GET', `/v1/messages/${messageId}`, { apiKey: account.apiKey });
      expect(stored.body).toMatchObject({ body: '👍', messageType: 'reaction' });
    });

    test('Receive: an empty text fails before calling the API', async () => {
      const run = await runLeadChat(host, {
        resource: 'message',
        operation: 'receive',
        messageSid: 'lc-empty',
        fromId: 'visitor-55',
        toId: 'support',
        text: '   ',
      });
      expect(run.error?.message).toBe('Text is empty');
      expect(run.error?.description).toMatch(/empty or only spaces/);
    });
  });

  describe('Credit > Grant to Sub-account', () => {
    let agency: TestAccount;
    let sub: TestAccount;
    let agencyHost: Host;
    beforeAll(async () => {
      agency = await createAccount(gw, { type: 'agency' });
      sub = await createAccount(gw, { parentEmail: agency.email });
      agencyHost = await createHost({
        leadChatApi: { baseUrl: gw.apiBase, apiKey: agency.apiKey, ignoreSslIssues: true },
      });
    });

    const grant = (extra: Record<string, unknown> = {}) => ({
      resource: 'credit',
      operation: 'grant',
      email: sub.email,
      amount: 40,
      additionalFields: { description: 'Monthly top-up' },
      ...extra,
    });

    test('grants and reports the new balance; the ledger keeps the description', async () => {
      const run = await runLeadChat(agencyHost, grant());
      expect(run.output('LeadChat')[0]!.json).toEqual({
        success: true,
        sub_account_id: sub.id,
        credits_added: 40,
        new_balance: 40,
      });
      const credits = await request(gw, 'GET', '/v1/credits', { apiKey: sub.apiKey });
      expect(JSON.stringify(credits.body.transactions)).toContain('Monthly top-up');
    });

    test('the same Idempotency Key twice grants once; the key with another amount is refused', async () => {
      const before = (await request(gw, 'GET', '/v1/credits', { apiKey: sub.apiKey })).body.balance as number;
      const first = await runLeadChat(agencyHost, grant({ amount: 5, idempotencyKey: 'recharge-7' }));
      const second = await runLeadChat(agencyHost, grant({ amount: 5, idempotencyKey: 'recharge-7' }));
      expect(second.output('LeadChat')[0]!.json).toEqual(first.output('LeadChat')[0]!.json);
      expect((await request(gw, 'GET', '/v1/credits', { apiKey: sub.apiKey })).body.balance).toBe(before + 5);

      const reused = await runLeadChat(agencyHost, grant({ amount: 6, idempotencyKey: 'recharge-7' }));
      expect(reused.error?.message).toMatch(
        /^LeadChat: This Idempotency-Key was used with a different request \(another body, or another path\)$/,
      );
      expect(reused.error?.description).toMatch(/HTTP 422 IDEMPOTENCY_KEY_REUSED .*Use a new key for each new request/);
    });

    test('a standard account is told it needs an agency key; an unknown sub-account names the email to check', async () => {
      const notAgency = await runLeadChat(host, grant());
      expect(notAgency.error?.message).toBe('LeadChat: Only agency accounts can grant credits to sub-accounts');
      expect(notAgency.error?.description).toMatch(/HTTP 403 NOT_AGENCY .*agency account/);

      const unknown = await runLeadChat(agencyHost, grant({ email: 'stranger@example.com' }));
      expect(unknown.error?.description).toMatch(
        /HTTP 404 SUB_ACCOUNT_NOT_FOUND from POST \/subaccounts\/credits\. Check the Sub-Account Email/,
      );
    });

    test('a zero amount fails before calling the API', async () => {
      const run = await runLeadChat(agencyHost, grant({ amount: 0 }));
      expect(run.error?.message).toBe('Amount must be a positive number, not 0');
    });
  });
});
