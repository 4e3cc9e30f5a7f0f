import { askAgainIfUnheard } from '../domain/auto-recharge.js';
import { watchAutoRechargeRequests } from './auto-recharge-requests.js';
import { runBotReply } from '../engine/bot-reply.js';
import { runReplyFailed } from '../engine/failed-answer.js';
import { runFollowUp } from '../engine/follow-ups.js';
import { runCampaignFollowUps } from '../engine/campaign-follow-ups.js';
import { runHandoffReminder } from '../engine/handoff-reminders.js';
import { runHandoffReminders } from '../engine/handoff-reminder-times.js';
import { runSnoozeEnd } from '../engine/snooze-ends.js';
import { runCampaignPace, runCampaignResume } from '../engine/campaign-queue.js';
import { runOpening } from '../engine/openings.js';
import type { JobKind, JobKinds } from '../domain/job-kinds.js';
import type { Job, JobResult } from '../store/store.js';
import { indexContacts } from './contact-search-index.js';
import { deliver } from './deliver.js';
import { nameDeliveryContacts } from './delivery-contacts.js';
import { namePendingDeliveries } from './pending-deliveries.js';
import { dateCreditEntries } from './credit-days.js';
import { markFailedOpenings } from './failed-openings.js';
import { housekeeping } from './housekeeping.js';
import { runImport } from './import.js';
import { removeListMemberships } from '../domain/list-deletion.js';
import { runAccountDeletion } from '../domain/account-deletion.js';
import { inbound } from './inbound.js';
import type { HandlerOf, JobContext } from './queue.js';
import { sendMessageJob } from './send.js';

export type JobHandler<K extends JobKind> = (ctx: JobContext, job: Job<JobKinds[K]>) => Promise<JobResult>;

/** Every kind of durable job (domain/job-kinds.ts) and what runs it. */
export const jobCatalogue: { readonly [K in JobKind]: JobHandler<K> } = {
  deliver,
  send: sendMessageJob,
  opening: (ctx, job) => runOpening(ctx, job.data),
  follow_up: (ctx, job) => runFollowUp(ctx, job.data),
  campaign_resume: (ctx, job) => runCampaignResume(ctx, job.data),
  campaign_pace: (ctx, job) => runCampaignPace(ctx, job.data),
  campaign_follow_ups: (ctx, job) => runCampaignFollowUps(ctx, job.data),
  bot_reply: (ctx, job) => runBotReply(ctx, job.data),
  reply_failed: (ctx, job) => runReplyFailed(ctx, job.data),
  handoff_reminder: (ctx, job) => runHandoffReminder(ctx, job.data),
  handoff_reminders: (ctx, job) => runHandoffReminders(ctx, job.data),
  snooze_end: (ctx, job) => runSnoozeEnd(ctx, job.data),
  import: runImport,
  list_memberships: (ctx, job) => removeListMemberships(ctx, job.data),
  account_deletion: (ctx, job) => runAccountDeletion(ctx, job.data),
  housekeeping,
  contact_search_index: indexContacts,
  delivery_contacts: nameDeliveryContacts,
  pending_deliveries: namePendingDeliveries,
  credit_days: dateCreditEntries,
  failed_openings: markFailedOpenings,
  inbound,
  auto_recharge_unheard: (ctx, job) => askAgainIfUnheard(ctx, job.data),
  auto_recharge_requests: watchAutoRechargeRequests,
};

const isKind = (kind: string): kind is JobKind => Object.hasOwn(jobCatalogue, kind);

/**
 * The handler of a job the store hands over: the store keeps any kind's data as JSON, and a job is queued only
 * through newJob, with the data its kind takes.
 */
export const catalogueHandler: HandlerOf = (kind) =>
  isKind(kind) ? (jobCatalogue[kind] as (ctx: JobContext, job: Job) => Promise<JobResult>) : undefined;
