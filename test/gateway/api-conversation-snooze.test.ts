import { teamMember, withSession } from '../console/support';
import { openStream, type EventStream } from '../helpers/event-stream';
import { checkDelivery } from '../helpers/contract';
import { BACKEND, clockOf, removeDir } from '../helpers/gateway';
import { startInProcess } from '../helpers/in-process';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  incoming,
  Receiver,
  unique,
  untilIdle,
  useGateway,
  type TestAccount,
  type TestGateway,
} from './api-support';

/**
 * Snooze: a conversation hidden from the inbox until a time ("call me back next month"), then back at the front of it,
 * its assignee told and a `snooze_ended` event delivered; the contact writing wakes it at once. Never while the contact
 * waits for a person: nobody waits in silence.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '0s', LEADCHAT_TEST_CLOCK: '1' });

const receivers: Receiver[] = [];
const streams: EventStream[] = [];
afterAll(async () => {
  for (const stream of streams) stream.close();
  await Promise.all(receivers.map((r) => r.close()));
});

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
/** A time `ms` ahead of the gateway's clock, as a caller in Paris in winter writes it. */
const ahead = (ms: number, gw: TestGateway = ctx.gw) =>
  new Date(clockOf(gw) + ms + HOUR).toISOString().replace(/\.\d{3}Z$/, '+01:00');

/** An account whose `snooze_ended` events go to `hook`, the web chat's replies to `replies` (one that takes them). */
async function accountWithHook(
  gw: TestGateway = ctx.gw,
  given?: Receiver,
): Promise<{ account: TestAccount; hook: Receiver }> {
  const account = await createAccount(gw);
  const hook = await Receiver.start();
  const replies = given ?? (await Receiver.start());
  receivers.push(hook, replies);
  expect(
    (await api(gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['snooze_ended'] } })).status,
  ).toBe(201);
  expect((await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: replies.url } })).status).toBe(
    200,
  );
  return { account, hook };
}

/** The contact writes on the web chat, which no campaign answers: the team has it and the contact waits. */
async function write(account: TestAccount, fromId: string, body: string, gw: TestGateway = ctx.gw) {
  const res = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, channel: 'web-chat', body }),
  });
  expect(res.status).toBe(200);
  return (await api(gw, account, 'GET', `messages/${res.body.messageId}`)).body as {
    conversationId: string;
    contactId: string;
  };
}

/** A conversation the team answered: nobody must act, so it may be snoozed. */
async function answered(account: TestAccount, fromId = unique('lead'), gw: TestGateway = ctx.gw) {
  const written = await write(account, fromId, 'Call me back next month, I am travelling', gw);
  const reply = await api(gw, account, 'POST', `contacts/${written.contactId}/messages`, {
    body: { body: 'Sure, talk then!' },
  });
  expect(reply.status).toBe(201);
  return { ...written, fromId };
}

const conversation = async (account: TestAccount, id: string, gw: TestGateway = ctx.gw) =>
  (await api(gw, account, 'GET', `conversations/${id}`)).body;

const snooze = (account: TestAccount, id: string, until: unknown, gw: TestGateway = ctx.gw) =>
  api(gw, account, 'POST', `conversations/${id}/snooze`, { body: { until } });

const listed = async (account: TestAccount, query = '') =>
  (await api(ctx.gw, account, 'GET', `conversations${query}`)).body.data.map((c: { id: string }) => c.id);

/** Moves the clock, and runs what fell due. */
async function wait(by: string): Promise<void> {
  await advanceClock(ctx.gw, by);
  await untilIdle(ctx.gw);
}

/** The `snooze_ended` events the receiver got, each held to the API document. */
const ended = (hook: Receiver) =>
  hook.requests.map((r) => {
    expect(checkDelivery(r)).toBe('snooze_ended');
    return r.body;
  });

test('a time in the past, now, more than 365 days ahead or without its offset is refused, naming until', async () => {
  const { account } = await accountWithHook();
  const { conversationId } = await answered(account);
  for (const until of [ahead(-HOUR), ahead(0), ahead(366 * DAY), 'next month', '2027-01-05T09:00:00', 9]) {
    const res = await snooze(account, conversationId, until);
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'until' })]);
  }
  expectApiError(await api(ctx.gw, account, 'POST', `conversations/${conversationId}/snooze`, { body: {} }), 400);
  expect((await conversation(account, conversationId)).snoozedUntil).toBeNull();
  // A year ahead is as far as it goes.
  expect((await snooze(account, conversationId, ahead(365 * DAY - 60_000))).status).toBe(200);
});

test("another account's conversation, or none, is not found", async () => {
  const { account } = await accountWithHook();
  const { conversationId } = await answered(account);
  const other = await createAccount(ctx.gw);
  expectApiError(await snooze(other, conversationId, ahead(DAY)), 404, 'CONVERSATION_NOT_FOUND');
  expectApiError(
    await api(ctx.gw, other, 'DELETE', `conversations/${conversationId}/snooze`),
    404,
    'CONVERSATION_NOT_FOUND',
  );
  expectApiError(await snooze(account, 'cnv_none', ahead(DAY)), 404, 'CONVERSATION_NOT_FOUND');
  expect((await conversation(account, conversationId)).snoozedUntil).toBeNull();
});

test('a contact waiting for a reply cannot be snoozed: the team answers first', async () => {
  const { account } = await accountWithHook();
  const { conversationId, contactId } = await write(account, unique('lead'), 'Hello? Anyone?');
  expect((await conversation(account, conversationId)).waitingSince).not.toBeNull();
  const refused = await snooze(account, conversationId, ahead(DAY));
  expectApiError(refused, 409, 'CONTACT_WAITING');
  expect((await conversation(account, conversationId)).snoozedUntil).toBeNull();
  await api(ctx.gw, account, 'POST', `contacts/${contactId}/messages`, { body: { body: 'Here! How can we help?' } });
  expect((await snooze(account, conversationId, ahead(DAY))).status).toBe(200);
});

test('snoozed, it is hidden from ?snoozed=false until its time, then back at the front, told to its assignee and to workflows', async () => {
  const { account, hook } = await accountWithHook();
  const agent = await teamMember(ctx.gw, account, 'agent', 'Ana Agent');
  const { conversationId, contactId } = await answered(account);
  const other = await answered(account);
  expect(
    (await api(ctx.gw, account, 'POST', `conversations/${conversationId}/assign`, { body: { memberId: agent.id } }))
      .status,
  ).toBe(200);
  const until = ahead(3 * DAY);
  const snoozed = await snooze(account, conversationId, until);
  expect(snoozed.status).toBe(200);
  // Kept in UTC, as every time the API answers.
  expect(snoozed.body).toMatchObject({ id: conversationId, snoozedUntil: new Date(until).toISOString() });
  expect(await conversation(account, conversationId)).toMatchObject({ snoozedUntil: new Date(until).toISOString() });
  expect(await listed(account, '?snoozed=true')).toEqual([conversationId]);
  expect(await listed(account, '?snoozed=false')).toEqual([other.conversationId]);
  // Without the filter, the API lists all, as it did before snoozes.
  expect(await listed(account)).toEqual([other.conversationId, conversationId]);

  await wait('71h59m');
  expect(hook.requests).toHaveLength(0);
  expect((await conversation(account, conversationId)).snoozedUntil).not.toBeNull();
  await wait('1m');
  await hook.waitFor(1);
  const back = await conversation(account, conversationId);
  expect(back).toMatchObject({ snoozedUntil: null, assigneeId: agent.id });
  expect(Date.parse(back.lastActivityAt) - Date.parse(until)).toBeGreaterThanOrEqual(0);
  expect(Date.parse(back.lastActivityAt) - Date.parse(until)).toBeLessThan(60_000);
  expect(await listed(account, '?snoozed=false')).toEqual([conversationId, other.conversationId]);
  expect(await listed(account, '?snoozed=true')).toEqual([]);
  expect(ended(hook)).toEqual([
    {
      type: 'snooze_ended',
      occurredAt: back.lastActivityAt,
      conversationId,
      contactId,
      assignee: { id: agent.id, name: 'Ana Agent', email: expect.stringContaining('@') },
      reason: 'time',
    },
  ]);
  await wait('30d');
  expect(hook.requests).toHaveLength(1);
});

test('at its time, one whose assignee went away meanwhile is told to every member, as one nobody has; one of a member who is there, to them', async () => {
  const { account, hook } = await accountWithHook();
  const [agent, admin] = [
    await teamMember(ctx.gw, account, 'agent', 'Ana Agent'),
    await teamMember(ctx.gw, account, 'admin', 'Ada Admin'),
  ];
  // Each answered by the team, then given back to the bot: nobody waits, so going away leaves them with their member.
  const [hers, theirs] = [await answered(account), await answered(account)];
  for (const [{ conversationId, contactId }, member] of [
    [hers, agent],
    [theirs, admin],
  ] as const) {
    await api(ctx.gw, account, 'POST', `conversations/${conversationId}/assign`, { body: { memberId: member.id } });
    await api(ctx.gw, account, 'POST', `contacts/${contactId}/bot`, { body: { active: true } });
    expect((await snooze(account, conversationId, ahead(HOUR))).status).toBe(200);
  }
  const away = await withSession(ctx.gw, agent, 'PUT', '/v1/members/me/availability', {
    body: { availability: 'away' },
  });
  expect(away.status).toBe(200);
  expect((await conversation(account, hers.conversationId)).assigneeId).toBe(agent.id);
  const stream = await openStream(ctx.gw, '/console/api/stream', { cookie: admin.cookie });
  streams.push(stream);

  await wait('1h1m');
  await hook.waitFor(2);
  const woke = await stream.until(() => stream.events.filter((e) => e.event === 'conversation.woke').length >= 2);
  expect(
    woke
      .filter((e) => e.event === 'conversation.woke')
      .map((e) => e.data)
      .sort((a, b) => (a.conversationId < b.conversationId ? -1 : 1)),
  ).toEqual(
    [
      { conversationId: hers.conversationId, assigneeId: null },
      { conversationId: theirs.conversationId, assigneeId: admin.id },
    ].sort((a, b) => (a.conversationId < b.conversationId ? -1 : 1)),
  );
  // It stays hers: she answers it when she is back, unless someone takes it meanwhile.
  expect((await conversation(account, hers.conversationId)).assigneeId).toBe(agent.id);
});

test("snoozed again, the earlier time's wake-up does not fire; woken now, none does, and nothing is told", async () => {
  const { account, hook } = await accountWithHook();
  const { conversationId } = await answered(account);
  expect((await snooze(account, conversationId, ahead(HOUR))).status).toBe(200);
  const later = ahead(2 * DAY);
  expect((await snooze(account, conversationId, later)).body.snoozedUntil).toBe(new Date(later).toISOString());
  await wait('1h1m');
  expect(hook.requests).toHaveLength(0);
  expect((await conversation(account, conversationId)).snoozedUntil).toBe(new Date(later).toISOString());
  await wait('2d');
  await hook.waitFor(1);
  expect(ended(hook)).toEqual([expect.objectContaining({ conversationId, reason: 'time', assignee: null })]);

  expect((await snooze(account, conversationId, ahead(HOUR))).status).toBe(200);
  const woken = await api(ctx.gw, account, 'DELETE', `conversations/${conversationId}/snooze`);
  expect(woken.status).toBe(200);
  expect(woken.body).toMatchObject({ id: conversationId, snoozedUntil: null });
  // Waking one not snoozed answers it as it is.
  expect((await api(ctx.gw, account, 'DELETE', `conversations/${conversationId}/snooze`)).body.snoozedUntil).toBeNull();
  await wait('1d');
  expect(hook.requests).toHaveLength(1);
  expect(await listed(account, '?snoozed=false')).toEqual([conversationId]);
});

test('the contact writing wakes it at once, told as contact_wrote; its time then tells nothing', async () => {
  const { account, hook } = await accountWithHook();
  const { conversationId, contactId, fromId } = await answered(account);
  expect((await snooze(account, conversationId, ahead(7 * DAY))).status).toBe(200);
  await wait('1d');
  await write(account, fromId, 'Actually I am back early!');
  await hook.waitFor(1);
  expect(await conversation(account, conversationId)).toMatchObject({ snoozedUntil: null, needsReply: true });
  expect(ended(hook)).toEqual([
    {
      type: 'snooze_ended',
      occurredAt: expect.any(String),
      conversationId,
      contactId,
      assignee: null,
      reason: 'contact_wrote',
    },
  ]);
  await wait('7d');
  expect(hook.requests).toHaveLength(1);
});

test('a contact who opted out cannot be snoozed; STOP wakes a snoozed conversation, for good', async () => {
  const { account, hook } = await accountWithHook();
  const { conversationId, fromId } = await answered(account);
  expect((await snooze(account, conversationId, ahead(DAY))).status).toBe(200);
  await write(account, fromId, 'STOP');
  await hook.waitFor(1);
  expect(await conversation(account, conversationId)).toMatchObject({ status: 'opted_out', snoozedUntil: null });
  expect(ended(hook)).toEqual([expect.objectContaining({ conversationId, reason: 'contact_wrote' })]);
  expectApiError(await snooze(account, conversationId, ahead(DAY)), 409, 'CONTACT_OPTED_OUT');
  await wait('2d');
  expect(hook.requests).toHaveLength(1);
});

test('a team reply its receiver gives up on later answered nobody: the contact waits again, and the snooze ends', async () => {
  const REPLY = 'Talk next month!';
  const receiver = await Receiver.start((_, req) => ({ status: req.body?.body === REPLY ? 500 : 200 }));
  receivers.push(receiver);
  const { account, hook } = await accountWithHook(ctx.gw, receiver);
  const { conversationId, contactId } = await write(account, unique('lead'), 'Call me back next month');
  const reply = await api(ctx.gw, account, 'POST', `contacts/${contactId}/messages`, { body: { body: REPLY } });
  expect(reply.body.status).toBe('pending');
  // On its way, it answers: nobody waits, and the conversation may be snoozed.
  expect((await snooze(account, conversationId, ahead(20 * DAY))).status).toBe(200);
  let status = reply.body.status as string;
  for (let hours = 0; status !== 'failed' && hours < 24; hours++) {
    await wait('1h');
    status = (await api(ctx.gw, account, 'GET', `messages/${reply.body.id}`)).body.status;
  }
  expect(status).toBe('failed');
  // Nobody waits in silence: the contact waits for a person again, in the inbox, not under a snooze.
  expect(await conversation(account, conversationId)).toMatchObject({
    needsReply: true,
    waitingSince: expect.any(String),
    snoozedUntil: null,
  });
  expect(await listed(account, '?snoozed=false')).toEqual([conversationId]);
  await wait('21d');
  expect(hook.requests).toHaveLength(0);
});

test('merged with a duplicate who opted out, the contact opted out: the snooze ends, and its time tells nothing', async () => {
  const { account, hook } = await accountWithHook();
  const kept = await answered(account);
  expect((await snooze(account, kept.conversationId, ahead(DAY))).status).toBe(200);
  // The same person opted out on another chat.
  const stop = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: unique('lead'), channel: 'help-desk', body: 'STOP' }),
  });
  const duplicate = (await api(ctx.gw, account, 'GET', `messages/${stop.body.messageId}`)).body.contactId as string;
  const merged = await api(ctx.gw, account, 'POST', `contacts/${kept.contactId}/merge`, {
    body: { contactId: duplicate },
  });
  expect(merged.status).toBe(200);
  expect(await conversation(account, kept.conversationId)).toMatchObject({ status: 'opted_out', snoozedUntil: null });
  await wait('2d');
  expect(hook.requests).toHaveLength(0);
});

test('a contact erased while snoozed leaves no wake-up', async () => {
  const { account, hook } = await accountWithHook();
  const { conversationId, contactId } = await answered(account);
  expect((await snooze(account, conversationId, ahead(HOUR))).status).toBe(200);
  expect((await api(ctx.gw, account, 'DELETE', `contacts/${contactId}`)).status).toBe(204);
  await wait('2h');
  expect(hook.requests).toHaveLength(0);
});

test('a merge keeps the conversation snoozed only when both were, until the earlier time, woken once', async () => {
  const { account, hook } = await accountWithHook();
  const kept = await answered(account);
  const duplicate = await answered(account);
  const earlier = ahead(DAY);
  expect((await snooze(account, kept.conversationId, ahead(5 * DAY))).status).toBe(200);
  expect((await snooze(account, duplicate.conversationId, earlier)).status).toBe(200);
  const merged = await api(ctx.gw, account, 'POST', `contacts/${kept.contactId}/merge`, {
    body: { contactId: duplicate.contactId },
  });
  expect(merged.status).toBe(200);
  expect((await conversation(account, kept.conversationId)).snoozedUntil).toBe(new Date(earlier).toISOString());
  await wait('1d');
  await hook.waitFor(1);
  await wait('5d');
  expect(ended(hook)).toEqual([expect.objectContaining({ conversationId: kept.conversationId, reason: 'time' })]);

  // One of the two in the inbox: so is the one left.
  const third = await answered(account);
  const fourth = await answered(account);
  expect((await snooze(account, third.conversationId, ahead(DAY))).status).toBe(200);
  expect(
    (await api(ctx.gw, account, 'POST', `contacts/${fourth.contactId}/merge`, { body: { contactId: third.contactId } }))
      .status,
  ).toBe(200);
  expect((await conversation(account, fourth.conversationId)).snoozedUntil).toBeNull();
  await wait('2d');
  expect(hook.requests).toHaveLength(1);
});

// Each gateway's job runners wake when the clock moves, and may claim the wake-up: one of them runs it.
if (BACKEND === 'postgres') {
  test('two gateways on one database wake it once', async () => {
    const { LEADCHAT_JOB_POLL, LEADCHAT_BOT_DEBOUNCE, LEADCHAT_TEST_CLOCK, LEADCHAT_DATABASE_URL } = ctx.gw.env;
    const second = await startInProcess({
      LEADCHAT_JOB_POLL: LEADCHAT_JOB_POLL!,
      LEADCHAT_BOT_DEBOUNCE: LEADCHAT_BOT_DEBOUNCE!,
      LEADCHAT_TEST_CLOCK: LEADCHAT_TEST_CLOCK!,
      LEADCHAT_DATABASE_URL: LEADCHAT_DATABASE_URL!,
    });
    try {
      const { account, hook } = await accountWithHook(second);
      const { conversationId } = await answered(account, unique('lead'), second);
      expect((await snooze(account, conversationId, ahead(HOUR, second), second)).status).toBe(200);
      await advanceClock(ctx.gw, '1h');
      await Promise.all([untilIdle(ctx.gw), untilIdle(second)]);
      await hook.waitFor(1);
      await advanceClock(ctx.gw, '1h');
      await Promise.all([untilIdle(ctx.gw), untilIdle(second)]);
      expect(ended(hook)).toEqual([expect.objectContaining({ conversationId, reason: 'time' })]);
      expect((await conversation(account, conversationId, ctx.gw)).snoozedUntil).toBeNull();
    } finally {
      await second.stop();
      removeDir(second.dataDir);
    }
  });
}
