import { api, createAccount, expectApiError, poll, uniquePhone, useGateway, type TestAccount } from './api-support';

/**
 * A list renamed (PATCH /v1/lists/{id}) and deleted (DELETE /v1/lists/{id}): a typo is mended, a test list goes with
 * its contacts' places in it and its import reports, the contacts stay; refused while a campaign is linked to it or
 * an import into it has rows to apply.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms' });
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

const newList = async (name = 'Leads') => (await api(ctx.gw, account, 'POST', 'lists', { body: { name } })).body;
const newContact = async (firstName = 'Member') =>
  (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName } })).body;
const add = (listId: string, contactId: string) =>
  api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId } });
const named = async (q: string) =>
  (await api(ctx.gw, account, 'GET', 'lists', { query: { q } })).body.data.map((l: { id: string }) => l.id);
/** The memberships the store holds for the list, whatever the API still shows of them. */
const storedMemberships = (listId: string) => ctx.gw.engine.store.find('memberships', 'list', [listId]);

async function importDone(id: string): Promise<any> {
  const res = await poll(
    () => api(ctx.gw, account, 'GET', `imports/${id}`),
    (r) => r.status !== 200 || r.body.status === 'done',
    30_000,
  );
  expect({ status: res.status, importStatus: res.body.status }).toEqual({ status: 200, importStatus: 'done' });
  return res.body;
}

describe('PATCH /v1/lists/{id}', () => {
  test('renames the list: 200 with the list as GET answers it; ?q= finds it by its new name, not its old', async () => {
    const list = await newList('Sprnig promo');
    const res = await api(ctx.gw, account, 'PATCH', `lists/${list.id}`, { body: { name: '  Spring promo  ' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...list, name: 'Spring promo' });
    expect((await api(ctx.gw, account, 'GET', `lists/${list.id}`)).body).toEqual(res.body);
    expect(await named('spring')).toContain(list.id);
    expect(await named('sprnig')).not.toContain(list.id);
  });

  test('a name another list has is taken, as at creation: names need not be unique', async () => {
    const first = await newList('Twins');
    const second = await newList('Not twins');
    const res = await api(ctx.gw, account, 'PATCH', `lists/${second.id}`, { body: { name: 'Twins' } });
    expect(res.status).toBe(200);
    expect((await named('twins')).filter((id: string) => [first.id, second.id].includes(id))).toEqual([
      first.id,
      second.id,
    ]);
  });

  test('a name a new list could not have → 400, the name kept; malformed JSON → 400 INVALID_JSON', async () => {
    const list = await newList('Kept');
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 42 }, { name: null }, { name: 'x'.repeat(201) }])
      expectApiError(await api(ctx.gw, account, 'PATCH', `lists/${list.id}`, { body }), 400, 'VALIDATION_ERROR');
    for (const body of ['{"name": ', 'not json'])
      expectApiError(await api(ctx.gw, account, 'PATCH', `lists/${list.id}`, { body }), 400, 'INVALID_JSON');
    expect((await api(ctx.gw, account, 'GET', `lists/${list.id}`)).body.name).toBe('Kept');
  });

  test("an unknown list, or another account's → 404 LIST_NOT_FOUND, and theirs keeps its name", async () => {
    const other = await createAccount(ctx.gw);
    const theirs = (await api(ctx.gw, other, 'POST', 'lists', { body: { name: 'Theirs' } })).body;
    for (const id of ['lst_unknown', theirs.id])
      expectApiError(
        await api(ctx.gw, account, 'PATCH', `lists/${id}`, { body: { name: 'Mine now' } }),
        404,
        'LIST_NOT_FOUND',
      );
    expect((await api(ctx.gw, other, 'GET', `lists/${theirs.id}`)).body.name).toBe('Theirs');
  });
});

describe('DELETE /v1/lists/{id}', () => {
  test('204: the list and its places go, the contacts stay and no longer name it; a second DELETE is 404', async () => {
    const list = await newList('Test list');
    const kept = await newList('Kept list');
    const [a, b] = [await newContact('Ada'), await newContact('Bo')];
    for (const c of [a, b]) expect((await add(list.id, c.id)).status).toBe(201);
    expect((await add(kept.id, a.id)).status).toBe(201);

    expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}`)).status).toBe(204);

    expectApiError(await api(ctx.gw, account, 'GET', `lists/${list.id}`), 404, 'LIST_NOT_FOUND');
    expectApiError(await api(ctx.gw, account, 'GET', `lists/${list.id}/contacts`), 404, 'LIST_NOT_FOUND');
    expect(await named('Test list')).not.toContain(list.id);
    const lists = (await api(ctx.gw, account, 'GET', `contacts/${a.id}/export`)).body.lists;
    expect(lists.map((l: { id: string }) => l.id)).toEqual([kept.id]);
    for (const c of [a, b]) expect((await api(ctx.gw, account, 'GET', `contacts/${c.id}`)).body).toEqual(c);
    expectApiError(await add(list.id, b.id), 404, 'LIST_NOT_FOUND');
    expectApiError(
      await api(ctx.gw, account, 'PATCH', `lists/${list.id}`, { body: { name: 'Back' } }),
      404,
      'LIST_NOT_FOUND',
    );
    expectApiError(await api(ctx.gw, account, 'DELETE', `lists/${list.id}`), 404, 'LIST_NOT_FOUND');

    await ctx.gw.drain();
    expect(await storedMemberships(list.id)).toEqual([]);
    expect(await storedMemberships(kept.id)).toHaveLength(1);
  });

  test('a list of 1,200 contacts: its memberships go a batch at a time, its import report with it (404)', async () => {
    const list = await newList('Big');
    const contacts = Array.from({ length: 1200 }, () => ({ phone: uniquePhone() }));
    const sent = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, { body: { contacts } });
    expect(sent.status).toBe(202);
    expect(await importDone(sent.body.id)).toMatchObject({ added: 1200 });
    expect(await storedMemberships(list.id)).toHaveLength(1200);

    expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}`)).status).toBe(204);
    expectApiError(await api(ctx.gw, account, 'GET', `imports/${sent.body.id}`), 404, 'IMPORT_NOT_FOUND');
    await ctx.gw.drain();
    expect(await storedMemberships(list.id)).toEqual([]);
    const one = await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: contacts[0]!.phone } });
    expect(one.status).toBe(200);
  }, 60_000);

  test('a campaign linked to it → 409 LIST_HAS_CAMPAIGNS naming it; linked elsewhere, the list can go', async () => {
    const list = await newList('Linked');
    const member = await newContact();
    await add(list.id, member.id);
    const campaign = (
      await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Spring recall', listId: list.id } })
    ).body;
    const refused = await api(ctx.gw, account, 'DELETE', `lists/${list.id}`);
    expectApiError(refused, 409, 'LIST_HAS_CAMPAIGNS');
    expect(refused.body.error.message).toContain(`"Spring recall" (${campaign.id})`);
    expect(refused.body.error.message).toContain('PATCH /v1/campaigns/{id}');
    expect((await api(ctx.gw, account, 'GET', `lists/${list.id}/contacts`)).body.data).toHaveLength(1);

    const other = await newList('Other');
    const moved = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { listId: other.id } });
    expect(moved.status).toBe(200);
    expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}`)).status).toBe(204);
    // And a deleted list can be linked to no campaign.
    expectApiError(
      await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { listId: list.id } }),
      404,
      'LIST_NOT_FOUND',
    );
  });

  test('an import into it with rows to apply → 409 LIST_IMPORT_RUNNING; once done, the list can go', async () => {
    const list = await newList('Importing');
    const sent = await api(ctx.gw, account, 'POST', `lists/${list.id}/imports`, {
      body: { contacts: [{ phone: uniquePhone() }] },
    });
    await importDone(sent.body.id);
    // As an import sent a moment ago is while its rows wait for the job runner.
    await ctx.gw.engine.store.transact((tx) =>
      tx.update('imports', sent.body.id, { status: 'running', processed: 0 } as never),
    );
    const refused = await api(ctx.gw, account, 'DELETE', `lists/${list.id}`);
    expectApiError(refused, 409, 'LIST_IMPORT_RUNNING');
    expect(refused.body.error.message).toContain(`GET /v1/imports/${sent.body.id}`);
    expect((await api(ctx.gw, account, 'GET', `lists/${list.id}`)).status).toBe(200);

    await ctx.gw.engine.store.transact((tx) => tx.update('imports', sent.body.id, { status: 'done' } as never));
    expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}`)).status).toBe(204);
  });

  test("an unknown list, or another account's → 404 LIST_NOT_FOUND, and theirs stays", async () => {
    const other = await createAccount(ctx.gw);
    const theirs = (await api(ctx.gw, other, 'POST', 'lists', { body: { name: 'Theirs' } })).body;
    for (const id of ['lst_unknown', theirs.id])
      expectApiError(await api(ctx.gw, account, 'DELETE', `lists/${id}`), 404, 'LIST_NOT_FOUND');
    expect((await api(ctx.gw, other, 'GET', `lists/${theirs.id}`)).status).toBe(200);
  });
});
