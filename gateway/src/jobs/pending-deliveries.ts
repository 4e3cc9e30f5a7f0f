import type { Gateway } from '../context.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { Delivery } from '../domain/webhooks.js';
import type { Job, JobResult } from '../store/store.js';
import { runBackfill, scheduleBackfill, type Backfill } from './backfill.js';
import type { JobContext } from './queue.js';

/**
 * A pending delivery names its receiver (`pendingTarget`), so that deleting a subscription finds those still waiting
 * for it (engine/unsubscribe.ts). Those an earlier release left pending name none: job `pending_deliveries` names them
 * (PostgreSQL's migration 27 did the same at once). Each is read again as it is named: one settled since stays unnamed.
 */
const walk: Backfill<Delivery> = {
  kind: 'pending_deliveries',
  done: 'pending-deliveries-named-1',
  collection: 'deliveries',
  page: 200,
  perRun: 5_000,
  apply: async (gw, page) => {
    const unnamed = page.filter((d) => d.status === 'pending' && !d.pendingTarget);
    if (unnamed.length === 0) return;
    await gw.store.transact(async (tx) => {
      for (const { id } of unnamed) {
        const d = await tx.get<Delivery>('deliveries', id);
        if (d?.status === 'pending' && !d.pendingTarget)
          await tx.update<Delivery>('deliveries', id, { pendingTarget: d.target });
      }
    });
  },
  finished: 'every pending delivery names its receiver',
};

export const schedulePendingDeliveries = (gw: Gateway): Promise<void> => scheduleBackfill(gw, walk);

export const namePendingDeliveries = (gw: JobContext, job: Job<JobKinds['pending_deliveries']>): Promise<JobResult> =>
  runBackfill(gw, walk, job);
