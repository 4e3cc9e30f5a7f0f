import { now } from '../ids.js';
import type { Tx } from '../store/store.js';
import type { Attempt, Subscription } from './webhooks.js';
import { subscriptionsChanged } from './webhook-changes.js';

/** Standard Webhooks, Stripe and Svix alike: a receiver answering 410 Gone asks for nothing more to be posted. */
const GONE = 410;

/**
 * What an attempt posted to a subscription tells of it, in the transaction that records the attempt: a receiver
 * that answered 410 Gone disables it. Answers the subscription when this attempt disabled it.
 */
export async function noteAttempt(tx: Tx, subscriptionId: string, attempt: Attempt): Promise<Subscription | undefined> {
  if (attempt.status !== GONE) return undefined;
  // Deliveries to one subscription settle in many jobs at once: they take turns on it.
  const sub = await tx.lock<Subscription>('webhooks', subscriptionId);
  if (!sub || sub.disabledAt) return undefined;
  subscriptionsChanged(tx, sub.accountId);
  return tx.update<Subscription>('webhooks', sub.id, { disabledAt: now(), disabledReason: 'gone' });
}
