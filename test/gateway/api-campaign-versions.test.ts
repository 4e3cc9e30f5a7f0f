import { BACKEND } from '../helpers/gateway';
import type { Tx } from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import { api, createAccount, expectApiError, useGateway, type Reply, type TestAccount } from './api-support';

/**
 * A campaign's version (RFC 9110's ETag and If-Match): a change made from a copy read earlier, in another tab or by
 * another workflow, is refused instead of silently undoing what was saved since. Without If-Match a change goes
 * through as it always did.
 */
const ctx = useGateway();
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

const create = async (name: string) => {
  const res = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name } });
  expect(res.status).toBe(201);
  return res;
};
const read = (id: string) => api(ctx.gw, account, 'GET', `campaigns/${id}`);
const patch = (id: string, body: unknown, ifMatch?: string) =>
  api(ctx.gw, account, 'PATCH', `campaigns/${id}`, {
    body,
    headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  });
const etagOf = (res: Reply) => String(res.headers.etag);

test('a campaign carries its version, in the answer and as a strong ETag: created, read, listed and changed', async () => {
  const created = await create('Versioned');
  expect(created.body.version).toBe(1);
  expect(etagOf(created)).toBe('"1"');
  const id = created.body.id as string;

  const first = await read(id);
  expect(first.body.version).toBe(1);
  expect(etagOf(first)).toBe('"1"');

  const changed = await patch(id, { name: 'Versioned, renamed' });
  expect(changed.status).toBe(200);
  expect(changed.body.version).toBe(2);
  expect(etagOf(changed)).toBe('"2"');

  const again = await read(id);
  expect(etagOf(again)).toBe('"2"');
  const listed = await api(ctx.gw, account, 'GET', 'campaigns', { query: { q: 'Versioned' } });
  expect(listed.body.data.map((c: { version: number }) => c.version)).toEqual([2]);
});

test('a creation sent again with its Idempotency-Key answers the first again, ETag and all, and creates nothing', async () => {
  const key = `create-${Date.now()}`;
  const send = (name: string) =>
    api(ctx.gw, account, 'POST', 'campaigns', { body: { name }, headers: { 'Idempotency-Key': key } });
  const first = await send('Created once');
  expect(first.status).toBe(201);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  const again = await send('Created once');
  expect(again.status).toBe(201);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.body).toEqual(first.body);
  expect(etagOf(again)).toBe('"1"');
  expectApiError(await send('Another campaign'), 422, 'IDEMPOTENCY_KEY_REUSED');
  const listed = await api(ctx.gw, account, 'GET', 'campaigns', { query: { q: 'Created once' } });
  expect(listed.body.data).toHaveLength(1);
});

test('a campaign an earlier release stored, without a version, is at its first', async () => {
  const { body: campaign } = await create('Stored before versions');
  await ctx.gw.engine.store.transact(async (tx) => {
    await tx.update<{ id: string; version?: number }>('campaigns', campaign.id, { version: undefined });
  });
  const old = await read(campaign.id);
  expect({ version: old.body.version, etag: etagOf(old) }).toEqual({ version: 1, etag: '"1"' });
  const changed = await patch(campaign.id, { name: 'Changed after the upgrade' }, '"1"');
  expect({ status: changed.status, version: changed.body.version }).toEqual({ status: 200, version: 2 });
});

test('a change sent with the ETag it read goes through; one sent with an older ETag is 412 and changes nothing', async () => {
  const { body: campaign } = await create('Two tabs');
  const id = campaign.id as string;
  // Two members open the campaign: both read version 1.
  const tabA = await read(id);
  const tabB = await read(id);

  const saved = await patch(
    id,
    { bot: { faqs: [{ question: 'Do you open on Saturday?', answer: 'From 9 to 1.' }] } },
    etagOf(tabA),
  );
  expect(saved.status).toBe(200);
  expect(etagOf(saved)).toBe('"2"');

  // The other tab saves its whole form, read before that FAQ was added.
  const stale = await patch(id, { name: 'Two tabs, renamed', bot: { faqs: [] } }, etagOf(tabB));
  expectApiError(stale, 412, 'PRECONDITION_FAILED');
  expect(stale.body.error.message).toMatch(/changed since/);

  const now = await read(id);
  expect(now.body).toMatchObject({
    name: 'Two tabs',
    version: 2,
    bot: { faqs: [{ question: 'Do you open on Saturday?', answer: 'From 9 to 1.' }] },
  });
  expect(now.body.updatedAt).toBe(saved.body.updatedAt);

  // Read again, the same change goes through.
  const retried = await patch(id, { name: 'Two tabs, renamed' }, etagOf(now));
  expect(retried.status).toBe(200);
  expect(retried.body).toMatchObject({ name: 'Two tabs, renamed', version: 3 });
  expect(retried.body.bot.faqs).toHaveLength(1);
});

test('without If-Match a change goes through whatever the version, as it always did', async () => {
  const { body: campaign } = await create('No precondition');
  await patch(campaign.id, { name: 'Changed once' });
  const res = await patch(campaign.id, { status: 'paused' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ name: 'Changed once', status: 'paused', version: 3 });
});

test('If-Match: * and a list holding the current ETag match; a weak ETag never does (strong comparison)', async () => {
  const { body: campaign } = await create('Lists of tags');
  const id = campaign.id as string;
  expect((await patch(id, { name: 'Star' }, '*')).status).toBe(200);
  expect((await patch(id, { name: 'Listed' }, '"7", "2" ,"9"')).status).toBe(200);
  expectApiError(await patch(id, { name: 'Weak' }, 'W/"3"'), 412, 'PRECONDITION_FAILED');
  expectApiError(await patch(id, { name: 'Other' }, '"30"'), 412, 'PRECONDITION_FAILED');
  expect((await read(id)).body).toMatchObject({ name: 'Listed', version: 3 });
});

test('a malformed If-Match is 400 INVALID_IF_MATCH, never a 500, and changes nothing', async () => {
  const { body: campaign } = await create('Malformed');
  const id = campaign.id as string;
  for (const value of ['1', '"1', '1"', "'1'", '*, "1"', '"1" "2"', 'W/1', '"a"b"', '', ' , ']) {
    const res = await patch(id, { name: 'Never' }, value);
    expectApiError(res, 400, 'INVALID_IF_MATCH');
    expect(res.body.error.message).toMatch(/^If-Match:/);
  }
  expect((await read(id)).body).toMatchObject({ name: 'Malformed', version: 1 });
});

test("another account's campaign is 404 whatever If-Match says; a stale If-Match is told before the campaign's rules", async () => {
  const { body: campaign } = await create('Rules');
  const other = await createAccount(ctx.gw);
  expectApiError(
    await api(ctx.gw, other, 'PATCH', `campaigns/${campaign.id}`, {
      body: { name: 'X' },
      headers: { 'if-match': '"1"' },
    }),
    404,
    'CAMPAIGN_NOT_FOUND',
  );
  await patch(campaign.id, { name: 'Rules, renamed' });
  // Live without a list or an opening message would be 400 CAMPAIGN_CANNOT_SEND: the campaign changed first.
  expectApiError(await patch(campaign.id, { status: 'live' }, '"1"'), 412, 'PRECONDITION_FAILED');
});

/**
 * Holds the first `n` transactions that read a campaign, each after its read, until all of them have read it: they
 * then change it from the same version, and race to commit. On PostgreSQL only: the embedded store runs one
 * transaction at a time, so no two changes of it can read the same version (and one held would hold the others).
 */
function readTogether(n: number): () => void {
  const store = ctx.gw.engine.store;
  const transact = store.transact;
  if (BACKEND !== 'postgres') return () => undefined;
  let read = 0;
  let allRead!: () => void;
  const together = new Promise<void>((resolve) => (allRead = resolve));
  store.transact = <R>(fn: (tx: Tx) => Promise<R>) =>
    transact.call<typeof store, [(tx: Tx) => Promise<R>], Promise<R>>(store, (tx: Tx) =>
      fn(
        new Proxy(tx, {
          get(target, name) {
            const value = Reflect.get(target, name) as unknown;
            if (name !== 'get') return typeof value === 'function' ? value.bind(target) : value;
            return async (collection: string, id: string) => {
              const doc = await target.get(collection, id);
              if (collection === 'campaigns' && read < n) {
                if (++read === n) allRead();
                await together;
              }
              return doc;
            };
          },
        }),
      ),
    );
  return () => {
    store.transact = transact;
  };
}

test('changes racing with the same If-Match: exactly one goes through, every other is 412', async () => {
  const { body: campaign } = await create('Race');
  const id = campaign.id as string;
  const names = ['Race A', 'Race B', 'Race C', 'Race D', 'Race E'];
  const restore = readTogether(names.length);
  const answers = await Promise.all(names.map((name) => patch(id, { name }, '"1"'))).finally(restore);
  const won = answers.filter((r) => r.status === 200);
  expect(won).toHaveLength(1);
  for (const lost of answers.filter((r) => r.status !== 200)) expectApiError(lost, 412, 'PRECONDITION_FAILED');
  expect((await read(id)).body).toMatchObject({ name: won[0].body.name, version: 2 });
});
