import { now } from '../ids.js';
import type { Tx } from '../store/store.js';
import type { Account } from './accounts.js';
import { formatDuration, MINUTE_MS, parseDuration } from './durations.js';
import { newJob } from './job-kinds.js';
import { afterBusinessTime } from './business-time.js';

/**
 * How long a contact may wait for a person before the team is reminded (handoffReminderAfter of /v1/settings). On
 * unless the account turns it off: a contact told "a member of our team will get back to you shortly" who then
 * hears nothing is what the reminder exists for, and it costs a team nothing it did not ask for (a console
 * notification for those who turned them on, an event only for webhooks subscribed to it).
 */
export const DEFAULT_REMINDER_AFTER = '15m';
const LONGEST = 7 * 24 * 60 * MINUTE_MS;

/** The account's wait before a reminder, in ms; null when it turned reminders off. */
export function reminderAfter(account: Pick<Account, 'handoffReminderAfter'>): number | null {
  const after = account.handoffReminderAfter === undefined ? DEFAULT_REMINDER_AFTER : account.handoffReminderAfter;
  return after === null ? null : parseDuration(after);
}

/** A new wait before a reminder, as stored and shown ("90m" → "1h30m"); a 400 naming the field when it is no duration. */
export const parseReminderAfter = (after: string | null): string | null =>
  after === null
    ? null
    : formatDuration(parseDuration(after, { field: 'handoffReminderAfter', min: MINUTE_MS, max: LONGEST }));

/**
 * One reminder job per wait: the wait's start is part of the key, so a reminder cancelled by the team's reply never
 * holds back the next wait's.
 */
const reminderKey = (conversationId: string, since: string) => `handoff_reminder:${conversationId}:${since}`;

/** A conversation's wait for a person, as it is stored on it (conversations.ts). */
export interface Wait {
  id: string;
  accountId: string;
  waitingSince?: string | null;
  remindedAt?: string | null;
}

/**
 * A conversation begins waiting for a person (handed to the team, and needing a reply), or stops (a person replied,
 * the bot has it again, the contact opted out): the fields that say so, and its reminder queued or cancelled. The
 * contact writing again while they wait is the same wait: it is timed from its start, and reminded once.
 */
export async function waitChanged(
  tx: Tx,
  conversation: Wait,
  waiting: boolean,
): Promise<Pick<Wait, 'waitingSince' | 'remindedAt'>> {
  if (!waiting) {
    if (conversation.waitingSince) await tx.cancelJobs(reminderKey(conversation.id, conversation.waitingSince));
    return { waitingSince: null, remindedAt: null };
  }
  const since = now();
  await queueReminder(tx, conversation, since);
  return { waitingSince: since, remindedAt: null };
}

/**
 * A wait an earlier release left untimed (it kept no `waitingSince`), timed from when it began as this release would
 * have: its reminder is due when the account's reminder runs out from then, at once when it has already.
 */
export async function earlierWait(
  tx: Tx,
  conversation: Wait,
  since: string,
): Promise<Pick<Wait, 'waitingSince' | 'remindedAt'>> {
  await queueReminder(tx, conversation, since);
  return { waitingSince: since, remindedAt: null };
}

/**
 * The reminder of a wait begun at `since`, due when the account's reminder runs out (at once when it has), counting
 * only the time within its business hours: a contact handed over at night is reminded of once the team has been back
 * for that long. `read`: the account, when the caller holds it already.
 */
async function queueReminder(tx: Tx, conversation: Wait, since: string, read?: Account): Promise<void> {
  const account = read ?? (await tx.get<Account>('accounts', conversation.accountId));
  const after = account ? reminderAfter(account) : null;
  if (!account || after === null) return;
  await tx.enqueue(
    newJob(
      'handoff_reminder',
      { conversationId: conversation.id, since },
      {
        runAt: afterBusinessTime(account.businessHours, Date.parse(since), after),
        key: reminderKey(conversation.id, since),
        accountId: conversation.accountId,
      },
    ),
  );
}

/**
 * A merge folds `from` into `into`: one person, whose wait for a person began with the earlier of the two, and was
 * reminded of when either was (once per wait: the reminder given there is not given again here). The fields to write
 * on `into`, its reminder moved to the wait kept; none when `into`'s own wait stands. Whether the conversation folded
 * still waits is decided when it is written, which ends this wait if it does not.
 */
export async function foldedWait(
  tx: Tx,
  into: Wait,
  from: Wait,
): Promise<Pick<Wait, 'waitingSince' | 'remindedAt'> | undefined> {
  const waits = [into, from].filter((w) => w.waitingSince);
  if (waits.length === 0) return undefined;
  const since = waits.map((w) => w.waitingSince!).sort()[0]!;
  const reminded = waits.map((w) => w.remindedAt).filter((at): at is string => Boolean(at));
  const remindedAt = reminded.sort()[0] ?? null;
  if (since === into.waitingSince && remindedAt === (into.remindedAt ?? null)) return undefined;
  if (into.waitingSince) await tx.cancelJobs(reminderKey(into.id, into.waitingSince));
  if (!remindedAt) await queueReminder(tx, into, since);
  return { waitingSince: since, remindedAt };
}

/**
 * The account's reminder or business hours changed: a wait not reminded of yet is due when they say now, counted from
 * its start (at once when that has passed), or never once reminders are off. A wait already reminded of is left as
 * it is: once per wait. Whether it was one to time.
 */
export async function retimedWait(tx: Tx, account: Account, conversation: Wait): Promise<boolean> {
  if (conversation.accountId !== account.id || !conversation.waitingSince || conversation.remindedAt) return false;
  await tx.cancelJobs(reminderKey(conversation.id, conversation.waitingSince));
  await queueReminder(tx, conversation, conversation.waitingSince, account);
  return true;
}
