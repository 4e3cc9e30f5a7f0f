import type { Gateway } from '../context.js';
import { forgetOldAuditEntries } from '../domain/audit-log.js';
import { forgetPastErasures } from '../domain/erasures.js';
import { forgetExpiredKeys } from '../domain/idempotency.js';
import type { JobResult } from '../store/store.js';
import { clockNow } from '../clock.js';
import { newJob } from '../domain/job-kinds.js';
import type { JobContext } from './queue.js';

const EVERY_MS = 3_600_000;

/** One housekeeping job for the whole deployment (its key makes it one however many processes start). */
export async function scheduleHousekeeping(gw: Gateway): Promise<void> {
  await gw.store.transact(async (tx) => {
    await tx.enqueue(newJob('housekeeping', {}, { key: 'housekeeping', runAt: clockNow() + EVERY_MS }));
  });
}

/**
 * Hourly: forgets Idempotency-Key records past their 24 hours, erasures past their reach, and the audit log's entries
 * past their year.
 */
export async function housekeeping(gw: JobContext): Promise<JobResult> {
  const forgotten = await forgetExpiredKeys(gw);
  if (forgotten > 0) gw.log.info({ forgotten }, 'expired Idempotency-Key records removed');
  const erasures = await forgetPastErasures(gw.store);
  if (erasures > 0) gw.log.info({ erasures }, 'erasures past their reach forgotten');
  const entries = await forgetOldAuditEntries(gw.store);
  if (entries > 0) gw.log.info({ entries }, "audit log's entries past their year removed");
  return { later: clockNow() + EVERY_MS };
}
