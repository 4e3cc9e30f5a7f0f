import type { Gateway } from '../context.js';
import { newJob } from '../domain/job-kinds.js';
import type { Doc, Job, JobResult } from '../store/store.js';
import type { JobContext } from './queue.js';

/**
 * A walk over every document of a collection, to give those an earlier release stored what this release stores with
 * each. It is scheduled at start until one run of it has walked them all (a setting marks it done, so no process
 * schedules it again), reads a page at a time, and goes on in a job of its own after `perRun` documents, so that a
 * lease never has to cover them all. `apply` must be safe to run twice on a page.
 */
export interface Backfill<T extends Doc> {
  kind:
    | 'contact_search_index'
    | 'delivery_contacts'
    | 'pending_deliveries'
    | 'auto_recharge_requests'
    | 'failed_openings'
    | 'credit_days';
  /** The setting that marks the walk done; raised when what the walk gives changes. */
  done: string;
  collection: string;
  page: number;
  perRun: number;
  apply(gw: JobContext, page: T[]): Promise<void>;
  /** The log line once every document has been walked. */
  finished: string;
}

export async function scheduleBackfill<T extends Doc>(gw: Gateway, walk: Backfill<T>): Promise<void> {
  if (await gw.store.settings.get(walk.done)) return;
  await gw.store.transact((tx) => tx.enqueue(newJob(walk.kind, {}, { key: walk.kind.replace(/_/g, '-') })));
}

export async function runBackfill<T extends Doc>(
  gw: JobContext,
  walk: Backfill<T>,
  job: Job<{ after?: string }>,
): Promise<JobResult> {
  let after = job.data.after;
  for (let walked = 0; walked < walk.perRun; ) {
    const page = await gw.store.scan<T>(walk.collection, { limit: walk.page, after });
    await walk.apply(gw, page);
    walked += page.length;
    if (page.length < walk.page) {
      await gw.store.settings.putIfAbsent(walk.done, new Date().toISOString());
      // A store that held none of them (a new one) had nothing to be told of.
      const none = job.data.after === undefined && walked === 0;
      gw.log[none ? 'debug' : 'info']({ collection: walk.collection }, walk.finished);
      return;
    }
    after = page.at(-1)!.id;
  }
  await gw.store.transact((tx) => tx.enqueue(newJob(walk.kind, { after })));
}
