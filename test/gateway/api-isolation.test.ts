import { api, createAccount, dataUri, expectApiError, getBytes, incoming, png, unique, useGateway, type TestAccount } from './api-support';

/** Part D: contacts, lists, messages, media, campaigns, webhooks and credits of one account are invisible to every other. */
const ctx = useGateway();
let a: TestAccount;
let b: TestAccount;
const phone = '+14155550111';
const email = 'shared.person@example.com';
const sid = 'SM-shared-0001';
const fromId = 'visitor-shared';
const A: Record<string, any> = {};

beforeAll(async () => {
  a = await createAccount(ctx.gw);
  b = await createAccount(ctx.gw);
  A.contact = (await api(ctx.gw, a, 'POST', 'contacts', { body: { phone, email, firstName: 'Alice' } })).body;
  A.list = (await api(ctx.gw, a, 'POST', 'lists', { body: { name: 'A list' } })).body;
  await api(ctx.gw, a, 'POST', `lists/${A.list.id}/contacts`, { body: { contactId: A.contact.id } });
  const msg = await api(ctx.gw, a, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ messageSid: sid, fromId, mediaUrl: dataUri('image/png', png()), mediaContentType: 'image/png' }),
  });
  A.message = (await api(ctx.gw, a, 'GET', `messages/${msg.body.messageId}`)).body;
  A.campaign = (await api(ctx.gw, a, 'POST', 'campaigns', { body: { name: 'A campaign', listId: A.list.id } })).body;
  A.webhook = (await api(ctx.gw, a, 'POST', 'webhooks', { body: { url: 'https://a.example.com/hook', events: ['reply'] } })).body;
  await api(ctx.gw, a, 'PUT', 'settings', { body: { customChannelWebhookUrl: 'https://a.example.com/replies' } });
  expect([A.contact.id, A.list.id, A.message.id, A.message.media?.mediaId, A.campaign.id, A.webhook.id].every(Boolean)).toBe(true);
});

test("B cannot read A's contact, by id or by A's phone or email", async () => {
  expectApiError(await api(ctx.gw, b, 'GET', `contacts/${A.contact.id}`), 404, 'NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', `contacts/${A.contact.id}/messages`), 404, 'NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', `contacts/${A.message.contactId}`), 404, 'NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', 'contacts', { query: { phoneNumber: phone } }), 404, 'NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', 'contacts', { query: { phoneNumber: '+1 (415) 555-0111' } }), 404, 'NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', 'contacts', { query: { email } }), 404, 'NOT_FOUND');
});

test("B's 404 for A's contact is the same as for a contact that never existed", async () => {
  const theirs = await api(ctx.gw, b, 'GET', `contacts/${A.contact.id}`);
  const none = await api(ctx.gw, b, 'GET', 'contacts/ct_never_existed');
  expect(theirs.body).toEqual(none.body);
});

test("B creating a contact with A's phone or email gets its own new contact; A's is unchanged", async () => {
  const byPhone = await api(ctx.gw, b, 'POST', 'contacts', { body: { phone, firstName: 'Bob' } });
  expect(byPhone.status).toBe(201);
  expect(byPhone.body.id).not.toBe(A.contact.id);
  expect(byPhone.body.firstName).toBe('Bob');
  const byEmail = await api(ctx.gw, b, 'POST', 'contacts', { body: { email } });
  expect(byEmail.status).toBe(201);
  expect(byEmail.body.id).not.toBe(A.contact.id);
  expect((await api(ctx.gw, a, 'GET', `contacts/${A.contact.id}`)).body).toEqual(A.contact);
  expect((await api(ctx.gw, a, 'GET', 'contacts', { query: { phoneNumber: phone } })).body.id).toBe(A.contact.id);
});

test("B cannot see A's lists, their members, nor add to them; nor add A's contact to its own list", async () => {
  expect((await api(ctx.gw, b, 'GET', 'lists')).body.data.map((l: { id: string }) => l.id)).not.toContain(A.list.id);
  expectApiError(await api(ctx.gw, b, 'GET', `lists/${A.list.id}/contacts`), 404, 'NOT_FOUND');
  const bContact = (await api(ctx.gw, b, 'POST', 'contacts', { body: { phone: '+14155550112' } })).body;
  expectApiError(await api(ctx.gw, b, 'POST', `lists/${A.list.id}/contacts`, { body: { contactId: bContact.id } }), 404, 'NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'POST', `lists/${A.list.id}/contacts`, { body: { contactId: A.contact.id } }), 404, 'NOT_FOUND');
  const bList = (await api(ctx.gw, b, 'POST', 'lists', { body: { name: 'B list' } })).body;
  expectApiError(await api(ctx.gw, b, 'POST', `lists/${bList.id}/contacts`, { body: { contactId: A.contact.id } }), 404, 'NOT_FOUND');
  expect((await api(ctx.gw, b, 'GET', `lists/${bList.id}/contacts`)).body).toEqual({ data: [], nextCursor: null });
  // Nor can A use B's contact.
  expectApiError(await api(ctx.gw, a, 'POST', `lists/${A.list.id}/contacts`, { body: { contactId: bContact.id } }), 404, 'NOT_FOUND');
  expect((await api(ctx.gw, a, 'GET', `lists/${A.list.id}/contacts`)).body.data.map((c: { id: string }) => c.id)).toEqual([A.contact.id]);
});

test("B cannot read A's messages or media", async () => {
  expectApiError(await api(ctx.gw, b, 'GET', `messages/${A.message.id}`), 404, 'NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', A.message.media.url), 404, 'NOT_FOUND');
  const stranger = await getBytes(ctx.gw, b, A.message.media.url);
  expect(stranger.status).toBe(404);
  expect(stranger.bytes.includes(Buffer.from('IHDR'))).toBe(false);
  expect((await getBytes(ctx.gw, a, A.message.media.url)).status).toBe(200);
});

test("messageSid and fromId are per account: B's message with A's values is B's own", async () => {
  const res = await api(ctx.gw, b, 'POST', 'incoming_custom_channel_message', { body: incoming({ messageSid: sid, fromId, body: 'from B' }) });
  expect(res.status).toBe(200);
  expect(res.body.messageId).not.toBe(A.message.id);
  const mine = (await api(ctx.gw, b, 'GET', `messages/${res.body.messageId}`)).body;
  expect(mine.contactId).not.toBe(A.message.contactId);
  // A's conversation is unchanged.
  const history = await api(ctx.gw, a, 'GET', `contacts/${A.message.contactId}/messages`);
  expect(history.body.data.map((m: { id: string }) => m.id)).toEqual([A.message.id]);
  // And B's send to the same fromId reaches B's contact, not A's.
  const sent = await api(ctx.gw, b, 'POST', 'send_custom_channel_message', { body: { customData: { fromId, customChannel: 'chat', body: 'hi' } } });
  expect(sent.body.contactId).toBe(mine.contactId);
});

test("B cannot read, list or change A's campaigns, nor link A's list to its own", async () => {
  expectApiError(await api(ctx.gw, b, 'GET', `campaigns/${A.campaign.id}`), 404, 'NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'PATCH', `campaigns/${A.campaign.id}`, { body: { status: 'live' } }), 404, 'NOT_FOUND');
  expect((await api(ctx.gw, b, 'GET', 'campaigns')).body.data.map((c: { id: string }) => c.id)).not.toContain(A.campaign.id);
  expectApiError(await api(ctx.gw, b, 'POST', 'campaigns', { body: { name: 'Steal', listId: A.list.id } }), 404, 'NOT_FOUND');
  expect((await api(ctx.gw, a, 'GET', `campaigns/${A.campaign.id}`)).body).toEqual(A.campaign);
});

test("B cannot read, list or delete A's webhooks", async () => {
  expectApiError(await api(ctx.gw, b, 'GET', `webhooks/${A.webhook.id}`), 404, 'NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'DELETE', `webhooks/${A.webhook.id}`), 404, 'NOT_FOUND');
  expect((await api(ctx.gw, b, 'GET', 'webhooks')).body).toEqual({ data: [], nextCursor: null });
  expect((await api(ctx.gw, a, 'GET', `webhooks/${A.webhook.id}`)).status).toBe(200);
});

test("B's settings and credits are its own", async () => {
  const settings = (await api(ctx.gw, b, 'GET', 'settings')).body;
  expect(settings.customChannelWebhookUrl).toBeNull();
  expect(settings.webhookSecret).not.toBe((await api(ctx.gw, a, 'GET', 'settings')).body.webhookSecret);
  expect((await api(ctx.gw, b, 'GET', 'credits')).body).toEqual({ balance: 0, transactions: [] });
});

test("a sub-account cannot see its agency's or a sibling's credit history", async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency' });
  const s1 = await createAccount(ctx.gw, { parentEmail: agency.email });
  const s2 = await createAccount(ctx.gw, { parentEmail: agency.email });
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: s1.email, amount: 9, description: unique('for s1') } });
  expect((await api(ctx.gw, s2, 'GET', 'credits')).body).toMatchObject({ balance: 0, transactions: [] });
  expect((await api(ctx.gw, agency, 'GET', 'credits')).body).toMatchObject({ balance: 0, transactions: [] });
  expect((await api(ctx.gw, s1, 'GET', 'credits')).body.balance).toBe(9);
});
