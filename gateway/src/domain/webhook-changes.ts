import type { Change, Tx } from '../store/store.js';

/**
 * What the console hears of an account's webhook subscriptions: that one was disabled, enabled again or deleted,
 * told once per transaction. Which one, and why, is read through /v1.
 */
const WEBHOOKS = 'webhooks';

export function subscriptionsChanged(tx: Tx, accountId: string): void {
  tx.publish(accountId, { kind: WEBHOOKS }, WEBHOOKS);
}

/** The stream's event for a published change: `webhooks.updated`, or none for a change of another kind. */
export const webhookEvents = (change: Change): Array<{ event: 'webhooks.updated'; data: Record<string, never> }> =>
  change.kind === WEBHOOKS ? [{ event: 'webhooks.updated', data: {} }] : [];
