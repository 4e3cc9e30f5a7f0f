import { api, createAccount, expectApiError, uniquePhone, useGateway, type TestAccount } from './api-support';

/** Spec §4.3 (add a contact to a list) and the list extensions: create, list, members. */
const ctx = useGateway();
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

const newContact = async (firstName = 'Member') =>
  (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName } })).body;
const newList = async (name = 'Leads') => (await api(ctx.gw, account, 'POST', 'lists', { body: { name } })).body;

test('POST /v1/lists → 201 {id,name,createdAt}; GET /v1/lists shows it', async () => {
  const res = await api(ctx.gw, account, 'POST', 'lists', { body: { name: '  Spring funnel  ' } });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({ id: expect.any(String), name: 'Spring funnel', createdAt: expect.stringMatching(/Z$/) });
  const all = await api(ctx.gw, account, 'GET', 'lists');
  expect(all.status).toBe(200);
  expect(all.body.data).toContainEqual(res.body);
});

test('POST /v1/lists without a usable name → 400', async () => {
  for (const body of [{}, { name: '' }, { name: '   ' }, { name: 42 }, { name: 'x'.repeat(201) }]) {
    expectApiError(await api(ctx.gw, account, 'POST', 'lists', { body }), 400);
  }
});

test('add a contact: 201 added:true, then 200 added:false; the list holds it once', async () => {
  const list = await newList();
  const contact = await newContact('Gil');
  const first = await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } });
  expect(first.status).toBe(201);
  expect(first.body).toEqual({ success: true, listId: list.id, contactId: contact.id, added: true });

  const members1 = await api(ctx.gw, account, 'GET', `lists/${list.id}/contacts`);
  const again = await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } });
  expect(again.status).toBe(200);
  expect(again.body).toEqual({ success: true, listId: list.id, contactId: contact.id, added: false });

  const members2 = await api(ctx.gw, account, 'GET', `lists/${list.id}/contacts`);
  expect(members2.status).toBe(200);
  expect(members2.body).toEqual(members1.body);
  expect(members2.body.data).toEqual([{ ...contact, addedAt: expect.stringMatching(/Z$/) }]);
});

test('contact_id (the funnel form, Bearer key) works the same', async () => {
  const list = await newList('Funnel');
  const contact = await newContact();
  const res = await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, {
    keyIn: 'bearer',
    body: { contact_id: contact.id },
  });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({ success: true, listId: list.id, contactId: contact.id, added: true });
  const again = await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, {
    keyIn: 'query',
    body: { contactId: contact.id },
  });
  expect(again.status).toBe(200);
  expect(again.body.added).toBe(false);
});

test('concurrent additions of the same contact: one 201, the rest 200, one membership', async () => {
  const list = await newList();
  const contact = await newContact();
  const replies = await Promise.all(
    Array.from({ length: 10 }, () =>
      api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } }),
    ),
  );
  expect(replies.map((r) => r.status).sort((a, b) => a - b)).toEqual([...Array(9).fill(200), 201]);
  expect(replies.filter((r) => r.body.added)).toHaveLength(1);
  expect((await api(ctx.gw, account, 'GET', `lists/${list.id}/contacts`)).body.data).toHaveLength(1);
});

test('members are listed in the order they joined', async () => {
  const list = await newList();
  const contacts = [await newContact('A'), await newContact('B'), await newContact('C')];
  for (const c of contacts)
    await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contact_id: c.id } });
  const res = await api(ctx.gw, account, 'GET', `lists/${list.id}/contacts`);
  expect(res.body.data.map((m: { id: string }) => m.id)).toEqual(contacts.map((c) => c.id));
});

test('unknown list → 404; unknown contact → 404; nothing is added', async () => {
  const list = await newList();
  const contact = await newContact();
  expectApiError(
    await api(ctx.gw, account, 'POST', 'lists/lst_unknown/contacts', { body: { contactId: contact.id } }),
    404,
    'LIST_NOT_FOUND',
  );
  expectApiError(
    await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: 'ct_unknown' } }),
    404,
    'CONTACT_NOT_FOUND',
  );
  expectApiError(await api(ctx.gw, account, 'GET', 'lists/lst_unknown/contacts'), 404, 'LIST_NOT_FOUND');
  expect((await api(ctx.gw, account, 'GET', `lists/${list.id}/contacts`)).body).toEqual({ data: [], nextCursor: null });
});

test('missing or invalid contact id → 400', async () => {
  const list = await newList();
  for (const body of [{}, { contactId: '' }, { contactId: 12 }, { contact_id: null }, { contactId: ['a'] }]) {
    expectApiError(await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body }), 400);
  }
});
