import path from 'node:path';

import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  poll,
  Receiver,
  unique,
  uniquePhone,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

type FollowUps = typeof import('../../gateway/src/engine/follow-ups.js', { with: { 'resolution-mode': 'import' } });

/**
 * What happens after the opening message, over HTTPS: follow-ups, opt-out and START, HELP, hand-off and resume, a
 * team member's reply, the conversation list, and the events that report them.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_TEST_CLOCK: '1' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function setUp(campaign: Record<string, unknown> = {}, owner?: TestAccount) {
  const account = owner ?? (await createAccount(ctx.gw));
  const hook = await Receiver.start();
  receivers.push(hook);
  await api(ctx.gw, account, 'POST', 'webhooks', {
    body: { url: hook.url, events: ['message_received', 'handoff', 'opt_out', 'delivery_failed'] },
  });
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Funnel',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name}}!',
      triggerOnNewContacts: true,
      status: 'live',
      ...campaign,
    },
  });
  expect(created.status).toBe(201);
  return { account, hook, list, campaign: created.body };
}

async function lead(account: TestAccount, listId: string) {
  const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: 'Ann' } }))
    .body;
  await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId: contact.id } });
  await poll(
    () => messages(account, contact.id),
    (m) => m.some((x) => x.author === 'campaign'),
  );
  return contact;
}

const messages = async (account: TestAccount, contactId: string) =>
  (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages?limit=200`)).body.data as any[];
const say = (account: TestAccount, phone: string, body: string) =>
  api(ctx.gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body } });
const conversation = async (account: TestAccount, contactId: string) =>
  ((await api(ctx.gw, account, 'GET', 'conversations?limit=200')).body.data as any[]).find(
    (c) => c.contactId === contactId,
  );
const events = (hook: Receiver, type: string, contactId: string) =>
  hook.requests.filter((r) => r.body?.type === type && r.body?.contactId === contactId);

/** Two follow-ups: a day after the opening, then two days after the first. */
const TWO_FOLLOW_UPS = {
  followUps: {
    enabled: true,
    steps: [
      { after: '1d', body: 'Still there, {{first_name}}?' },
      { after: '2d', body: 'Last call' },
    ],
  },
};
const followUpsTo = async (account: TestAccount, contactId: string) =>
  (await messages(account, contactId)).filter((x) => x.author === 'follow_up').map((x) => x.body);

test('follow-ups go out in turn while the lead is silent; the last one unanswered closes the conversation', async () => {
  const { account, list } = await setUp(TWO_FOLLOW_UPS);
  const ann = await lead(account, list.id);
  const followUps = () => followUpsTo(account, ann.id);
  expect((await conversation(account, ann.id)).next).toMatchObject({ kind: 'follow_up', step: 0 });
  // Nothing before its time: a day less a minute later, still nothing.
  await advanceClock(ctx.gw, '23h59m');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUps()).toEqual([]);
  await advanceClock(ctx.gw, '1m');
  await poll(followUps, (f) => f.length === 1);
  await advanceClock(ctx.gw, '2d');
  expect(await poll(followUps, (f) => f.length === 2)).toEqual(['Still there, Ann?', 'Last call']);
  await advanceClock(ctx.gw, '2d');
  const closed = await poll(
    () => conversation(account, ann.id),
    (c) => c.status === 'closed',
  );
  expect(closed.next).toBeNull();
  // A message opens it again.
  await say(account, ann.phone, 'Sorry, busy week');
  expect((await conversation(account, ann.id)).status).toBe('active');
});

test('a follow-up run again after it went out (its lease ran out, its process died) sends nothing more', async () => {
  const { account, list } = await setUp(TWO_FOLLOW_UPS);
  const ann = await lead(account, list.id);
  const followUps = () => followUpsTo(account, ann.id);
  await advanceClock(ctx.gw, '1d');
  await poll(followUps, (f) => f.length === 1);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const { id: conversationId, next } = await conversation(account, ann.id);
  expect(next).toMatchObject({ kind: 'follow_up', step: 1 });
  // The queue runs a job at least once: a runner that finds the lease of the first step's job ended takes it again.
  const { runFollowUp } = (await gatewayModule(
    path.resolve(__dirname, '../../gateway/dist/engine/follow-ups.js'),
  )) as FollowUps;
  await runFollowUp(ctx.gw.engine, { conversationId, step: 0 });
  expect(await followUps()).toEqual(['Still there, Ann?']);
  expect((await conversation(account, ann.id)).next).toEqual(next);
});

test('an opening that failed at once is followed up only once a retry sends it: no "Still there?" to a lead it never reached', async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  const { account, list } = await setUp(TWO_FOLLOW_UPS, sub);
  const ann = await lead(account, list.id);
  const [opening] = await messages(account, ann.id);
  expect(opening).toMatchObject({ author: 'campaign', status: 'failed', errorCode: 'INSUFFICIENT_CREDITS' });
  expect((await conversation(account, ann.id)).next).toBeNull();
  // Credits come (an auto-recharge's answer) and days pass: nothing follows an opening the lead never got.
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 10 } });
  await advanceClock(ctx.gw, '2d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, ann.id)).toEqual([]);
  // Retried, the opening goes, and its follow-ups are timed from then.
  expect((await api(ctx.gw, account, 'POST', `messages/${opening.id}/retry`)).status).toBe(200);
  expect((await conversation(account, ann.id)).next).toMatchObject({ kind: 'follow_up', step: 0 });
  await advanceClock(ctx.gw, '1d');
  expect(
    await poll(
      () => followUpsTo(account, ann.id),
      (f) => f.length === 1,
    ),
  ).toEqual(['Still there, Ann?']);
});

test('a follow-up that failed at once holds the next ones until a retry sends it: the lead never gets a later step first', async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  // Credits for the opening only: the first follow-up finds the balance empty.
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 1 } });
  const { account, list } = await setUp(TWO_FOLLOW_UPS, sub);
  const ann = await lead(account, list.id);
  await advanceClock(ctx.gw, '1d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const [, stillThere] = await messages(account, ann.id);
  expect(stillThere).toMatchObject({ author: 'follow_up', status: 'failed', errorCode: 'INSUFFICIENT_CREDITS' });
  expect((await conversation(account, ann.id)).next).toBeNull();
  // Credits come and days pass: no "Last call" before "Still there?", and the conversation is not closed.
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 10 } });
  await advanceClock(ctx.gw, '5d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, ann.id)).toEqual(['Still there, Ann?']);
  expect((await conversation(account, ann.id)).status).toBe('active');
  // Retried, it goes, and the next step is timed from then.
  expect((await api(ctx.gw, account, 'POST', 'conversations/retry-failed')).body.retried).toEqual([stillThere.id]);
  expect((await conversation(account, ann.id)).next).toMatchObject({ kind: 'follow_up', step: 1 });
  await advanceClock(ctx.gw, '2d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, ann.id)).toEqual(['Still there, Ann?', 'Last call']);
  expect((await messages(account, ann.id)).map((m) => m.status)).toEqual(['sent', 'sent', 'sent']);
});

test('a follow-up that failed for credits is not sent by a retry after the lead answered, nor after a hand-off', async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  // Credits for the two openings only: both first follow-ups find the balance empty.
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 2 } });
  const { account, list } = await setUp(TWO_FOLLOW_UPS, sub);
  const ann = await lead(account, list.id);
  const bob = await lead(account, list.id);
  await advanceClock(ctx.gw, '1d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const failedFollowUp = async (contactId: string) =>
    (await messages(account, contactId)).find((m) => m.author === 'follow_up' && m.status === 'failed');
  const [annStillThere, bobStillThere] = [await failedFollowUp(ann.id), await failedFollowUp(bob.id)];
  expect(annStillThere).toMatchObject({ errorCode: 'INSUFFICIENT_CREDITS' });
  expect(bobStillThere).toMatchObject({ errorCode: 'INSUFFICIENT_CREDITS' });
  // Ann answers the opening she did get; the team takes Bob's conversation.
  await advanceClock(ctx.gw, '1h');
  await say(account, ann.phone, 'Yes, tell me more');
  expect((await api(ctx.gw, account, 'POST', `contacts/${bob.id}/bot`, { body: { active: false } })).status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await conversation(account, bob.id)).status).toBe('handed_off');
  // Credits come back, and the inbox's "Retry all failed messages" is clicked: no "Still there?" after either.
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 10 } });
  const report = (await api(ctx.gw, account, 'POST', 'conversations/retry-failed')).body;
  expect(report.retried).not.toContain(annStillThere.id);
  expect(report.retried).not.toContain(bobStillThere.id);
  expect(report.refused).toEqual(
    expect.arrayContaining([
      { messageId: annStillThere.id, code: 'CONTACT_WROTE_SINCE', message: expect.any(String) },
      { messageId: bobStillThere.id, code: 'HANDED_OFF', message: expect.any(String) },
    ]),
  );
  expectApiError(await api(ctx.gw, account, 'POST', `messages/${annStillThere.id}/retry`), 409, 'CONTACT_WROTE_SINCE');
  await advanceClock(ctx.gw, '5d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  for (const contact of [ann, bob])
    expect(
      (await messages(account, contact.id)).filter((m) => m.author === 'follow_up' && m.status !== 'failed'),
    ).toEqual([]);
});

test('an opening a retry sends while its campaign is paused is followed up once the campaign is Live again', async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  const { account, list, campaign } = await setUp(TWO_FOLLOW_UPS, sub);
  const ann = await lead(account, list.id);
  const [opening] = await messages(account, ann.id);
  expect(opening).toMatchObject({ status: 'failed', errorCode: 'INSUFFICIENT_CREDITS' });
  // Out of credits, the campaign is paused while the agency is asked; the grant comes and the opening is sent.
  const status = (s: string) => api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { status: s } });
  expect((await status('paused')).status).toBe(200);
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 10 } });
  expect((await api(ctx.gw, account, 'POST', `messages/${opening.id}/retry`)).status).toBe(200);
  expect((await conversation(account, ann.id)).next).toBeNull();
  await advanceClock(ctx.gw, '1h');
  expect((await status('live')).status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await conversation(account, ann.id)).next).toEqual({
    kind: 'follow_up',
    at: iso(ctx.gw.now() + DAY),
    step: 0,
  });
  await advanceClock(ctx.gw, '1d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, ann.id)).toEqual(['Still there, Ann?']);
});

test('a reply cancels the follow-ups, and is reported as message_received', async () => {
  const { account, hook, list } = await setUp({
    followUps: { enabled: true, steps: [{ after: '1d', body: 'Hello?' }] },
  });
  const ann = await lead(account, list.id);
  expect((await conversation(account, ann.id)).next).toMatchObject({ kind: 'follow_up', step: 0 });
  const res = await say(account, ann.phone, 'Yes, tell me more');
  expect(res.status).toBe(200);
  expect((await conversation(account, ann.id)).next).toBeNull();
  // The day the follow-up was due passes: nothing goes.
  await advanceClock(ctx.gw, '1d');
  await untilIdle(ctx.gw);
  expect((await messages(account, ann.id)).filter((m) => m.author === 'follow_up')).toHaveLength(0);
  const [received] = await poll(
    async () => events(hook, 'message_received', ann.id),
    (e) => e.length > 0,
  );
  expect(received!.body).toMatchObject({
    messageId: res.body.messageId,
    conversationId: res.body.conversationId,
    channel: 'sms',
    body: 'Yes, tell me more',
    occurredAt: expect.any(String),
  });
  expect(received!.headers['webhook-event']).toBe('message_received');
  // Reporting the contact's message to a subscriber leaves it as it came: received, never "sent".
  await untilIdle(ctx.gw);
  expect((await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body).toMatchObject({
    direction: 'incoming',
    status: 'received',
  });
});

test('a reaction stops the follow-ups as a reply does, and needs no reply: the bot answers none', async () => {
  const { account, list } = await setUp({
    channel: 'custom',
    customChannel: 'chat',
    followUps: { enabled: true, steps: [{ after: '1d', body: 'Hello?' }] },
  });
  const chat = await Receiver.start();
  receivers.push(chat);
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: chat.url } });
  const fromId = unique('visitor');
  const ann = (
    await api(ctx.gw, account, 'POST', 'contacts', { body: { firstName: 'Ann', externalIds: { chat: fromId } } })
  ).body;
  await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: ann.id } });
  await poll(
    () => conversation(account, ann.id),
    (c) => c?.next?.kind === 'follow_up',
  );
  const reacted = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: {
      customData: { messageSid: unique('sid'), fromId, toId: 'biz', body: '👍', channel: 'chat' },
      messageType: 'reaction',
    },
  });
  expect(reacted.status).toBe(200);
  expect(await conversation(account, ann.id)).toMatchObject({ next: null, needsReply: false, status: 'active' });
  // The day the follow-up was due, and the one its closing would have been, pass: nothing goes, nothing closes.
  await advanceClock(ctx.gw, '3d');
  await untilIdle(ctx.gw);
  expect(await followUpsTo(account, ann.id)).toEqual([]);
  const after = await conversation(account, ann.id);
  expect(after).toMatchObject({ next: null, needsReply: false, status: 'active' });
  // The reaction is in the thread; the preview keeps the message before it.
  expect((await messages(account, ann.id)).map((m) => [m.direction, m.messageType])).toContainEqual([
    'incoming',
    'reaction',
  ]);
  expect(after.lastMessage).toMatchObject({ direction: 'outgoing', author: 'campaign' });
  const waiting = (await api(ctx.gw, account, 'GET', 'conversations', { query: { needsReply: 'true' } })).body.data;
  expect(waiting.map((c: { id: string }) => c.id)).not.toContain(after.id);
});

test('follow-ups turned off while one waits: none goes, and the conversation stays active, not closed', async () => {
  const { account, list, campaign } = await setUp(TWO_FOLLOW_UPS);
  const ann = await lead(account, list.id);
  expect((await conversation(account, ann.id)).next).toMatchObject({ kind: 'follow_up', step: 0 });
  const off = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, {
    body: { followUps: { enabled: false } },
  });
  expect(off.status).toBe(200);
  await advanceClock(ctx.gw, '5d');
  await untilIdle(ctx.gw);
  expect(await followUpsTo(account, ann.id)).toEqual([]);
  expect(await conversation(account, ann.id)).toMatchObject({ status: 'active', next: null });
});

test('a follow-up due outside the sending window goes at its next opening, the time the conversation shows from the start', async () => {
  // A window opened an hour ago that closes in half an hour; the follow-up is due in an hour, so tomorrow's opening.
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  const start = Math.floor((ctx.gw.now() - 3_600_000) / 60_000) * 60_000;
  const { account, list } = await setUp({
    sendingWindow: { start: hhmm(start), end: hhmm(ctx.gw.now() + 30 * 60_000), timezone: 'UTC' },
    followUps: { enabled: true, steps: [{ after: '1h', body: 'Still there?' }] },
  });
  const ann = await lead(account, list.id);
  const opensAgain = new Date(start + 86_400_000).toISOString();
  expect((await conversation(account, ann.id)).next).toEqual({ kind: 'follow_up', at: opensAgain, step: 0 });

  await advanceClock(ctx.gw, '1h');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, ann.id)).toEqual([]);
  expect((await conversation(account, ann.id)).next).toEqual({ kind: 'follow_up', at: opensAgain, step: 0 });

  await ctx.gw.advance(Date.parse(opensAgain) - ctx.gw.now());
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const [sent] = (await messages(account, ann.id)).filter((m) => m.author === 'follow_up');
  expect(sent).toMatchObject({ body: 'Still there?', createdAt: opensAgain });
});

test('a follow-up keeps the sending window the campaign has when it is due: one taken away meanwhile holds it no more', async () => {
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  const { account, list, campaign } = await setUp({
    sendingWindow: { start: hhmm(ctx.gw.now() - 3_600_000), end: hhmm(ctx.gw.now() + 30 * 60_000), timezone: 'UTC' },
    followUps: { enabled: true, steps: [{ after: '1h', body: 'Still there?' }] },
  });
  const ann = await lead(account, list.id);
  const due = ctx.gw.now() + 3_600_000;
  const patched = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { sendingWindow: null } });
  expect(patched.status).toBe(200);
  await advanceClock(ctx.gw, '1h');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const [sent] = (await messages(account, ann.id)).filter((m) => m.author === 'follow_up');
  expect(sent).toMatchObject({ body: 'Still there?', createdAt: new Date(due).toISOString() });
});

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const openedAt = async (account: TestAccount, contactId: string) =>
  Date.parse((await messages(account, contactId)).find((m) => m.author === 'campaign').createdAt);

test("a step's new delay holds for the follow-ups already waiting, timed from the message before them; one past due goes now, once", async () => {
  const { account, list, campaign } = await setUp({
    followUps: {
      enabled: true,
      steps: [
        { after: '3d', body: 'Still there?' },
        { after: '2d', body: 'Last call' },
      ],
    },
  });
  const ann = await lead(account, list.id);
  await advanceClock(ctx.gw, '2d');
  const bob = await lead(account, list.id);
  const bobOpened = await openedAt(account, bob.id);
  // Step 1 from 3 days to 1: Ann's opening went 2 days ago, so hers is past due; Bob's is a day after his opening.
  const patched = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, {
    body: {
      followUps: {
        steps: [
          { after: '1d', body: 'Still there?' },
          { after: '2d', body: 'Last call' },
        ],
      },
    },
  });
  expect(patched.status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, ann.id)).toEqual(['Still there?']);
  expect((await conversation(account, bob.id)).next).toEqual({ kind: 'follow_up', at: iso(bobOpened + DAY), step: 0 });
  await advanceClock(ctx.gw, '1d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, bob.id)).toEqual(['Still there?']);

  // Longer again: the step waiting follows too, from the follow-up before it.
  const bobFollowedUp = Date.parse((await messages(account, bob.id)).find((m) => m.author === 'follow_up').createdAt);
  await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, {
    body: {
      followUps: {
        steps: [
          { after: '1d', body: 'Still there?' },
          { after: '4d', body: 'Last call' },
        ],
      },
    },
  });
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await conversation(account, bob.id)).next).toEqual({
    kind: 'follow_up',
    at: iso(bobFollowedUp + 4 * DAY),
    step: 1,
  });
  await advanceClock(ctx.gw, '3d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, bob.id)).toEqual(['Still there?']);
  await advanceClock(ctx.gw, '10d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  for (const contact of [ann, bob])
    expect(await followUpsTo(account, contact.id)).toEqual(['Still there?', 'Last call']);
});

test("follow-ups a shorter delay makes past due go from now at the campaign's send rate, not all at once", async () => {
  const { account, list, campaign } = await setUp({
    followUps: { enabled: true, steps: [{ after: '1d', body: 'Still there?' }] },
  });
  const leads = [];
  for (let i = 0; i < 5; i += 1) leads.push(await lead(account, list.id));
  await advanceClock(ctx.gw, '1h');
  const patchedAt = ctx.gw.now();
  await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, {
    body: { sendRate: '1/m', followUps: { steps: [{ after: '30m', body: 'Still there?' }] } },
  });
  await untilIdle(ctx.gw, { horizonMs: 10 * 60_000 });
  const sent = [];
  for (const contact of leads) {
    const followUps = (await messages(account, contact.id)).filter((m) => m.author === 'follow_up');
    expect(followUps).toHaveLength(1);
    sent.push(Date.parse(followUps[0].createdAt) - patchedAt);
  }
  sent.sort((a, b) => a - b);
  // The first three at once, as additions go, then one a minute.
  expect(sent).toEqual([0, 0, 0, 60_000, 120_000]);
});

test('a sending window changed while follow-ups wait holds for them: next.at says the new one', async () => {
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  const { account, list, campaign } = await setUp({
    followUps: { enabled: true, steps: [{ after: '1h', body: 'Still there?' }] },
  });
  const ann = await lead(account, list.id);
  const due = (await openedAt(account, ann.id)) + 3_600_000;
  expect((await conversation(account, ann.id)).next).toEqual({ kind: 'follow_up', at: iso(due), step: 0 });
  // A window that closes before the follow-up is due, and opens again 2 hours after it.
  const start = Math.floor((due + 2 * 3_600_000) / 60_000) * 60_000;
  const window = { start: hhmm(start), end: hhmm(ctx.gw.now() + 30 * 60_000), timezone: 'UTC' };
  expect(
    (await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { sendingWindow: window } })).status,
  ).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await conversation(account, ann.id)).next).toEqual({ kind: 'follow_up', at: iso(start), step: 0 });
  await ctx.gw.advance(start - ctx.gw.now());
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const [sent] = (await messages(account, ann.id)).filter((m) => m.author === 'follow_up');
  expect(sent).toMatchObject({ body: 'Still there?', createdAt: iso(start) });
});

test('a follow-up a pause holds shows nothing due while held, and its new time once the campaign is Live again', async () => {
  const { account, list, campaign } = await setUp(TWO_FOLLOW_UPS);
  const ann = await lead(account, list.id);
  const status = (s: string) => api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { status: s } });
  expect((await status('paused')).status).toBe(200);
  await advanceClock(ctx.gw, '1d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, ann.id)).toEqual([]);
  expect(await conversation(account, ann.id)).toMatchObject({ status: 'active', next: null });
  await advanceClock(ctx.gw, '1h');
  expect((await status('live')).status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await conversation(account, ann.id)).next).toEqual({
    kind: 'follow_up',
    at: iso(ctx.gw.now() + DAY),
    step: 0,
  });
});

test("a campaign moved to another list sends no more follow-ups to the old list's contacts it opened with; those on the new list keep theirs", async () => {
  const { account, list, campaign } = await setUp({
    ...TWO_FOLLOW_UPS,
    bot: { faqs: [{ question: 'What are your opening hours?', answer: 'We open 9 to 6.' }] },
  });
  const other = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Other leads' } })).body;
  const leaves = await lead(account, list.id);
  const stays = await lead(account, list.id);
  await api(ctx.gw, account, 'POST', `lists/${other.id}/contacts`, { body: { contactId: stays.id } });
  const moved = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { listId: other.id } });
  expect(moved.status).toBe(200);

  await advanceClock(ctx.gw, '1d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, leaves.id)).toEqual([]);
  expect(await followUpsTo(account, stays.id)).toEqual(['Still there, Ann?']);
  expect(await conversation(account, leaves.id)).toMatchObject({
    campaignId: campaign.id,
    status: 'active',
    opening: { status: 'sent' },
    next: null,
  });
  // Nor the last step, nor the closing after it: the conversation stays, and a message from the lead is answered.
  await advanceClock(ctx.gw, '2d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, stays.id)).toEqual(['Still there, Ann?', 'Last call']);
  await advanceClock(ctx.gw, '2d');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, leaves.id)).toEqual([]);
  expect(await conversation(account, leaves.id)).toMatchObject({ status: 'active', next: null });
  expect((await conversation(account, stays.id)).status).toBe('closed');
  await say(account, leaves.phone, 'What are your opening hours?');
  const answered = await poll(
    () => messages(account, leaves.id),
    (m) => m.some((x) => x.author === 'bot'),
  );
  expect(answered.map((m) => m.author ?? m.direction)).toEqual(['campaign', 'incoming', 'bot']);
});

test('a campaign moved back to its list before a follow-up is due sends it at its time', async () => {
  const { account, list, campaign } = await setUp(TWO_FOLLOW_UPS);
  const other = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Other leads' } })).body;
  const ann = await lead(account, list.id);
  const { next } = await conversation(account, ann.id);
  const move = (listId: string) => api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { listId } });
  expect((await move(other.id)).status).toBe(200);
  await advanceClock(ctx.gw, '1h');
  expect((await move(list.id)).status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await conversation(account, ann.id)).next).toEqual(next);
  await advanceClock(ctx.gw, '23h');
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(await followUpsTo(account, ann.id)).toEqual(['Still there, Ann?']);
});

test('STOP opts out on every channel: one confirmation, then nothing until START', async () => {
  const { account, hook, list } = await setUp({
    followUps: { enabled: true, steps: [{ after: '1h', body: 'Hello?' }] },
  });
  const ann = await lead(account, list.id);
  await say(account, ann.phone, 'stop');
  const [confirmation] = (await messages(account, ann.id)).filter((m) => m.author === 'system');
  expect(confirmation!.body).toMatch(/unsubscribed/i);
  const contact = (await api(ctx.gw, account, 'GET', `contacts/${ann.id}`)).body;
  expect(contact.optOut).toMatchObject({ channel: 'sms', keyword: 'stop', at: expect.any(String) });
  expect((await conversation(account, ann.id)).status).toBe('opted_out');
  await poll(
    async () => events(hook, 'opt_out', ann.id),
    (e) => e.length === 1,
  );

  // Nothing more: no follow-up, no answer to HELP, no second confirmation, no team reply.
  await say(account, ann.phone, 'HELP');
  await say(account, ann.phone, 'STOP');
  expectApiError(
    await api(ctx.gw, account, 'POST', `contacts/${ann.id}/messages`, { body: { body: 'Are you sure?' } }),
    409,
    'CONTACT_OPTED_OUT',
  );
  await advanceClock(ctx.gw, '1h');
  await untilIdle(ctx.gw);
  expect((await messages(account, ann.id)).filter((m) => m.direction === 'outgoing').map((m) => m.author)).toEqual([
    'campaign',
    'system',
  ]);

  // Another campaign's opening message is not sent either.
  const other = await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Second' } });
  await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Second',
      channel: 'sms',
      listId: other.body.id,
      openingMessage: 'Hi',
      triggerOnNewContacts: true,
      status: 'live',
    },
  });
  await api(ctx.gw, account, 'POST', `lists/${other.body.id}/contacts`, { body: { contactId: ann.id } });
  await untilIdle(ctx.gw);
  expect((await messages(account, ann.id)).filter((m) => m.direction === 'outgoing')).toHaveLength(2);

  await say(account, ann.phone, 'Start');
  const afterStart = (await messages(account, ann.id)).filter((m) => m.author === 'system');
  expect(afterStart.at(-1)!.body).toMatch(/subscribed again/i);
  const back = (await api(ctx.gw, account, 'GET', `contacts/${ann.id}`)).body;
  expect(back.optOut).toBeUndefined();
  expect(back.optIn).toMatchObject({ channel: 'sms', keyword: 'start' });
  expect((await conversation(account, ann.id)).status).toBe('active');
});

test("HELP gets the account's help text", async () => {
  const { account, list } = await setUp();
  await api(ctx.gw, account, 'PUT', 'settings', {
    body: { helpText: 'Acme Dental: call 555-0100. Reply STOP to opt out.' },
  });
  const ann = await lead(account, list.id);
  await say(account, ann.phone, 'help');
  expect((await messages(account, ann.id)).at(-1)).toMatchObject({
    author: 'system',
    body: 'Acme Dental: call 555-0100. Reply STOP to opt out.',
  });
});

test('asking for a person hands off; the API resumes the bot; a team reply goes out and takes over', async () => {
  const { account, hook, list } = await setUp({
    language: 'es',
    followUps: { enabled: true, steps: [{ after: '1d', body: 'Hola?' }] },
  });
  const ann = await lead(account, list.id);
  await say(account, ann.phone, 'Quiero hablar con una persona');
  const handedOff = await conversation(account, ann.id);
  expect(handedOff).toMatchObject({ status: 'handed_off', bot: { active: false }, next: null });
  const [event] = await poll(
    async () => events(hook, 'handoff', ann.id),
    (e) => e.length === 1,
  );
  expect(event!.body).toMatchObject({
    reason: 'contact_asked',
    conversationId: handedOff.id,
    channel: 'sms',
    customChannel: null,
    body: 'Quiero hablar con una persona',
  });

  const resumed = await api(ctx.gw, account, 'POST', `contacts/${ann.id}/bot`, { body: { active: true } });
  expect(resumed.status).toBe(200);
  expect(resumed.body).toMatchObject({
    success: true,
    contactId: ann.id,
    active: true,
    conversations: [{ id: handedOff.id, status: 'active', bot: { active: true } }],
  });

  const reply = await api(ctx.gw, account, 'POST', `contacts/${ann.id}/messages`, {
    body: { body: 'Hi Ann, Maria here.' },
  });
  expect(reply.status).toBe(201);
  expect(reply.body).toMatchObject({
    direction: 'outgoing',
    author: 'team',
    channel: 'sms',
    conversationId: handedOff.id,
    body: 'Hi Ann, Maria here.',
  });
  await poll(
    async () => events(hook, 'handoff', ann.id),
    (e) => e.length === 2 && e[1]!.body.reason === 'team',
  );
  expect((await conversation(account, ann.id)).status).toBe('handed_off');

  const paused = await api(ctx.gw, account, 'POST', `contacts/${ann.id}/bot`, { body: { active: false } });
  expect(paused.body.conversations[0].status).toBe('handed_off');
  expectApiError(await api(ctx.gw, account, 'POST', `contacts/${ann.id}/bot`, { body: { active: 'no' } }), 400);
  expectApiError(await api(ctx.gw, account, 'POST', `contacts/ct_nope/bot`, { body: { active: true } }), 404);
  expectApiError(await api(ctx.gw, account, 'POST', `contacts/${ann.id}/messages`, { body: { body: '   ' } }), 400);
});

test('a team reply to a contact with no conversation is refused; another tenant cannot see or touch one', async () => {
  const { account, list } = await setUp();
  const loner = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
  expectApiError(
    await api(ctx.gw, account, 'POST', `contacts/${loner.id}/messages`, { body: { body: 'Hi' } }),
    409,
    'NO_CONVERSATION',
  );
  const ann = await lead(account, list.id);
  const mine = await conversation(account, ann.id);
  const stranger = await createAccount(ctx.gw);
  expectApiError(await api(ctx.gw, stranger, 'GET', `conversations/${mine.id}`), 404);
  expectApiError(await api(ctx.gw, stranger, 'POST', `contacts/${ann.id}/bot`, { body: { active: false } }), 404);
  expect((await api(ctx.gw, stranger, 'GET', 'conversations')).body.data).toEqual([]);
});

test('a team reply sent again with its Idempotency-Key answers the first again and goes once; another key sends another', async () => {
  const { account, list } = await setUp();
  const ann = await lead(account, list.id);
  const send = (key: string, body = 'We can see you on Friday') =>
    api(ctx.gw, account, 'POST', `contacts/${ann.id}/messages`, {
      body: { body },
      headers: { 'Idempotency-Key': key },
    });
  const key = unique('reply');
  const first = await send(key);
  expect(first.status).toBe(201);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  const again = await send(key);
  expect(again.status).toBe(201);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.body).toEqual(first.body);
  expectApiError(await send(key, 'Another reply'), 422, 'IDEMPOTENCY_KEY_REUSED');
  expect((await send(unique('reply'))).status).toBe(201);
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${ann.id}/messages`)).body.data;
  expect(messages.filter((m: { author: string }) => m.author === 'team')).toHaveLength(2);
});

test("a team reply's Idempotency-Key names that reply: the same words to another contact under it are refused, not answered as sent", async () => {
  const { account, list } = await setUp();
  const [ann, bob] = [await lead(account, list.id), await lead(account, list.id)];
  const key = unique('reply');
  const send = (to: string) =>
    api(ctx.gw, account, 'POST', `contacts/${to}/messages`, {
      body: { body: 'We can see you on Friday' },
      headers: { 'Idempotency-Key': key },
    });
  expect((await send(ann.id)).status).toBe(201);
  expectApiError(await send(bob.id), 422, 'IDEMPOTENCY_KEY_REUSED');
  const toBob = (await api(ctx.gw, account, 'GET', `contacts/${bob.id}/messages`)).body.data;
  expect(toBob.filter((m: { author: string }) => m.author === 'team')).toEqual([]);
});

test('conversations: filters, newest activity first, pages', async () => {
  const { account, list, campaign } = await setUp();
  const [a, b, c] = [await lead(account, list.id), await lead(account, list.id), await lead(account, list.id)];
  await say(account, a.phone, 'Can I talk to a human please'); // a: handed off, and the newest activity
  const all = (await api(ctx.gw, account, 'GET', 'conversations')).body;
  expect(all.data.map((x: any) => x.contactId)).toEqual([a.id, c.id, b.id]);
  expect(all.nextCursor).toBeNull();
  const handed = (await api(ctx.gw, account, 'GET', 'conversations?status=handed_off')).body.data;
  expect(handed.map((x: any) => x.contactId)).toEqual([a.id]);
  expect(
    (await api(ctx.gw, account, 'GET', `conversations?campaignId=${campaign.id}&status=active`)).body.data.map(
      (x: any) => x.contactId,
    ),
  ).toEqual([c.id, b.id]);
  expect((await api(ctx.gw, account, 'GET', 'conversations?channel=whatsapp')).body.data).toEqual([]);
  const first = (await api(ctx.gw, account, 'GET', 'conversations?limit=2')).body;
  expect(first.data).toHaveLength(2);
  const second = (await api(ctx.gw, account, 'GET', `conversations?limit=2&cursor=${first.nextCursor}`)).body;
  expect([...first.data, ...second.data].map((x: any) => x.contactId)).toEqual([a.id, c.id, b.id]);
  expect(second.nextCursor).toBeNull();
  // The last conversation shown gets new activity before the next page is read: it moves to the top, and the next
  // page goes on from where it was, neither showing a conversation again nor starting over.
  expect(
    (await api(ctx.gw, account, 'POST', `contacts/${c.id}/messages`, { body: { body: 'One more thing' } })).status,
  ).toBe(201);
  const again = (await api(ctx.gw, account, 'GET', `conversations?limit=2&cursor=${first.nextCursor}`)).body;
  expect(again.data.map((x: any) => x.contactId)).toEqual([b.id]);
  expect(again.nextCursor).toBeNull();
  expect((await api(ctx.gw, account, 'GET', 'conversations')).body.data.map((x: any) => x.contactId)).toEqual([
    c.id,
    a.id,
    b.id,
  ]);
  expectApiError(await api(ctx.gw, account, 'GET', 'conversations?status=sleeping'), 400);
});

test('a campaign on a custom channel sends through the Custom Channel Webhook; a failed delivery is reported', async () => {
  const { account, hook } = await setUp();
  const replies = await Receiver.start();
  receivers.push(replies);
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: replies.url } });
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Chat leads' } })).body;
  await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Chat',
      channel: 'custom',
      customChannel: 'livechat',
      listId: list.id,
      openingMessage: 'Welcome {{first_name|there}}!',
      triggerOnNewContacts: true,
      status: 'live',
    },
  });
  const fromId = unique('visitor');
  const incoming = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: {
      customData: {
        messageSid: unique('sid'),
        fromId,
        toId: 'biz',
        body: 'hello',
        channel: 'livechat',
        firstName: 'Zoe',
      },
    },
  });
  const contactId = (await api(ctx.gw, account, 'GET', `messages/${incoming.body.messageId}`)).body.contactId;
  // She wrote first: the incoming flow has her, the opening message is not sent.
  await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId } });
  expect((await conversation(account, contactId)).opening).toMatchObject({ status: 'skipped', reason: 'wrote_first' });

  const other = unique('visitor');
  await api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
    body: { customData: { fromId: other, customChannel: 'livechat', body: 'Thanks for visiting', firstName: 'Yan' } },
  });
  const yan = (await poll(async () => replies.requests.find((r) => r.body?.toId === other), Boolean))!.body.contactId;
  await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: yan } });
  const opening = await poll(
    async () => replies.requests.find((r) => r.body?.toId === other && r.body?.body === 'Welcome Yan!'),
    Boolean,
  );
  expect(opening!.body).toMatchObject({ channel: 'livechat', contactId: yan });

  // Without a receiver the reply fails at once, and delivery_failed says so.
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: null } });
  const failed = await api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
    body: { customData: { fromId: other, customChannel: 'livechat', body: 'Anyone?' } },
  });
  // The answer says so: stored, not sent, and why.
  expect(failed.body).toMatchObject({
    success: false,
    message: expect.stringMatching(/^Message not sent \(NO_RECEIVER\)/),
  });
  const [report] = await poll(
    async () => events(hook, 'delivery_failed', yan),
    (e) => e.length > 0,
  );
  expect(report!.body).toMatchObject({
    messageId: failed.body.messageId,
    channel: 'livechat',
    error: expect.stringMatching(/Webhook URL/),
  });
});
