import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { dumpDatabase } from '../helpers/postgres';
import { api, createAccount, expectApiError, expectPlainError, incoming, request, unique, uniquePhone, useGateway, type TestAccount } from './api-support';

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

  test.each(['header', 'bearer', 'query'] as const)('key as %s is accepted on contacts, lists and messages', async (keyIn) => {
    const phone = uniquePhone();
    const created = await api(ctx.gw, account, 'POST', 'contacts', { keyIn, body: { phone, firstName: 'Ana' } });
    expect(created.status).toBe(201);
    const found = await api(ctx.gw, account, 'GET', 'contacts', { keyIn, query: { phoneNumber: phone } });
    expect(found.status).toBe(200);
    expect(found.body.id).toBe(created.body.id);

    const added = await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { keyIn, body: { contactId: created.body.id } });
    expect(added.status).toBe(201);
    expect((await api(ctx.gw, account, 'GET', 'lists', { keyIn })).status).toBe(200);

    const received = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { keyIn, body: incoming() });
    expect(received.status).toBe(200);
    expect(received.body).toEqual({ success: true, messageId: expect.any(String) });
    const sent = await api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
      keyIn,
      body: { customData: { fromId: unique('u'), customChannel: 'chat', body: 'Hi' } },
    });
    expect(sent.status).toBe(200);
    expect((await api(ctx.gw, account, 'GET', `messages/${received.body.messageId}`, { keyIn })).status).toBe(200);
  });

  test('Bearer scheme is case-insensitive', async () => {
    const res = await request(ctx.gw, 'GET', '/v1/lists', { headers: { authorization: `bearer ${account.apiKey}` } });
    expect(res.status).toBe(200);
  });

  test('an empty x-api-key header does not hide a Bearer key', async () => {
    const res = await request(ctx.gw, 'GET', '/v1/lists', { headers: { 'x-api-key': '', authorization: `Bearer ${account.apiKey}` } });
    expect(res.status).toBe(200);
  });

  test('missing or invalid key → 401 with {error:{code,message}}', async () => {
    expectApiError(await request(ctx.gw, 'GET', '/v1/lists'), 401, 'UNAUTHORIZED');
    expectApiError(await request(ctx.gw, 'POST', '/v1/contacts', { body: { phone: '+15550100199' } }), 401, 'UNAUTHORIZED');
    for (const keyIn of ['header', 'bearer', 'query'] as const) {
      expectApiError(await api(ctx.gw, { apiKey: 'lck_not-a-real-key' }, 'GET', 'lists', { keyIn }), 401, 'UNAUTHORIZED');
    }
    expectApiError(await request(ctx.gw, 'GET', '/v1/lists', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }), 401, 'UNAUTHORIZED');
    expectApiError(await request(ctx.gw, 'GET', '/v1/lists', { headers: { authorization: 'Bearer' } }), 401, 'UNAUTHORIZED');
  });

  test('missing or invalid key on the incoming endpoint → 401 with {error:"..."}', async () => {
    expectPlainError(await request(ctx.gw, 'POST', '/v1/incoming_custom_channel_message', { body: incoming() }), 401);
    expectPlainError(await api(ctx.gw, { apiKey: 'wrong' }, 'POST', 'incoming_custom_channel_message', { keyIn: 'query', body: incoming() }), 401);
  });

  test('an unauthenticated request changes nothing', async () => {
    const phone = uniquePhone();
    expect((await request(ctx.gw, 'POST', '/v1/contacts', { body: { phone } })).status).toBe(401);
    expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } }), 404, 'CONTACT_NOT_FOUND');
  });
});

describe('credit grant takes x-api-key only', () => {
  let agency: TestAccount;
  let sub: TestAccount;
  beforeAll(async () => {
    agency = await createAccount(ctx.gw, { type: 'agency' });
    sub = await createAccount(ctx.gw, { parentEmail: agency.email });
  });
  const grant = { get email() { return sub.email; }, amount: 5 };

  test('x-api-key header is accepted', async () => {
    const res = await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, sub_account_id: sub.id, credits_added: 5 });
  });

  test.each(['query', 'bearer'] as const)('a valid key as %s → 401, nothing granted', async (keyIn) => {
    const before = (await api(ctx.gw, sub, 'GET', 'credits')).body.balance;
    expectApiError(await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { keyIn, body: { ...grant } }), 401, 'UNAUTHORIZED');
    expect((await api(ctx.gw, sub, 'GET', 'credits')).body.balance).toBe(before);
  });

  test('no key → 401', async () => {
    expectApiError(await request(ctx.gw, 'POST', '/v1/subaccounts/credits', { body: { ...grant } }), 401, 'UNAUTHORIZED');
  });
});

describe('POST /v1/api-key (Generate)', () => {
  test.each(['header', 'bearer', 'query'] as const)('returns a new key; the old one stops working at once (old key as %s)', async (keyIn) => {
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
  });

  test('requires the current key', async () => {
    expectApiError(await request(ctx.gw, 'POST', '/v1/api-key'), 401, 'UNAUTHORIZED');
  });
});

describe('admin API', () => {
  test('create account: 201 with {id,name,email,type,parentId,apiKey}; the key works', async () => {
    const email = `${unique('Owner')}@Example.com`;
    const res = await request(ctx.gw, 'POST', '/admin/v1/accounts', { headers: admin(), body: { name: 'Acme', email, type: 'agency' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.any(String), name: 'Acme', email: email.toLowerCase(), type: 'agency', parentId: null, apiKey: expect.any(String) });
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
      const res = await request(ctx.gw, 'POST', '/admin/v1/accounts', { headers: admin(), body: { name: 'Again', email } });
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
    for (const body of [{}, { name: 'x' }, { name: 'x', email: 'not-an-email' }, { name: 'x', email: 'a@example.com', type: 'vip' }]) {
      expectApiError(await request(ctx.gw, 'POST', '/admin/v1/accounts', { headers: admin(), body }), 400);
    }
  });

  test('bad or missing admin token → 401; an API key is not an admin token', async () => {
    const account = await createAccount(ctx.gw);
    const body = { name: 'Nope', email: `${unique('nope')}@example.com` };
    expectApiError(await request(ctx.gw, 'POST', '/admin/v1/accounts', { headers: { authorization: 'Bearer wrong-token-0000000000' }, body }), 401);
    expectApiError(await request(ctx.gw, 'POST', '/admin/v1/accounts', { body }), 401);
    expectApiError(await request(ctx.gw, 'POST', '/admin/v1/accounts', { headers: { 'x-api-key': ctx.gw.adminToken }, body }), 401);
    expectApiError(await request(ctx.gw, 'POST', '/admin/v1/accounts', { headers: { authorization: `Bearer ${account.apiKey}` }, body }), 401);
    expectApiError(await request(ctx.gw, 'POST', `/admin/v1/accounts/${account.id}/api-key`, { headers: { authorization: 'Bearer wrong-token-0000000000' } }), 401);
    // Nothing was created by the refused requests.
    const listed = await request(ctx.gw, 'GET', '/admin/v1/accounts', { headers: admin(), query: { email: body.email } });
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
    expectApiError(await request(ctx.gw, 'POST', '/admin/v1/accounts/acc_nope/api-key', { headers: admin() }), 404, 'ACCOUNT_NOT_FOUND');
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
    expect({ where, hasOld: content.includes(account.apiKey), hasNew: content.includes(rotated) }).toEqual({ where, hasOld: false, hasNew: false });
  }
});
