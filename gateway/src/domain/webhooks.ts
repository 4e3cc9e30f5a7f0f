import { notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Page, Reader, Store, Tx } from '../store/store.js';
import type { Account } from './accounts.js';
import type { EventPayload, EventType } from './events.js';
import { signingSecrets } from './signing-secrets.js';
import { subscriptionsChanged } from './webhook-changes.js';
import { newJob } from './job-kinds.js';
import type { webhook, WEBHOOK_DISABLED_REASONS } from '../contract/account.js';
import type { Answer } from '../contract/shared.js';

/** A receiver registered through the API (the n8n trigger's automatic registration), with its own secret. */
export interface Subscription {
  id: string;
  accountId: string;
  url: string;
  events: EventType[];
  secret: string;
  createdAt: string;
  /** Set while no event is posted to it (absent on subscriptions made before it could be). */
  disabledAt?: string | null;
  disabledReason?: DisabledReason | null;
  /** Its health, from the attempts posted to it (webhook-health.ts); absent before the first. */
  lastSuccessAt?: string | null;
  lastFailure?: { at: string; status: number | null; error: string } | null;
  consecutiveFailures?: number;
  failingSince?: string | null;
}

export type DisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

export interface Attempt {
  at: string;
  status: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

/** One event bound for one receiver; its id is the `webhook-id` header, the same on every retry. */
export interface Delivery {
  id: string;
  accountId: string;
  event: EventType;
  messageId: string | null;
  /** The contact the event is about, when it is about one: its export lists the delivery and its erasure removes it. */
  contactId?: string | null;
  /** 'settings' for the account's Custom Channel Webhook URL, else the subscription's id. */
  target: string;
  url: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'sent' | 'failed';
  attempts: Attempt[];
  /** While a failed attempt waits for its retry: when the next one is due. */
  nextAttemptAt?: string | null;
  /**
   * Its `target`, set only while it is pending: a subscription deleted or disabled finds by it the deliveries still
   * waiting for it (engine/unsubscribe.ts), among however many it was sent.
   */
  pendingTarget?: string | null;
  /** Set by a retry of its message: the attempts before this index were an earlier round, not counted against the retry schedule. */
  roundStart?: number;
  /** A reply's, while it is pending: its conversation and receiver, whose replies go one at a time (reply-turns.ts). */
  turn?: string | null;
  /** The reply of the same turn made after this one while it was pending: it goes once this one is sent or failed. */
  next?: string | null;
  createdAt: string;
  updatedAt: string;
}

export const publicSubscription = (s: Subscription): Answer<typeof webhook> => ({
  id: s.id,
  url: s.url,
  events: s.events,
  createdAt: s.createdAt,
  status: s.disabledAt ? 'disabled' : 'enabled',
  disabledAt: s.disabledAt ?? null,
  disabledReason: s.disabledAt ? (s.disabledReason ?? null) : null,
  lastSuccessAt: s.lastSuccessAt ?? null,
  lastFailure: s.lastFailure ?? null,
  consecutiveFailures: s.consecutiveFailures ?? 0,
  failingSince: s.failingSince ?? null,
});

export async function getSubscription(r: Reader, accountId: string, id: string): Promise<Subscription> {
  const sub = await r.get<Subscription>('webhooks', id);
  if (!sub || sub.accountId !== accountId) throw notFound('Webhook');
  return sub;
}

export async function removeSubscription(tx: Tx, accountId: string, id: string): Promise<Subscription> {
  const sub = await getSubscription(tx, accountId, id);
  await tx.remove('webhooks', id);
  // A disabled one gone (its n8n workflow deactivated) no longer asks anyone to fix it: open consoles stop warning.
  subscriptionsChanged(tx, accountId);
  return sub;
}

/** A subscription as the audit log names it: by its receiver's host, as a path may hold a token of the receiver's. */
export const webhookTarget = (sub: Subscription) => ({
  type: 'webhook' as const,
  id: sub.id,
  name: new URL(sub.url).host,
});

/** The deliveries still pending for a receiver: waiting for their first attempt, their turn or their retry. */
export const pendingDeliveriesTo = (r: Reader, target: string) => r.find<Delivery>('deliveries', 'pending', [target]);

/** Why a delivery failed without being posted: its subscription was deleted while it waited. */
export const SUBSCRIPTION_DELETED = 'The webhook subscription was deleted';

/** Why a delivery failed without being posted: its subscription was disabled (410 Gone, or failing for days). */
export const SUBSCRIPTION_DISABLED = 'The webhook subscription is disabled';

/** The account's subscriptions, oldest first: all of them, as emit() needs. */
export const subscriptionsOf = (r: Reader, accountId: string) =>
  r.find<Subscription>('webhooks', 'account', [accountId]);

/** A page of the account's subscriptions, each at its place: one deleted between two pages does not end the walk. */
export const subscriptionPage = (r: Pick<Store, 'findPlaced'>, accountId: string, page: Page) =>
  r.findPlaced<Subscription>('webhooks', 'account', [accountId], page);

/** The receiver of replies the account saved in its settings: the Custom Channel Webhook URL. */
export const OWNER_TARGET = 'settings';

/** Why a custom channel's reply has nowhere to go. */
export const NO_RECEIVER = 'No Custom Channel Webhook URL is configured (Settings > Custom Channel Webhook)';

/**
 * Why a reply has nowhere to go, told so that it can be mended: no Custom Channel Webhook URL, and the subscriptions
 * taking replies (the n8n trigger's) disabled, when they are, each named with how to start it again.
 */
export async function noReceiver(r: Reader, accountId: string): Promise<string> {
  const disabled = (await subscriptionsOf(r, accountId)).filter((s) => s.disabledAt && s.events.includes('reply'));
  if (disabled.length === 0) return NO_RECEIVER;
  const named = disabled.map(
    (s) => `webhook subscription ${s.id} (${s.url}) is disabled: enable it with POST /v1/webhooks/${s.id}/enable`,
  );
  return `${NO_RECEIVER}, and the ${named.join('; the ')} (or in Settings > Custom Channel Webhook, or by activating its n8n workflow again)`;
}

/** Where an event of the account goes: the settings URL takes replies (spec §6.1), subscriptions the events they named. */
export async function receiversOf(
  r: Reader,
  account: Account,
  event: EventType,
): Promise<Array<{ target: string; url: string }>> {
  const targets: Array<{ target: string; url: string }> = [];
  if (event === 'reply' && account.customChannelWebhookUrl)
    targets.push({ target: OWNER_TARGET, url: account.customChannelWebhookUrl });
  for (const sub of await subscriptionsOf(r, account.id)) {
    if (sub.events.includes(event) && !sub.disabledAt) targets.push({ target: sub.id, url: sub.url });
  }
  return targets;
}

/** Queues one delivery of an event to one receiver, and the job that posts it. */
export async function queueDelivery<E extends EventType>(
  tx: Tx,
  accountId: string,
  event: E,
  payload: EventPayload<E>,
  messageId: string | null,
  receiver: { target: string; url: string },
): Promise<Delivery> {
  const delivery = await tx.insert<Delivery>('deliveries', newDelivery(accountId, event, payload, messageId, receiver));
  await tx.enqueue(deliverJob(delivery));
  return delivery;
}

/** A delivery of an event to one receiver, pending, not attempted yet. */
export function newDelivery<E extends EventType>(
  accountId: string,
  event: E,
  payload: EventPayload<E>,
  messageId: string | null,
  receiver: { target: string; url: string },
): Delivery {
  const at = now();
  return {
    id: newId('dlv'),
    accountId,
    event,
    messageId,
    // The contact the event is about, where it is about one (an erasure finds its deliveries by it).
    contactId: 'contactId' in payload && typeof payload.contactId === 'string' ? payload.contactId : null,
    ...receiver,
    payload,
    status: 'pending',
    pendingTarget: receiver.target,
    attempts: [],
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * The job that posts a delivery. Not keyed: a retry may queue it again while the run that failed it is still
 * settling. It holds the delivery's id and its receiver (whose URL and secret are then read with the delivery), and
 * ends doing nothing once the delivery is gone (an erasure).
 */
export const deliverJob = (delivery: Pick<Delivery, 'id' | 'accountId' | 'target'>) =>
  newJob('deliver', { deliveryId: delivery.id, target: delivery.target }, { accountId: delivery.accountId });

/** Queues one delivery of an event to each receiver of the account that takes it; returns the deliveries made. */
export async function emit<E extends EventType>(
  tx: Tx,
  account: Account,
  event: E,
  payload: EventPayload<E>,
  messageId: string | null = null,
): Promise<Delivery[]> {
  const deliveries: Delivery[] = [];
  for (const receiver of await receiversOf(tx, account, event))
    deliveries.push(await queueDelivery(tx, account.id, event, payload, messageId, receiver));
  return deliveries;
}

/**
 * Where a delivery goes at this attempt and the secrets that sign it, as the receiver is saved now: the account's
 * Custom Channel Webhook URL as changed since the reply was written (spec §4.7: the platform saved is the one that
 * reaches the contact), the subscription as it is. When there is none any more, why.
 */
export async function receiverNow(
  r: Reader,
  delivery: Pick<Delivery, 'target' | 'accountId'>,
): Promise<{ url: string; secrets: string[]; subscription?: Subscription } | { gone: string }> {
  if (delivery.target === OWNER_TARGET) {
    const account = await r.get<Account>('accounts', delivery.accountId);
    if (!account?.customChannelWebhookUrl) return { gone: NO_RECEIVER };
    return { url: account.customChannelWebhookUrl, secrets: signingSecrets(account) };
  }
  const sub = await r.get<Subscription>('webhooks', delivery.target);
  if (!sub) return { gone: SUBSCRIPTION_DELETED };
  // Its retries stop with it: a receiver that asked for no more (410 Gone) gets none.
  if (sub.disabledAt) return { gone: SUBSCRIPTION_DISABLED };
  return { url: sub.url, secrets: [sub.secret], subscription: sub };
}
