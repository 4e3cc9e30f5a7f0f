import { MAX_WEBHOOKS } from '../api-contract.js';
import type { Gateway } from '../context.js';
import { ApiError } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Tx } from '../store/store.js';
import type { Account } from './accounts.js';
import { tellWaitingRequests } from './auto-recharge.js';
import type { EventType } from './events.js';
import { newWebhookSecret } from './secrets.js';
import { checkTarget } from './targets.js';
import { subscriptionsChanged } from './webhook-changes.js';
import { audit, type AuditBy } from './audit-log.js';
import { getSubscription, subscriptionsOf, webhookTarget, type Subscription } from './webhooks.js';

/** `events` come deduplicated from the request schema. */
export async function subscribe(
  gw: Gateway,
  accountId: string,
  url: string,
  events: EventType[],
  remember?: (tx: Tx, sub: Subscription) => Promise<void>,
  by?: AuditBy,
): Promise<Subscription> {
  await checkTarget(gw, url, 'url');
  return gw.store.transact(async (tx) => {
    // Two subscriptions made at once take turns, so that both count the other.
    await tx.lock('accounts', accountId);
    if ((await subscriptionsOf(tx, accountId)).length >= MAX_WEBHOOKS)
      throw new ApiError(
        409,
        'TOO_MANY_WEBHOOKS',
        `An account holds at most ${MAX_WEBHOOKS} webhook subscriptions: delete one it no longer needs first`,
      );
    const sub = await hearing(
      tx,
      await tx.insert<Subscription>('webhooks', {
        id: newId('whk'),
        accountId,
        url,
        events,
        secret: newWebhookSecret(),
        createdAt: now(),
      }),
    );
    await remember?.(tx, sub);
    await audit(tx, by, 'webhook.created', webhookTarget(sub), { events: sub.events });
    return sub;
  });
}

/**
 * Posts again to a disabled subscription, from the next event on. Its failures so far are forgiven: one more does
 * not disable it again at once.
 */
export async function enableSubscription(gw: Gateway, accountId: string, id: string): Promise<Subscription> {
  return gw.store.transact(async (tx) => {
    const sub = await getSubscription(tx, accountId, id);
    if (!sub.disabledAt) return sub;
    subscriptionsChanged(tx, accountId);
    return hearing(
      tx,
      await tx.update<Subscription>('webhooks', id, {
        disabledAt: null,
        disabledReason: null,
        consecutiveFailures: 0,
        failingSince: null,
      }),
    );
  });
}

/**
 * A subscription begins to hear events (made, or enabled again): what is still waiting for an answer that only an
 * event asks for reaches it at once, the agency's auto-recharge requests (auto-recharge.ts). Other events tell of
 * what happened, and are not told again.
 */
async function hearing(tx: Tx, sub: Subscription): Promise<Subscription> {
  if (!sub.events.includes('auto_recharge')) return sub;
  const agency = await tx.get<Account>('accounts', sub.accountId);
  if (agency?.type === 'agency') await tellWaitingRequests(tx, agency, { target: sub.id, url: sub.url });
  return sub;
}
