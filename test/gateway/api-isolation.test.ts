import {
  api,
  createAccount,
  dataUri,
  expectApiError,
  expectPlainError,
  getBytes,
  incoming,
  png,
  unique,
  uniquePhone,
  useGateway,
  type Reply,
  type TestAccount,
} from './api-support';

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
  A.webhook = (
    await api(ctx.gw, a, 'POST', 'webhooks', { body: { url: 'https://a.example.com/hook', events: ['reply'] } })
  ).body;
  await api(ctx.gw, a, 'PUT', 'settings', { body: { customChannelWebhookUrl: 'https://a.example.com/replies' } });
  expect(
    [A.contact.id, A.list.id, A.message.id, A.message.media?.mediaId, A.campaign.id, A.webhook.id].every(Boolean),
  ).toBe(true);
});

test("B cannot read A's contact, by id or by A's phone or email", async () => {
  expectApiError(await api(ctx.gw, b, 'GET', `contacts/${A.contact.id}`), 404, 'CONTACT_NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', `contacts/${A.contact.id}/messages`), 404, 'CONTACT_NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', `contacts/${A.message.contactId}`), 404, 'CONTACT_NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', 'contacts', { query: { phoneNumber: phone } }), 404, 'CONTACT_NOT_FOUND');
  expectApiError(
    await api(ctx.gw, b, 'GET', 'contacts', { query: { phoneNumber: '+1 (415) 555-0111' } }),
    404,
    'CONTACT_NOT_FOUND',
  );
  expectApiError(await api(ctx.gw, b, 'GET', 'contacts', { query: { email } }), 404, 'CONTACT_NOT_FOUND');
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
  expectApiError(await api(ctx.gw, b, 'GET', `lists/${A.list.id}/contacts`), 404, 'LIST_NOT_FOUND');
  const bContact = (await api(ctx.gw, b, 'POST', 'contacts', { body: { phone: '+14155550112' } })).body;
  expectApiError(
    await api(ctx.gw, b, 'POST', `lists/${A.list.id}/contacts`, { body: { contactId: bContact.id } }),
    404,
    'LIST_NOT_FOUND',
  );
  expectApiError(
    await api(ctx.gw, b, 'POST', `lists/${A.list.id}/contacts`, { body: { contactId: A.contact.id } }),
    404,
    'LIST_NOT_FOUND',
  );
  const bList = (await api(ctx.gw, b, 'POST', 'lists', { body: { name: 'B list' } })).body;
  expectApiError(
    await api(ctx.gw, b, 'POST', `lists/${bList.id}/contacts`, { body: { contactId: A.contact.id } }),
    404,
    'CONTACT_NOT_FOUND',
  );
  expect((await api(ctx.gw, b, 'GET', `lists/${bList.id}/contacts`)).body).toEqual({ data: [], nextCursor: null });
  // Nor can A use B's contact.
  expectApiError(
    await api(ctx.gw, a, 'POST', `lists/${A.list.id}/contacts`, { body: { contactId: bContact.id } }),
    404,
    'CONTACT_NOT_FOUND',
  );
  expect(
    (await api(ctx.gw, a, 'GET', `lists/${A.list.id}/contacts`)).body.data.map((c: { id: string }) => c.id),
  ).toEqual([A.contact.id]);
});

test("B cannot read A's messages or media", async () => {
  expectApiError(await api(ctx.gw, b, 'GET', `messages/${A.message.id}`), 404, 'MESSAGE_NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'GET', A.message.media.url), 404, 'MEDIA_NOT_FOUND');
  const stranger = await getBytes(ctx.gw, b, A.message.media.url);
  expect(stranger.status).toBe(404);
  expect(stranger.bytes.includes(Buffer.from('IHDR'))).toBe(false);
  expect((await getBytes(ctx.gw, a, A.message.media.url)).status).toBe(200);
});

test("messageSid and fromId are per account: B's message with A's values is B's own", async () => {
  const before = (await api(ctx.gw, a, 'GET', `contacts/${A.message.contactId}/messages`)).body.data;
  expect(before.map((m: { id: string }) => m.id)).toContain(A.message.id);
  const res = await api(ctx.gw, b, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ messageSid: sid, fromId, body: 'from B' }),
  });
  expect(res.status).toBe(200);
  expect(res.body.messageId).not.toBe(A.message.id);
  const mine = (await api(ctx.gw, b, 'GET', `messages/${res.body.messageId}`)).body;
  expect(mine.contactId).not.toBe(A.message.contactId);
  // A's conversation is unchanged.
  expect((await api(ctx.gw, a, 'GET', `contacts/${A.message.contactId}/messages`)).body.data).toEqual(before);
  // And B's send to the same fromId reaches B's contact, not A's.
  const sent = await api(ctx.gw, b, 'POST', 'send_custom_channel_message', {
    body: { customData: { fromId, customChannel: 'chat', body: 'hi' } },
  });
  expect(sent.body.contactId).toBe(mine.contactId);
});

test("B cannot read, list or change A's campaigns, nor link A's list to its own", async () => {
  expectApiError(await api(ctx.gw, b, 'GET', `campaigns/${A.campaign.id}`), 404, 'CAMPAIGN_NOT_FOUND');
  expectApiError(
    await api(ctx.gw, b, 'PATCH', `campaigns/${A.campaign.id}`, { body: { status: 'live' } }),
    404,
    'CAMPAIGN_NOT_FOUND',
  );
  expect((await api(ctx.gw, b, 'GET', 'campaigns')).body.data.map((c: { id: string }) => c.id)).not.toContain(
    A.campaign.id,
  );
  expectApiError(
    await api(ctx.gw, b, 'POST', 'campaigns', { body: { name: 'Steal', listId: A.list.id } }),
    404,
    'LIST_NOT_FOUND',
  );
  expect((await api(ctx.gw, a, 'GET', `campaigns/${A.campaign.id}`)).body).toEqual({
    ...A.campaign,
    unreachable: expect.objectContaining({ total: 0 }),
  });
});

test("B neither lists A's archived campaigns nor brings one back", async () => {
  const archived = (await api(ctx.gw, a, 'POST', 'campaigns', { body: { name: 'A done' } })).body;
  expect((await api(ctx.gw, a, 'PATCH', `campaigns/${archived.id}`, { body: { status: 'archived' } })).status).toBe(
    200,
  );
  const listed = await api(ctx.gw, b, 'GET', 'campaigns', { query: { status: 'archived' } });
  expect(listed.body).toEqual({ data: [], nextCursor: null });
  expectApiError(
    await api(ctx.gw, b, 'PATCH', `campaigns/${archived.id}`, { body: { status: 'paused' } }),
    404,
    'CAMPAIGN_NOT_FOUND',
  );
  expect((await api(ctx.gw, a, 'GET', `campaigns/${archived.id}`)).body.status).toBe('archived');
});

test("B cannot read, list or delete A's webhooks", async () => {
  expectApiError(await api(ctx.gw, b, 'GET', `webhooks/${A.webhook.id}`), 404, 'WEBHOOK_NOT_FOUND');
  expectApiError(await api(ctx.gw, b, 'DELETE', `webhooks/${A.webhook.id}`), 404, 'WEBHOOK_NOT_FOUND');
  expect((await api(ctx.gw, b, 'GET', 'webhooks')).body).toEqual({ data: [], nextCursor: null });
  expect((await api(ctx.gw, a, 'GET', `webhooks/${A.webhook.id}`)).status).toBe(200);
});

test("B cannot list A's saved replies, nor take a name A's hold, nor fill one of its own in for A's contact", async () => {
  expect((await api(ctx.gw, b, 'GET', 'saved-replies')).body).toEqual({ data: [], nextCursor: null });
  expect((await api(ctx.gw, b, 'GET', 'saved-replies', { query: { q: 'A only' } })).body.data).toEqual([]);
  const own = await api(ctx.gw, b, 'POST', 'saved-replies', { body: { name: A.savedReply.name, text: 'B too' } });
  expect(own.status).toBe(201);
  await sameAsMissing(
    (id) => api(ctx.gw, b, 'GET', `saved-replies/${own.body.id}`, { query: { conversationId: id } }),
    A.message.conversationId,
    'cnv_missing',
    'CONVERSATION_NOT_FOUND',
  );
  expect((await api(ctx.gw, b, 'DELETE', `saved-replies/${own.body.id}`)).status).toBe(204);
});

test("B reads its own audit log only, never an entry of A's", async () => {
  const mine = await api(ctx.gw, b, 'GET', 'audit-log', { query: { limit: '200' } });
  expect(mine.status).toBe(200);
  expect(mine.body.data.length).toBeGreaterThan(0);
  for (const ofA of [a.id, A.webhook.id, A.campaign.id, A.list.id, A.contact.id]) expect(mine.text).not.toContain(ofA);
  const theirs = await api(ctx.gw, a, 'GET', 'audit-log', { query: { limit: '200' } });
  expect(theirs.body.data.map((e: any) => e.target?.id)).toContain(A.webhook.id);
  // A filter naming A's member or action finds nothing of A's.
  expect(
    (await api(ctx.gw, b, 'GET', 'audit-log', { query: { action: 'webhook.created' } })).body.data.map(
      (e: any) => e.target.id,
    ),
  ).not.toContain(A.webhook.id);
});

test("B's settings and credits are its own", async () => {
  const settings = (await api(ctx.gw, b, 'GET', 'settings')).body;
  expect(settings.customChannelWebhookUrl).toBeNull();
  expect(settings.webhookSecret).not.toBe((await api(ctx.gw, a, 'GET', 'settings')).body.webhookSecret);
  expect((await api(ctx.gw, b, 'GET', 'credits')).body).toEqual({
    balance: 0,
    lowBalanceThreshold: null,
    lowBalance: false,
    transactions: [],
  });
});

test("a sub-account cannot see its agency's or a sibling's credit history", async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency' });
  const s1 = await createAccount(ctx.gw, { parentEmail: agency.email });
  const s2 = await createAccount(ctx.gw, { parentEmail: agency.email });
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
    body: { email: s1.email, amount: 9, description: unique('for s1') },
  });
  expect((await api(ctx.gw, s2, 'GET', 'credits')).body).toMatchObject({ balance: 0, transactions: [] });
  // The agency's own list holds the grant it made, and s1's the grant it got: each as its own account sees it.
  expect((await api(ctx.gw, agency, 'GET', 'credits')).body).toMatchObject({
    balance: 0,
    transactions: [{ kind: 'granted', amount: -9, balance: null, subAccount: { id: s1.id } }],
  });
  expect((await api(ctx.gw, s1, 'GET', 'credits')).body).toMatchObject({
    balance: 9,
    transactions: [{ kind: 'grant', amount: 9, balance: 9 }],
  });
});

// ---- every id a request names, from its path, body or query --------------------------------------------------

const STEPS = ['added', 'openingSent', 'replied', 'handedOff', 'optedOut', 'goalReached', 'failed'];
const zeros = Object.fromEntries(STEPS.map((s) => [s, 0]));
/** A's records as A sees them before B tries its ids, to compare with afterwards. */
const before: Record<string, any> = {};
const funnelOfA = async () => (await api(ctx.gw, a, 'GET', `campaigns/${A.campaign.id}/funnel`)).body;
const aState = async () => ({
  contact: (await api(ctx.gw, a, 'GET', `contacts/${A.contact.id}`)).body,
  messages: (await api(ctx.gw, a, 'GET', `contacts/${A.message.contactId}/messages`)).body,
  conversation: (await api(ctx.gw, a, 'GET', `conversations/${A.message.conversationId}`)).body,
  conversations: (await api(ctx.gw, a, 'GET', 'conversations')).body,
  list: (await api(ctx.gw, a, 'GET', `lists/${A.list.id}/contacts`)).body,
  campaign: (await api(ctx.gw, a, 'GET', `campaigns/${A.campaign.id}`)).body,
  funnel: (await funnelOfA()).totals,
  imports: (await api(ctx.gw, a, 'GET', `lists/${A.importList.id}/imports`)).body,
  webhook: (await api(ctx.gw, a, 'GET', `webhooks/${A.webhook.id}`)).body,
  bot: (await api(ctx.gw, a, 'GET', 'settings/bot')).body,
  notes: (await api(ctx.gw, a, 'GET', `conversations/${A.message.conversationId}/notes`)).body,
  savedReplies: (await api(ctx.gw, a, 'GET', 'saved-replies')).body,
});
const B: Record<string, any> = {};

beforeAll(async () => {
  A.importList = (await api(ctx.gw, a, 'POST', 'lists', { body: { name: 'A imports' } })).body;
  A.import = (
    await api(ctx.gw, a, 'POST', `lists/${A.importList.id}/imports`, { body: { contacts: [{ phone: uniquePhone() }] } })
  ).body;
  B.contact = (await api(ctx.gw, b, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
  B.list = (await api(ctx.gw, b, 'POST', 'lists', { body: { name: 'B own list' } })).body;
  B.campaign = (
    await api(ctx.gw, b, 'POST', 'campaigns', {
      body: { name: 'B campaign', channel: 'custom', customChannel: 'chat' },
    })
  ).body;
  const chat = await api(ctx.gw, b, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: unique('b-visitor'), body: 'hi from B' }),
  });
  const bMessage = (await api(ctx.gw, b, 'GET', `messages/${chat.body.messageId}`)).body;
  B.chatContactId = bMessage.contactId;
  B.conversationId = bMessage.conversationId;
  A.note = (
    await api(ctx.gw, a, 'POST', `conversations/${A.message.conversationId}/notes`, { body: { text: 'A only' } })
  ).body;
  A.savedReply = (
    await api(ctx.gw, a, 'POST', 'saved-replies', { body: { name: 'A prices', text: 'A only, {{first_name}}' } })
  ).body;
  expect(
    [A.importList.id, A.import.id, A.note.id, A.savedReply.id, B.contact.id, B.list.id, B.campaign.id].every(Boolean),
  ).toBe(true);
  expect(B.chatContactId).toBeTruthy();
  Object.assign(before, await aState());
  expect(before.funnel).toEqual(zeros);
});

/** B naming A's record gets the very 404 that a record that never existed gets: status, code and message. */
async function sameAsMissing(
  send: (id: string) => Promise<Reply>,
  theirs: string,
  missing: string,
  code: string,
): Promise<void> {
  const foreign = await send(theirs);
  expectApiError(foreign, 404, code);
  expect(foreign.body).toEqual((await send(missing)).body);
}

const byPath: Array<[string, string, (id: string) => Promise<Reply>, () => string, string]> = [
  [
    'GET /contacts/{id}',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `contacts/${id}`),
    () => A.contact.id,
    'ct_missing',
  ],
  [
    'GET /contacts/{id}/messages',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `contacts/${id}/messages`),
    () => A.message.contactId,
    'ct_missing',
  ],
  [
    'POST /contacts/{id}/messages',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `contacts/${id}/messages`, { body: { body: 'Hello from B' } }),
    () => A.message.contactId,
    'ct_missing',
  ],
  [
    'POST /contacts/{id}/bot',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `contacts/${id}/bot`, { body: { active: false } }),
    () => A.message.contactId,
    'ct_missing',
  ],
  [
    'PATCH /contacts/{id}',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'PATCH', `contacts/${id}`, { body: { firstName: 'Taken over' } }),
    () => A.contact.id,
    'ct_missing',
  ],
  [
    'DELETE /contacts/{id}',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'DELETE', `contacts/${id}`),
    () => A.message.contactId,
    'ct_missing',
  ],
  [
    'POST /contacts/{id}/merge',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `contacts/${id}/merge`, { body: { contactId: B.contact.id } }),
    () => A.contact.id,
    'ct_missing',
  ],
  [
    'GET /contacts/{id}/export',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `contacts/${id}/export`),
    () => A.message.contactId,
    'ct_missing',
  ],
  [
    'GET /lists/{id}/export',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `lists/${id}/export`),
    () => A.list.id,
    'lst_missing',
  ],
  [
    'DELETE /lists/{id}/contacts/{contactId}',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'DELETE', `lists/${id}/contacts/${A.contact.id}`),
    () => A.list.id,
    'lst_missing',
  ],
  [
    'GET /conversations/{id}',
    'CONVERSATION_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `conversations/${id}`),
    () => A.message.conversationId,
    'cnv_missing',
  ],
  [
    'POST /conversations/{id}/snooze',
    'CONVERSATION_NOT_FOUND',
    (id) =>
      api(ctx.gw, b, 'POST', `conversations/${id}/snooze`, {
        body: { until: new Date(Date.now() + 86_400_000).toISOString() },
      }),
    () => A.message.conversationId,
    'cnv_missing',
  ],
  [
    'DELETE /conversations/{id}/snooze',
    'CONVERSATION_NOT_FOUND',
    (id) => api(ctx.gw, b, 'DELETE', `conversations/${id}/snooze`),
    () => A.message.conversationId,
    'cnv_missing',
  ],
  [
    'POST /conversations/{id}/labels',
    'CONVERSATION_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `conversations/${id}/labels`, { body: { labels: ['Hot lead'] } }),
    () => A.message.conversationId,
    'cnv_missing',
  ],
  [
    'DELETE /conversations/{id}/labels/{label}',
    'CONVERSATION_NOT_FOUND',
    (id) => api(ctx.gw, b, 'DELETE', `conversations/${id}/labels/Hot%20lead`),
    () => A.message.conversationId,
    'cnv_missing',
  ],
  [
    'POST /conversations/{id}/read',
    'CONVERSATION_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `conversations/${id}/read`),
    () => A.message.conversationId,
    'cnv_missing',
  ],
  [
    'POST /conversations/{id}/notes',
    'CONVERSATION_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `conversations/${id}/notes`, { body: { text: 'Read by B' } }),
    () => A.message.conversationId,
    'cnv_missing',
  ],
  [
    'GET /conversations/{id}/notes',
    'CONVERSATION_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `conversations/${id}/notes`),
    () => A.message.conversationId,
    'cnv_missing',
  ],
  [
    'DELETE /conversations/{id}/notes/{noteId}',
    'CONVERSATION_NOT_FOUND',
    (id) => api(ctx.gw, b, 'DELETE', `conversations/${id}/notes/${A.note.id}`),
    () => A.message.conversationId,
    'cnv_missing',
  ],
  [
    'DELETE /conversations/{id}/notes/{noteId} on its own conversation',
    'NOTE_NOT_FOUND',
    (id) => api(ctx.gw, b, 'DELETE', `conversations/${B.conversationId}/notes/${id}`),
    () => A.note.id,
    'nte_missing',
  ],
  [
    'GET /saved-replies/{id}',
    'SAVED_REPLY_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `saved-replies/${id}`),
    () => A.savedReply.id,
    'svr_missing',
  ],
  [
    'GET /saved-replies/{id}?conversationId= of its own',
    'SAVED_REPLY_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `saved-replies/${id}`, { query: { conversationId: B.conversationId } }),
    () => A.savedReply.id,
    'svr_missing',
  ],
  [
    'PATCH /saved-replies/{id}',
    'SAVED_REPLY_NOT_FOUND',
    (id) => api(ctx.gw, b, 'PATCH', `saved-replies/${id}`, { body: { text: 'Changed by B' } }),
    () => A.savedReply.id,
    'svr_missing',
  ],
  [
    'DELETE /saved-replies/{id}',
    'SAVED_REPLY_NOT_FOUND',
    (id) => api(ctx.gw, b, 'DELETE', `saved-replies/${id}`),
    () => A.savedReply.id,
    'svr_missing',
  ],
  ['GET /lists/{id}', 'LIST_NOT_FOUND', (id) => api(ctx.gw, b, 'GET', `lists/${id}`), () => A.list.id, 'lst_missing'],
  [
    'PATCH /lists/{id}',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'PATCH', `lists/${id}`, { body: { name: 'Taken over' } }),
    () => A.list.id,
    'lst_missing',
  ],
  [
    'DELETE /lists/{id}',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'DELETE', `lists/${id}`),
    () => A.list.id,
    'lst_missing',
  ],
  [
    'GET /lists/{id}/contacts',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `lists/${id}/contacts`),
    () => A.list.id,
    'lst_missing',
  ],
  [
    'POST /lists/{id}/contacts',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `lists/${id}/contacts`, { body: { contactId: B.contact.id } }),
    () => A.list.id,
    'lst_missing',
  ],
  [
    'GET /lists/{id}/imports',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `lists/${id}/imports`),
    () => A.importList.id,
    'lst_missing',
  ],
  [
    'POST /lists/{id}/imports',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `lists/${id}/imports`, { body: { contacts: [{ phone: uniquePhone() }] } }),
    () => A.importList.id,
    'lst_missing',
  ],
  [
    'GET /imports/{id}',
    'IMPORT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `imports/${id}`),
    () => A.import.id,
    'imp_missing',
  ],
  [
    'GET /campaigns/{id}',
    'CAMPAIGN_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `campaigns/${id}`),
    () => A.campaign.id,
    'cmp_missing',
  ],
  [
    'PATCH /campaigns/{id}',
    'CAMPAIGN_NOT_FOUND',
    (id) => api(ctx.gw, b, 'PATCH', `campaigns/${id}`, { body: { name: 'Taken over' } }),
    () => A.campaign.id,
    'cmp_missing',
  ],
  [
    'POST /campaigns/{id}/bot/test',
    'CAMPAIGN_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `campaigns/${id}/bot/test`, { body: { message: 'hi' } }),
    () => A.campaign.id,
    'cmp_missing',
  ],
  [
    'GET /campaigns/{id}/preview',
    'CAMPAIGN_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `campaigns/${id}/preview`, { query: { contactId: B.contact.id } }),
    () => A.campaign.id,
    'cmp_missing',
  ],
  [
    'GET /campaigns/{id}/funnel',
    'CAMPAIGN_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `campaigns/${id}/funnel`),
    () => A.campaign.id,
    'cmp_missing',
  ],
  [
    'GET /campaigns/{id}/unanswered',
    'CAMPAIGN_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `campaigns/${id}/unanswered`),
    () => A.campaign.id,
    'cmp_missing',
  ],
  [
    'GET /messages/{id}',
    'MESSAGE_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `messages/${id}`),
    () => A.message.id,
    'msg_missing',
  ],
  [
    'POST /messages/{id}/retry',
    'MESSAGE_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `messages/${id}/retry`),
    () => A.message.id,
    'msg_missing',
  ],
  [
    'GET /media/{id}',
    'MEDIA_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `media/${id}`),
    () => A.message.media.mediaId,
    'med_missing',
  ],
  [
    'GET /webhooks/{id}',
    'WEBHOOK_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `webhooks/${id}`),
    () => A.webhook.id,
    'whk_missing',
  ],
  [
    'DELETE /webhooks/{id}',
    'WEBHOOK_NOT_FOUND',
    (id) => api(ctx.gw, b, 'DELETE', `webhooks/${id}`),
    () => A.webhook.id,
    'whk_missing',
  ],
];

const byBodyOrQuery: Array<[string, string, (id: string) => Promise<Reply>, () => string, string]> = [
  [
    'POST /send_custom_channel_message customData.campaignId',
    'CAMPAIGN_NOT_FOUND',
    (id) =>
      api(ctx.gw, b, 'POST', 'send_custom_channel_message', {
        body: { customData: { fromId: 'visitor-send', customChannel: 'chat', body: 'Our offer', campaignId: id } },
      }),
    () => A.campaign.id,
    'cmp_missing',
  ],
  [
    'GET /conversations?campaignId=',
    'CAMPAIGN_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', 'conversations', { query: { campaignId: id } }),
    () => A.campaign.id,
    'cmp_missing',
  ],
  [
    'GET /campaigns/{id}/preview?contactId=',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'GET', `campaigns/${B.campaign.id}/preview`, { query: { contactId: id } }),
    () => A.contact.id,
    'ct_missing',
  ],
  [
    'POST /lists/{id}/contacts contactId',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `lists/${B.list.id}/contacts`, { body: { contactId: id } }),
    () => A.contact.id,
    'ct_missing',
  ],
  [
    'DELETE /lists/{id}/contacts/{contactId}',
    'CONTACT_NOT_IN_LIST',
    (id) => api(ctx.gw, b, 'DELETE', `lists/${B.list.id}/contacts/${id}`),
    () => A.contact.id,
    'ct_missing',
  ],
  [
    'POST /contacts/{id}/merge contactId',
    'CONTACT_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', `contacts/${B.contact.id}/merge`, { body: { contactId: id } }),
    () => A.contact.id,
    'ct_missing',
  ],
  [
    'POST /campaigns listId',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'POST', 'campaigns', { body: { name: 'On their list', listId: id } }),
    () => A.list.id,
    'lst_missing',
  ],
  [
    'PATCH /campaigns/{id} listId',
    'LIST_NOT_FOUND',
    (id) => api(ctx.gw, b, 'PATCH', `campaigns/${B.campaign.id}`, { body: { listId: id } }),
    () => A.list.id,
    'lst_missing',
  ],
  [
    'PUT /settings/bot defaultCampaignId',
    'CAMPAIGN_NOT_FOUND',
    (id) => api(ctx.gw, b, 'PUT', 'settings/bot', { body: { defaultCampaignId: id } }),
    () => A.campaign.id,
    'cmp_missing',
  ],
  [
    'POST /contacts/{id}/messages conversationId',
    'CONVERSATION_NOT_FOUND',
    (id) =>
      api(ctx.gw, b, 'POST', `contacts/${B.chatContactId}/messages`, {
        body: { body: 'On their thread', conversationId: id },
      }),
    () => A.message.conversationId,
    'cnv_missing',
  ],
];

describe("B naming one of A's ids is answered as if the id did not exist", () => {
  test.each(byPath)("%s: A's id in the path → 404 %s", async (_route, code, send, theirs, missing) => {
    await sameAsMissing(send, theirs(), missing, code);
  });

  test.each(byBodyOrQuery)("%s: A's id → 404 %s", async (_route, code, send, theirs, missing) => {
    await sameAsMissing(send, theirs(), missing, code);
  });

  test("incoming messages naming A's campaign (a hand-off, then STOP) → 404, stored nowhere, A's funnel untouched", async () => {
    const fromId = unique('visitor-foreign-campaign');
    const plainBefore = (await api(ctx.gw, b, 'GET', 'conversations')).body;
    for (const body of ['talk to a human', 'STOP']) {
      const messageSid = unique('sid-foreign');
      const theirs = await api(ctx.gw, b, 'POST', 'incoming_custom_channel_message', {
        body: incoming({ messageSid, fromId, body, campaignId: A.campaign.id }),
      });
      expectPlainError(theirs, 404);
      expect(theirs.body).toEqual({ error: 'Campaign not found' });
      const none = await api(ctx.gw, b, 'POST', 'incoming_custom_channel_message', {
        body: incoming({ messageSid, fromId, body, campaignId: 'cmp_missing' }),
      });
      expect({ status: none.status, body: none.body }).toEqual({ status: theirs.status, body: theirs.body });
    }
    expect((await api(ctx.gw, b, 'GET', 'conversations')).body).toEqual(plainBefore);
    expect((await funnelOfA()).totals).toEqual(zeros);
    // The same messageSid without the campaign is a new message: the refused one was not kept.
    const messageSid = unique('sid-later');
    await api(ctx.gw, b, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ messageSid, fromId, campaignId: A.campaign.id }),
    });
    const later = await api(ctx.gw, b, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ messageSid, fromId, body: 'hello again' }),
    });
    expect(later.status).toBe(200);
    expect((await api(ctx.gw, b, 'GET', `messages/${later.body.messageId}`)).body).toMatchObject({
      body: 'hello again',
      campaignId: null,
    });
  });

  test("sending with A's campaign stores no message and no conversation for B", async () => {
    const fromId = unique('visitor-send-foreign');
    const conversations = (await api(ctx.gw, b, 'GET', 'conversations')).body;
    expectApiError(
      await api(ctx.gw, b, 'POST', 'send_custom_channel_message', {
        body: { customData: { fromId, customChannel: 'chat', body: 'Our offer', campaignId: A.campaign.id } },
      }),
      404,
      'CAMPAIGN_NOT_FOUND',
    );
    expect((await api(ctx.gw, b, 'GET', 'conversations')).body).toEqual(conversations);
    expect((await funnelOfA()).totals).toEqual(zeros);
  });

  test("an agency naming A's account as its sub-account → 404 SUB_ACCOUNT_NOT_FOUND, deleting it too", async () => {
    const agency = await createAccount(ctx.gw, { type: 'agency' });
    for (const [method, tail] of [
      ['GET', '/credits'],
      ['DELETE', ''],
      ['GET', '/deletion'],
    ] as const)
      await sameAsMissing(
        (id) => api(ctx.gw, agency, method, `subaccounts/${id}${tail}`),
        a.id,
        'acc_missing',
        'SUB_ACCOUNT_NOT_FOUND',
      );
    expect((await api(ctx.gw, a, 'GET', 'credits')).status).toBe(200);
  });

  test("after all of the above, A's records are as they were", async () => {
    expect(await aState()).toEqual(before);
    expect((await funnelOfA()).totals).toEqual(zeros);
  });
});
