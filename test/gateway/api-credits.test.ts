import { api, createAccount, expectApiError, request, unique, useGateway, type TestAccount } from './api-support';

/** Spec §2.7 and §4.6: agencies grant credits to their sub-accounts; the Idempotency-Key extension. */
const ctx = useGateway({ LEADCHAT_PRICE_MESSENGER: '2', LEADCHAT_PRICE_INSTAGRAM: '1.5' });
let agency: TestAccount;
let otherAgency: TestAccount;
let standalone: TestAccount;

beforeAll(async () => {
  agency = await createAccount(ctx.gw, { type: 'agency' });
  otherAgency = await createAccount(ctx.gw, { type: 'agency' });
  standalone = await createAccount(ctx.gw);
});

const newSub = (parent: TestAccount = agency) => createAccount(ctx.gw, { parentEmail: parent.email });
const grant = (body: unknown, headers: Record<string, string> = {}, from: TestAccount = agency) =>
  api(ctx.gw, from, 'POST', 'subaccounts/credits', { body, headers });
const credits = async (account: TestAccount) => {
  const res = await api(ctx.gw, account, 'GET', 'credits');
  expect(res.status).toBe(200);
  return res.body as {
    balance: number;
    transactions: Array<{
      id: string;
      kind: string;
      amount: number;
      balance: number;
      description: string | null;
      createdAt: string;
    }>;
  };
};

test('success: {success,sub_account_id,credits_added,new_balance}; the ledger shows the grant with its description', async () => {
  const sub = await newSub();
  const res = await grant({ email: sub.email, amount: 25, description: 'Welcome credits' });
  expect(res.status).toBe(200);
  expect(res.body).toStrictEqual({ success: true, sub_account_id: sub.id, credits_added: 25, new_balance: 25 });
  const second = await grant({ email: sub.email.toUpperCase(), amount: 10.5 });
  expect(second.body).toStrictEqual({ success: true, sub_account_id: sub.id, credits_added: 10.5, new_balance: 35.5 });

  const c = await credits(sub);
  expect(c.balance).toBe(35.5);
  expect(c.transactions).toEqual([
    {
      id: expect.any(String),
      kind: 'grant',
      amount: 10.5,
      balance: 35.5,
      description: null,
      messageId: null,
      messageKind: null,
      channel: null,
      subAccount: null,
      createdAt: expect.stringMatching(/Z$/),
    },
    {
      id: expect.any(String),
      kind: 'grant',
      amount: 25,
      balance: 25,
      description: 'Welcome credits',
      messageId: null,
      messageKind: null,
      channel: null,
      subAccount: null,
      createdAt: expect.stringMatching(/Z$/),
    },
  ]);
  // The agency's own balance is untouched.
  expect((await credits(agency)).balance).toBe(0);
});

test('decimal amounts add up exactly', async () => {
  const sub = await newSub();
  await grant({ email: sub.email, amount: 0.1 });
  const res = await grant({ email: sub.email, amount: 0.2 });
  expect(res.body.new_balance).toBe(0.3);
  expect((await credits(sub)).balance).toBe(0.3);
});

describe('credits count to the hundredth: a smaller or finer amount → 400 naming it, nothing stored', () => {
  // Rounded to hundredths, these would grant, set or charge something other than asked: 1e-10 a grant of 0.
  const tooFine = [1e-10, 1e-9, 0.005, 1.001, 10.000000001];
  const admin = () => ({ authorization: `Bearer ${ctx.gw.adminToken}` });

  test('grant', async () => {
    const sub = await newSub();
    for (const amount of tooFine) {
      const res = await grant({ email: sub.email, amount });
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/^amount: must be (at least 0\.01|a whole number of hundredths)/);
    }
    expect(await credits(sub)).toMatchObject({ balance: 0, transactions: [] });
  });

  test('auto-recharge rule: threshold and amount', async () => {
    const sub = await newSub();
    for (const amount of tooFine) {
      const rule = (body: object) =>
        api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
          body: { email: sub.email, threshold: 5, amount: 5, ...body },
        });
      expect((await rule({ threshold: amount })).body.error.message).toMatch(/^threshold: /);
      expect((await rule({ amount })).body.error.message).toMatch(/^amount: /);
    }
    expect((await api(ctx.gw, agency, 'GET', `subaccounts/${sub.id}/credits`)).body).toMatchObject({
      balance: 0,
      autoRecharge: null,
      transactions: [],
    });
  });

  test('usage recorded by the operator', async () => {
    const sub = await newSub();
    await grant({ email: sub.email, amount: 1 });
    for (const amount of tooFine) {
      const res = await api(ctx.gw, undefined, 'POST', `/admin/v1/accounts/${sub.id}/credits/usage`, {
        headers: admin(),
        body: { amount },
      });
      expectApiError(res, 400, 'VALIDATION_ERROR');
    }
    expect(await credits(sub)).toMatchObject({ balance: 1, transactions: [{ kind: 'grant', amount: 1 }] });
  });

  test('whole hundredths add and subtract exactly, up to the largest amount', async () => {
    const sub = await newSub();
    const balances = [];
    for (let i = 0; i < 10; i++) balances.push((await grant({ email: sub.email, amount: 0.1 })).body.new_balance);
    expect(balances).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    const used = await api(ctx.gw, undefined, 'POST', `/admin/v1/accounts/${sub.id}/credits/usage`, {
      headers: admin(),
      body: { amount: 0.3 },
    });
    expect(used.body).toEqual({ balance: 0.7 });
    expect((await grant({ email: sub.email, amount: 999_999_999.99 })).body).toMatchObject({
      credits_added: 999_999_999.99,
      new_balance: 1_000_000_000.69,
    });
  });
});

test('a caller that is not an agency → 403 NOT_AGENCY, nothing granted', async () => {
  const sub = await newSub();
  expectApiError(await grant({ email: sub.email, amount: 5 }, {}, standalone), 403, 'NOT_AGENCY');
  // A sub-account cannot grant to itself or a sibling either.
  const sibling = await newSub();
  expectApiError(await grant({ email: sibling.email, amount: 5 }, {}, sub), 403, 'NOT_AGENCY');
  expectApiError(await grant({ email: sub.email, amount: 5 }, {}, sub), 403, 'NOT_AGENCY');
  expect((await credits(sub)).balance).toBe(0);
  expect((await credits(sibling)).balance).toBe(0);
});

test("another agency's sub-account and an unknown email → 404, indistinguishable", async () => {
  const foreign = await newSub(otherAgency);
  const unknown = `${unique('ghost')}@example.com`;
  const a = await grant({ email: foreign.email, amount: 5 });
  const b = await grant({ email: unknown, amount: 5 });
  expectApiError(a, 404, 'SUB_ACCOUNT_NOT_FOUND');
  expectApiError(b, 404, 'SUB_ACCOUNT_NOT_FOUND');
  const strip = (r: typeof a, email: string) => ({
    status: r.status,
    body: JSON.stringify(r.body).split(email).join('<email>'),
  });
  expect(strip(a, foreign.email)).toEqual(strip(b, unknown));
  expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
  expect((await credits(foreign)).balance).toBe(0);
  // Nor the agency itself, nor an account outside any agency.
  expectApiError(await grant({ email: agency.email, amount: 5 }), 404, 'SUB_ACCOUNT_NOT_FOUND');
  expectApiError(await grant({ email: standalone.email, amount: 5 }), 404, 'SUB_ACCOUNT_NOT_FOUND');
});

describe('invalid grants → 400, nothing granted', () => {
  let sub: TestAccount;
  beforeAll(async () => {
    sub = await newSub();
  });

  test.each<[string, unknown]>([
    ['zero', 0],
    ['negative', -5],
    ['negative zero-ish', -0.001],
    ['a numeric string', '10'],
    ['"NaN"', 'NaN'],
    ['"Infinity"', 'Infinity'],
    ['null', null],
    ['a boolean', true],
    ['an array', [5]],
    ['an object', { value: 5 }],
    ['three decimals', 1.234],
    ['more than a cent fraction', 0.001],
    ['absurdly large', 1e12],
  ])('amount %s', async (_what, amount) => {
    expectApiError(await grant({ email: sub.email, amount }), 400);
  });

  test('amount missing, email missing or empty', async () => {
    for (const body of [{ email: sub.email }, { amount: 5 }, { email: '', amount: 5 }, { email: 5, amount: 5 }, {}]) {
      expectApiError(await grant(body), 400);
    }
  });

  test('amounts JSON cannot carry as finite numbers (1e999) → 400', async () => {
    expectApiError(await grant(`{"email":"${sub.email}","amount":1e999}`), 400);
    expectApiError(await grant(`{"email":"${sub.email}","amount":-1e999}`), 400);
  });

  test('the balance is still zero', async () => {
    expect(await credits(sub)).toMatchObject({ balance: 0, transactions: [] });
  });
});

test('50 concurrent grants all count', async () => {
  const sub = await newSub();
  const replies = await Promise.all(
    Array.from({ length: 50 }, (_, i) => grant({ email: sub.email, amount: 1, description: `batch ${i}` })),
  );
  expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
  expect(replies.map((r) => r.body.new_balance).sort((a, b) => a - b)).toEqual(
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  const c = await credits(sub);
  expect(c.balance).toBe(50);
  expect(c.transactions).toHaveLength(50);
  expect(c.transactions.map((t) => t.description).sort()).toEqual(
    Array.from({ length: 50 }, (_, i) => `batch ${i}`).sort(),
  );
  expect(c.transactions.map((t) => t.balance).sort((a, b) => a - b)).toEqual(
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
});

describe('Idempotency-Key', () => {
  test('same key and body → the first response replayed, nothing granted twice', async () => {
    const sub = await newSub();
    const key = unique('recharge');
    const body = { email: sub.email, amount: 15, description: 'Auto-recharge' };
    const first = await grant(body, { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await grant(body, { 'Idempotency-Key': key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const c = await credits(sub);
    expect(c.balance).toBe(15);
    expect(c.transactions).toHaveLength(1);
    // Without the key, the same body is a new grant.
    expect((await grant(body)).body.new_balance).toBe(30);
  });

  test('same key with another body → 422, nothing granted', async () => {
    const sub = await newSub();
    const key = unique('recharge');
    await grant({ email: sub.email, amount: 5 }, { 'Idempotency-Key': key });
    expectApiError(await grant({ email: sub.email, amount: 6 }, { 'Idempotency-Key': key }), 422);
    expect((await credits(sub)).balance).toBe(5);
  });

  test('concurrent requests with one key → one grant; the others replay it or get 409', async () => {
    const sub = await newSub();
    const key = unique('burst');
    const body = { email: sub.email, amount: 7, description: 'once' };
    const replies = await Promise.all(Array.from({ length: 20 }, () => grant(body, { 'Idempotency-Key': key })));
    for (const r of replies) expect([200, 409]).toContain(r.status);
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of ok)
      expect(r.body).toEqual({ success: true, sub_account_id: sub.id, credits_added: 7, new_balance: 7 });
    for (const r of replies.filter((x) => x.status === 409)) expectApiError(r, 409);
    expect(ok.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    const c = await credits(sub);
    expect(c.balance).toBe(7);
    expect(c.transactions).toHaveLength(1);
  });

  test('keys belong to the agency: another agency may use the same key', async () => {
    const mine = await newSub();
    const theirs = await newSub(otherAgency);
    const key = unique('shared');
    expect((await grant({ email: mine.email, amount: 1 }, { 'Idempotency-Key': key })).status).toBe(200);
    const res = await grant({ email: theirs.email, amount: 2 }, { 'Idempotency-Key': key }, otherAgency);
    expect(res.status).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect((await credits(theirs)).balance).toBe(2);
  });

  test('a refused grant is not remembered: the same key works once the grant is possible', async () => {
    const key = unique('retry');
    const email = `${unique('later')}@example.com`;
    expectApiError(await grant({ email, amount: 3 }, { 'Idempotency-Key': key }), 404);
    const late = await createAccount(ctx.gw, { parentEmail: agency.email, email });
    const res = await grant({ email, amount: 3 }, { 'Idempotency-Key': key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, sub_account_id: late.id, credits_added: 3, new_balance: 3 });
  });

  test('an unusable key → 400', async () => {
    const sub = await newSub();
    expectApiError(await grant({ email: sub.email, amount: 1 }, { 'Idempotency-Key': 'x'.repeat(300) }), 400);
    expect((await credits(sub)).balance).toBe(0);
  });
});

test('GET /v1/credits requires a key', async () => {
  expectApiError(await request(ctx.gw, 'GET', '/v1/credits'), 401, 'UNAUTHORIZED');
});

test('a sub-account is told whether its balance pays for its messages, what they cost, and which agency grants credits', async () => {
  const sub = await newSub();
  const agencyAccount = (
    await request(ctx.gw, 'GET', '/admin/v1/accounts', {
      query: { email: agency.email },
      headers: { authorization: `Bearer ${ctx.gw.adminToken}` },
    })
  ).body.data[0];
  const empty = (await api(ctx.gw, sub, 'GET', 'credits')).body;
  expect(empty).toMatchObject({
    balance: 0,
    canSend: false,
    prices: { botReply: 1, smsSegment: 1, whatsapp: 1, messenger: 2, instagram: 1.5 },
    agency: { name: agencyAccount.name, email: agency.email },
  });
  expect((await grant({ email: sub.email, amount: 1 })).status).toBe(200);
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body).toMatchObject({ balance: 1, canSend: true });
  // An account that pays for nothing is told nothing of it.
  const own = (await api(ctx.gw, standalone, 'GET', 'credits')).body;
  expect(own).not.toHaveProperty('canSend');
  expect(own).not.toHaveProperty('agency');
});

test('?transactions=false answers the balance without its whole history, for the account and its agency', async () => {
  const sub = await newSub();
  for (const amount of [3, 4]) expect((await grant({ email: sub.email, amount })).status).toBe(200);
  const whole = (await api(ctx.gw, sub, 'GET', 'credits')).body;
  expect(whole.transactions).toHaveLength(2);
  const { transactions: _history, ...balance } = whole;
  const light = await api(ctx.gw, sub, 'GET', 'credits', { query: { transactions: 'false' } });
  expect(light.status).toBe(200);
  expect(light.body).toStrictEqual(balance);
  const seen = await api(ctx.gw, agency, 'GET', `subaccounts/${sub.id}/credits`, { query: { transactions: 'false' } });
  expect(seen.body).toStrictEqual(balance);
  expect((await api(ctx.gw, sub, 'GET', 'credits', { query: { transactions: 'true' } })).body).toStrictEqual(whole);
  const refused = await api(ctx.gw, sub, 'GET', 'credits', { query: { transactions: 'no' } });
  expectApiError(refused, 400, 'VALIDATION_ERROR');
  expect(refused.body.error.fields).toEqual([expect.objectContaining({ field: 'transactions' })]);
});
