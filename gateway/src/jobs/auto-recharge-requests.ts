import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { watchRequest } from '../domain/auto-recharge.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { Job, JobResult } from '../store/store.js';
import { runBackfill, scheduleBackfill, type Backfill } from './backfill.js';
import type { JobContext } from './queue.js';

/**
 * An earlier release never looked again at an auto-recharge request: one that no receiver took left its rule waiting
 * for good. Job `auto_recharge_requests` walks the accounts once and has each request still waiting looked at as this
 * release looks at its own: once the retry schedule has run from the upgrade, it is asked again unless its grant came.
 * Which receivers took it is not known (that release kept no list of the request's deliveries); a grant still missing
 * that long after the request is a grant that will not come.
 */
const walk: Backfill<Account> = {
  kind: 'auto_recharge_requests',
  done: 'auto-recharge-requests-watched-1',
  collection: 'accounts',
  page: 200,
  perRun: 5_000,
  apply: async (gw, page) => {
    const waiting = page.filter((a) => a.parentId && a.autoRecharge?.pending);
    if (waiting.length === 0) return;
    await gw.store.transact(async (tx) => {
      for (const sub of waiting)
        await watchRequest(tx, sub.parentId!, {
          subAccountId: sub.id,
          sequence: sub.autoRecharge!.sequence,
          deliveryIds: [],
        });
    });
  },
  finished: 'auto-recharge requests an earlier release left waiting will be asked again unless granted',
};

export const scheduleAutoRechargeRequests = (gw: Gateway): Promise<void> => scheduleBackfill(gw, walk);

export const watchAutoRechargeRequests = (
  gw: JobContext,
  job: Job<JobKinds['auto_recharge_requests']>,
): Promise<JobResult> => runBackfill(gw, walk, job);
