import type { JobKinds } from '../domain/job-kinds.js';
import { isUnprocessable, processEntry } from '../engine/inbound.js';
import type { Job, JobResult } from '../store/store.js';
import { UnprocessableJob, type JobContext } from './queue.js';

/**
 * The tries during which an entry that failed keeps its contact's turn: after a fault (the store away) its contact's
 * later messages wait for its next tries, about a minute and then two on the job schedule, and then go on without
 * it. A run cut short (its process died, its lease ran out) is no fault: the entry keeps its turn.
 */
const TURN_TRIES = 3;

/**
 * Job `inbound`: one entry of a provider's webhook, processed after the provider was answered (engine/inbound.ts).
 * A fault (the store away) is retried on the job schedule; an entry that can never be processed goes to the dead
 * jobs at once, alone, saying where it was and why, for the operator to read at /admin/v1/jobs.
 */
export async function inbound(ctx: JobContext, job: Job<JobKinds['inbound']>): Promise<JobResult> {
  try {
    await processEntry(ctx, job.data, job.lastError === null || job.attempts < TURN_TRIES);
  } catch (err) {
    if (isUnprocessable(err)) throw new UnprocessableJob(`${job.data.entry.where}: ${err.message}`, { cause: err });
    throw err;
  }
}
