import { openStream, type EventStream } from '../helpers/event-stream';
import { acceptInvite, consoleAccount, signIn, withSession } from '../console/support';
import { processed } from '../helpers/inbound';
import {
  advanceClock,
  api,
  createAccount,
  incoming,
  poll,
  Receiver,
  request,
  twilioSignature,
  unique,
  untilIdle,
  useGateway,
  verifyStandardWebhook,
  type Received,
  type TestAccount,
} from './api-support';

/**
 * The API on PostgreSQL, each family of routes walked once (the fast tier's smoke test; the system tier repeats every
 * API file there): contacts, lists and imports, campaigns and the bot, a custom channel's message in and the reply
 * delivered, conversations and messages, settings and event webhooks, members and console sessions, credits and an
 * agency's sub-accounts, the console's stream, and a provider's webhook. Each answer is held to the API's document
 * by the test client; what is asserted is what a user reads back.
 */
const PUBLIC_URL = 'https://chat.example.test';
const hex = (c: string) => c.repeat(32);
const twilio = { accountSid: `AC${hex('a')}`, authToken: hex('1'), from: '+15005550006' };
const FAQ = { question: 'When do you open?', answer: 'At 9 am, Monday to Friday.' };

/** Twilio's API as the gateway calls it to send an SMS: every message accepted. */
let sms = 0;
const twilioApi = (_n: number, req: Received) =>
  req.method === 'POST' && req.path.startsWith('/2010-04-01/Accounts/')
    ? { status: 201, body: JSON.stringify({ sid: `SM${String(++sms).padStart(32, '0')}`, status: 'queued' }) }
    : { status: 404 };

const env: Record<string, string> = {
  LEADCHAT_TEST_CLOCK: '1',
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_PUBLIC_URL: PUBLIC_URL,
};
let provider: Receiver;
let hook: Receiver;
beforeAll(async () => {
  [provider, hook] = await Promise.all([Receiver.start(twilioApi), Receiver.start()]);
  env.LEADCHAT_TWILIO_API_URL = provider.url.replace(/\/hook$/, '');
});
const ctx = useGateway(env);
const streams: EventStream[] = [];
afterAll(async () => {
  for (const stream of streams) stream.close();
  await Promise.all([provider?.close(), hook?.close()]);
});

let owner: TestAccount & { password: string };
let secret: string;
beforeAll(async () => {
  owner = await consoleAccount(ctx.gw, { name: 'Smoke Dental' });
  const settings = await api(ctx.gw, owner, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
  expect(settings.status).toBe(200);
  secret = settings.body.webhookSecret;
});

/** The deliveries the hook received for one contact of the custom channel, as their bodies. */
const deliveredTo = (toId: string) => hook.requests.filter((r) => r.body?.toId === toId);

test('contacts: created, found by phone, changed, and erased', async () => {
  const created = await api(ctx.gw, owner, 'POST', 'contacts', {
    body: { firstName: 'Ann', lastName: 'Lee', phone: '+15550103001', email: 'ann@smoke.example' },
  });
  expect(created.status).toBe(201);
  const found = await api(ctx.gw, owner, 'GET', 'contacts', { query: { phoneNumber: '+15550103001' } });
  expect(found.body).toMatchObject({ id: created.body.id, firstName: 'Ann', email: 'ann@smoke.example' });
  const changed = await api(ctx.gw, owner, 'PATCH', `contacts/${created.body.id}`, { body: { firstName: 'Anna' } });
  expect(changed.body).toMatchObject({ id: created.body.id, firstName: 'Anna', lastName: 'Lee' });
  // The same phone at once from five requests is the same contact: the uniqueness rule is the database's.
  const again = await Promise.all(
    Array.from({ length: 5 }, () =>
      api(ctx.gw, owner, 'POST', 'contacts', { body: { firstName: 'Ann', phone: '+1 (555) 010-3001' } }),
    ),
  );
  expect(again.map((r) => [r.status, r.body.id])).toEqual(Array(5).fill([200, created.body.id]));
  expect((await api(ctx.gw, owner, 'DELETE', `contacts/${created.body.id}`)).status).toBe(204);
  expect((await api(ctx.gw, owner, 'GET', `contacts/${created.body.id}`)).status).toBe(404);
});

let listId: string;
test('lists and imports: a list with a contact added by hand and two imported from a CSV, one row refused', async () => {
  const list = await api(ctx.gw, owner, 'POST', 'lists', { body: { name: 'Patients' } });
  expect(list.status).toBe(201);
  listId = list.body.id;
  const contact = await api(ctx.gw, owner, 'POST', 'contacts', { body: { firstName: 'Bob', phone: '+15550103002' } });
  expect(
    (await api(ctx.gw, owner, 'POST', `lists/${listId}/contacts`, { body: { contactId: contact.body.id } })).status,
  ).toBe(201);
  const imported = await api(ctx.gw, owner, 'POST', `lists/${listId}/imports`, {
    body: {
      csv: 'First name,Phone\nCara,+15550103003\nDan,not a phone\nEve,+15550103004\n',
      columns: { firstName: 'First name', phone: 'Phone' },
    },
  });
  expect(imported.status).toBe(202);
  await advanceClock(ctx.gw, '1s');
  const report = await poll(
    () => api(ctx.gw, owner, 'GET', `imports/${imported.body.id}`),
    (r) => r.body.status === 'done',
  );
  expect(report.body).toMatchObject({ status: 'done', total: 3, added: 2, rejected: 1 });
  // Rows are numbered as a spreadsheet shows them, the header first.
  expect(report.body.errors).toEqual([{ row: 3, code: 'INVALID_PHONE', message: expect.any(String) }]);
  const members = await api(ctx.gw, owner, 'GET', `lists/${listId}/contacts`);
  expect(members.body.data.map((c: { firstName: string }) => c.firstName).sort()).toEqual(['Bob', 'Cara', 'Eve']);
});

let campaignId: string;
test('campaigns and the bot: a custom-channel campaign answers from its FAQ, the reply delivered signed to the hook', async () => {
  const created = await api(ctx.gw, owner, 'POST', 'campaigns', {
    body: { name: 'Check-ups', channel: 'custom', customChannel: 'web-chat', listId, bot: { faqs: [FAQ] } },
  });
  expect(created.status).toBe(201);
  campaignId = created.body.id;
  expect((await api(ctx.gw, owner, 'GET', `campaigns/${campaignId}`)).body).toMatchObject({
    id: campaignId,
    name: 'Check-ups',
    channel: 'custom',
  });
  expect((await api(ctx.gw, owner, 'GET', 'campaigns')).body.data.map((c: { id: string }) => c.id)).toContain(
    campaignId,
  );

  const fromId = unique('visitor');
  const said = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, firstName: 'Fay', channel: 'web-chat', body: FAQ.question, campaignId }),
  });
  expect(said.status).toBe(200);
  // The bot waits for more words from the contact before it answers: the clock jumps over that wait.
  await advanceClock(ctx.gw, '1m');
  const [reply] = await poll(
    async () => deliveredTo(fromId),
    (r) => r.length > 0,
  );
  expect(reply!.body).toMatchObject({ body: FAQ.answer, toId: fromId, channel: 'web-chat' });
  expect(verifyStandardWebhook(secret, reply!)).toBe(true);
});

test('conversations and messages: the conversation lists both messages; a team reply is delivered and marked sent', async () => {
  const fromId = unique('visitor');
  const said = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, firstName: 'Gus', channel: 'web-chat', body: FAQ.question, campaignId }),
  });
  await advanceClock(ctx.gw, '1m');
  await untilIdle(ctx.gw);
  const message = await api(ctx.gw, owner, 'GET', `messages/${said.body.messageId}`);
  expect(message.body).toMatchObject({ direction: 'incoming', body: FAQ.question });
  const conversation = await api(ctx.gw, owner, 'GET', `conversations/${message.body.conversationId}`);
  expect(conversation.body).toMatchObject({ campaignId, contact: { id: message.body.contactId } });
  const listed = await api(ctx.gw, owner, 'GET', 'conversations');
  expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(message.body.conversationId);
  const thread = await api(ctx.gw, owner, 'GET', `contacts/${message.body.contactId}/messages`);
  expect(thread.body.data.map((m: { body: string }) => m.body).sort()).toEqual([FAQ.answer, FAQ.question].sort());

  const sent = await api(ctx.gw, owner, 'POST', 'send_custom_channel_message', {
    body: { customData: { fromId, customChannel: 'web-chat', body: 'See you Monday' } },
  });
  expect(sent.status).toBe(200);
  const settled = await poll(
    () => api(ctx.gw, owner, 'GET', `messages/${sent.body.messageId}`),
    (r) => r.body.status !== 'pending',
  );
  expect(settled.body).toMatchObject({ status: 'sent', body: 'See you Monday' });
  expect(deliveredTo(fromId).map((r) => r.body.body)).toEqual([FAQ.answer, 'See you Monday']);
});

test('settings and event webhooks: a subscription hears a hand-off, signed with its own secret', async () => {
  const events = await Receiver.start();
  try {
    const subscribed = await api(ctx.gw, owner, 'POST', 'webhooks', {
      body: { url: events.url, events: ['handoff'] },
    });
    expect(subscribed.status).toBe(201);
    expect((await api(ctx.gw, owner, 'GET', 'webhooks')).body.data).toContainEqual(
      expect.objectContaining({ id: subscribed.body.id, events: ['handoff'] }),
    );
    expect((await api(ctx.gw, owner, 'GET', 'settings')).body).toMatchObject({ customChannelWebhookUrl: hook.url });
    // No campaign answers this contact: the team is told at once.
    const said = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId: unique('visitor'), channel: 'web-chat', body: 'Can someone call me?' }),
    });
    const { contactId } = (await api(ctx.gw, owner, 'GET', `messages/${said.body.messageId}`)).body;
    const [handoff] = await events.waitFor(1);
    expect(handoff!.body).toMatchObject({ type: 'handoff', contactId, body: 'Can someone call me?' });
    // Signed with the subscription's own secret, shown once as it was made.
    expect(verifyStandardWebhook(subscribed.body.secret, handoff!)).toBe(true);
    expect(verifyStandardWebhook(secret, handoff!)).toBe(false);
  } finally {
    await events.close();
  }
});

test('members and sessions: an invited agent accepts, is signed in, reads the conversations, and signs out', async () => {
  const invited = await api(ctx.gw, owner, 'POST', 'members', {
    body: { email: 'agent@smoke.example', name: 'Ada Agent', role: 'agent' },
  });
  expect(invited.status).toBe(201);
  const session = await acceptInvite(ctx.gw, invited.body.inviteUrl, 'agent-password-long-enough');
  expect(session.reply.status).toBe(200);
  expect((await api(ctx.gw, owner, 'GET', 'members')).body.data).toContainEqual(
    expect.objectContaining({ id: invited.body.id, role: 'agent', status: 'active' }),
  );
  const who = await withSession(ctx.gw, session, 'GET', '/console/api/session');
  expect(who.body).toMatchObject({ member: { name: 'Ada Agent', role: 'agent' }, account: { id: owner.id } });
  expect((await withSession(ctx.gw, session, 'GET', '/v1/conversations')).status).toBe(200);
  const again = await signIn(ctx.gw, 'agent@smoke.example', 'agent-password-long-enough');
  expect(again.reply.status).toBe(200);
  expect(
    (await withSession(ctx.gw, again, 'DELETE', '/console/api/session', { headers: { origin: ctx.gw.url } })).status,
  ).toBe(204);
  expect((await withSession(ctx.gw, again, 'GET', '/console/api/session')).status).toBe(401);
});

test('credits and agencies: an agency grants credits to a sub-account, which reads its balance and ledger', async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency', name: 'Smoke Agency' });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email, name: 'Smoke Clinic' });
  const granted = await api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
    body: { email: sub.email, amount: 12.5, description: 'Welcome' },
  });
  expect(granted.body).toStrictEqual({ success: true, sub_account_id: sub.id, credits_added: 12.5, new_balance: 12.5 });
  const credits = await api(ctx.gw, sub, 'GET', 'credits');
  expect(credits.body).toMatchObject({ balance: 12.5, transactions: [expect.objectContaining({ amount: 12.5 })] });
  const subs = await api(ctx.gw, agency, 'GET', 'subaccounts');
  expect(subs.body.data).toEqual([expect.objectContaining({ id: sub.id, balance: 12.5 })]);
});

test("the console's stream: a signed-in session hears a contact's message as it is committed", async () => {
  const session = await signIn(ctx.gw, owner.email, owner.password);
  const stream = await openStream(ctx.gw, '/console/api/stream', { cookie: session.cookie });
  streams.push(stream);
  expect(stream.status).toBe(200);
  const said = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: unique('visitor'), channel: 'web-chat', body: 'Anyone there?' }),
  });
  const events = await stream.until((e) => e.some((event) => event.data?.messageId === said.body.messageId));
  expect(events.find((e) => e.data?.messageId === said.body.messageId)).toMatchObject({
    event: 'message.created',
    data: { direction: 'incoming' },
  });
});

test("a provider's webhook: Twilio's signed SMS is answered at once, stored as the phone's contact's message", async () => {
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'PUT', 'channels/twilio', { body: twilio })).status).toBe(200);
  const path = `/v1/channels/twilio/${account.id}/incoming`;
  const params = {
    MessageSid: `SM${hex('c')}`,
    AccountSid: twilio.accountSid,
    From: '+15550103009',
    To: twilio.from,
    Body: 'Is Saturday open?',
    NumMedia: '0',
  };
  const answered = await processed(
    ctx.gw,
    request(ctx.gw, 'POST', path, {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(twilio.authToken, PUBLIC_URL + path, params),
      },
      body: new URLSearchParams(params).toString(),
    }),
  );
  expect(answered.status).toBe(200);
  const contact = await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: '+15550103009' } });
  expect(contact.status).toBe(200);
  const messages = await api(ctx.gw, account, 'GET', `contacts/${contact.body.id}/messages`);
  expect(messages.body.data).toContainEqual(
    expect.objectContaining({ direction: 'incoming', body: 'Is Saturday open?', channel: 'sms' }),
  );
});
