import nock from 'nock';

import { advanceClock, createAccount, freePort, request, startGateway, type TestGateway } from '../helpers/gateway';
import { createHost, listSearch, runLeadChat } from './helpers/n8n';

const SECRET_KEY = 'lc_live_SECRET_do_not_leak_123456';

/** Everything a failing item shows, serialized: where a leaked key would appear. */
function visible(run: { error?: unknown; run: { data: unknown } }): string {
  return JSON.stringify({ error: run.error, data: run.run.data }, (_k, v) =>
    v instanceof Error ? { ...v, message: v.message } : v,
  );
}

describe('LeadChat node: errors, Continue On Fail, rate limits', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.stop();
  });

  test('a rejected key shows the API message and what to fix, and never the key', async () => {
    const host = await createHost({ leadChatApi: { baseUrl: gw.apiBase, apiKey: SECRET_KEY, ignoreSslIssues: true } });
    const run = await runLeadChat(host, {
      resource: 'contact',
      operation: 'get',
      searchBy: 'email',
      email: 'a@example.com',
    });
    expect(run.error?.message).toBe('LeadChat: Invalid or missing API key');
    expect(run.error?.description).toMatch(
      /HTTP 401 UNAUTHORIZED from GET \/contacts\. Check the API Key of the LeadChat API credential: the key as it was shown, once, when made \(Settings > Account > API Key > Generate, or the gateway operator's leadchat-gateway account create or account rotate-key\)/,
    );
    expect(run.error?.httpCode).toBe('401');
    expect(visible(run)).not.toContain(SECRET_KEY);
  });

  test('Continue On Fail: a failing item becomes an error item paired to it, the others go on', async () => {
    const account = await createAccount(gw);
    const host = await createHost({
      leadChatApi: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true },
    });
    const run = await runLeadChat(
      host,
      { resource: 'contact', operation: 'create', phone: '={{ $json.phone }}', email: '' },
      [{ json: { phone: '+14155550111' } }, { json: { phone: '12' } }, { json: { phone: '+14155550113' } }],
      { onError: 'continueRegularOutput' },
    );
    expect(run.error).toBeUndefined();
    const items = run.output('LeadChat');
    expect(items).toHaveLength(3);
    expect(items[0]).toMatchObject({ json: { phone: '+14155550111', created: true }, pairedItem: { item: 0 } });
    expect(items[1]).toEqual({
      json: {
        error: 'Phone "12" is not a phone number with a country code',
        details: expect.stringMatching(/country code/),
        // The code the API gives such a phone, though the node refused it before calling: one branch for both.
        errorCode: 'INVALID_PHONE',
      },
      pairedItem: { item: 1 },
    });
    expect(items[2]).toMatchObject({ json: { phone: '+14155550113' }, pairedItem: { item: 2 } });
  });

  test("Continue On Fail keeps the API error, its HTTP code and the API's error code on the item", async () => {
    const account = await createAccount(gw);
    const host = await createHost({
      leadChatApi: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true },
    });
    const run = await runLeadChat(
      host,
      { resource: 'credit', operation: 'grant', email: 'sub@example.com', amount: 5 },
      [{ json: {} }],
      { continueOnFail: true },
    );
    expect(run.output('LeadChat')).toEqual([
      {
        json: {
          error: 'LeadChat: Only agency accounts can grant credits to sub-accounts',
          details: expect.stringMatching(/^HTTP 403 NOT_AGENCY/),
          httpCode: '403',
          errorCode: 'NOT_AGENCY',
        },
        pairedItem: { item: 0 },
      },
    ]);
  });

  test('On Error › Continue (using error output): an item the API refuses, or a message stored failed, goes to the error output', async () => {
    const account = await createAccount(gw);
    const host = await createHost({
      leadChatApi: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true },
    });
    const outputs = (run: Awaited<ReturnType<typeof runLeadChat>>) => {
      const [success, failure] = run.run.data.resultData.runData.LeadChat![0]!.data!.main;
      return { success: success ?? [], failure: failure ?? [] };
    };
    const created = await runLeadChat(
      host,
      { resource: 'contact', operation: 'create', phone: '={{ $json.phone }}', email: '={{ $json.email }}' },
      [{ json: { phone: '+14155550121', email: '' } }, { json: { phone: '+14155550122', email: 'not-an-email' } }],
      { onError: 'continueErrorOutput' },
    );
    expect(created.error).toBeUndefined();
    expect(outputs(created).success.map((item) => [item.json.phone, item.pairedItem])).toEqual([
      ['+14155550121', { item: 0 }],
    ]);
    expect(outputs(created).failure).toEqual([
      {
        json: {
          error: expect.stringMatching(/^LeadChat: /),
          details: expect.stringMatching(/^HTTP 400 INVALID_EMAIL from POST \/contacts\./),
        },
        pairedItem: { item: 1 },
      },
    ]);

    // Nothing receives the custom channel: the message is stored failed, and the item says which, for Retry.
    const sent = await runLeadChat(
      host,
      { resource: 'message', operation: 'send', fromId: 'crm-1', customChannel: 'crm', text: 'Hello' },
      [{ json: {} }],
      { onError: 'continueErrorOutput' },
    );
    expect(outputs(sent).success).toEqual([]);
    expect(outputs(sent).failure).toEqual([
      {
        json: {
          error: expect.stringMatching(/^LeadChat: Message not sent \(NO_RECEIVER\)/),
          details: expect.stringMatching(/^The message is stored as failed \(msg_\w+\)\./),
        },
        pairedItem: { item: 0 },
      },
    ]);
  });

  test('batching processes every item, in order, each paired to its input', async () => {
    const account = await createAccount(gw);
    const host = await createHost({
      leadChatApi: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true },
    });
    const phones = ['+33142685300', '+33142685301', '+33142685302', '+33142685303', '+33142685304'];
    const run = await runLeadChat(
      host,
      {
        resource: 'contact',
        operation: 'getOrCreate',
        phone: '={{ $json.phone }}',
        email: '',
        options: { batching: { batch: { batchSize: 2, batchInterval: 10 } } },
      },
      phones.map((phone) => ({ json: { phone } })),
    );
    expect(run.output('LeadChat').map((i) => [i.json.phone, i.pairedItem])).toEqual(
      phones.map((p, n) => [p, { item: n }]),
    );
  });

  describe('unreachable or misconfigured servers', () => {
    test('nothing listening: says which address could not be reached and what to check', async () => {
      const port = await freePort();
      const host = await createHost({ leadChatApi: { baseUrl: `https://127.0.0.1:${port}/v1`, apiKey: SECRET_KEY } });
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'a@example.com',
      });
      expect(run.error?.message).toBe(`LeadChat: could not reach https://127.0.0.1:${port}/v1`);
      expect(run.error?.description).toMatch(/ECONNREFUSED.*Check the Base URL/);
      expect(visible(run)).not.toContain(SECRET_KEY);
    });

    test("the gateway's self-signed certificate without Ignore SSL Issues points at that setting", async () => {
      const account = await createAccount(gw);
      const host = await createHost({
        leadChatApi: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: false },
      });
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'a@example.com',
      });
      expect(run.error?.description).toMatch(/Ignore SSL Issues/);
      expect(visible(run)).not.toContain(account.apiKey);
    });

    test('plain HTTP to the HTTPS port shows the gateway refusal', async () => {
      const account = await createAccount(gw);
      const host = await createHost({
        leadChatApi: { baseUrl: gw.apiBase.replace('https:', 'http:'), apiKey: account.apiKey },
      });
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'a@example.com',
      });
      expect(run.error?.message).toMatch(/HTTPS/);
      expect(visible(run)).not.toContain(account.apiKey);
    });

    test('a Base URL without /v1 is pointed out', async () => {
      const account = await createAccount(gw);
      const host = await createHost({
        leadChatApi: { baseUrl: gw.url, apiKey: account.apiKey, ignoreSslIssues: true },
      });
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'create',
        phone: '+14155550100',
        email: '',
      });
      expect(run.error?.description).toMatch(/ends with \/v1/);
    });
  });

  describe('429 back-off against the gateway', () => {
    let limited: TestGateway;
    beforeAll(async () => {
      limited = await startGateway({ LEADCHAT_RATE_LIMIT_PER_MINUTE: '3', LEADCHAT_TEST_CLOCK: '1' });
    });
    afterAll(async () => {
      await limited.stop();
    });

    test('over the limit, the node waits for Retry-After and every item succeeds', async () => {
      const account = await createAccount(limited);
      // The key's minute is all but over when the node starts: its 429 asks for a wait of seconds, which it honours.
      expect((await request(limited, 'GET', '/v1/lists', { apiKey: account.apiKey })).status).toBe(200);
      await advanceClock(limited, '57s');
      const host = await createHost({
        leadChatApi: { baseUrl: limited.apiBase, apiKey: account.apiKey, ignoreSslIssues: true },
      });
      const emails = ['r1@example.com', 'r2@example.com', 'r3@example.com', 'r4@example.com', 'r5@example.com'];
      const started = Date.now();
      const run = await runLeadChat(
        host,
        { resource: 'contact', operation: 'create', phone: '', email: '={{ $json.email }}' },
        emails.map((email) => ({ json: { email } })),
      );
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat').map((i) => i.json.email)).toEqual(emails);
      // It waited for the window to turn (about 3 s), not more.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(Date.now() - started).toBeLessThan(30_000);
    }, 60_000);

    test('when waiting is capped and retries run out, the item fails saying so', async () => {
      const account = await createAccount(limited);
      for (let n = 0; n < 3; n++) {
        await request(limited, 'GET', '/v1/contacts', { apiKey: account.apiKey, query: { email: 'x@example.com' } });
      }
      const host = await createHost({
        leadChatApi: { baseUrl: limited.apiBase, apiKey: account.apiKey, ignoreSslIssues: true },
      });
      const run = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'x@example.com',
        options: { maxRetries: 1, maxWaitSeconds: 0.2 },
      });
      expect(run.error?.message).toMatch(/^LeadChat: Rate limit of 3 requests per minute exceeded/);
      expect(run.error?.description).toMatch(/HTTP 429 RATE_LIMITED .*Gave up after 1 retry\. .*Items per Batch/);
      expect(run.error?.httpCode).toBe('429');
    });

    test("a rotated key failing over and over from n8n's address never holds back the workflows with valid keys", async () => {
      const account = await createAccount(limited);
      for (let n = 0; n < 25; n++) await request(limited, 'GET', '/v1/lists', { apiKey: `lck_rotated-${n}` });
      const stale = await createHost({
        leadChatApi: { baseUrl: limited.apiBase, apiKey: 'lck_rotated-again', ignoreSslIssues: true },
      });
      const refused = await runLeadChat(stale, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'x@example.com',
        options: { maxRetries: 1, maxWaitSeconds: 0.2 },
      });
      expect(refused.error?.message).toMatch(/^LeadChat: Too many failed authentications from this address/);
      expect(refused.error?.httpCode).toBe('429');
      // Waiting does not make a wrong key right: the item fails at once, saying to fix the key, not the batch size.
      const startedAt = Date.now();
      const atOnce = await runLeadChat(stale, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'x@example.com',
        options: { maxRetries: 3, maxWaitSeconds: 5 },
      });
      expect(Date.now() - startedAt).toBeLessThan(4_000);
      expect(atOnce.error?.description).toMatch(/^HTTP 429 RATE_LIMITED from GET \/contacts\. .*wrong API keys/);
      expect(atOnce.error?.description).toMatch(/Check the API Key of the LeadChat API credential/);
      expect(atOnce.error?.description).not.toMatch(/Items per Batch|Gave up/);
      const valid = await createHost({
        leadChatApi: { baseUrl: limited.apiBase, apiKey: account.apiKey, ignoreSslIssues: true },
      });
      const run = await runLeadChat(valid, {
        resource: 'contact',
        operation: 'create',
        phone: '',
        email: 'valid-key@example.com',
      });
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat').map((i) => i.json.email)).toEqual(['valid-key@example.com']);
    });
  });

  describe('hosted service behaviour', () => {
    const BASE = 'https://api.leadchat.test/v1';
    const hostedHost = () => createHost({ leadChatApi: { baseUrl: BASE, apiKey: SECRET_KEY } });
    afterEach(() => nock.cleanAll());
    // nock patches Node's http module for the whole worker process: undo it so later test files talk to real servers.
    afterAll(() => nock.restore());

    test('the key is placed as the spec shows per endpoint: query, Bearer or x-api-key', async () => {
      const scope = nock('https://api.leadchat.test', { badheaders: ['x-api-key', 'authorization'] })
        .get('/v1/contacts')
        .query({ phoneNumber: '+14155550100', apiKey: SECRET_KEY })
        .reply(404, { error: { code: 'NOT_FOUND', message: 'Contact not found' } })
        .post('/v1/send_custom_channel_message')
        .query({ apiKey: SECRET_KEY })
        .reply(200, { success: true, messageId: 'm1', contactId: 'c1', message: 'Message sent' });
      const bearer = nock('https://api.leadchat.test', {
        reqheaders: { authorization: `Bearer ${SECRET_KEY}` },
        badheaders: ['x-api-key'],
      })
        .post('/v1/contacts', { phone: '+14155550100', firstName: 'Hosted' })
        .reply(201, { id: 'c9', phone: '+14155550100', firstName: 'Hosted' })
        .post('/v1/lists/L1/contacts', { contactId: 'c9' })
        .reply(200, { success: true });
      const header = nock('https://api.leadchat.test', {
        reqheaders: { 'x-api-key': SECRET_KEY, 'idempotency-key': 'idem-1' },
        badheaders: ['authorization'],
      })
        .post('/v1/subaccounts/credits', { email: 'sub@example.com', amount: 3 })
        .reply(200, { success: true, sub_account_id: 's1', credits_added: 3, new_balance: 3 });

      const host = await hostedHost();
      const lead = await runLeadChat(host, {
        resource: 'lead',
        operation: 'capture',
        phone: '+1 415 555 0100',
        firstName: 'Hosted',
        list: { __rl: true, mode: 'id', value: 'L1' },
      });
      expect(lead.output('LeadChat')[0]!.json).toEqual({
        id: 'c9',
        phone: '+14155550100',
        firstName: 'Hosted',
        created: true,
        addedToList: true,
        listId: 'L1',
      });
      const send = await runLeadChat(host, {
        resource: 'message',
        operation: 'send',
        fromId: 'u1',
        customChannel: 'web',
        text: 'Hi',
      });
      expect(send.output('LeadChat')[0]!.json).toMatchObject({ success: true, messageId: 'm1' });
      const credit = await runLeadChat(host, {
        resource: 'credit',
        operation: 'grant',
        email: 'sub@example.com',
        amount: 3,
        idempotencyKey: 'idem-1',
      });
      expect(credit.output('LeadChat')[0]!.json).toMatchObject({ new_balance: 3 });
      expect(scope.isDone() && bearer.isDone() && header.isDone()).toBe(true);
    });

    test('a long Retry-After is capped by Max Wait, then the retry succeeds', async () => {
      nock('https://api.leadchat.test')
        .get('/v1/contacts')
        .query(true)
        .reply(429, { error: { code: 'RATE_LIMITED', message: 'Too many requests' } }, { 'Retry-After': '3600' })
        .get('/v1/contacts')
        .query(true)
        .reply(429, { error: 'Too many requests' }, { 'Retry-After': new Date(Date.now() + 3_600_000).toUTCString() })
        .get('/v1/contacts')
        .query(true)
        .reply(200, { id: 'c1', email: 'a@example.com' });
      const run = await runLeadChat(await hostedHost(), {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'a@example.com',
        options: { maxWaitSeconds: 0.5 },
      });
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toEqual({ id: 'c1', email: 'a@example.com' });
    });

    test('a 429 whose retries ran out says when the server takes requests again, in its words, per item', async () => {
      nock('https://api.leadchat.test')
        .get('/v1/contacts')
        .query(true)
        .reply(429, { error: { code: 'RATE_LIMITED', message: 'Too many requests' } }, { 'Retry-After': '3600' })
        .get('/v1/contacts')
        .query(true)
        .reply(429, { error: 'Too many requests' }, { 'Retry-After': '42' })
        .get('/v1/contacts')
        .query(true)
        .reply(429, { error: 'Too many requests' });
      const run = await runLeadChat(
        await hostedHost(),
        {
          resource: 'contact',
          operation: 'get',
          searchBy: 'email',
          email: '={{ $json.email }}',
          options: { maxRetries: 0 },
        },
        [
          { json: { email: 'a@example.com' } },
          { json: { email: 'b@example.com' } },
          { json: { email: 'c@example.com' } },
        ],
        { continueOnFail: true },
      );
      const items = run.output('LeadChat').map((item) => item.json);
      expect(items.map((item) => item.httpCode)).toEqual(['429', '429', '429']);
      expect(items[0]!.details).toMatch(
        /^HTTP 429 RATE_LIMITED from GET \/contacts\. Gave up after 0 retries\. The server asks to wait about 60 min before the next request\. The API key is over its rate limit/,
      );
      expect(items[1]!.details).toMatch(
        /Gave up after 0 retries\. The server asks to wait 42 s before the next request\./,
      );
      // A server that names no time is not made to name one.
      expect(items[2]!.details).not.toMatch(/asks to wait/);
    });

    test("403 and the incoming endpoint's plain {error} shape come through in the API's words, key removed", async () => {
      nock('https://api.leadchat.test')
        .post('/v1/incoming_custom_channel_message')
        .query(true)
        .reply(400, { error: 'Message body cannot be empty' })
        .get('/v1/contacts')
        .query(true)
        .reply(403, {
          error: {
            code: 'FORBIDDEN',
            message: `Key ${SECRET_KEY} is suspended; see /v1/contacts?apiKey=${SECRET_KEY}`,
          },
        });
      const host = await hostedHost();
      const incoming = await runLeadChat(host, {
        resource: 'message',
        operation: 'receive',
        messageSid: 's1',
        fromId: 'f',
        toId: 't',
        text: 'x',
      });
      expect(incoming.error?.message).toBe('LeadChat: Message body cannot be empty');
      expect(incoming.error?.description).toMatch(
        /^HTTP 400 from POST \/incoming_custom_channel_message\. Fix the field named in the message/,
      );

      const forbidden = await runLeadChat(host, {
        resource: 'contact',
        operation: 'get',
        searchBy: 'email',
        email: 'a@example.com',
      });
      expect(forbidden.error?.message).toBe('LeadChat: Key *** is suspended; see /v1/contacts?apiKey=***');
      expect(forbidden.error?.description).toMatch(/HTTP 403 FORBIDDEN .*not allowed/);
      expect(visible(forbidden)).not.toContain(SECRET_KEY);
    });

    test("a hint is given only for the codes it explains: the grant's Idempotency Key hint never reaches another 409", async () => {
      nock('https://api.leadchat.test')
        .post('/v1/contacts')
        .reply(409, { error: { code: 'SOMETHING_ELSE', message: 'Not now' } })
        .post('/v1/subaccounts/credits')
        .reply(409, { error: 'A grant is in progress' })
        .post('/v1/subaccounts/credits')
        .reply(422, { error: { code: 'IDEMPOTENCY_KEY_REUSED', message: 'Key reused' } });
      const host = await hostedHost();
      const other = await runLeadChat(host, {
        resource: 'contact',
        operation: 'create',
        phone: '+14155550100',
        email: '',
      });
      expect(other.error?.description).toBe('HTTP 409 SOMETHING_ELSE from POST /contacts.');
      const grant = {
        resource: 'credit',
        operation: 'grant',
        email: 'sub@example.com',
        amount: 5,
        idempotencyKey: 'k-1',
      };
      const inFlight = await runLeadChat(host, grant);
      expect(inFlight.error?.description).toMatch(
        /^HTTP 409 from POST \/subaccounts\/credits\. A request with the same Idempotency Key is still being processed/,
      );
      const reused = await runLeadChat(host, grant);
      expect(reused.error?.description).toMatch(
        /^HTTP 422 IDEMPOTENCY_KEY_REUSED .*Use a new key for each new request/,
      );
    });

    test('the List dropdown on a server without GET /lists says to give the ID instead', async () => {
      nock('https://api.leadchat.test')
        .get('/v1/lists')
        .query(true)
        .reply(404, { error: { code: 'NOT_FOUND', message: 'Not found' } });
      await expect(listSearch(await hostedHost(), 'searchLists')).rejects.toThrow(/Choose "By ID"/);
    });
  });
});
