import type { Tx } from '../store/store.js';
import { newJob } from './job-kinds.js';

/**
 * One wake-up job per snooze: its time is part of the key, so that a conversation snoozed again (or woken early)
 * cancels exactly the job it no longer wants, and a job run for a snooze since replaced finds nothing to do.
 */
const snoozeKey = (conversationId: string, until: string) => `snooze_end:${conversationId}:${until}`;

/** A conversation's snooze, as it is stored on it (conversations.ts). */
export interface Snooze {
  id: string;
  accountId: string;
  snoozedUntil?: string | null;
}

/** The fields that say a conversation is snoozed until `until` (or not at all): `snoozed` is only for the index. */
export const snoozeFields = (until: string | null) => ({
  snoozedUntil: until,
  snoozed: until ? ('snoozed' as const) : null,
});

/** The conversation is snoozed until `until`: its previous snooze's wake-up cancelled, its own queued. */
export async function snoozeTimed(tx: Tx, conversation: Snooze, until: string) {
  await snoozeCancelled(tx, conversation);
  await tx.enqueue(
    newJob(
      'snooze_end',
      { conversationId: conversation.id, until },
      { runAt: Date.parse(until), key: snoozeKey(conversation.id, until), accountId: conversation.accountId },
    ),
  );
  return snoozeFields(until);
}

/** The conversation's snooze ends now (or it had none): its wake-up cancelled, and the fields to write. */
export async function snoozeCancelled(tx: Tx, conversation: Snooze) {
  if (conversation.snoozedUntil) await tx.cancelJobs(snoozeKey(conversation.id, conversation.snoozedUntil));
  return snoozeFields(null);
}

/**
 * A merge folds `from` into `into`: the one left stays snoozed only when both were, until the earlier time, so that no
 * callback is missed; when either was in the inbox, so is the one left (its work is not hidden by the other's snooze).
 * The fields to write on `into`, its wake-up moved; none when its own snooze stands.
 */
export async function foldedSnooze(tx: Tx, into: Snooze, from: Snooze) {
  const until = into.snoozedUntil && from.snoozedUntil ? [into.snoozedUntil, from.snoozedUntil].sort()[0]! : null;
  if (until === (into.snoozedUntil ?? null)) return {};
  return until ? snoozeTimed(tx, into, until) : snoozeCancelled(tx, into);
}
