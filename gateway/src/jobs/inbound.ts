import type { JobKinds } from '../domain/job-kinds.js';
import { isUnprocessable, processEntry } from '../engine/inbound.js';
import type { Job, JobResult } from '../store/store.js';
import { clockNow } from '../clock.js';
import { UnprocessableJob, type JobContext } from './queue.js';

/**
 * The tries during which an entry that failed keeps its contact's turn: after a fault (the store away) its contact's
 * later messages wait for its next tries, about a minute and then two on the job schedule, and then go on without
 * it. A run cut short (its process died, its lease ran out) is no fault: the entry keeps its turn.
 */
const TURN_TRIES = 3;

/**
 * When a status report that named no message is read again, counted from when it came: a provider may report on a
 * message before it answers the send that names it (Twilio's callbacks can overtake its API's answer), and a send
 * gets its answer within its 15-second timeout. After the last look the report is dropped: it was on a message
 * sent from the same number by something else (WhatsApp reports those too), or one erased since.
 */
const EARLY_REPORT_LOOKS_MS = [2_000, 10_000, 40_000];

/**
 * Job `inbound`: one entry of a provider's webhook, processed after the provider was answered (engine/inbound.ts).
 * A fault (the store away) is retried on the job schedule; an entry that can never be processed goes to the dead
 * jobs at once, alone, saying where it was and why, for the operator to read at /admin/v1/jobs.
 */
export async function inbound(ctx: JobContext, job: Job<JobKinds['inbound']>): Promise<JobResult> {
  let unknown: boolean;
  try {
    // An entry taken before takenAt was kept: its job was made when it was taken, or later for one that waited its turn.
    const entry = { ...job.data, takenAt: job.data.takenAt ?? job.createdAt };
    unknown = await processEntry(ctx, entry, job.lastError === null || job.attempts < TURN_TRIES);
  } catch (err) {
    if (isUnprocessable(err))
      throw new UnprocessableJob(whereAndWhy(job.data.entry.where, err.message), { cause: err });
    throw err;
  }
  const came = Date.parse(job.createdAt);
  const next = EARLY_REPORT_LOOKS_MS.map((ms) => came + ms).find((at) => at > clockNow());
  if (unknown && next !== undefined) return { later: next };
}

/** Where the entry was and why it cannot be processed, its place said once: the reason often names it already. */
const whereAndWhy = (where: string, why: string): string => (why.startsWith(where) ? why : `${where}: ${why}`);
