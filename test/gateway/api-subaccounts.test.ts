import { consoleAccount, signIn, withSession } from '../console/support';
import { api, createAccount, expectApiError, request, unique, useGateway, type TestAccount } from './api-support';

/**
 * An agency's view of its sub-accounts over HTTPS (spec §2.7): the list with balances and auto-recharge rules,
 * paged; one sub-account's credit history, as GET /v1/credits shows it to the sub-account; nothing for anyone else.
 * The console's session works on the grant and auto-recharge routes (which take an API key in x-api-key only),
 * with its CSRF token.
 */
const ctx = useGateway();
let agency: TestAccount;
let subs: TestAccount[];
let foreign: TestAccount;
let standard: TestAccount;

beforeAll(async () => {
  agency = await createAccount(ctx.gw, { type: 'agency' });
  subs = [
    await createAccount(ctx.gw, { parentEmail: agency.email, name: 'Smile Dental' }),
    await createAccount(ctx.gw, { parentEmail: agency.email, name: 'Bright Realty' }),
  ];
  const otherAgency = await createAccount(ctx.gw, { type: 'agency' });
  foreign = await createAccount(ctx.gw, { parentEmail: otherAgency.email });
  standard = await createAccount(ctx.gw);
});

const grant = (email: string, amount: number, description?: string) =>
  api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email, amount, description } });

test("the agency's sub-accounts with balances and auto-recharge rules, oldest first, a page at a time", async () => {
  expect((await grant(subs[0]!.email, 25, 'Welcome')).status).toBe(200);
  expect(
    (
      await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
        body: { email: subs[1]!.email, threshold: 5, amount: 20 },
      })
    ).status,
  ).toBe(200);

  const all = await api(ctx.gw, agency, 'GET', 'subaccounts');
  expect(all.status).toBe(200);
  expect(all.body).toEqual({
    data: [
      {
        id: subs[0]!.id,
        name: 'Smile Dental',
        email: subs[0]!.email,
        balance: 25,
        autoRecharge: null,
        createdAt: expect.stringMatching(/Z$/),
      },
      {
        id: subs[1]!.id,
        name: 'Bright Realty',
        email: subs[1]!.email,
        balance: 0,
        autoRecharge: { enabled: true, threshold: 5, amount: 20, pending: true },
        createdAt: expect.stringMatching(/Z$/),
      },
    ],
    nextCursor: null,
  });
  const first = await api(ctx.gw, agency, 'GET', 'subaccounts?limit=1');
  expect(first.body.data.map((s: any) => s.id)).toEqual([subs[0]!.id]);
  const second = await api(ctx.gw, agency, 'GET', `subaccounts?limit=1&cursor=${first.body.nextCursor}`);
  expect(second.body).toEqual({ data: [expect.objectContaining({ id: subs[1]!.id })], nextCursor: null });
  expectApiError(await api(ctx.gw, agency, 'GET', 'subaccounts?limit=0'), 400, 'VALIDATION_ERROR');
});

test("a sub-account's credit history is what GET /v1/credits shows the sub-account itself", async () => {
  await grant(subs[0]!.email, 4.5);
  const seen = await api(ctx.gw, agency, 'GET', `subaccounts/${subs[0]!.id}/credits`);
  expect(seen.status).toBe(200);
  const own = await api(ctx.gw, subs[0]!, 'GET', 'credits');
  expect(seen.body).toEqual(own.body);
  expect(seen.body).toMatchObject({
    balance: 29.5,
    autoRecharge: null,
    transactions: [
      { kind: 'grant', amount: 4.5, balance: 29.5 },
      { kind: 'grant', amount: 25, description: 'Welcome' },
    ],
  });
});

test("a sub-account's credit history a page at a time, as GET /v1/credits/history shows it to the sub-account", async () => {
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email });
  for (const amount of [1, 2, 3]) await grant(sub.email, amount, `Grant ${amount}`);
  const own = await api(ctx.gw, sub, 'GET', 'credits/history');
  const first = await api(ctx.gw, agency, 'GET', `subaccounts/${sub.id}/credits/history?limit=2`);
  expect(first.status).toBe(200);
  expect(first.body.data).toEqual(own.body.data.slice(0, 2));
  expect(first.body.data.map((e: { amount: number }) => e.amount)).toEqual([3, 2]);
  const rest = await api(
    ctx.gw,
    agency,
    'GET',
    `subaccounts/${sub.id}/credits/history?limit=2&cursor=${first.body.nextCursor}`,
  );
  expect(rest.body).toEqual({ data: own.body.data.slice(2), nextCursor: null });
  // A cursor is good for the sub-account whose history gave it only.
  expectApiError(
    await api(ctx.gw, agency, 'GET', `subaccounts/${subs[0]!.id}/credits/history?cursor=${first.body.nextCursor}`),
    400,
    'INVALID_CURSOR',
  );
});

test("another agency's sub-account, the agency itself and an unknown id → 404 alike", async () => {
  for (const id of [foreign.id, agency.id, standard.id, 'acc_nope']) {
    for (const path of [`subaccounts/${id}/credits`, `subaccounts/${id}/credits/history`]) {
      const res = await api(ctx.gw, agency, 'GET', path);
      expectApiError(res, 404, 'SUB_ACCOUNT_NOT_FOUND');
      expect(res.body.error.message).toBe('Sub-account not found');
    }
  }
});

test('a standard account or a sub-account → 403 NOT_AGENCY; no key → 401', async () => {
  for (const account of [standard, subs[0]!]) {
    expectApiError(await api(ctx.gw, account, 'GET', 'subaccounts'), 403, 'NOT_AGENCY');
    expectApiError(await api(ctx.gw, account, 'GET', `subaccounts/${subs[1]!.id}/credits`), 403, 'NOT_AGENCY');
    expectApiError(await api(ctx.gw, account, 'GET', `subaccounts/${subs[1]!.id}/credits/history`), 403, 'NOT_AGENCY');
  }
  expectApiError(await api(ctx.gw, undefined, 'GET', 'subaccounts'), 401);
});

test('an agency cannot be made a sub-account of an agency: 400 naming parentEmail, nothing stored', async () => {
  const admin = { authorization: `Bearer ${ctx.gw.adminToken}` };
  const email = `${unique('agency-under-agency')}@example.com`;
  const res = await request(ctx.gw, 'POST', '/admin/v1/accounts', {
    headers: admin,
    body: { name: 'Nested', email, type: 'agency', parentEmail: agency.email },
  });
  expectApiError(res, 400, 'AGENCY_CANNOT_HAVE_PARENT');
  expect(res.body.error.message).toMatch(/^parentEmail: an agency cannot be a sub-account/);
  expect((await request(ctx.gw, 'GET', '/admin/v1/accounts', { headers: admin, query: { email } })).body.data).toEqual(
    [],
  );
  expect(
    (await api(ctx.gw, agency, 'GET', 'subaccounts')).body.data.map((s: { email: string }) => s.email),
  ).not.toContain(email);
});

describe('with a console session', () => {
  test('an agency grants credits and sets auto-recharge with its CSRF token; without it nothing changes', async () => {
    const owner = await consoleAccount(ctx.gw, { type: 'agency' });
    const sub = await createAccount(ctx.gw, { parentEmail: owner.email });
    const session = await signIn(ctx.gw, owner.email, owner.password);
    expect(session.reply.status).toBe(200);

    expectApiError(
      await withSession(ctx.gw, session, 'POST', '/v1/subaccounts/credits', {
        body: { email: sub.email, amount: 10 },
        csrf: null,
      }),
      403,
      'CSRF_TOKEN_INVALID',
    );
    expectApiError(
      await withSession(ctx.gw, session, 'POST', '/v1/subaccounts/credits', {
        body: { email: sub.email, amount: 10 },
        csrf: 'not-the-token',
      }),
      403,
      'CSRF_TOKEN_INVALID',
    );
    const granted = await withSession(ctx.gw, session, 'POST', '/v1/subaccounts/credits', {
      body: { email: sub.email, amount: 10, description: 'From the console' },
    });
    expect(granted.status).toBe(200);
    expect(granted.body).toEqual({ success: true, sub_account_id: sub.id, credits_added: 10, new_balance: 10 });

    expectApiError(
      await withSession(ctx.gw, session, 'PUT', '/v1/subaccounts/auto-recharge', {
        body: { email: sub.email, threshold: 2, amount: 15 },
        csrf: null,
      }),
      403,
      'CSRF_TOKEN_INVALID',
    );
    const rule = await withSession(ctx.gw, session, 'PUT', '/v1/subaccounts/auto-recharge', {
      body: { email: sub.email, threshold: 2, amount: 15 },
    });
    expect(rule.status).toBe(200);

    const list = await withSession(ctx.gw, session, 'GET', '/v1/subaccounts');
    expect(list.body.data).toEqual([
      expect.objectContaining({
        id: sub.id,
        balance: 10,
        autoRecharge: { enabled: true, threshold: 2, amount: 15, pending: false },
      }),
    ]);
    const history = await withSession(ctx.gw, session, 'GET', `/v1/subaccounts/${sub.id}/credits`);
    expect(history.body.transactions).toEqual([
      expect.objectContaining({ kind: 'grant', amount: 10, description: 'From the console' }),
    ]);
  });

  test("a standard account's session gets 403 NOT_AGENCY", async () => {
    const owner = await consoleAccount(ctx.gw);
    const session = await signIn(ctx.gw, owner.email, owner.password);
    expectApiError(await withSession(ctx.gw, session, 'GET', '/v1/subaccounts'), 403, 'NOT_AGENCY');
    expectApiError(
      await withSession(ctx.gw, session, 'POST', '/v1/subaccounts/credits', {
        body: { email: subs[0]!.email, amount: 1 },
      }),
      403,
      'NOT_AGENCY',
    );
  });
});
