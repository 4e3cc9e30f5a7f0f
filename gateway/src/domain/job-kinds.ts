import { DEFAULT_QUEUE, type NewJob } from '../store/store.js';
import type { InboundJob } from './inbound-entries.js';

/**
 * Every kind of durable job and the data it carries. Whoever queues a job names its kind and data here (newJob);
 * the catalogue (jobs/catalogue.ts) gives each kind its handler. A kind without a handler, or data of the wrong
 * shape, does not compile.
 */
export type JobKinds = {
  /** A webhook event to one receiver (domain/webhooks.ts). */
  /**
   * `target`: the delivery's receiver, so that its secret is read with the delivery (jobs queued before it was named
   * have none, and read it after).
   */
  deliver: { deliveryId: string; target?: string };
  /** An outgoing message handed to its channel's provider. */
  send: { messageId: string };
  /** A campaign's opening message to one contact, when its pacing and sending window allow. */
  opening: { openingId: string };
  /** Follow-up `step` of a conversation (0 = the first); after the last, the conversation closes. */
  follow_up: { conversationId: string; step: number };
  /** A campaign Live again: what its pause held goes back to the queue. */
  campaign_resume: { campaignId: string };
  /** A Live campaign's send rate or sending window changed: the opening messages waiting are paced anew. */
  campaign_pace: { campaignId: string };
  /** A campaign's follow-up delays or sending window changed: the follow-ups waiting are timed anew. */
  campaign_follow_ups: { campaignId: string };
  /** The team is reminded of a contact who has waited for a person since `since` (domain/handoff-waits.ts). */
  handoff_reminder: { conversationId: string; since: string };
  /**
   * The account's reminder or business hours changed (its change `version`): the reminders of the contacts waiting are
   * timed anew (engine/handoff-reminder-times.ts).
   */
  handoff_reminders: { accountId: string; version: number };
  /** A conversation snoozed until `until` comes back (domain/snooze-timers.ts, engine/snooze-ends.ts). */
  snooze_end: { conversationId: string; until: string };
  /** The bot answers the contact's latest message, once a burst has settled. */
  bot_reply: { conversationId: string; messageId: string };
  /** The bot's answer `messageId` failed for good: the team answers instead (engine/failed-answer.ts). */
  reply_failed: { messageId: string };
  /** One chunk of an import's rows. */
  import: { importId: string; position: number };
  /** The memberships of a deleted list, removed a batch at a time (domain/list-deletion.ts). */
  list_memberships: { listId: string };
  /** The data of a deleted account, removed a batch at a time (domain/account-deletion.ts). */
  account_deletion: { accountId: string };
  /** Hourly upkeep of the deployment. */
  housekeeping: Record<string, never>;
  /** Search keys for contacts stored before they existed, from the one after `after`. */
  contact_search_index: { after?: string };
  /** The contact of each delivery stored before deliveries named it, from the one after `after`. */
  delivery_contacts: { after?: string };
  /** The receiver of each delivery an earlier release left pending, from the one after `after`. */
  pending_deliveries: { after?: string };
  /** The UTC day of each credit entry stored before entries held it, from the one after `after`. */
  credit_days: { after?: string };
  /** The openings an earlier release left failed, counted and retried as failed ones, from the one after `after`. */
  failed_openings: { after?: string };
  /** Auto-recharge requests an earlier release left waiting, from the account after `after`: each looked at again. */
  auto_recharge_requests: { after?: string };
  /**
   * Auto-recharge request `sequence` of a sub-account, looked at once its deliveries are settled: one that reached
   * no receiver is asked again (domain/auto-recharge.ts).
   */
  auto_recharge_unheard: { subAccountId: string; sequence: number; deliveryIds: string[]; askedAt: number };
  /** One entry of a provider's webhook: a contact's message, or the status of messages sent. */
  inbound: InboundJob;
};

export type JobKind = keyof JobKinds;

/**
 * The job queues, each run by runners of its own, so that one kind's work never waits behind another's. A provider's
 * entries (`inbound`) spend seconds reading files and profiles: in a queue of their own, many run side by side while
 * openings, deliveries and bot replies keep their pace in `default`. A delivery waits on a receiver the account
 * chose, up to LEADCHAT_WEBHOOK_TIMEOUT: in `deliveries`, a receiver that holds them holds no opening, send, follow-up
 * or bot reply of any account. (A delivery queued before this queue was kept runs in `default`, as it was queued.)
 */
export type JobQueueName = typeof DEFAULT_QUEUE | 'inbound' | 'deliveries';

const QUEUES: Partial<Record<JobKind, JobQueueName>> = { inbound: 'inbound', deliver: 'deliveries' };

export const queueOf = (kind: JobKind): JobQueueName => QUEUES[kind] ?? DEFAULT_QUEUE;

/** A job to queue (Tx.enqueue), its data checked against its kind, in its kind's queue. */
export function newJob<K extends JobKind>(
  kind: K,
  data: JobKinds[K],
  options: Pick<NewJob, 'runAt' | 'key' | 'accountId'> = {},
): NewJob<JobKinds[K]> {
  return { kind, data, queue: queueOf(kind), ...options };
}
