import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { removeDir } from '../helpers/gateway';
import { startInProcess } from '../helpers/in-process';
import { dumpDatabase } from '../helpers/postgres';
import {
  api,
  createAccount,
  expectApiError,
  expectPlainError,
  incoming,
  request,
  unique,
  uniquePhone,
  useGateway,
  type TestAccount,
  type TestGateway,
} from './api-support';

/** Spec §5 and the operator bootstrap: how keys are presented, refused, generated and rotated. */
const ctx = useGateway();
const admin = () => ({ authorization: `Bearer ${ctx.gw.adminToken}` });

describe('API key presentation', () => {
  let account: TestAccount;
  let listId: string;
  beforeAll(async () => {
    account = await createAccount(ctx.gw);
    listId = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Auth list' } })).body.id;
  });

  test.each(['header', 'bearer', 'query'] as const)(
    'key as %s is accepted on contacts, lists and messages',
    async (keyIn) => {
      const phone = uniquePhone();
      const created = await api(ctx.gw, account, 'POST', 'contacts', { keyIn, body: { phone, firstName: 'Ana' } });
      expect(created.status).toBe(201);
      const found = await api(ctx.gw, account, 'GET', 'contacts', { keyIn, query: { phoneNumber: phone } });
      expect(found.status).toBe(200);
      expect(found.body.id).toBe(created.body.id);

      const added = await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, {
        keyIn,
        body: { contactId: created.body.id },
      });
      expect(added.status).toBe(201);
      expect((await api(ctx.gw, account, 'GET', 'lists', { keyIn })).status).toBe(200);

      const received = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
        keyIn,
        body: incoming(),
      });
      expect(received.status).toBe(200);
      expect(received.body).toEqual({ success: true, messageId: expect.any(String) });
      const sent = await api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
        keyIn,
        body: { customData: { fromId: unique('u'), customChannel: 'chat', body: 'Hi' } },
      });
      expect(sent.status).toBe(200);
      expect((await api(ctx.gw, account, 'GET', `messages/${received.body.messageId}`, { keyIn })).status).toBe(200);
    },
  );

  test('a key as ?apiKey= is no parameter of the operation: every GET that reads its query takes it there', async () => {
    const agency = await createAccount(ctx.gw, { type: 'agency' });
    const post = async (path: string, body: unknown) => (await api(ctx.gw, agency, 'POST', path, { body })).body;
    const contact = await post('contacts', { phone: uniquePhone(), firstName: 'Ana' });
    const list = await post('lists', { name: 'Keyed' });
    const campaign = await post('campaigns', { name: 'Keyed', channel: 'custom', customChannel: 'chat' });
    const savedReply = await post('saved-replies', { name: 'Prices', text: 'Our prices are on the site' });
    const subAccount = await createAccount(ctx.gw, { parentEmail: agency.email });
    const { messageId } = await post('incoming_custom_channel_message', incoming({ fromId: unique('u') }));
    const received = (await api(ctx.gw, agency, 'GET', `messages/${messageId}`)).body;
    const ids: Record<string, string> = {
      '/contacts/': contact.id,
      '/conversations/': received.conversationId,
      '/lists/': list.id,
      '/campaigns/': campaign.id,
      '/subaccounts/': subAccount.id,
      '/saved-replies/': savedReply.id,
    };
    const required: Record<string, Record<string, string>> = {
      '/contacts': { q: 'Ana' },
      '/campaigns/{id}/preview': { contactId: contact.id },
    };
    const doc = (await request(ctx.gw, 'GET', '/v1/openapi.json')).body;
    const reading = Object.entries(doc.paths as Record<string, any>).filter(([, ops]) =>
      ops.get?.parameters?.some((p: { in: string }) => p.in === 'query'),
    );
    expect(reading.length).toBeGreaterThan(10);
    for (const [path] of reading) {
      const concrete = path.replace(/^(\/[\w-]+\/)\{\w+\}/, (_all, base: string) => `${base}${ids[base]}`);
      const res = await api(ctx.gw, agency, 'GET', `/v1${concrete}`, { keyIn: 'query', query: required[path] });
      expect({ path, status: res.status, body: res.status === 200 ? 'answered' : res.body }).toEqual({
        path,
        status: 200,
        body: 'answered',
      });
    }
  });

  test('Bearer scheme is case-insensitive', async () => {
    const res = await request(ctx.gw, 'GET', '/v1/lists', { headers: { authorization: `bearer ${account.apiKey}` } });
    expect(res.status).toBe(200);
  });

  test('a key copied with spaces or a line end around it works in every place it may go', async () => {
    // n8n puts the key in ?apiKey= on the contact lookup (its credential test), lists and messages, as it was pasted.
    for (const padded of [` ${account.apiKey} `, `${account.apiKey}\n`, `\t${account.apiKey}`]) {
      for (const keyIn of ['query', 'header', 'bearer'] as const) {
        const given = keyIn === 'query' ? padded : padded.replace('\n', ' ').replace('\t', ' ');
        const res = await api(ctx.gw, { apiKey: given }, 'GET', 'lists', { keyIn });
        expect({ keyIn, given, status: res.status }).toEqual({ keyIn, given, status: 200 });
      }
    }
    // Spaces alone are no key: beside a key given another way they are no second one.
    const beside = await api(ctx.gw, account, 'GET', 'lists', { query: { apiKey: '  ' } });
    expect(beside.status).toBe(200);
  });

  test('an empty x-api-key header does not hide a Bearer key', async () => {
    const res = await request(ctx.gw, 'GET', '/v1/lists', {
      headers: { 'x-api-key': '', authorization: `Bearer ${account.apiKey}` },
    });
    expect(res.status).toBe(200);
  });

  test('missing or invalid key → 401 with {error:{code,message}}', async () => {
    expectApiError(await request(ctx.gw, 'GET', '/v1/lists'), 401, 'UNAUTHORIZED');
    expectApiError(
      await request(ctx.gw, 'POST', '/v1/contacts', { body: { phone: '+15550100199' } }),
      401,
      'UNAUTHORIZED',
    );
    for (const keyIn of ['header', 'bearer', 'query'] as const) {
      expectApiError(
        await api(ctx.gw, { apiKey: 'lck_not-a-real-key' }, 'GET', 'lists', { keyIn }),
        401,
        'UNAUTHORIZED',
      );
    }
    expectApiError(
      await request(ctx.gw, 'GET', '/v1/lists', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }),
      401,
      'UNAUTHORIZED',
    );
    expectApiError(
      await request(ctx.gw, 'GET', '/v1/lists', { headers: { authorization: 'Bearer' } }),
      401,
      'UNAUTHORIZED',
    );
  });

  test('missing or invalid key on the incoming endpoint → 401 with {error:"..."}', async () => {
    expectPlainError(await request(ctx.gw, 'POST', '/v1/incoming_custom_channel_message', { body: incoming() }), 401);
    expectPlainError(
      await api(ctx.gw, { apiKey: 'wrong' }, 'POST', 'incoming_custom_channel_message', {
        keyIn: 'query',
        body: incoming(),
      }),
      401,
    );
  });

  test('an unauthenticated request changes nothing', async () => {
    const phone = uniquePhone();
    expect((await request(ctx.gw, 'POST', '/v1/contacts', { body: { phone } })).status).toBe(401);
    expectApiError(
      await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }),
      404,
      'CONTACT_NOT_FOUND',
    );
  });
});

describe('a key given in two places → 400 AMBIGUOUS_CREDENTIALS, nothing done', () => {
  let account: TestAccount;
  let other: TestAccount;
  beforeAll(async () => {
    account = await createAccount(ctx.gw);
    other = await createAccount(ctx.gw);
  });

  test('two different keys, a valid key beside a wrong one, or the same key twice: refused, whichever way each came', async () => {
    const phone = uniquePhone();
    const both: Array<{ headers: Record<string, string>; query?: Record<string, string> }> = [
      { headers: { 'x-api-key': account.apiKey }, query: { apiKey: other.apiKey } },
      { headers: { 'x-api-key': account.apiKey }, query: { apiKey: 'garbage' } },
      { headers: { 'x-api-key': 'garbage' }, query: { apiKey: account.apiKey } },
      { headers: { 'x-api-key': account.apiKey }, query: { apiKey: account.apiKey } },
      { headers: { 'x-api-key': account.apiKey, authorization: `Bearer ${other.apiKey}` } },
      { headers: { 'x-api-key': account.apiKey, authorization: `Bearer ${account.apiKey}` } },
      { headers: { authorization: `Bearer ${account.apiKey}` }, query: { apiKey: 'garbage' } },
      { headers: { 'x-api-key': account.apiKey, authorization: 'Bearer two words' } },
    ];
    for (const opts of both) {
      const res = await request(ctx.gw, 'POST', '/v1/contacts', { ...opts, body: { phone } });
      expectApiError(res, 400, 'AMBIGUOUS_CREDENTIALS');
      expect(res.body.error.message).toMatch(/once/);
      expectApiError(await request(ctx.gw, 'GET', '/v1/lists', opts), 400, 'AMBIGUOUS_CREDENTIALS');
    }
    expectPlainError(
      await request(ctx.gw, 'POST', '/v1/incoming_custom_channel_message', {
        headers: { 'x-api-key': account.apiKey },
        query: { apiKey: other.apiKey },
        body: incoming(),
      }),
      400,
    );
    // Nothing was created, for either account.
    for (const who of [account, other])
      expectApiError(
        await api(ctx.gw, who, 'GET', 'contacts', { query: { phoneNumber: phone } }),
        404,
        'CONTACT_NOT_FOUND',
      );
  });

  test('apiKey twice in the query (a parameter given twice), or two x-api-key headers → 400; an empty ?apiKey= is no second key', async () => {
    for (const query of [
      `apiKey=${account.apiKey}&apiKey=${other.apiKey}`,
      `apiKey=${account.apiKey}&api%4Bey=${other.apiKey}`,
    ]) {
      const res = await request(ctx.gw, 'GET', `/v1/lists?${query}`);
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.text).not.toContain(account.apiKey);
    }
    const twoHeaders = { 'x-api-key': [account.apiKey, other.apiKey] } as unknown as Record<string, string>;
    expectApiError(await request(ctx.gw, 'GET', '/v1/lists', { headers: twoHeaders }), 400, 'AMBIGUOUS_CREDENTIALS');
    expect(
      (await request(ctx.gw, 'GET', '/v1/lists?apiKey=', { headers: { 'x-api-key': account.apiKey } })).status,
    ).toBe(200);
    expect(
      (await request(ctx.gw, 'GET', '/v1/lists?limit=1', { headers: { 'x-api-key': account.apiKey } })).status,
    ).toBe(200);
  });

  test("two Authorization: Bearer headers (a proxy adding its own beside the caller's) → 400, in either order", async () => {
    const phone = uniquePhone();
    for (const keys of [
      [account.apiKey, other.apiKey],
      [other.apiKey, account.apiKey],
      [account.apiKey, account.apiKey],
      ['garbage', account.apiKey],
    ]) {
      const headers = { authorization: keys.map((k) => `Bearer ${k}`) } as unknown as Record<string, string>;
      expectApiError(await request(ctx.gw, 'GET', '/v1/lists', { headers }), 400, 'AMBIGUOUS_CREDENTIALS');
      const res = await request(ctx.gw, 'POST', '/v1/contacts', { headers, body: { phone } });
      expectApiError(res, 400, 'AMBIGUOUS_CREDENTIALS');
    }
    for (const who of [account, other])
      expectApiError(
        await api(ctx.gw, who, 'GET', 'contacts', { query: { phoneNumber: phone } }),
        404,
        'CONTACT_NOT_FOUND',
      );
    // An Authorization header of another scheme (a proxy's Basic) carries no API key: the key in x-api-key decides.
    const basicBeside = { authorization: 'Basic Zm9vOmJhcg==', 'x-api-key': account.apiKey };
    expect((await request(ctx.gw, 'GET', '/v1/lists', { headers: basicBeside })).status).toBe(200);
  });

  test('the OpenAPI document says a key goes in one place and what too many failures get', async () => {
    const { info } = (await request(ctx.gw, 'GET', '/v1/openapi.json')).body;
    expect(info.description).toMatch(/two of them.*400 AMBIGUOUS_CREDENTIALS/);
    expect(info.description).toMatch(
      /20 failed authentications from one client address in 10 minutes.*429 RATE_LIMITED with Retry-After/,
    );
  });

  test('the credit grant with a key in the header and another elsewhere → 400, nothing granted', async () => {
    const agency = await createAccount(ctx.gw, { type: 'agency' });
    const sub = await createAccount(ctx.gw, { parentEmail: agency.email });
    const before = (await api(ctx.gw, sub, 'GET', 'credits')).body.balance;
    const elsewhere: Array<{ headers?: Record<string, string>; query?: Record<string, string> }> = [
      { query: { apiKey: agency.apiKey } },
      { headers: { authorization: `Bearer ${agency.apiKey}` } },
    ];
    for (const opts of elsewhere) {
      const res = await request(ctx.gw, 'POST', '/v1/subaccounts/credits', {
        ...opts,
        headers: { 'x-api-key': agency.apiKey, ...opts.headers },
        body: { email: sub.email, amount: 5 },
      });
      expectApiError(res, 400, 'AMBIGUOUS_CREDENTIALS');
    }
    expect((await api(ctx.gw, sub, 'GET', 'credits')).body.balance).toBe(before);
  });
});

describe('credit grant takes x-api-key only', () => {
  let agency: TestAccount;
  let sub: TestAccount;
  beforeAll(async () => {
    agency = await createAccount(ctx.gw, { type: 'agency' });
    sub = await createAccount(ctx.gw, { parentEmail: agency.email });
  });
  const grant = {
    get email() {
      return sub.email;
    },
    amount: 5,
  };

  test('x-api-key header is accepted', async () => {
    const res = await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, sub_account_id: sub.id, credits_added: 5 });
  });

  test.each(['query', 'bearer'] as const)('a valid key as %s → 401, nothing granted', async (keyIn) => {
    const before = (await api(ctx.gw, sub, 'GET', 'credits')).body.balance;
    expectApiError(
      await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { keyIn, body: { ...grant } }),
      401,
      'UNAUTHORIZED',
    );
    expect((await api(ctx.gw, sub, 'GET', 'credits')).body.balance).toBe(before);
  });

  test('no key → 401', async () => {
    expectApiError(
      await request(ctx.gw, 'POST', '/v1/subaccounts/credits', { body: { ...grant } }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('POST /v1/api-key (Generate)', () => {
  test.each(['header', 'bearer', 'query'] as const)(
    'returns a new key; the old one stops working at once (old key as %s)',
    async (keyIn) => {
      const account = await createAccount(ctx.gw);
      const res = await api(ctx.gw, account, 'POST', 'api-key', { keyIn });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ apiKey: expect.any(String) });
      expect(res.headers['cache-control']).toBe('no-store');
      const fresh = res.body.apiKey as string;
      expect(fresh).not.toBe(account.apiKey);

      for (const where of ['header', 'bearer', 'query'] as const) {
        expectApiError(await api(ctx.gw, account, 'GET', 'lists', { keyIn: where }), 401, 'UNAUTHORIZED');
        expect((await api(ctx.gw, { apiKey: fresh }, 'GET', 'lists', { keyIn: where })).status).toBe(200);
      }
      // The new key is the same account: its settings are readable with it.
      expect((await api(ctx.gw, { apiKey: fresh }, 'GET', 'settings')).status).toBe(200);
    },
  );

  test('requires the current key', async () => {
    expectApiError(await request(ctx.gw, 'POST', '/v1/api-key'), 401, 'UNAUTHORIZED');
  });
});

describe('admin API', () => {
  test('create account: 201 with {id,name,email,type,parentId,apiKey}; the key works', async () => {
    const email = `${unique('Owner')}@Example.com`;
    const res = await request(ctx.gw, 'POST', '/admin/v1/accounts', {
      headers: admin(),
      body: { name: 'Acme', email, type: 'agency' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      name: 'Acme',
      email: email.toLowerCase(),
      type: 'agency',
      parentId: null,
      apiKey: expect.any(String),
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await api(ctx.gw, res.body, 'GET', 'settings')).status).toBe(200);

    const sub = await request(ctx.gw, 'POST', '/admin/v1/accounts', {
      headers: admin(),
      body: { name: 'Acme client', email: `${unique('client')}@example.com`, parentEmail: email },
    });
    expect(sub.status).toBe(201);
    expect(sub.body).toMatchObject({ type: 'standard', parentId: res.body.id });
  });

  test('duplicate email → 409, whatever its case', async () => {
    const account = await createAccount(ctx.gw);
    for (const email of [account.email, account.email.toUpperCase()]) {
      const res = await request(ctx.gw, 'POST', '/admin/v1/accounts', {
        headers: admin(),
        body: { name: 'Again', email },
      });
      expectApiError(res, 409);
    }
  });

  test('parentEmail that is not an agency → 400; unknown parent → 400', async () => {
    const standard = await createAccount(ctx.gw);
    const res = await request(ctx.gw, 'POST', '/admin/v1/accounts', {
      headers: admin(),
      body: { name: 'Child', email: `${unique('child')}@example.com`, parentEmail: standard.email },
    });
    expectApiError(res, 400);
    const missing = await request(ctx.gw, 'POST', '/admin/v1/accounts', {
      headers: admin(),
      body: { name: 'Child', email: `${unique('child')}@example.com`, parentEmail: 'nobody-here@example.com' },
    });
    expectApiError(missing, 400);
  });

  test('invalid account fields → 400', async () => {
    for (const body of [
      {},
      { name: 'x' },
      { name: 'x', email: 'not-an-email' },
      { name: 'x', email: 'a@example.com', type: 'vip' },
    ]) {
      expectApiError(await request(ctx.gw, 'POST', '/admin/v1/accounts', { headers: admin(), body }), 400);
    }
  });

  test('bad or missing admin token → 401; an API key is not an admin token', async () => {
    const account = await createAccount(ctx.gw);
    const body = { name: 'Nope', email: `${unique('nope')}@example.com` };
    expectApiError(
      await request(ctx.gw, 'POST', '/admin/v1/accounts', {
        headers: { authorization: 'Bearer wrong-token-0000000000' },
        body,
      }),
      401,
    );
    expectApiError(await request(ctx.gw, 'POST', '/admin/v1/accounts', { body }), 401);
    expectApiError(
      await request(ctx.gw, 'POST', '/admin/v1/accounts', { headers: { 'x-api-key': ctx.gw.adminToken }, body }),
      401,
    );
    expectApiError(
      await request(ctx.gw, 'POST', '/admin/v1/accounts', {
        headers: { authorization: `Bearer ${account.apiKey}` },
        body,
      }),
      401,
    );
    expectApiError(
      await request(ctx.gw, 'POST', `/admin/v1/accounts/${account.id}/api-key`, {
        headers: { authorization: 'Bearer wrong-token-0000000000' },
      }),
      401,
    );
    // Nothing was created by the refused requests.
    const listed = await request(ctx.gw, 'GET', '/admin/v1/accounts', {
      headers: admin(),
      query: { email: body.email },
    });
    expect(listed.body).toEqual({ data: [] });
  });

  test('admin rotate: a new key; the old one stops working at once', async () => {
    const account = await createAccount(ctx.gw);
    expect((await api(ctx.gw, account, 'GET', 'lists')).status).toBe(200);
    const res = await request(ctx.gw, 'POST', `/admin/v1/accounts/${account.id}/api-key`, { headers: admin() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ apiKey: expect.any(String) });
    expect(res.body.apiKey).not.toBe(account.apiKey);
    expectApiError(await api(ctx.gw, account, 'GET', 'lists'), 401, 'UNAUTHORIZED');
    expectPlainError(await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: incoming() }), 401);
    expect((await api(ctx.gw, res.body, 'GET', 'lists')).status).toBe(200);
  });

  test('admin rotate of an unknown account → 404', async () => {
    expectApiError(
      await request(ctx.gw, 'POST', '/admin/v1/accounts/acc_nope/api-key', { headers: admin() }),
      404,
      'ACCOUNT_NOT_FOUND',
    );
  });
});

test('API keys are stored only as hashes: no key appears in the data dir or the database', async () => {
  const account = await createAccount(ctx.gw);
  const rotated = (await api(ctx.gw, account, 'POST', 'api-key')).body.apiKey as string;
  const stored: Array<{ where: string; content: string }> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else stored.push({ where: p, content: readFileSync(p, 'latin1') });
    }
  };
  walk(ctx.gw.dataDir);
  if (ctx.gw.env.LEADCHAT_DATABASE_URL) stored.push(...(await dumpDatabase(ctx.gw.env.LEADCHAT_DATABASE_URL)));
  // The account itself is stored (so the search below looks in the right place)...
  expect(stored.some((s) => s.content.includes(account.email))).toBe(true);
  // ...but neither of its keys is.
  for (const { where, content } of stored) {
    expect({ where, hasOld: content.includes(account.apiKey), hasNew: content.includes(rotated) }).toEqual({
      where,
      hasOld: false,
      hasNew: false,
    });
  }
});

/**
 * Failed authentications are counted per client address: after 20 in 10 minutes each further failure is a 429,
 * while a valid key, the admin token or a console session from the same address still works. A gateway of its own,
 * behind a trusted proxy, so that each test comes from its own addresses (X-Forwarded-For) and the rest of this file
 * keeps its budget.
 */
describe('too many failed authentications from one address → 429 for the failures only', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let last = 0;
  const newAddress = () => `203.0.113.${++last}`;
  const from = (address: string, headers: Record<string, string> = {}) => ({
    ...headers,
    'x-forwarded-for': address,
    'x-forwarded-proto': 'https',
  });
  const admin = (token: string) => ({ authorization: `Bearer ${token}` });
  beforeAll(async () => {
    gw = await startInProcess({ LEADCHAT_TRUST_PROXY: '1' });
    account = await createAccount(gw);
  }, 30_000);
  afterAll(async () => {
    await gw?.stop();
    if (gw) removeDir(gw.dataDir);
  });
  const expectLimited = (res: Awaited<ReturnType<typeof request>>) => {
    expectApiError(res, 429, 'RATE_LIMITED');
    const seconds = Number(res.headers['retry-after']);
    expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= 600).toBe(true);
  };

  test('an address a client writes into X-Forwarded-For itself does not count: the one the proxy appended does', async () => {
    const address = newAddress();
    // The proxy appends the address it saw; what comes before it is the client's own writing, different each time.
    for (let i = 0; i < 20; i++) {
      expectApiError(
        await request(gw, 'GET', '/v1/lists', { apiKey: `lck_spoof-${i}`, headers: from(`198.18.0.${i}, ${address}`) }),
        401,
        'UNAUTHORIZED',
      );
    }
    expectLimited(
      await request(gw, 'GET', '/v1/lists', { apiKey: 'lck_spoof-21', headers: from(`198.18.1.1, ${address}`) }),
    );
    expectLimited(await request(gw, 'GET', '/v1/lists', { apiKey: 'lck_spoof-22', headers: from(address) }));
  });

  test('25 wrong keys and tokens from an address: from the 21st they are refused, while a valid key, the admin token and a session still work', async () => {
    const address = newAddress();
    for (let i = 0; i < 25; i++) {
      const keyIn = (['header', 'bearer', 'query'] as const)[i % 3];
      const res =
        i % 4 === 3
          ? await request(gw, 'GET', '/admin/v1/jobs', { headers: from(address, admin(`wrong-token-${i}`)) })
          : await request(gw, 'GET', '/v1/lists', { apiKey: `lck_wrong-${i}`, keyIn, headers: from(address) });
      if (i < 20) expectApiError(res, 401, 'UNAUTHORIZED');
      else expectLimited(res);
    }
    expect((await request(gw, 'GET', '/v1/lists', { apiKey: account.apiKey, headers: from(address) })).status).toBe(
      200,
    );
    expect(
      (await request(gw, 'GET', '/v1/lists', { apiKey: account.apiKey, keyIn: 'query', headers: from(address) }))
        .status,
    ).toBe(200);
    expect(
      (
        await request(gw, 'POST', '/admin/v1/accounts', {
          headers: from(address, admin(gw.adminToken)),
          body: { name: 'After the guesses', email: `after-${process.pid}@example.com` },
        })
      ).status,
    ).toBe(201);
    // A console session of the same address: its owner signs in and works.
    const owner = await createAccount(gw);
    const password = `owner-${process.pid}-long-password`;
    expect(
      (
        await request(gw, 'PUT', `/admin/v1/accounts/${owner.id}/password`, {
          headers: from(address, admin(gw.adminToken)),
          body: { password },
        })
      ).status,
    ).toBe(200);
    const signedIn = await request(gw, 'POST', '/console/api/session', {
      headers: from(address, { origin: gw.url }),
      body: { email: owner.email, password },
    });
    expect(signedIn.status).toBe(200);
    const cookie = String([signedIn.headers['set-cookie']].flat()[0]).split(';')[0]!;
    const phone = uniquePhone();
    const created = await request(gw, 'POST', '/v1/contacts', {
      headers: from(address, { cookie, 'x-csrf-token': signedIn.body.csrfToken }),
      body: { phone },
    });
    expect(created.status).toBe(201);
    // The 26th wrong key is still refused, on the incoming endpoint in its own error shape.
    expectLimited(await request(gw, 'GET', '/v1/lists', { apiKey: 'lck_wrong-26', headers: from(address) }));
    const plain = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
      apiKey: 'lck_wrong-27',
      headers: from(address),
      body: incoming(),
    });
    expectPlainError(plain, 429);
    expect(Number(plain.headers['retry-after'])).toBeGreaterThan(0);
    expectLimited(await request(gw, 'GET', '/admin/v1/jobs', { headers: from(address, admin('wrong-token-again')) }));
  });

  test('another address is not held back: its valid key works and its wrong key is a 401', async () => {
    const address = newAddress();
    for (let i = 0; i < 21; i++)
      await request(gw, 'GET', '/v1/lists', { apiKey: `lck_wrong-${i}`, headers: from(address) });
    expectLimited(await request(gw, 'GET', '/v1/lists', { apiKey: 'lck_wrong-22', headers: from(address) }));
    const elsewhere = newAddress();
    expect((await request(gw, 'GET', '/v1/lists', { apiKey: account.apiKey, headers: from(elsewhere) })).status).toBe(
      200,
    );
    expect(
      (await request(gw, 'GET', '/admin/v1/jobs', { headers: from(elsewhere, admin(gw.adminToken)) })).status,
    ).toBe(200);
    expectApiError(
      await request(gw, 'GET', '/v1/lists', { apiKey: 'lck_wrong', headers: from(elsewhere) }),
      401,
      'UNAUTHORIZED',
    );
  });

  test('successful requests and requests without any key do not count', async () => {
    const address = newAddress();
    for (let i = 0; i < 19; i++)
      expect((await request(gw, 'GET', '/v1/lists', { apiKey: `lck_wrong-${i}`, headers: from(address) })).status).toBe(
        401,
      );
    for (let i = 0; i < 30; i++)
      expect((await request(gw, 'GET', '/v1/lists', { apiKey: account.apiKey, headers: from(address) })).status).toBe(
        200,
      );
    for (let i = 0; i < 30; i++)
      expect((await request(gw, 'GET', '/v1/lists', { headers: from(address) })).status).toBe(401);
    expect((await request(gw, 'GET', '/admin/v1/jobs', { headers: from(address, admin(gw.adminToken)) })).status).toBe(
      200,
    );
    // The 20th failure is still a 401; the 21st is refused.
    expectApiError(
      await request(gw, 'GET', '/v1/lists', { apiKey: 'lck_wrong-20', headers: from(address) }),
      401,
      'UNAUTHORIZED',
    );
    expectLimited(await request(gw, 'GET', '/v1/lists', { apiKey: 'lck_wrong-21', headers: from(address) }));
  });
});
