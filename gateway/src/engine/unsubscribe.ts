import type { Gateway } from '../context.js';
import { audit, type AuditBy } from '../domain/audit-log.js';
import { endUnposted } from '../domain/reply-turns.js';
import {
  pendingDeliveriesTo,
  removeSubscription,
  webhookTarget,
  SUBSCRIPTION_DELETED,
  SUBSCRIPTION_DISABLED,
  type Delivery,
  type Subscription,
} from '../domain/webhooks.js';
import { now } from '../ids.js';
import { metrics } from '../metrics.js';
import type { Tx } from '../store/store.js';
import { settleDeliveries } from './message-status.js';

/**
 * A webhook subscription deleted (`DELETE /v1/webhooks/{id}`, as an n8n workflow deactivated deletes its own) takes
 * its waiting deliveries with it: each one still pending (for its retry, maybe hours away, or for its turn behind an
 * earlier reply) fails now, not posted. A reply that only it was to receive then fails as any reply whose receivers
 * gave up does (engine/message-status.ts): the team is told, a bot's answer handed to it, at once rather than when the
 * last retry would have come due.
 */
export async function deleteSubscription(gw: Gateway, accountId: string, id: string, by?: AuditBy): Promise<void> {
  await gw.store.transact(async (tx) => {
    await audit(tx, by, 'webhook.deleted', webhookTarget(await removeSubscription(tx, accountId, id)));
    await endWaitingDeliveries(tx, id, SUBSCRIPTION_DELETED);
  });
}

/**
 * A subscription the gateway disabled (its receiver answered 410 Gone, or failed for days: domain/webhook-health.ts)
 * posts nothing more until it is enabled again, so its waiting deliveries end now as a deleted one's do, rather than
 * each when its retry comes due. Run once the attempt that disabled it is committed; should it not run (the process
 * stopped between), each still ends failed when its retry comes due (jobs/deliver.ts). One enabled again meanwhile
 * keeps its deliveries.
 */
export async function endDisabledDeliveries(gw: Gateway, id: string): Promise<void> {
  await gw.store.transact(async (tx) => {
    if (!(await tx.lock<Subscription>('webhooks', id))?.disabledAt) return;
    await endWaitingDeliveries(tx, id, SUBSCRIPTION_DISABLED);
  });
}

/** Fails, not posted, every delivery still pending for the subscription `id`, saying why, and settles their replies. */
async function endWaitingDeliveries(tx: Tx, id: string, why: string): Promise<void> {
  const waiting = await pendingDeliveriesTo(tx, id);
  const replies = [
    ...new Set(waiting.filter((d) => d.event === 'reply' && d.messageId).map((d) => d.messageId!)),
  ].sort();
  // Each reply's message first, as a delivery settling takes it (jobs/deliver.ts), in one order.
  for (const messageId of replies) await tx.lock('messages', messageId);
  const at = now();
  for (const { id: deliveryId } of waiting) {
    const current = await tx.get<Delivery>('deliveries', deliveryId);
    if (!current || current.status !== 'pending' || current.target !== id) continue;
    await endUnposted(tx, current, why, at);
    tx.afterCommit(() => metrics.deliveries.inc({ event: current.event, outcome: 'failed' }));
  }
  for (const messageId of replies) await settleDeliveries(tx, messageId);
}
