import { checkDelivery } from '../helpers/contract';
import { api, createAccount, incoming, Receiver, unique, untilIdle, useGateway, type TestAccount } from './api-support';
import { atHour, DAY, elapse, HOUR, MINUTE, utcHours } from './business-hours-support';

/**
 * A change of the account's handoffReminderAfter or businessHours holds for the contacts already waiting for a
 * person: each wait the team was not reminded of yet is due when the new settings say, counted from its
 * waitingSince (at once when that has passed); reminders turned off remind nobody, turned on remind every wait; a wait
 * reminded of already is not reminded again. Hours are set in UTC around the gateway's clock, moved to a known hour
 * first.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '0s', LEADCHAT_TEST_CLOCK: '1' });

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function started(): Promise<Receiver> {
  const receiver = await Receiver.start();
  receivers.push(receiver);
  return receiver;
}

/** An account whose web chat's replies reach a receiver, and whose `handoff_waiting` events go to `hook`. */
async function account(settings: Record<string, unknown> = {}) {
  const made = await createAccount(ctx.gw);
  const hook = await started();
  const subscribed = await api(ctx.gw, made, 'POST', 'webhooks', {
    body: { url: hook.url, events: ['handoff_waiting'] },
  });
  expect(subscribed.status).toBe(201);
  await settle(made, { customChannelWebhookUrl: (await started()).url, ...settings });
  return { account: made, hook };
}

/** Changes the account's settings, and lets the waits be timed anew before the clock moves on. */
async function settle(made: TestAccount, settings: Record<string, unknown>): Promise<void> {
  const set = await api(ctx.gw, made, 'PUT', 'settings', { body: settings });
  expect(set.status).toBe(200);
  await untilIdle(ctx.gw);
}

/** A contact writes on the web chat, which no campaign answers: the team has them, and they wait from now. */
async function waiting(made: TestAccount): Promise<{ conversationId: string; since: number }> {
  const res = await api(ctx.gw, made, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: unique('visitor'), channel: 'web-chat', body: 'Is anyone there?' }),
  });
  expect(res.status).toBe(200);
  await untilIdle(ctx.gw);
  const { conversationId } = (await api(ctx.gw, made, 'GET', `messages/${res.body.messageId}`)).body;
  const since = (await conversation(made, conversationId)).waitingSince;
  expect(since).toEqual(expect.any(String));
  return { conversationId, since: Date.parse(since) };
}

const conversation = async (made: TestAccount, id: string) =>
  (await api(ctx.gw, made, 'GET', `conversations/${id}`)).body;

/** When the team was reminded of the conversation's wait (epoch ms); null while it was not. */
const remindedAt = async (made: TestAccount, id: string): Promise<number | null> => {
  const at = (await conversation(made, id)).remindedAt;
  return at === null ? null : Date.parse(at);
};

/** The conversations the `handoff_waiting` events the receiver got name, each held to the API document. */
const reminded = (hook: Receiver) =>
  hook.requests.map((r) => {
    expect(checkDelivery(r)).toBe('handoff_waiting');
    return r.body.conversationId as string;
  });

test('hours removed on a closed evening: each wait is due its reminder after, counted from its start, at once when past', async () => {
  const noon = await atHour(ctx.gw, 12);
  // Open 13:00 to 14:00: the waits of noon would be reminded of at 13:15, the team's working time counted only.
  const { account: made, hook } = await account({ businessHours: utcHours(noon + HOUR, noon + 2 * HOUR) });
  const early = await waiting(made);
  await elapse(ctx.gw, 10 * MINUTE);
  const later = await waiting(made);
  expect(later.since).toBe(noon + 10 * MINUTE);

  // At 12:20 the team is always open: the first has waited longer than 15 minutes, the second has 5 to go.
  await elapse(ctx.gw, 10 * MINUTE);
  await settle(made, { businessHours: null });
  expect(await remindedAt(made, early.conversationId)).toBe(noon + 20 * MINUTE);
  expect(await remindedAt(made, later.conversationId)).toBeNull();
  await elapse(ctx.gw, 4 * MINUTE);
  expect(await remindedAt(made, later.conversationId)).toBeNull();
  await elapse(ctx.gw, MINUTE);
  expect(await remindedAt(made, later.conversationId)).toBe(later.since + 15 * MINUTE);
  await elapse(ctx.gw, DAY);
  expect(reminded(hook)).toEqual([early.conversationId, later.conversationId]);
});

test('hours widened: the wait counts the working time they now hold', async () => {
  const noon = await atHour(ctx.gw, 12);
  const { account: made } = await account({ businessHours: utcHours(noon + 2 * HOUR, noon + 3 * HOUR) });
  const { conversationId, since } = await waiting(made);
  // Open from 11:00 now: the wait has counted since noon, and is due at 12:15.
  await elapse(ctx.gw, 5 * MINUTE);
  await settle(made, { businessHours: utcHours(noon - HOUR, noon + 3 * HOUR) });
  await elapse(ctx.gw, 9 * MINUTE);
  expect(await remindedAt(made, conversationId)).toBeNull();
  await elapse(ctx.gw, MINUTE);
  expect(await remindedAt(made, conversationId)).toBe(since + 15 * MINUTE);
});

test('reminders turned off remind nobody; turned on again, every wait is reminded of, those begun while off too', async () => {
  await atHour(ctx.gw, 12);
  const { account: made, hook } = await account();
  const before = await waiting(made);
  await settle(made, { handoffReminderAfter: null });
  await elapse(ctx.gw, 5 * MINUTE);
  const during = await waiting(made);
  await elapse(ctx.gw, HOUR);
  expect(hook.requests).toHaveLength(0);

  // On again with 1h30m: the first has waited 65 minutes and the second 60, so 25 and 30 remain.
  await settle(made, { handoffReminderAfter: '1h30m' });
  await elapse(ctx.gw, 25 * MINUTE);
  expect(await remindedAt(made, before.conversationId)).toBe(before.since + 90 * MINUTE);
  expect(await remindedAt(made, during.conversationId)).toBeNull();
  await elapse(ctx.gw, 5 * MINUTE);
  expect(await remindedAt(made, during.conversationId)).toBe(during.since + 90 * MINUTE);
  expect(reminded(hook)).toEqual([before.conversationId, during.conversationId]);

  // Off again: a wait under way is reminded of by nobody.
  const last = await waiting(made);
  await settle(made, { handoffReminderAfter: null });
  await elapse(ctx.gw, DAY);
  expect(await remindedAt(made, last.conversationId)).toBeNull();
  expect(hook.requests).toHaveLength(2);
});

test('a shortened reminder is due earlier, a lengthened one later; two changes in a row end with the last', async () => {
  await atHour(ctx.gw, 12);
  const { account: made } = await account({ handoffReminderAfter: '1h' });
  const shortened = await waiting(made);
  await elapse(ctx.gw, 2 * MINUTE);
  await settle(made, { handoffReminderAfter: '5m' });
  await elapse(ctx.gw, 2 * MINUTE);
  expect(await remindedAt(made, shortened.conversationId)).toBeNull();
  await elapse(ctx.gw, MINUTE);
  expect(await remindedAt(made, shortened.conversationId)).toBe(shortened.since + 5 * MINUTE);

  const lengthened = await waiting(made);
  // The second change comes before the first's waits were timed anew.
  expect((await api(ctx.gw, made, 'PUT', 'settings', { body: { handoffReminderAfter: '10m' } })).status).toBe(200);
  await settle(made, { handoffReminderAfter: '30m' });
  await elapse(ctx.gw, 29 * MINUTE);
  expect(await remindedAt(made, lengthened.conversationId)).toBeNull();
  await elapse(ctx.gw, MINUTE);
  expect(await remindedAt(made, lengthened.conversationId)).toBe(lengthened.since + 30 * MINUTE);
});

test('a wait reminded of already is not reminded again, however the settings change; one not yet is, once', async () => {
  const noon = await atHour(ctx.gw, 12);
  const { account: made, hook } = await account();
  const { conversationId, since } = await waiting(made);
  await elapse(ctx.gw, 15 * MINUTE);
  await hook.waitFor(1);
  expect(await remindedAt(made, conversationId)).toBe(since + 15 * MINUTE);

  const next = await waiting(made);
  await settle(made, { handoffReminderAfter: '1m' });
  await elapse(ctx.gw, MINUTE);
  expect(await remindedAt(made, next.conversationId)).toBe(next.since + MINUTE);
  await settle(made, { businessHours: utcHours(noon + HOUR, noon + 2 * HOUR) });
  await settle(made, { handoffReminderAfter: null });
  await settle(made, { handoffReminderAfter: '5m', businessHours: null });
  await elapse(ctx.gw, DAY);
  expect(reminded(hook)).toEqual([conversationId, next.conversationId]);
  expect(await remindedAt(made, conversationId)).toBe(since + 15 * MINUTE);
  expect(await remindedAt(made, next.conversationId)).toBe(next.since + MINUTE);
});

test("another account's change leaves this account's waits as they were timed", async () => {
  const noon = await atHour(ctx.gw, 12);
  const hours = utcHours(noon + HOUR, noon + 2 * HOUR);
  const { account: kept } = await account({ businessHours: hours });
  const { account: changed } = await account({ businessHours: hours });
  const { conversationId } = await waiting(kept);
  const other = await waiting(changed);
  await settle(changed, { businessHours: null, handoffReminderAfter: '5m' });
  await elapse(ctx.gw, 5 * MINUTE);
  expect(await remindedAt(changed, other.conversationId)).toBe(noon + 5 * MINUTE);
  expect(await remindedAt(kept, conversationId)).toBeNull();
  await elapse(ctx.gw, HOUR + 9 * MINUTE);
  expect(await remindedAt(kept, conversationId)).toBeNull();
  await elapse(ctx.gw, MINUTE);
  expect(await remindedAt(kept, conversationId)).toBe(noon + HOUR + 15 * MINUTE);
});

test('an account with more waits than one batch of the walk has every one of them timed anew', async () => {
  const noon = await atHour(ctx.gw, 12);
  const { account: made, hook } = await account({ businessHours: utcHours(noon + HOUR, noon + 2 * HOUR) });
  const written = await Promise.all(
    Array.from({ length: 105 }, async () => {
      const res = await api(ctx.gw, made, 'POST', 'incoming_custom_channel_message', {
        body: incoming({ fromId: unique('visitor'), channel: 'web-chat', body: 'Hello?' }),
      });
      expect(res.status).toBe(200);
      return res.body.messageId as string;
    }),
  );
  await untilIdle(ctx.gw);
  const waits = await Promise.all(
    written.map(async (id) => (await api(ctx.gw, made, 'GET', `messages/${id}`)).body.conversationId as string),
  );
  await elapse(ctx.gw, 20 * MINUTE);
  expect(hook.requests).toHaveLength(0);

  await settle(made, { businessHours: null });
  await hook.waitFor(105);
  expect(new Set(reminded(hook))).toEqual(new Set(waits));
});
