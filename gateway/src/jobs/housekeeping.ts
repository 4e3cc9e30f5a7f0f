import type { Gateway } from '../context.js';
import { forgetExpiredKeys } from '../domain/idempotency.js';
import type { JobResult } from '../store/store.js';
import { clockNow } from '../clock.js';

const EVERY_MS = 3_600_000;

/** One housekeeping job for the whole deployment (its key makes it one however many processes start). */
export async function scheduleHousekeeping(gw: Gateway): Promise<void> {
  await gw.store.transact(async (tx) => {
    await tx.enqueue({ kind: 'housekeeping', key: 'housekeeping', data: {}, runAt: clockNow() + EVERY_MS });
  });
}

/** Hourly: forgets Idempotency-Key records past their 24 hours. */
export async function housekeeping(gw: Gateway): Promise<JobResult> {
  const forgotten = await forgetExpiredKeys(gw);
  if (forgotten > 0) gw.log.info({ forgotten }, 'expired Idempotency-Key records removed');
  return { retryAt: clockNow() + EVERY_MS };
}
