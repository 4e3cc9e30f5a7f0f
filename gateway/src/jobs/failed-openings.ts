import type { Gateway } from '../context.js';
import type { Conversation } from '../domain/conversations.js';
import { countFailedOpening, isOpening } from '../domain/failed-openings.js';
import { followUpKey } from '../domain/follow-up-timers.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { Message } from '../domain/messages.js';
import type { Opening } from '../domain/openings.js';
import type { Job, JobResult, Tx } from '../store/store.js';
import { runBackfill, scheduleBackfill, type Backfill } from './backfill.js';
import type { JobContext } from './queue.js';

/**
 * An opening whose message failed reads `failed`, and the campaign counts and retries it (domain/failed-openings.ts).
 * An earlier release settled such an opening `sent` and kept no list of them: job `failed_openings` gives each one
 * still failed what a failure gives it now, so that the campaign's page counts it, **Retry failed openings** sends it
 * and a lead's message is not taken for a reply to an opening the lead never got, nor asked by a follow-up whether they
 * are still there. The opening and its conversation keep the times they had.
 */
const walk: Backfill<Opening> = {
  kind: 'failed_openings',
  done: 'failed-openings-1',
  collection: 'openings',
  page: 200,
  perRun: 5_000,
  apply: async (gw, page) => {
    const settled = page.filter((o) => o.status === 'sent' && o.messageId !== null);
    if (settled.length === 0) return;
    await gw.store.transact(async (tx) => {
      for (const { id } of settled) await markFailed(tx, id);
    });
  },
  finished: "every opening an earlier release left failed is among its campaign's failed openings",
};

/** Read again in the transaction: a retry may have sent it since the page was read. */
async function markFailed(tx: Tx, openingId: string): Promise<void> {
  const opening = await tx.get<Opening>('openings', openingId);
  if (opening?.status !== 'sent' || !opening.messageId) return;
  const message = await tx.get<Message>('messages', opening.messageId);
  if (message?.status !== 'failed' || !isOpening(message)) return;
  await tx.update<Opening>('openings', opening.id, { status: 'failed' });
  await countFailedOpening(tx, message);
  const conversation = await tx.get<Conversation>('conversations', opening.conversationId);
  if (conversation?.opening?.campaignId !== opening.campaignId || conversation.opening.status !== 'sent') return;
  // Those releases timed the first follow-up from the failed opening: it would ask "Still there?" of a lead who got
  // nothing. A retry that sends the opening times it from then (engine/follow-ups.ts, followRetried).
  const next = conversation.next;
  const timed =
    (next?.kind === 'follow_up' || next?.kind === 'close') &&
    conversation.campaignId === opening.campaignId &&
    conversation.lastMessage?.id === message.id;
  if (timed) await tx.cancelJobs(followUpKey(conversation.id, next.step!));
  await tx.update<Conversation>('conversations', conversation.id, {
    opening: { ...conversation.opening, status: 'failed' },
    ...(timed ? { next: null, followUpHeld: null } : {}),
  });
}

export const scheduleFailedOpenings = (gw: Gateway): Promise<void> => scheduleBackfill(gw, walk);

export const markFailedOpenings = (gw: JobContext, job: Job<JobKinds['failed_openings']>): Promise<JobResult> =>
  runBackfill(gw, walk, job);
