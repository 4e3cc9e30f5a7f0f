import path from 'node:path';
import { Client } from 'pg';
import type { CollectionSpec, Store } from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import { BACKEND, removeDir, startGateway, tempDir } from '../helpers/gateway';
import { api, createAccount, expectApiError, incoming, poll, uniquePhone, useGateway, type TestAccount } from './api-support';

/**
 * Contact search (GET /v1/contacts?q=): by the start of a name's words, an email, the last digits of a phone, an
 * external ID; accents and case folded; each contact once; another account's contacts never; paged like every list.
 * Contacts made every way in are found: created, imported, writing in on a custom channel, renamed by a send.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms' });

const search = (account: TestAccount, q: string, extra: Record<string, string> = {}) => api(ctx.gw, account, 'GET', 'contacts', { query: { q, ...extra } });
const idsFor = async (account: TestAccount, q: string) => {
  const res = await search(account, q);
  expect(res.status).toBe(200);
  return (res.body.data as Array<{ id: string }>).map((c) => c.id).sort();
};
const create = async (account: TestAccount, body: Record<string, unknown>) => {
  const res = await api(ctx.gw, account, 'POST', 'contacts', { body });
  expect(res.status).toBe(201);
  return res.body as { id: string; phone: string };
};

let account: TestAccount;
let other: TestAccount;
let frank: { id: string; phone: string };
let francine: { id: string; phone: string };
let jose: { id: string; phone: string };

beforeAll(async () => {
  [account, other] = await Promise.all([createAccount(ctx.gw), createAccount(ctx.gw)]);
  frank = await create(account, { firstName: 'Frank', lastName: 'Miller', phone: '+14155550123', email: 'Frank.Miller@Example.com', externalIds: { crm: 'CRM-9001' } });
  francine = await create(account, { firstName: 'Francine', lastName: "O'Brien-Smith", phone: '+14155557777' });
  jose = await create(account, { firstName: 'José', lastName: 'Núñez', email: 'jose@clinic.example' });
  // Another account holds a Frank with the same phone's last digits and email: never found from the first.
  await create(other, { firstName: 'Frank', lastName: 'Other', phone: '+442079460123', email: 'frank.miller@example.com', externalIds: { crm: 'CRM-9001' } });
});

test('the start of a name: each word, several words, any case and accents', async () => {
  expect(await idsFor(account, 'fra')).toEqual([frank.id, francine.id].sort());
  expect(await idsFor(account, 'FRANK')).toEqual([frank.id]);
  expect(await idsFor(account, 'mill')).toEqual([frank.id]);
  expect(await idsFor(account, 'fra mil')).toEqual([frank.id]);
  expect(await idsFor(account, 'miller frank')).toEqual([frank.id]);
  // A part of a written word, and the word as written.
  expect(await idsFor(account, 'smith')).toEqual([francine.id]);
  expect(await idsFor(account, "o'brien")).toEqual([francine.id]);
  expect(await idsFor(account, 'jose nunez')).toEqual([jose.id]);
  expect(await idsFor(account, 'Núñ')).toEqual([jose.id]);
  // Words of more than 8 letters are found by all of them, and not by a longer word.
  expect(await idsFor(account, 'francine')).toEqual([francine.id]);
  expect(await idsFor(account, 'francinette')).toEqual([]);
  expect(await idsFor(account, 'fra xyz')).toEqual([]);
});

test('an email, whole or by its start; the last digits of a phone, however written; an external ID', async () => {
  expect(await idsFor(account, 'frank.miller@example.com')).toEqual([frank.id]);
  expect(await idsFor(account, 'frank.mil')).toEqual([frank.id]);
  expect(await idsFor(account, 'jose@clinic')).toEqual([jose.id]);
  expect(await idsFor(account, '0123')).toEqual([frank.id]);
  expect(await idsFor(account, '555-0123')).toEqual([frank.id]);
  expect(await idsFor(account, '(415) 555-0123')).toEqual([frank.id]);
  expect(await idsFor(account, '+1 415 555 0123')).toEqual([frank.id]);
  expect(await idsFor(account, '4155557777')).toEqual([francine.id]);
  // The first digits of a number are not its last ones.
  expect(await idsFor(account, '1415')).toEqual([]);
  expect(await idsFor(account, 'crm-9001')).toEqual([frank.id]);
  // The answer is the contact as GET /v1/contacts/{id} shows it.
  const found = await search(account, 'CRM-9001');
  expect(found.body).toEqual({ data: [(await api(ctx.gw, account, 'GET', `contacts/${frank.id}`)).body], nextCursor: null });
});

test('a name whose characters lie beyond the basic plane is kept and found: keys never cut a character in two', async () => {
  const account = await createAccount(ctx.gw);
  const contact = await create(account, { phone: uniquePhone(), firstName: 'a\u{10990}bc', lastName: '\u{1FA44}x' });
  expect(await idsFor(account, 'a\u{10990}')).toEqual([contact.id]);
  expect(await idsFor(account, '\u{1FA44}x')).toEqual([contact.id]);
});

test("another account's contacts are never found, whatever matches", async () => {
  for (const q of ['frank', 'other', '0123', 'frank.miller@example.com', 'CRM-9001']) {
    const ids = await idsFor(account, q);
    const theirs = await idsFor(other, q);
    expect(ids.some((id) => theirs.includes(id))).toBe(false);
  }
  expect(await idsFor(account, 'other')).toEqual([]);
  expect((await idsFor(other, 'fra')).length).toBe(1);
});

test('contacts made every way in are found: imported, writing in on a custom channel, renamed by a send', async () => {
  const owner = await createAccount(ctx.gw);
  const listId = (await api(ctx.gw, owner, 'POST', 'lists', { body: { name: 'Spring' } })).body.id;
  const imported = await api(ctx.gw, owner, 'POST', `lists/${listId}/imports`, {
    body: { csv: `First name,Phone\nHannelore,${uniquePhone()}\n`, columns: { firstName: 'First name', phone: 'Phone' } },
  });
  expect(imported.status).toBe(202);
  await poll(() => api(ctx.gw, owner, 'GET', `imports/${imported.body.id}`), (r) => r.body.status === 'done');
  expect((await search(owner, 'hanne')).body.data.map((c: { firstName: string }) => c.firstName)).toEqual(['Hannelore']);

  const wrote = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', { body: incoming({ fromId: 'visitor-314', channel: 'chat', firstName: 'Piotr' }) });
  expect(wrote.status).toBe(200);
  const { contactId } = (await api(ctx.gw, owner, 'GET', `messages/${wrote.body.messageId}`)).body;
  expect(await idsFor(owner, 'piot')).toEqual([contactId]);
  expect(await idsFor(owner, 'visitor-314')).toEqual([contactId]);

  // A send names the contact anew: found by the new name, no longer by the old one.
  const sent = await api(ctx.gw, owner, 'POST', 'send_custom_channel_message', { body: { customData: { fromId: 'visitor-314', customChannel: 'chat', body: 'Hi', firstName: 'Pavel' } } });
  expect(sent.status).toBe(200);
  expect(await idsFor(owner, 'pav')).toEqual([contactId]);
  expect(await idsFor(owner, 'piot')).toEqual([]);
});

test('paged like every list: each contact once, newest first, the cursor bound to the query', async () => {
  const owner = await createAccount(ctx.gw);
  const made: string[] = [];
  for (let i = 0; i < 7; i++) made.push((await create(owner, { firstName: `Pagina${i}`, lastName: 'Paginata', phone: uniquePhone() })).id);
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await search(owner, 'pagin', { limit: '3', ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(3);
    seen.push(...res.body.data.map((c: { id: string }) => c.id));
    cursor = res.body.nextCursor ?? undefined;
    pages++;
  } while (cursor);
  // Both words of each name start with "pagin": each contact comes once all the same.
  expect({ pages, seen }).toEqual({ pages: 3, seen: [...made].reverse() });

  const first = await search(owner, 'pagin', { limit: '3' });
  expectApiError(await search(owner, 'pagina', { limit: '3', cursor: first.body.nextCursor }), 400, 'INVALID_CURSOR');
  expectApiError(await search(account, 'pagin', { limit: '3', cursor: first.body.nextCursor }), 400, 'INVALID_CURSOR');
});

test('a query with nothing to look for, or with a lookup, is a 400; the lookups answer as before', async () => {
  expectApiError(await search(account, 'f'), 400);
  expectApiError(await search(account, '  '), 400);
  expectApiError(await search(account, 'x'.repeat(201)), 400);
  expectApiError(await api(ctx.gw, account, 'GET', 'contacts', { query: { q: 'frank', email: 'frank.miller@example.com' } }), 400);
  expect((await search(account, '123')).body).toEqual({ data: [], nextCursor: null });
  const byPhone = await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: frank.phone } });
  expect({ status: byPhone.status, id: byPhone.body.id, data: byPhone.body.data }).toEqual({ status: 200, id: frank.id, data: undefined });
});

test("a contact found leads to their conversations: GET /v1/conversations?contactId=, one per channel, another account's a 404", async () => {
  const owner = await createAccount(ctx.gw);
  for (const channel of ['web-chat', 'email-desk']) {
    expect((await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', { body: incoming({ fromId: 'visitor-ines', channel, firstName: 'Inès' }) })).status).toBe(200);
  }
  await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', { body: incoming({ fromId: 'visitor-other', channel: 'web-chat', firstName: 'Ivo' }) });
  const [ines] = (await search(owner, 'ines')).body.data;
  const theirs = await api(ctx.gw, owner, 'GET', 'conversations', { query: { contactId: ines.id } });
  expect(theirs.status).toBe(200);
  expect(theirs.body.data.map((c: { contactId: string; customChannel: string }) => [c.contactId, c.customChannel]).sort()).toEqual([[ines.id, 'email-desk'], [ines.id, 'web-chat']]);
  expectApiError(await api(ctx.gw, other, 'GET', 'conversations', { query: { contactId: ines.id } }), 404, 'CONTACT_NOT_FOUND');
});

test('contacts stored before search keys existed get theirs when the gateway starts on them', async () => {
  const dataDir = tempDir('leadchat-search-upgrade-');
  let gw = await startGateway({}, dataDir);
  const owner = await createAccount(gw);
  const early = (await api(gw, owner, 'POST', 'contacts', { body: { firstName: 'Octavia', phone: '+14155550999', externalIds: { crm: 'OLD-7' } } })).body;
  await gw.stop();

  // The storage as an earlier version left it: contacts, and no search key nor the mark that they were all given some.
  const store = await openStoreOf(gw.env);
  await store.transact(async (tx) => {
    for (const key of await tx.scan<{ id: string }>('contact_search')) await tx.remove('contact_search', key.id);
    if (BACKEND === 'lowdb') await tx.remove('gateway_settings', 'contact-search-indexed');
  });
  expect(await store.scan('contact_search')).toEqual([]);
  await store.close();
  if (BACKEND === 'postgres') {
    const client = new Client({ connectionString: gw.env.LEADCHAT_DATABASE_URL });
    await client.connect();
    await client.query("DELETE FROM leadchat_settings WHERE name = 'contact-search-indexed'");
    await client.end();
  }

  gw = await startGateway({}, dataDir);
  try {
    for (const q of ['octa', '0999', 'OLD-7']) {
      const found = await poll(() => api(gw, owner, 'GET', 'contacts', { query: { q } }), (r) => r.body.data?.length === 1);
      expect(found.body.data.map((c: { id: string }) => c.id)).toEqual([early.id]);
    }
  } finally {
    await gw.stop();
    removeDir(dataDir);
  }
});

/** The gateway's store, opened here on the storage a stopped gateway used. */
async function openStoreOf(env: Record<string, string>): Promise<Store> {
  const dist = path.resolve(__dirname, '../../gateway/dist');
  const { collections } = (await import(path.join(dist, 'domain/collections.js'))) as { collections: CollectionSpec[] };
  if (BACKEND === 'postgres') {
    const { openPostgresStore } = await import(path.join(dist, 'store/postgres/postgres-store.js'));
    return openPostgresStore({ url: env.LEADCHAT_DATABASE_URL, collections });
  }
  const { openLowdbStore } = await import(path.join(dist, 'store/lowdb/lowdb-store.js'));
  return openLowdbStore({ dir: path.join(env.LEADCHAT_DATA_DIR!, 'store'), collections });
}
