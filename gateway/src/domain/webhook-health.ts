import { now } from '../ids.js';
import type { Tx } from '../store/store.js';
import type { Attempt, DisabledReason, Subscription } from './webhooks.js';
import { subscriptionsChanged } from './webhook-changes.js';

/** Standard Webhooks, Stripe and Svix alike: a receiver answering 410 Gone asks for nothing more to be posted. */
const GONE = 410;

/**
 * A subscription whose every attempt failed for this long is disabled, as Svix does: past the whole retry schedule
 * many times over, a receiver this long gone is not coming back by itself, and its deliveries only fail.
 */
export const FAILING_FOR_MS = 5 * 86_400_000;

/**
 * A success this close after the one written down is not written: a busy subscription's deliveries would otherwise
 * each take their turn on it, one write more per event, to move its time by less than anyone reads.
 */
const SUCCESS_PRECISION_MS = 60_000;

/**
 * What an attempt posted to a subscription tells of it, in the transaction that records the attempt: its last
 * success, its last failure and the run of failures since the success; a receiver that answered 410 Gone disables
 * it, and so does a failure FAILING_FOR_MS after the first of a run with no success. `before` is the subscription as read
 * before the post. Answers the subscription when this attempt disabled it.
 */
export async function noteAttempt(
  tx: Tx,
  before: Subscription,
  attempt: Attempt,
  ok: boolean,
): Promise<Subscription | undefined> {
  if (ok && !before.consecutiveFailures && sinceSuccess(before, attempt) < SUCCESS_PRECISION_MS) return undefined;
  // Deliveries to one subscription settle in many jobs at once: they take turns on it.
  const sub = await tx.lock<Subscription>('webhooks', before.id);
  if (!sub) return undefined;
  if (ok) {
    // Attempts settle in any order: the latest success is kept.
    const lastSuccessAt = sub.lastSuccessAt && sub.lastSuccessAt > attempt.at ? sub.lastSuccessAt : attempt.at;
    await tx.update<Subscription>('webhooks', sub.id, { lastSuccessAt, consecutiveFailures: 0, failingSince: null });
    return undefined;
  }
  const failure: Partial<Subscription> = {
    lastFailure: { at: attempt.at, status: attempt.status, error: attempt.error ?? 'failed' },
    consecutiveFailures: (sub.consecutiveFailures ?? 0) + 1,
    failingSince: sub.failingSince ?? attempt.at,
  };
  const reason = sub.disabledAt ? undefined : disabling(attempt, failure.failingSince!);
  if (!reason) {
    await tx.update<Subscription>('webhooks', sub.id, failure);
    return undefined;
  }
  subscriptionsChanged(tx, sub.accountId);
  return tx.update<Subscription>('webhooks', sub.id, { ...failure, disabledAt: now(), disabledReason: reason });
}

/** Why a failed attempt disables its subscription, if it does. */
function disabling(attempt: Attempt, failingSince: string): DisabledReason | undefined {
  if (attempt.status === GONE) return 'gone';
  if (Date.parse(attempt.at) - Date.parse(failingSince) >= FAILING_FOR_MS) return 'failing';
  return undefined;
}

const sinceSuccess = (sub: Subscription, attempt: Attempt) =>
  sub.lastSuccessAt ? Date.parse(attempt.at) - Date.parse(sub.lastSuccessAt) : Infinity;
