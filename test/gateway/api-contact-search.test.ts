import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { BACKEND, removeDir, tempDir } from '../helpers/gateway';
import { startInProcess } from '../helpers/in-process';
import { openStoreOf, type Store } from '../helpers/stopped-store';
import {
  api,
  createAccount,
  expectApiError,
  incoming,
  poll,
  uniquePhone,
  useGateway,
  type TestAccount,
} from './api-support';

/** The mark that every stored contact has the search keys of this release (jobs/contact-search-index.ts). */
const SEARCH_KEYS_DONE = 'contact-search-indexed-3';
/** The marks of earlier releases. */
const EARLIER_MARKS = ['contact-search-indexed', 'contact-search-indexed-2'];

/**
 * Contact search (GET /v1/contacts?q=): by the start of a name's words, an email, the last digits of a phone, an
 * external ID; case, accents and punctuation folded; each contact once; another account's contacts never; paged like every list.
 * Contacts made every way in are found: created, imported, writing in on a custom channel, renamed by a send.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms' });

const search = (account: TestAccount, q: string, extra: Record<string, string> = {}) =>
  api(ctx.gw, account, 'GET', 'contacts', { query: { q, ...extra } });
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
  frank = await create(account, {
    firstName: 'Frank',
    lastName: 'Miller',
    phone: '+14155550123',
    email: 'Frank.Miller@Example.com',
    externalIds: { crm: 'CRM-9001' },
  });
  francine = await create(account, { firstName: 'Francine', lastName: "O'Brien-Smith", phone: '+14155557777' });
  jose = await create(account, { firstName: 'José', lastName: 'Núñez', email: 'jose@clinic.example' });
  // Another account holds a Frank with the same phone's last digits and email: never found from the first.
  await create(other, {
    firstName: 'Frank',
    lastName: 'Other',
    phone: '+442079460123',
    email: 'frank.miller@example.com',
    externalIds: { crm: 'CRM-9001' },
  });
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
  expect(found.body).toEqual({
    data: [(await api(ctx.gw, account, 'GET', `contacts/${frank.id}`)).body],
    nextCursor: null,
  });
});

test('5 to 7 last digits find the phones that end with all of them; an ID of digits is found whole', async () => {
  expect(await idsFor(account, '50123')).toEqual([frank.id]);
  expect(await idsFor(account, '550123')).toEqual([frank.id]);
  expect(await idsFor(account, '5550123')).toEqual([frank.id]);
  expect(await idsFor(account, '5557777')).toEqual([francine.id]);
  // The same last 4 digits, another digit before them: another number (the other account's Frank ends with 60123).
  expect(await idsFor(account, '60123')).toEqual([]);
  expect(await idsFor(account, '4155550000')).toEqual([]);
  const till = await create(account, { firstName: 'Till', externalIds: { pos: '771234' } });
  expect(await idsFor(account, '771234')).toEqual([till.id]);
  expect(await idsFor(account, '71234')).toEqual([]);
});

/** The search keys stored for a contact. */
const keysOf = async (contactId: string) =>
  (await ctx.gw.engine.store.scan<{ id: string; contactId: string; key: string }>('contact_search'))
    .filter((k) => k.contactId === contactId)
    .map((k) => k.key)
    .sort();

test("a phone is kept as two search keys, and an ID that is the phone as none; an earlier version's keys go with a change and an erasure", async () => {
  const owner = await createAccount(ctx.gw);
  const wrote = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: '+14155550444', channel: 'chat' }),
  });
  expect(wrote.status).toBe(200);
  const { contactId } = (await api(ctx.gw, owner, 'GET', `messages/${wrote.body.messageId}`)).body;
  expect(await keysOf(contactId)).toEqual(['0444', '55550444']);
  for (const q of ['+1 415 555 0444', '+14155550444', '50444', '0444'])
    expect(await idsFor(owner, q)).toEqual([contactId]);

  // The keys an earlier version made besides these: every length of the last digits, and the ID's own.
  const keep = (key: string) => ({
    id: `csk_${createHash('sha256').update(`${contactId}\n${key}`).digest('hex').slice(0, 32)}`,
    accountId: owner.id,
    contactId,
    key,
  });
  const addEarlier = (keys: string[]) =>
    ctx.gw.engine.store.transact(async (tx) => {
      for (const key of keys)
        if (!(await tx.get('contact_search', keep(key).id))) await tx.insert('contact_search', keep(key));
    });
  await addEarlier(['50444', '550444', '5550444', '+1415555', '14155550']);
  // A new phone: the old one's keys go; the ID, no longer the phone, has its own.
  const changed = await api(ctx.gw, owner, 'PATCH', `contacts/${contactId}`, { body: { phone: '+14155550555' } });
  expect(changed.status).toBe(200);
  expect(await keysOf(contactId)).toEqual(['+1415555', '0555', '14155550', '55550555']);
  expect(await idsFor(owner, '50444')).toEqual([]);
  expect(await idsFor(owner, '50555')).toEqual([contactId]);

  await addEarlier(['50555', '550555', '5550555']);
  expect((await api(ctx.gw, owner, 'DELETE', `contacts/${contactId}`)).status).toBe(204);
  expect(await keysOf(contactId)).toEqual([]);
});

test('a whole number as people write it in its country finds its contact: with the trunk 0, with 00 for the plus', async () => {
  const clinic = await createAccount(ctx.gw);
  const ruth = await create(clinic, { firstName: 'Ruth', phone: '+447700900123' });
  const ana = await create(clinic, { firstName: 'Ana', phone: '+33612345678' });
  // Without a default country: the number as said in the UK or France, and dialled from abroad.
  expect(await idsFor(clinic, '07700 900123')).toEqual([ruth.id]);
  expect(await idsFor(clinic, '07700-900-123')).toEqual([ruth.id]);
  expect(await idsFor(clinic, '0044 7700 900123')).toEqual([ruth.id]);
  expect(await idsFor(clinic, '06 12 34 56 78')).toEqual([ana.id]);
  expect(await idsFor(clinic, '00 33 6 12 34 56 78')).toEqual([ana.id]);
  // The last digits stay the last digits: a leading 0 of a few is one of them.
  expect(await idsFor(clinic, '0123')).toEqual([ruth.id]);
  expect(await idsFor(clinic, '00123')).toEqual([ruth.id]);
  expect(await idsFor(clinic, '0900123')).toEqual([ruth.id]);
  expect(await idsFor(clinic, '00900124')).toEqual([]);
  // Another number with the same national digits is another number.
  expect(await idsFor(clinic, '+1 7700 900123')).toEqual([]);

  // Under a default country, its national numbers as the account reads them everywhere (a trunk 8, an exit code 011).
  const moscow = await createAccount(ctx.gw);
  expect((await api(ctx.gw, moscow, 'PUT', 'settings', { body: { defaultCountry: 'RU' } })).status).toBe(200);
  const ivan = await create(moscow, { firstName: 'Ivan', phone: '+79123456789' });
  expect(await idsFor(moscow, '8 912 345-67-89')).toEqual([ivan.id]);
  const boston = await createAccount(ctx.gw);
  expect((await api(ctx.gw, boston, 'PUT', 'settings', { body: { defaultCountry: 'US' } })).status).toBe(200);
  const pat = await create(boston, { firstName: 'Pat', phone: '+447700900123' });
  expect(await idsFor(boston, '011 44 7700 900123')).toEqual([pat.id]);
});

test('case, accents and punctuation do not matter: "oneil" finds O\'Neil, "jose" José, "lukasz" Łukasz', async () => {
  const owner = await createAccount(ctx.gw);
  const oneil = await create(owner, { firstName: 'Sean', lastName: "O'Neil", phone: uniquePhone() });
  const curly = await create(owner, { firstName: 'Aoife', lastName: 'O’Brien', phone: uniquePhone() });
  const annMarie = await create(owner, {
    firstName: 'Ann-Marie',
    lastName: 'Dupont',
    phone: uniquePhone(),
    email: 'a.m.dupont@clinic.example',
  });
  const josé = await create(owner, {
    firstName: 'José',
    lastName: 'García',
    phone: uniquePhone(),
    externalIds: { crm: 'CRM-77.01' },
  });
  const lukasz = await create(owner, { firstName: 'Łukasz', lastName: 'Strauß', phone: uniquePhone() });
  for (const q of ['oneil', 'ONEIL', "o'neil", 'O’Neil', 'o neil', 'sean oneil', 'one'])
    expect({ q, found: await idsFor(owner, q) }).toEqual({ q, found: [oneil.id] });
  for (const q of ["o'brien", 'obrien', 'o.brien'])
    expect({ q, found: await idsFor(owner, q) }).toEqual({ q, found: [curly.id] });
  for (const q of ['annmarie', 'ann marie', 'Ann-Marie', 'marie', 'amdupont', 'a.m.dupont@clinic'])
    expect({ q, found: await idsFor(owner, q) }).toEqual({ q, found: [annMarie.id] });
  for (const q of ['jose', 'JOSÉ', 'garcia', 'jose garcia', 'crm7701', 'crm-77-01', 'crm.77.01'])
    expect({ q, found: await idsFor(owner, q) }).toEqual({ q, found: [josé.id] });
  for (const q of ['lukasz', 'łukasz', 'strauss', 'Strauß'])
    expect({ q, found: await idsFor(owner, q) }).toEqual({ q, found: [lukasz.id] });
  // Punctuation alone holds nothing to look for.
  expectApiError(await search(owner, "o'"), 400);
  expectApiError(await search(owner, '-- .'), 400);
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
    body: {
      csv: `First name,Phone\nHannelore,${uniquePhone()}\n`,
      columns: { firstName: 'First name', phone: 'Phone' },
    },
  });
  expect(imported.status).toBe(202);
  await poll(
    () => api(ctx.gw, owner, 'GET', `imports/${imported.body.id}`),
    (r) => r.body.status === 'done',
  );
  expect((await search(owner, 'hanne')).body.data.map((c: { firstName: string }) => c.firstName)).toEqual([
    'Hannelore',
  ]);

  const wrote = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: 'visitor-314', channel: 'chat', firstName: 'Piotr' }),
  });
  expect(wrote.status).toBe(200);
  const { contactId } = (await api(ctx.gw, owner, 'GET', `messages/${wrote.body.messageId}`)).body;
  expect(await idsFor(owner, 'piot')).toEqual([contactId]);
  expect(await idsFor(owner, 'visitor-314')).toEqual([contactId]);

  // A send names the contact anew: found by the new name, no longer by the old one.
  const sent = await api(ctx.gw, owner, 'POST', 'send_custom_channel_message', {
    body: { customData: { fromId: 'visitor-314', customChannel: 'chat', body: 'Hi', firstName: 'Pavel' } },
  });
  expect(sent.status).toBe(200);
  expect(await idsFor(owner, 'pav')).toEqual([contactId]);
  expect(await idsFor(owner, 'piot')).toEqual([]);
});

test('paged like every list: each contact once, newest first, the cursor bound to the query', async () => {
  const owner = await createAccount(ctx.gw);
  const made: string[] = [];
  for (let i = 0; i < 7; i++)
    made.push((await create(owner, { firstName: `Pagina${i}`, lastName: 'Paginata', phone: uniquePhone() })).id);
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

test('a query with nothing to look for, or with a lookup, is a 400 saying what a search needs; the lookups answer as before', async () => {
  const tooShort = await search(account, 'f');
  expectApiError(tooShort, 400);
  expect(tooShort.body.error.fields).toEqual([
    expect.objectContaining({
      field: 'q',
      message: 'must hold a word of 2 letters or digits or more, or the last 4 digits or more of a phone number',
    }),
  ]);
  expectApiError(await search(account, '  '), 400);
  expectApiError(await search(account, 'x'.repeat(201)), 400);
  expectApiError(
    await api(ctx.gw, account, 'GET', 'contacts', { query: { q: 'frank', email: 'frank.miller@example.com' } }),
    400,
  );
  // Fewer than 4 digits are no phone's end, but may be a name or an ID.
  expect((await search(account, '123')).body).toEqual({ data: [], nextCursor: null });
  const numbered = await create(account, { firstName: 'Zoe', phone: '+14155550456', externalIds: { crm: '456' } });
  expect(await idsFor(account, '456')).toEqual([numbered.id]);
  const byPhone = await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: frank.phone } });
  expect({ status: byPhone.status, id: byPhone.body.id, data: byPhone.body.data }).toEqual({
    status: 200,
    id: frank.id,
    data: undefined,
  });
});

test("a contact found leads to their conversations: GET /v1/conversations?contactId=, one per channel, another account's a 404", async () => {
  const owner = await createAccount(ctx.gw);
  for (const channel of ['web-chat', 'email-desk']) {
    expect(
      (
        await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
          body: incoming({ fromId: 'visitor-ines', channel, firstName: 'Inès' }),
        })
      ).status,
    ).toBe(200);
  }
  await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: 'visitor-other', channel: 'web-chat', firstName: 'Ivo' }),
  });
  const [ines] = (await search(owner, 'ines')).body.data;
  const theirs = await api(ctx.gw, owner, 'GET', 'conversations', { query: { contactId: ines.id } });
  expect(theirs.status).toBe(200);
  expect(
    theirs.body.data.map((c: { contactId: string; customChannel: string }) => [c.contactId, c.customChannel]).sort(),
  ).toEqual([
    [ines.id, 'email-desk'],
    [ines.id, 'web-chat'],
  ]);
  expectApiError(
    await api(ctx.gw, other, 'GET', 'conversations', { query: { contactId: ines.id } }),
    404,
    'CONTACT_NOT_FOUND',
  );
});

test('contacts stored before search keys existed get theirs when the gateway starts on them', async () => {
  await upgraded(
    async (gw, owner) =>
      (
        await api(gw, owner, 'POST', 'contacts', {
          body: { firstName: 'Octavia', phone: '+14155550999', externalIds: { crm: 'OLD-7' } },
        })
      ).body,
    // The storage as an earlier version left it: contacts, and no search key nor the mark that they were all given some.
    async (tx) => {
      for (const key of await tx.scan<{ id: string }>('contact_search')) await tx.remove('contact_search', key.id);
    },
    [],
    ['octa', '0999', 'old-7'],
    ['octa', '0999', 'OLD-7'],
  );
});

test('contacts stored by the release that kept punctuation in keys are found without it once the gateway starts on them', async () => {
  await upgraded(
    async (gw, owner) =>
      (
        await api(gw, owner, 'POST', 'contacts', {
          body: { firstName: 'Sean', lastName: "O'Neil", phone: '+14155550888', externalIds: { crm: 'OLD-8' } },
        })
      ).body,
    // That release's keys: the words as written ("o'neil", "neil"), never "oneil"; and its mark that every contact had them.
    async (tx) => {
      for (const key of await tx.scan<{ id: string; key: string }>('contact_search')) {
        if (['on', 'one', 'onei', 'oneil', 'old8'].includes(key.key)) await tx.remove('contact_search', key.id);
      }
    },
    ['contact-search-indexed'],
    ['oneil', 'old8'],
    ['oneil', 'old8', "o'neil", 'sean'],
  );
});

test('contacts stored by the release that kept 5 to 7 digits whole in keys are found by them once the gateway starts on them', async () => {
  await upgraded(
    async (gw, owner) =>
      (await api(gw, owner, 'POST', 'contacts', { body: { firstName: 'Uma', externalIds: { pos: '881234' } } })).body,
    // That release keyed the ID "881234" as written, never by its last 4 digits.
    async (tx) => {
      for (const key of await tx.scan<{ id: string; key: string }>('contact_search'))
        if (key.key === '1234') await tx.remove('contact_search', key.id);
    },
    EARLIER_MARKS,
    ['1234'],
    ['881234', 'uma'],
  );
});

/**
 * A gateway stopped after `make` stored a contact, its storage then made as an earlier release left it (`before`, and
 * these marks of the search index set, no later one: the keys `missing` are not there), started again: each query
 * finds that contact.
 */
async function upgraded(
  make: (gw: Awaited<ReturnType<typeof startInProcess>>, owner: TestAccount) => Promise<{ id: string }>,
  before: (tx: Parameters<Parameters<Store['transact']>[0]>[0]) => Promise<void>,
  marks: string[],
  missing: string[],
  queries: string[],
): Promise<void> {
  const dataDir = tempDir('leadchat-search-upgrade-');
  let gw = await startInProcess({}, dataDir);
  const owner = await createAccount(gw);
  const early = await make(gw, owner);
  await gw.stop();

  if (BACKEND === 'postgres') {
    const client = new Client({ connectionString: gw.env.LEADCHAT_DATABASE_URL });
    await client.connect();
    await client.query('DELETE FROM leadchat_settings WHERE name = ANY($1)', [[...EARLIER_MARKS, SEARCH_KEYS_DONE]]);
    await client.end();
  }
  const store = await openStoreOf(gw.env);
  await store.transact(async (tx) => {
    await before(tx);
    if (BACKEND === 'lowdb')
      for (const mark of [...EARLIER_MARKS, SEARCH_KEYS_DONE]) await tx.remove('gateway_settings', mark);
  });
  for (const mark of marks) await store.settings.putIfAbsent(mark, new Date().toISOString());
  const stored = (await store.scan<{ id: string; key: string }>('contact_search')).map((k) => k.key);
  expect(missing.filter((key) => stored.includes(key))).toEqual([]);
  expect(await store.settings.get(SEARCH_KEYS_DONE)).toBeUndefined();
  await store.close();

  gw = await startInProcess({}, dataDir);
  try {
    for (const q of queries) {
      const found = await poll(
        () => api(gw, owner, 'GET', 'contacts', { query: { q } }),
        (r) => r.body.data?.length === 1,
      );
      expect(found.body.data.map((c: { id: string }) => c.id)).toEqual([early.id]);
    }
  } finally {
    await gw.stop();
    removeDir(dataDir);
  }
}
