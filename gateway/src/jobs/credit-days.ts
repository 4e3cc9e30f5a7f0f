import type { Gateway } from '../context.js';
import { dayOf, type CreditTransaction } from '../domain/credits.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { Job, JobResult } from '../store/store.js';
import { runBackfill, scheduleBackfill, type Backfill } from './backfill.js';
import type { JobContext } from './queue.js';

/**
 * Each credit entry holds its UTC day, by which the history filtered by dates finds it (domain/credit-history.ts).
 * Those an earlier release stored hold none: job `credit_days` gives it them (PostgreSQL's migration 28 did the same
 * at once). An entry never changes, so a day given twice is the same day.
 */
const walk: Backfill<CreditTransaction> = {
  kind: 'credit_days',
  done: 'credit-days-1',
  collection: 'transactions',
  page: 200,
  perRun: 5_000,
  apply: async (gw, page) => {
    const undated = page.filter((t) => !t.day && t.createdAt);
    if (undated.length === 0) return;
    await gw.store.transact(async (tx) => {
      for (const { id, createdAt } of undated)
        await tx.update<CreditTransaction>('transactions', id, { day: dayOf(createdAt) });
    });
  },
  finished: 'every credit entry holds its day',
};

export const scheduleCreditDays = (gw: Gateway): Promise<void> => scheduleBackfill(gw, walk);

export const dateCreditEntries = (gw: JobContext, job: Job<JobKinds['credit_days']>): Promise<JobResult> =>
  runBackfill(gw, walk, job);
