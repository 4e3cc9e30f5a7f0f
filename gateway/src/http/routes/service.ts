import type { Request, Response } from 'express';
import type { Gateway } from '../../context.js';
import { clockNow } from '../../clock.js';
import { metrics, registry } from '../../metrics.js';
import type { JobStats } from '../../store/store.js';
import { route, type Routes } from '../route.js';

/** What the process knows of itself beyond the store: whether it runs its jobs, whether it is shutting down. */
export interface ServiceState {
  jobsRunning(): boolean;
  shuttingDown(): boolean;
}

/**
 * The operator's probes, answered before any key or rate limit and left out of the request log (a balancer asks
 * every few seconds):
 * - `GET /healthz`: 200 while the process serves; 503 with the reason once its store cannot recover without a
 *   restart. A supervisor restarts a process that stops answering it, or answers it 503.
 * - `GET /readyz`: 200 while the store answers, the job runner runs and no shutdown has begun; else 503 naming the
 *   failing part. A balancer sends traffic only to ready processes.
 * - `GET /metrics`: the Prometheus text format, behind the admin token or LEADCHAT_METRICS_TOKEN; it answers while the
 *   store is away too (an outage is when an operator needs it most), saying so in `leadchat_store_up`.
 * Neither probe tells more than its status: no version, no detail of a failure (the log has it, once: see
 * StoreHealth), but for the store's files found damaged, named from the data dir, and why a store needs a restart,
 * in the store's own words.
 */
export function serviceRoutes(app: Routes, gw: Gateway, state: ServiceState): void {
  route(app, '/healthz', { get: liveness(gw) });

  route(app, '/readyz', { get: readiness(gw, state) });

  route(app, '/metrics', {
    get: async (_req: Request, res: Response) => {
      await storeGauges(gw);
      res.type(registry.contentType).send(await registry.metrics());
    },
  });
}

/**
 * `GET /healthz`: 200 while the process serves, unless its store can no longer recover by itself (the embedded
 * store's journal in a state it cannot know): then 503 with the store's reason, in its own words (no path, no
 * system detail), so that a supervisor restarts a process that would otherwise refuse writes until someone does.
 */
function liveness(gw: Gateway) {
  return (_req: Request, res: Response) => {
    const reason = gw.store.health.restartReason;
    if (reason === undefined) res.json({ status: 'ok' });
    else res.status(503).json({ status: 'failed', reason });
  };
}

/**
 * `GET /readyz`: whether the store answers, the jobs run and no shutdown has begun. The ping tells the store's
 * health, which logs an outage (once when it begins, once when it ends), not each probe of it.
 */
function readiness(gw: Gateway, state: ServiceState) {
  return async (_req: Request, res: Response) => {
    const checks = { store: 'ok', jobs: 'ok', shutdown: 'no' };
    if (state.shuttingDown()) checks.shutdown = 'begun';
    if (!state.jobsRunning()) checks.jobs = 'stopped';
    const answered = await gw.store.ping().then(
      () => true,
      () => false,
    );
    if (!answered || !gw.store.health.up) checks.store = 'unavailable';
    // Named, unlike an outage's cause: the operator has a file to restore, and the log may be far away.
    const damaged = (gw.store.damaged?.() ?? []).map(({ file }) => file);
    if (damaged.length > 0) checks.store = 'damaged';
    const ready = checks.store === 'ok' && checks.jobs === 'ok' && checks.shutdown === 'no';
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : 'unavailable', checks, ...(damaged.length > 0 ? { damaged } : {}) });
  };
}

/** A scrape waits this long at most for the store (Prometheus gives up on a scrape after 10 s by default). */
const STORE_PATIENCE_MS = 2_000;

/**
 * The store's gauges: `leadchat_store_up`, and the queue's gauges read from the store at each scrape (every process
 * of a database shows the same queue; they cost the same however many jobs wait, see JobQueue.stats). A store out of
 * reach does not fail the scrape: it is 0, and the queue's gauges are left out rather than shown stale.
 */
async function storeGauges(gw: Gateway): Promise<void> {
  for (const gauge of [metrics.jobsQueued, metrics.oldestDueJob, metrics.deadJobs]) gauge.reset();
  let stats: JobStats[] | undefined;
  const timeout = Object.assign(new Error(`the store did not answer the scrape within ${STORE_PATIENCE_MS / 1000} s`), {
    code: 'ETIMEDOUT',
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeout), STORE_PATIENCE_MS);
  });
  try {
    stats = await Promise.race([gw.store.ping().then(() => gw.store.jobs.stats()), late]);
  } catch (err) {
    if (err === timeout) gw.store.health.failed(err);
    // The store told its health of an outage; anything else is a fault of ours, worth its stack.
    else if (gw.store.health.up) gw.log.error({ err }, 'metrics: the queue could not be read');
  } finally {
    clearTimeout(timer);
  }
  const up = stats !== undefined && gw.store.health.up;
  metrics.storeUp.set(up ? 1 : 0);
  if (!stats || !up) return;
  const at = clockNow();
  for (const { kind, queued, oldestDueAt, dead } of stats) {
    metrics.jobsQueued.set({ kind }, queued);
    metrics.oldestDueJob.set({ kind }, oldestDueAt === null ? 0 : Math.max(0, (at - oldestDueAt) / 1000));
    metrics.deadJobs.set({ kind }, dead);
  }
}
