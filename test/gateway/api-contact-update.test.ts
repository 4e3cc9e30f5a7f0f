import { consoleAccount, teamMember, withSession } from '../console/support';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  unique,
  uniquePhone,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/** Issue 47: PATCH /v1/contacts/{id} corrects a contact; DELETE /v1/lists/{listId}/contacts/{contactId} takes it off a list. */
const ctx = useGateway();
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

const create = async (body: Record<string, unknown>, owner = account) => {
  const res = await api(ctx.gw, owner, 'POST', 'contacts', { body });
  expect(res.status).toBe(201);
  return res.body;
};
const patch = (id: string, body: Record<string, unknown>, owner = account) =>
  api(ctx.gw, owner, 'PATCH', `contacts/${id}`, { body });
const search = async (q: string) =>
  (await api(ctx.gw, account, 'GET', 'contacts', { query: { q } })).body.data.map((c: { id: string }) => c.id);

describe('PATCH /v1/contacts/{id}', () => {
  test('a patient imported without a phone is given one: the answer, GET and the lookup by phone show it', async () => {
    const noah = await create({ firstName: 'Noah', lastName: 'Lee', email: `noah.${Date.now()}@clinic.example` });
    expect(noah.phone).toBe('');
    const phone = uniquePhone();
    const res = await patch(noah.id, { phone });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: noah.id, firstName: 'Noah', lastName: 'Lee', phone, email: noah.email });
    expect((await api(ctx.gw, account, 'GET', `contacts/${noah.id}`)).body).toEqual(res.body);
    expect((await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body.id).toBe(noah.id);
    // Dedup follows the new phone: creating him again with it answers him, with no second Noah Lee.
    const again = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { firstName: 'Noah', lastName: 'Lee', phone },
    });
    expect({ status: again.status, id: again.body.id }).toEqual({ status: 200, id: noah.id });
  });

  test('names, email and custom fields: merged, null removes a key, absent fields stay; both spellings', async () => {
    const c = await create({
      firstName: 'Ana',
      lastName: 'Silva',
      phone: uniquePhone(),
      customFields: { plan: 'gold', seats: 3 },
    });
    const res = await patch(c.id, {
      first_name: 'Anna',
      email: 'Anna.Silva@Example.com',
      customFields: { seats: 5, trial: true, plan: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      firstName: 'Anna',
      lastName: 'Silva',
      phone: c.phone,
      email: 'anna.silva@example.com',
      customFields: { seats: 5, trial: true },
    });
    expect(res.body.customFields).not.toHaveProperty('plan');
    const cleared = await patch(c.id, { lastName: null, email: '' });
    expect(cleared.body).toMatchObject({ firstName: 'Anna', lastName: '', email: '', phone: c.phone });
  });

  test("the phone is read under the account's default country", async () => {
    const owner = await createAccount(ctx.gw);
    expect((await api(ctx.gw, owner, 'PUT', 'settings', { body: { defaultCountry: 'US' } })).status).toBe(200);
    const c = await create({ email: 'local@example.com' }, owner);
    const res = await patch(c.id, { phone: '(415) 555-0142' }, owner);
    expect({ status: res.status, phone: res.body.phone }).toEqual({ status: 200, phone: '+14155550142' });
  });

  test('search follows the new name and phone, and forgets the old ones', async () => {
    const c = await create({ firstName: 'Quentin', lastName: 'Oldname', phone: uniquePhone() });
    expect(await search('oldname')).toContain(c.id);
    const phone = uniquePhone();
    expect((await patch(c.id, { lastName: 'Newbury', phone })).status).toBe(200);
    expect(await search('oldname')).not.toContain(c.id);
    expect(await search('newbury')).toContain(c.id);
    expect(await search(phone.slice(-6))).toContain(c.id);
  });

  test("another contact's phone or email → 409 CONTACT_EXISTS naming it; nothing changes", async () => {
    const email = `taken.${Date.now()}@example.com`;
    const holder = await create({ firstName: 'Holder', phone: uniquePhone(), email });
    const c = await create({ firstName: 'Other', phone: uniquePhone() });
    for (const body of [
      { phone: holder.phone },
      { email: email.toUpperCase() },
      { firstName: 'Changed', phone: holder.phone },
    ]) {
      const res = await patch(c.id, body);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        error: { code: 'CONTACT_EXISTS', message: expect.stringContaining(holder.id), contactId: holder.id },
      });
    }
    expect((await api(ctx.gw, account, 'GET', `contacts/${c.id}`)).body).toMatchObject({
      firstName: 'Other',
      email: '',
    });
    // Its own phone again is no conflict.
    expect((await patch(holder.id, { phone: holder.phone, email })).status).toBe(200);
  });

  test("external IDs by label: one set, one replaced, one removed; another contact's ID → 409 CONTACT_EXISTS naming it", async () => {
    const stamp = Date.now();
    const holder = await create({ firstName: 'Holder', externalIds: { crm: `crm-held-${stamp}` } });
    const c = await create({
      firstName: 'Ida',
      phone: uniquePhone(),
      externalIds: { livechat: `visitor-${stamp}`, crm: `crm-${stamp}` },
    });
    const res = await patch(c.id, {
      externalIds: { livechat: `visitor-new-${stamp}`, crm: null, telegram: `tg-${stamp}` },
    });
    expect(res.status).toBe(200);
    expect(res.body.externalIds).toEqual({ livechat: `visitor-new-${stamp}`, telegram: `tg-${stamp}` });
    // The new IDs find the contact, and the old ones are free for another.
    const found = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { externalIds: { telegram: `tg-${stamp}` } },
    });
    expect({ status: found.status, id: found.body.id }).toEqual({ status: 200, id: c.id });
    expect(
      (await api(ctx.gw, account, 'POST', 'contacts', { body: { externalIds: { livechat: `visitor-${stamp}` } } }))
        .status,
    ).toBe(201);

    const taken = await patch(c.id, { external_ids: { crm: `crm-held-${stamp}` } });
    expect(taken.body).toEqual({
      error: { code: 'CONTACT_EXISTS', message: expect.stringContaining(holder.id), contactId: holder.id },
    });
    expectApiError(await patch(c.id, { externalIds: { other: `tg-${stamp}` } }), 400, 'VALIDATION_ERROR');
    expect((await api(ctx.gw, account, 'GET', `contacts/${c.id}`)).body.externalIds).toEqual(res.body.externalIds);
  });

  test("an ID the contact holds under two labels, removed from one, stays the contact's: a message with it finds the contact", async () => {
    const visitor = `visitor-${uniquePhone().slice(-7)}`;
    const contact = await create({ phone: uniquePhone(), externalIds: { crm: visitor } });
    // A creation that finds the contact by the ID adds it under the label it came with.
    const again = await api(ctx.gw, account, 'POST', 'contacts', { body: { externalIds: { webchat: visitor } } });
    expect(again.body).toMatchObject({ id: contact.id, externalIds: { crm: visitor, webchat: visitor } });
    expect((await patch(contact.id, { externalIds: { webchat: null } })).body.externalIds).toEqual({ crm: visitor });
    const message = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: {
        customData: { messageSid: `sid-${visitor}`, fromId: visitor, toId: 'clinic', body: 'hi', channel: 'webchat' },
      },
    });
    expect(message.status).toBe(200);
    expect((await api(ctx.gw, account, 'GET', `messages/${message.body.messageId}`)).body.contactId).toBe(contact.id);
  });

  test("the ID of a visitor's first message, corrected on its label, is no longer the contact's: its fromId follows; search, creation and messages go by the new one", async () => {
    const stamp = uniquePhone().slice(-7);
    const [first, corrected] = [`y-${stamp}`, `y2-${stamp}`];
    const message = (fromId: string) =>
      api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
        body: {
          customData: {
            messageSid: `sid-${fromId}-${Date.now()}`,
            fromId,
            toId: 'clinic',
            body: 'hi',
            channel: 'livechat',
          },
        },
      });
    const contactOf = async (res: { body: { messageId: string } }) =>
      (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body.contactId as string;
    const id = await contactOf(await message(first));

    const res = await patch(id, { externalIds: { livechat: corrected } });
    expect(res.body).toMatchObject({ externalIds: { livechat: corrected }, fromId: corrected });
    expect(await search(first)).toEqual([]);
    expect(await contactOf(await message(corrected))).toBe(id);
    const other = await api(ctx.gw, account, 'POST', 'contacts', { body: { externalIds: { livechat: first } } });
    expect(other.status).toBe(201);
    expect((await api(ctx.gw, account, 'GET', `contacts/${id}`)).body).toMatchObject({
      externalIds: { livechat: corrected },
      fromId: corrected,
    });
  });

  test('a phone an opted-out contact is corrected away from stays opted out: a contact made with it later is', async () => {
    const [wrong, right] = [uniquePhone(), uniquePhone()];
    const c = await create({ firstName: 'Stopped', phone: wrong });
    const said = await api(ctx.gw, account, 'POST', 'channels/sms/incoming', { body: { phone: wrong, body: 'STOP' } });
    expect(said.status).toBeLessThan(300);
    expect((await patch(c.id, { phone: right })).body).toMatchObject({ phone: right, optOut: { keyword: 'stop' } });
    const again = await api(ctx.gw, account, 'POST', 'contacts', { body: { firstName: 'Again', phone: wrong } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ phone: wrong, optOut: { channel: 'sms', keyword: 'stop' } });
  });

  test('a phone cleared where another contact is known by the same email alone → 409 CONTACT_EXISTS naming it; nothing changes', async () => {
    const email = `shared.${uniquePhone().slice(-7)}@example.com`;
    const x = await create({ phone: uniquePhone(), email });
    const y = await create({ phone: uniquePhone(), email });
    expect((await patch(x.id, { phone: null })).status).toBe(200);
    const res = await patch(y.id, { phone: null });
    expect(res.body).toEqual({
      error: { code: 'CONTACT_EXISTS', message: expect.stringContaining(x.id), contactId: x.id },
    });
    expect(res.status).toBe(409);
    expect((await api(ctx.gw, account, 'GET', `contacts/${y.id}`)).body.phone).toBe(y.phone);
  });

  test('a bad phone and a bad email → one 400 naming both in error.fields; nothing is changed', async () => {
    const c = await create({ phone: uniquePhone(), email: 'kept@example.com' });
    const res = await patch(c.id, { firstName: 'Changed', phone: '12', email: 'not-an-email' });
    expectApiError(res, 400, 'INVALID_PHONE');
    expect(res.body.error.fields.map((f: { field: string; code: string }) => [f.field, f.code])).toEqual([
      ['phone', 'INVALID_PHONE'],
      ['email', 'INVALID_EMAIL'],
    ]);
    expect((await api(ctx.gw, account, 'GET', `contacts/${c.id}`)).body).toEqual(c);
  });

  test('bad input → 400: a bad phone or email, a contact left with no way to find it, fields of the wrong type', async () => {
    const c = await create({ phone: uniquePhone() });
    expectApiError(await patch(c.id, { phone: '12' }), 400, 'INVALID_PHONE');
    expectApiError(await patch(c.id, { email: 'not-an-email' }), 400, 'INVALID_EMAIL');
    expectApiError(await patch(c.id, { phone: null }), 400);
    expectApiError(await patch(c.id, { firstName: 42 }), 400);
    expectApiError(await patch(c.id, { customFields: { nested: { no: 1 } } }), 400);
    expect((await api(ctx.gw, account, 'GET', `contacts/${c.id}`)).body.phone).toBe(c.phone);
  });

  test('a correction naming no field it knows (empty, or a name mistyped) → 400 saying which it takes; nothing changes', async () => {
    const c = await create({ firstName: 'Ivy', lastName: 'Long', phone: uniquePhone() });
    for (const body of [{}, { lastname: 'Short' }, { LastName: 'Short', phoneNumber: uniquePhone() }]) {
      const res = await patch(c.id, body);
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields).toEqual([
        {
          field: 'body',
          code: 'INVALID',
          message:
            'give firstName, lastName, phone, email, customFields or externalIds (or first_name, last_name, phone_number, custom_fields, external_ids)',
        },
      ]);
    }
    expect((await api(ctx.gw, account, 'GET', `contacts/${c.id}`)).body).toEqual(c);
    // A field it knows beside one it does not is a correction: what it knows changes.
    expect((await patch(c.id, { lastName: 'Short', nickname: 'Ives' })).body.lastName).toBe('Short');
  });

  test('a contact holds at most 50 custom fields and 20 external IDs: a correction adding past them → 400 TOO_MANY, nothing changes', async () => {
    const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const c = await create({
      phone: uniquePhone(),
      customFields: Object.fromEntries(keys('crm_', 50).map((k) => [k, k])),
      externalIds: Object.fromEntries(keys('app', 20).map((k) => [k, unique(k)])),
    });
    const more = await patch(c.id, { customFields: { crm_0: null, extra_1: 'x', extra_2: 'y' } });
    expectApiError(more, 400, 'VALIDATION_ERROR');
    expect(more.body.error.fields).toEqual([
      { field: 'customFields', code: 'TOO_MANY', message: 'a contact holds at most 50 custom fields', limit: 50 },
    ]);
    const moreIds = await patch(c.id, { externalIds: { extra: unique('x') } });
    expectApiError(moreIds, 400, 'VALIDATION_ERROR');
    expect(moreIds.body.error.fields).toEqual([
      { field: 'externalIds', code: 'TOO_MANY', message: 'a contact holds at most 20 external IDs', limit: 20 },
    ]);
    expect((await api(ctx.gw, account, 'GET', `contacts/${c.id}`)).body).toEqual(c);
    // Within the limits, a correction replaces and removes as it likes.
    const swapped = await patch(c.id, {
      customFields: { crm_0: null, extra_1: 'x' },
      externalIds: { app0: null, extra: unique('x') },
    });
    expect(swapped.status).toBe(200);
    expect([Object.keys(swapped.body.customFields).length, Object.keys(swapped.body.externalIds).length]).toEqual([
      50, 20,
    ]);
  });

  test("an unknown id, or another account's contact → 404, and the other account's contact is untouched", async () => {
    const other = await createAccount(ctx.gw);
    const theirs = await create({ firstName: 'Theirs', phone: uniquePhone() }, other);
    expectApiError(await patch(theirs.id, { firstName: 'Mine' }), 404, 'CONTACT_NOT_FOUND');
    expectApiError(await patch('ct_missing', { firstName: 'Mine' }), 404, 'CONTACT_NOT_FOUND');
    expect((await api(ctx.gw, other, 'GET', `contacts/${theirs.id}`)).body.firstName).toBe('Theirs');
  });

  test('an agent may edit a contact', async () => {
    const owner = await consoleAccount(ctx.gw);
    const agent = await teamMember(ctx.gw, owner, 'agent');
    const c = await create({ firstName: 'Agent', phone: uniquePhone() }, owner);
    const res = await withSession(ctx.gw, agent, 'PATCH', `/v1/contacts/${c.id}`, {
      headers: { origin: ctx.gw.url },
      body: { lastName: 'Edited' },
    });
    expect({ status: res.status, lastName: res.body.lastName }).toEqual({ status: 200, lastName: 'Edited' });
  });
});

describe('DELETE /v1/lists/{listId}/contacts/{contactId}', () => {
  test('204: the contact leaves the list and stays a contact; again → 404 CONTACT_NOT_IN_LIST', async () => {
    const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leaving' } })).body;
    const stays = await create({ firstName: 'Stays', phone: uniquePhone() });
    const leaves = await create({ firstName: 'Leaves', phone: uniquePhone() });
    for (const c of [stays, leaves])
      expect(
        (await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: c.id } })).status,
      ).toBe(201);
    const res = await api(ctx.gw, account, 'DELETE', `lists/${list.id}/contacts/${leaves.id}`);
    expect({ status: res.status, text: res.text }).toEqual({ status: 204, text: '' });
    const members = await api(ctx.gw, account, 'GET', `lists/${list.id}/contacts`);
    expect(members.body.data.map((m: { id: string }) => m.id)).toEqual([stays.id]);
    expect((await api(ctx.gw, account, 'GET', `contacts/${leaves.id}`)).status).toBe(200);
    expectApiError(
      await api(ctx.gw, account, 'DELETE', `lists/${list.id}/contacts/${leaves.id}`),
      404,
      'CONTACT_NOT_IN_LIST',
    );
    // Added again, it is a new member.
    expect(
      (await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: leaves.id } })).status,
    ).toBe(201);
  });

  test("the list's Live campaign does not send the opening message still waiting for a contact taken off the list", async () => {
    const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Funnel' } })).body;
    const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Welcome',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hi {{first_name}}!',
        triggerOnNewContacts: true,
        status: 'live',
      },
    });
    expect(campaign.status).toBe(201);
    const c = await create({ firstName: 'Later', phone: uniquePhone() });
    expect(
      (await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: c.id, delay: '1h' } }))
        .status,
    ).toBe(201);
    const waiting = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: c.id } })).body.data[0];
    expect(waiting.opening).toMatchObject({ campaignId: campaign.body.id, status: 'queued' });
    expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}/contacts/${c.id}`)).status).toBe(204);
    const stopped = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: c.id } })).body.data[0];
    expect(stopped).toMatchObject({
      opening: { campaignId: campaign.body.id, status: 'cancelled', reason: 'left_list' },
      next: null,
    });
    expect((await api(ctx.gw, account, 'GET', `contacts/${c.id}/messages`)).body.data).toEqual([]);
  });

  test("the list's campaign sends no more follow-ups to a contact taken off the list; the conversation stays", async () => {
    const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Funnel' } })).body;
    const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Nudges',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hi {{first_name}}!',
        triggerOnNewContacts: true,
        status: 'live',
        followUps: { enabled: true, steps: [{ after: '1d', body: 'Still there?' }] },
      },
    });
    expect(campaign.status).toBe(201);
    const c = await create({ firstName: 'Gone', phone: uniquePhone() });
    await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: c.id } });
    await untilIdle(ctx.gw, { horizonMs: 0 });
    const conversationOf = async () =>
      (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: c.id } })).body.data[0];
    expect(await conversationOf()).toMatchObject({
      opening: { status: 'sent' },
      next: { kind: 'follow_up', step: 0 },
    });
    expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}/contacts/${c.id}`)).status).toBe(204);
    expect(await conversationOf()).toMatchObject({ campaignId: campaign.body.id, status: 'active', next: null });
    await advanceClock(ctx.gw, '3d');
    await untilIdle(ctx.gw);
    const sent = (await api(ctx.gw, account, 'GET', `contacts/${c.id}/messages`)).body.data;
    expect(sent.map((m: { author: string }) => m.author)).toEqual(['campaign']);
    expect(await conversationOf()).toMatchObject({ campaignId: campaign.body.id, status: 'active', next: null });
  });

  test("unknown list → 404 LIST_NOT_FOUND; another account's list or contact → 404", async () => {
    const other = await createAccount(ctx.gw);
    const theirList = (await api(ctx.gw, other, 'POST', 'lists', { body: { name: 'Theirs' } })).body;
    const theirs = await create({ phone: uniquePhone() }, other);
    expect(
      (await api(ctx.gw, other, 'POST', `lists/${theirList.id}/contacts`, { body: { contactId: theirs.id } })).status,
    ).toBe(201);
    expectApiError(
      await api(ctx.gw, account, 'DELETE', `lists/lst_missing/contacts/${theirs.id}`),
      404,
      'LIST_NOT_FOUND',
    );
    expectApiError(
      await api(ctx.gw, account, 'DELETE', `lists/${theirList.id}/contacts/${theirs.id}`),
      404,
      'LIST_NOT_FOUND',
    );
    expect((await api(ctx.gw, other, 'GET', `lists/${theirList.id}/contacts`)).body.data).toHaveLength(1);
  });
});
