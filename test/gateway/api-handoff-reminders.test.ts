import { teamMember } from '../console/support';
import { BACKEND, removeDir } from '../helpers/gateway';
import { checkDelivery } from '../helpers/contract';
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
 * Nobody waits in silence: a contact handed to the team who hears nothing from a person for the account's
 * `handoffReminderAfter` (15 minutes unless changed) makes the conversation `remindedAt` (every member's console then
 * tells it) and a `handoff_waiting` event, once per wait. A team reply ends the wait; the contact writing again while
 * they wait neither starts a new one nor reminds again.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '0s', LEADCHAT_TEST_CLOCK: '1' });

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

/**
 * An account whose `handoff_waiting` events go to `hook`, and the web chat's replies to `replies` (by default one that
 * takes them: a team reply reaches its contact), or nowhere (null: each fails at once, NO_RECEIVER).
 */
async function accountWithHook(
  gw: TestGateway = ctx.gw,
  replies: Receiver | null | undefined = undefined,
): Promise<{ account: TestAccount; hook: Receiver }> {
  const account = await createAccount(gw);
  const hook = await Receiver.start();
  receivers.push(hook);
  const subscribed = await api(gw, account, 'POST', 'webhooks', {
    body: { url: hook.url, events: ['handoff_waiting'] },
  });
  expect(subscribed.status).toBe(201);
  const receiver = replies === undefined ? await repliesTaken() : replies;
  if (receiver) {
    const set = await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: receiver.url } });
    expect(set.status).toBe(200);
  }
  return { account, hook };
}

let taking: Receiver | undefined;
async function repliesTaken(): Promise<Receiver> {
  if (!taking) receivers.push((taking = await Receiver.start()));
  return taking;
}

/** A message on the web chat, which no campaign answers: the team has it (a `no_campaign` hand-off). */
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

const conversation = async (account: TestAccount, id: string, gw: TestGateway = ctx.gw) =>
  (await api(gw, account, 'GET', `conversations/${id}`)).body;

/** Moves the clock, and runs what fell due. */
async function wait(by: string): Promise<void> {
  await advanceClock(ctx.gw, by);
  await untilIdle(ctx.gw);
}

/** The `handoff_waiting` events the receiver got, each held to the API document. */
const reminders = (hook: Receiver) =>
  hook.requests.map((r) => {
    expect(checkDelivery(r)).toBe('handoff_waiting');
    return r.body;
  });

test('the reminder is on by default, after 15 minutes; a duration from 1 minute to 7 days sets it, null turns it off', async () => {
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'GET', 'settings')).body.handoffReminderAfter).toBe('15m');
  const set = await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffReminderAfter: ' 90m ' } });
  expect(set.status).toBe(200);
  expect(set.body.handoffReminderAfter).toBe('1h30m');
  expect((await api(ctx.gw, account, 'GET', 'settings')).body.handoffReminderAfter).toBe('1h30m');
  for (const refused of ['soon', '30s', '8d', '15 minutes']) {
    const res = await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffReminderAfter: refused } });
    expectApiError(res, 400, 'INVALID_DURATION');
    expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'handoffReminderAfter' })]);
  }
  expectApiError(await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffReminderAfter: 15 } }), 400);
  const off = await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffReminderAfter: null } });
  expect(off.body.handoffReminderAfter).toBeNull();
  expect((await api(ctx.gw, account, 'GET', 'settings')).body.handoffReminderAfter).toBeNull();
});

test('a contact who waits 15 minutes for a person: the team is reminded once, naming the assignee, who keeps it', async () => {
  const { account, hook } = await accountWithHook();
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffAssignment: 'round_robin' } })).status).toBe(
    200,
  );
  const agent = await teamMember(ctx.gw, account, 'agent', 'Ana Agent');
  const fromId = unique('visitor');
  const { conversationId, contactId } = await write(account, fromId, 'Is anyone there? My tooth hurts.');
  const handedOff = await conversation(account, conversationId);
  expect(handedOff).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    assigneeId: agent.id,
    waitingSince: handedOff.handoff.at,
    remindedAt: null,
  });

  // Writing again while they wait is the same wait: still timed from the hand-off.
  await wait('10m');
  await write(account, fromId, 'Hello??');
  // (untilIdle runs what falls due within the next 5 seconds.)
  await wait('4m50s');
  expect(hook.requests).toHaveLength(0);
  expect((await conversation(account, conversationId)).remindedAt).toBeNull();

  await wait('10s');
  await hook.waitFor(1);
  const reminded = await conversation(account, conversationId);
  expect(reminded).toMatchObject({ waitingSince: handedOff.waitingSince, assigneeId: agent.id, needsReply: true });
  expect(Date.parse(reminded.remindedAt) - Date.parse(reminded.waitingSince)).toBe(15 * 60_000);
  expect(reminders(hook)).toEqual([
    {
      type: 'handoff_waiting',
      occurredAt: reminded.remindedAt,
      contactId,
      conversationId,
      channel: 'custom',
      customChannel: 'web-chat',
      waitingSince: reminded.waitingSince,
      reason: 'no_campaign',
      body: 'Hello??',
      assignee: { id: agent.id, name: 'Ana Agent', email: expect.stringContaining('@') },
    },
  ]);
  // The inbox finds it among those the team was reminded of.
  const listed = await api(ctx.gw, account, 'GET', 'conversations?reminded=true');
  expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([conversationId]);
  expect((await api(ctx.gw, account, 'GET', 'conversations?reminded=false')).body.data).toEqual([]);

  // Once per wait: neither time nor the contact writing again reminds anew.
  await write(account, fromId, 'Anyone?');
  await wait('1d');
  expect(hook.requests).toHaveLength(1);
  expect((await conversation(account, conversationId)).remindedAt).toBe(reminded.remindedAt);
});

test("a team reply ends the wait; the contact's next message starts a new one, reminded in its turn", async () => {
  const { account, hook } = await accountWithHook();
  const fromId = unique('visitor');
  const { conversationId, contactId } = await write(account, fromId, 'Can I book for Friday?');
  await wait('5m');
  const reply = await api(ctx.gw, account, 'POST', `contacts/${contactId}/messages`, {
    body: { body: 'Yes! Morning or afternoon?' },
  });
  expect(reply.status).toBe(201);
  expect(await conversation(account, conversationId)).toMatchObject({
    needsReply: false,
    waitingSince: null,
    remindedAt: null,
  });
  await wait('1d');
  expect(hook.requests).toHaveLength(0);

  await write(account, fromId, 'Afternoon please');
  const waiting = await conversation(account, conversationId);
  expect(waiting.waitingSince).toBe(waiting.lastMessage.createdAt);
  await wait('15m');
  await hook.waitFor(1);
  expect(reminders(hook)).toEqual([
    expect.objectContaining({ conversationId, waitingSince: waiting.waitingSince, body: 'Afternoon please' }),
  ]);
  expect(reminders(hook)[0].assignee).toBeNull();

  // Answered after the reminder: the wait ends, and the conversation is no longer among those reminded of.
  await api(ctx.gw, account, 'POST', `contacts/${contactId}/messages`, { body: { body: 'See you at 3!' } });
  expect(await conversation(account, conversationId)).toMatchObject({ waitingSince: null, remindedAt: null });
  expect((await api(ctx.gw, account, 'GET', 'conversations?reminded=true')).body.data).toEqual([]);
});

test('reminders turned off remind nobody, a wait under way included; turned on, they time every wait, those under way too', async () => {
  const { account, hook } = await accountWithHook();
  const { conversationId } = await write(account, unique('visitor'), 'Hello, I need help');
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffReminderAfter: null } })).status).toBe(200);
  await wait('1h');
  expect(hook.requests).toHaveLength(0);
  expect(await conversation(account, conversationId)).toMatchObject({ needsReply: true, remindedAt: null });

  // The contact has waited the hour already: the team is reminded at once.
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffReminderAfter: '1h' } })).status).toBe(200);
  await untilIdle(ctx.gw);
  await hook.waitFor(1);
  expect(reminders(hook)).toEqual([expect.objectContaining({ conversationId })]);
  const later = await write(account, unique('visitor'), 'Hi, is the clinic open today?');
  await wait('59m');
  expect(hook.requests).toHaveLength(1);
  await wait('1m');
  await hook.waitFor(2);
  expect(reminders(hook)).toEqual([
    expect.objectContaining({ conversationId }),
    expect.objectContaining({ conversationId: later.conversationId }),
  ]);
});

test('the bot given the conversation back ends the wait: no reminder', async () => {
  const { account, hook } = await accountWithHook();
  const { conversationId, contactId } = await write(account, unique('visitor'), 'I want to speak to someone');
  expect(
    (await api(ctx.gw, account, 'POST', `contacts/${contactId}/bot`, { body: { active: true } })).body.conversations,
  ).toEqual([expect.objectContaining({ id: conversationId, status: 'active', waitingSince: null })]);
  await wait('1h');
  expect(hook.requests).toHaveLength(0);
});

test('a contact erased while waiting leaves no reminder', async () => {
  const { account, hook } = await accountWithHook();
  const { contactId } = await write(account, unique('visitor'), 'Please call me back');
  expect((await api(ctx.gw, account, 'DELETE', `contacts/${contactId}`)).status).toBe(204);
  await wait('1h');
  expect(hook.requests).toHaveLength(0);
});

// Each gateway's job runners wake when the clock moves, and may claim the reminder: one of them runs it.
if (BACKEND === 'postgres') {
  test('two gateways on one database remind once', async () => {
    const { LEADCHAT_JOB_POLL, LEADCHAT_BOT_DEBOUNCE, LEADCHAT_TEST_CLOCK, LEADCHAT_DATABASE_URL } = ctx.gw.env;
    const second = await startInProcess({
      LEADCHAT_JOB_POLL: LEADCHAT_JOB_POLL!,
      LEADCHAT_BOT_DEBOUNCE: LEADCHAT_BOT_DEBOUNCE!,
      LEADCHAT_TEST_CLOCK: LEADCHAT_TEST_CLOCK!,
      LEADCHAT_DATABASE_URL: LEADCHAT_DATABASE_URL!,
    });
    try {
      const { account, hook } = await accountWithHook(second);
      const { conversationId } = await write(account, unique('visitor'), 'Is anybody there?', second);
      await advanceClock(ctx.gw, '15m');
      await Promise.all([untilIdle(ctx.gw), untilIdle(second)]);
      await hook.waitFor(1);
      await advanceClock(ctx.gw, '1h');
      await Promise.all([untilIdle(ctx.gw), untilIdle(second)]);
      expect(reminders(hook)).toEqual([expect.objectContaining({ conversationId })]);
      expect((await conversation(account, conversationId, ctx.gw)).remindedAt).not.toBeNull();
    } finally {
      await second.stop();
      removeDir(second.dataDir);
    }
  });
}

test('a merge of two contacts waiting is one wait, from the earlier: the reminder already given is not given again', async () => {
  const { account, hook } = await accountWithHook();
  const duplicate = await write(account, unique('visitor'), 'Hello? I need to move my appointment');
  await wait('15m');
  await hook.waitFor(1);
  const remindedThere = await conversation(account, duplicate.conversationId);
  expect(remindedThere.remindedAt).not.toBeNull();

  // The same person writes again from another address, and is handed to the team anew; the two are merged.
  await wait('5m');
  const kept = await write(account, unique('visitor'), 'It is me again, about my appointment');
  const merged = await api(ctx.gw, account, 'POST', `contacts/${kept.contactId}/merge`, {
    body: { contactId: duplicate.contactId },
  });
  expect(merged.status).toBe(200);
  expect(await conversation(account, kept.conversationId)).toMatchObject({
    needsReply: true,
    waitingSince: remindedThere.waitingSince,
    remindedAt: remindedThere.remindedAt,
  });
  const listed = await api(ctx.gw, account, 'GET', 'conversations?reminded=true');
  expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([kept.conversationId]);
  await wait('1d');
  expect(reminders(hook)).toEqual([expect.objectContaining({ conversationId: duplicate.conversationId })]);
});

test('a contact waiting merged into one a person answered keeps their wait: reminded when it runs out, not later', async () => {
  const { account, hook } = await accountWithHook();
  const kept = await write(account, unique('visitor'), 'Hello');
  await api(ctx.gw, account, 'POST', `contacts/${kept.contactId}/messages`, { body: { body: 'Hi! How can we help?' } });
  await wait('1m');
  const duplicate = await write(account, unique('visitor'), 'Can someone call me back?');
  const since = (await conversation(account, duplicate.conversationId)).waitingSince;
  await wait('10m');
  const merged = await api(ctx.gw, account, 'POST', `contacts/${kept.contactId}/merge`, {
    body: { contactId: duplicate.contactId },
  });
  expect(merged.status).toBe(200);
  expect(await conversation(account, kept.conversationId)).toMatchObject({
    needsReply: true,
    waitingSince: since,
    remindedAt: null,
  });
  await wait('5m');
  await hook.waitFor(1);
  expect(reminders(hook)).toEqual([
    expect.objectContaining({ conversationId: kept.conversationId, waitingSince: since }),
  ]);
});

test('a team reply that fails at once answers nobody: the contact still needs a reply, waits from the hand-off and is reminded; retried and sent, it answers them', async () => {
  const { account, hook } = await accountWithHook(ctx.gw, null);
  const { conversationId, contactId } = await write(account, unique('visitor'), 'Can I book for Friday?');
  const since = (await conversation(account, conversationId)).waitingSince;
  await wait('5m');
  const reply = await api(ctx.gw, account, 'POST', `contacts/${contactId}/messages`, {
    body: { body: 'Yes! Morning or afternoon?' },
  });
  expect(reply.body).toMatchObject({ status: 'failed', errorCode: 'NO_RECEIVER' });
  expect(await conversation(account, conversationId)).toMatchObject({
    needsReply: true,
    waitingSince: since,
    remindedAt: null,
    // The reply, and the hand-off's notice before it: nothing takes the web chat's messages.
    failed: 2,
    lastMessage: { author: 'team', status: 'failed' },
  });
  const listed = async (filter: string) =>
    (await api(ctx.gw, account, 'GET', `conversations?${filter}`)).body.data.map((c: { id: string }) => c.id);
  expect(await listed('needsReply=true')).toEqual([conversationId]);
  expect(await listed('needsReply=false')).toEqual([]);

  await wait('10m');
  await hook.waitFor(1);
  expect(reminders(hook)).toEqual([expect.objectContaining({ conversationId, waitingSince: since })]);

  // The web chat takes replies now: the reply retried goes, and answers the contact.
  const set = await api(ctx.gw, account, 'PUT', 'settings', {
    body: { customChannelWebhookUrl: (await repliesTaken()).url },
  });
  expect(set.status).toBe(200);
  expect((await api(ctx.gw, account, 'POST', `messages/${reply.body.id}/retry`)).status).toBe(200);
  expect(await conversation(account, conversationId)).toMatchObject({
    needsReply: false,
    waitingSince: null,
    remindedAt: null,
    failed: 1,
  });
  await wait('1d');
  expect((await api(ctx.gw, account, 'GET', `messages/${reply.body.id}`)).body.status).toBe('sent');
  expect(await listed('needsReply=true')).toEqual([]);
  expect(hook.requests).toHaveLength(1);
});

test('a team reply its receiver gives up on later answers nobody after all: the wait goes on from the hand-off, reminded at once when past due', async () => {
  const REPLY = 'Your crown is ready, come by any time.';
  let refusing = true;
  const receiver = await Receiver.start((_, req) => ({ status: refusing && req.body?.body === REPLY ? 500 : 200 }));
  receivers.push(receiver);
  const { account, hook } = await accountWithHook(ctx.gw, receiver);
  // A campaign's bot answers the web chat: the contact asks it for a person, who has the conversation from then.
  const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Crowns', channel: 'custom', customChannel: 'web-chat' },
  });
  const bot = await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.body.id } });
  expect(bot.status).toBe(200);
  const { conversationId, contactId } = await write(account, unique('visitor'), 'I want to talk to a person');
  await untilIdle(ctx.gw);
  const handedOff = await conversation(account, conversationId);
  expect(handedOff.handoff.reason).toBe('contact_asked');
  const since = handedOff.waitingSince;
  await wait('2m');
  await write(account, handedOff.contact.fromId, 'Is my crown ready?');
  await wait('5m');
  const reply = await api(ctx.gw, account, 'POST', `contacts/${contactId}/messages`, { body: { body: REPLY } });
  expect(reply.body.status).toBe('pending');
  // On its way, it answers: the wait ends.
  expect(await conversation(account, conversationId)).toMatchObject({ needsReply: false, waitingSince: null });

  // The receiver refuses it at every attempt of the delivery's retry schedule (about 11 hours).
  let status = reply.body.status as string;
  for (let hours = 0; status !== 'failed' && hours < 24; hours++) {
    await wait('1h');
    status = (await api(ctx.gw, account, 'GET', `messages/${reply.body.id}`)).body.status;
  }
  expect(status).toBe('failed');
  // The contact has waited since the hand-off: the team is reminded at once, the 15 minutes long past.
  await hook.waitFor(1);
  const waiting = await conversation(account, conversationId);
  expect(waiting).toMatchObject({ needsReply: true, waitingSince: since, remindedAt: expect.any(String) });
  expect(reminders(hook)).toEqual([expect.objectContaining({ conversationId, waitingSince: since })]);

  refusing = false;
  expect((await api(ctx.gw, account, 'POST', `messages/${reply.body.id}/retry`)).status).toBe(200);
  await wait('1m');
  expect((await api(ctx.gw, account, 'GET', `messages/${reply.body.id}`)).body.status).toBe('sent');
  expect(await conversation(account, conversationId)).toMatchObject({ needsReply: false, waitingSince: null });
});
