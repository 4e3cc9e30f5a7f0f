import { api, createAccount, expectApiError, useGateway, type TestAccount } from './api-support';

/** GET /v1/lists?q= and GET /v1/campaigns?q=: the server searches names, so a picker needs no page but its own. */
const ctx = useGateway();
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

/** Every page of a search, walked by nextCursor, with the size of each page. */
async function walk(path: string, q: string, limit: number): Promise<{ names: string[]; pages: number[] }> {
  const names: string[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  do {
    const query: Record<string, string> = { q, limit: String(limit), ...(cursor ? { cursor } : {}) };
    const res = await api(ctx.gw, account, 'GET', `${path}?${new URLSearchParams(query).toString()}`);
    expect(res.status).toBe(200);
    names.push(...res.body.data.map((record: { name: string }) => record.name));
    pages.push(res.body.data.length);
    cursor = res.body.nextCursor;
  } while (cursor);
  return { names, pages };
}

test('lists: q finds names holding the text, case and accents aside, in their order, page by page', async () => {
  const names = ['Spring Promo', 'Winter leads', 'PROMO été', 'Other', 'Promotions 2027', 'Prómo late'];
  for (const name of names) expect((await api(ctx.gw, account, 'POST', 'lists', { body: { name } })).status).toBe(201);
  const found = await walk('lists', 'promo', 2);
  expect(found.names).toEqual(['Spring Promo', 'PROMO été', 'Promotions 2027', 'Prómo late']);
  expect(found.pages).toEqual([2, 2]);
  expect((await walk('lists', 'ETE', 50)).names).toEqual(['PROMO été']);
  expect((await walk('lists', 'nothing like it', 50)).names).toEqual([]);
});

test('campaigns: q finds names holding the text', async () => {
  for (const name of ['Dental recall', 'Open house', 'Recall — spring']) {
    expect(
      (await api(ctx.gw, account, 'POST', 'campaigns', { body: { name, channel: 'sms', openingMessage: 'Hi' } }))
        .status,
    ).toBe(201);
  }
  expect((await walk('campaigns', 'recall', 1)).names).toEqual(['Dental recall', 'Recall — spring']);
});

test('a cursor of one search is refused for another; an empty or long q is a 400', async () => {
  for (let n = 0; n < 3; n++) await api(ctx.gw, account, 'POST', 'lists', { body: { name: `Cursor list ${n}` } });
  const first = await api(ctx.gw, account, 'GET', 'lists?q=cursor&limit=1');
  expect(first.body.nextCursor).toEqual(expect.any(String));
  expectApiError(
    await api(ctx.gw, account, 'GET', `lists?q=list&limit=1&cursor=${first.body.nextCursor}`),
    400,
    'INVALID_CURSOR',
  );
  expectApiError(await api(ctx.gw, account, 'GET', 'lists?q=%20'), 400);
  expectApiError(await api(ctx.gw, account, 'GET', `campaigns?q=${'x'.repeat(201)}`), 400);
});
