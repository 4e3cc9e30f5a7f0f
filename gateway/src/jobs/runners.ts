import type { Config } from '../config.js';
import type { JobQueueName } from '../domain/job-kinds.js';
import { DEFAULT_QUEUE } from '../store/store.js';
import { catalogueHandler } from './catalogue.js';
import { CONCURRENCY, JobRunner, type JobContext } from './queue.js';

/**
 * A runner for each job queue (domain/job-kinds.ts), with slots of its own: a provider's entries, seconds each on a
 * file or a profile, and deliveries, waiting on receivers, never take the slots of openings, sends and bot replies.
 */
export function jobRunners(
  gw: JobContext,
  config: Pick<Config, 'jobLeaseMs' | 'jobPollMs' | 'inboundConcurrency'>,
): JobRunner[] {
  const concurrency: Record<JobQueueName, number> = {
    [DEFAULT_QUEUE]: CONCURRENCY,
    inbound: config.inboundConcurrency,
    deliveries: CONCURRENCY,
  };
  return Object.entries(concurrency).map(
    ([queue, slots]) =>
      new JobRunner(gw, catalogueHandler, {
        queue,
        concurrency: slots,
        leaseMs: config.jobLeaseMs,
        pollMs: config.jobPollMs,
      }),
  );
}
