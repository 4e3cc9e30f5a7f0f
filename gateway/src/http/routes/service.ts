import type { Request, Response } from 'express';
import type { Gateway } from '../../context.js';
import { clockNow } from '../../clock.js';
import { metrics, registry } from '../../metrics.js';
import { route, type Routes } from '../route.js';

/** What the process knows of itself beyond the store: whether it runs its jobs, whether it is shutting down. */
export interface ServiceState {
  jobsRunning(): boolean;
  shuttingDown(): boolean;
}

/**
 * The operator's probes, answered before any key or rate limit and left out of the request log (a balancer asks
 * every few seconds):
 * - `GET /healthz`: 200 while the process serves. A supervisor restarts a process that stops answering it.
 * - `GET /readyz`: 200 while the store answers, the job runner runs and no shutdown has begun; else 503 naming the
 *   failing part. A balancer sends traffic only to ready processes.
 * - `GET /metrics`: the Prometheus text format, behind the admin token or LEADCHAT_METRICS_TOKEN.
 * Neither probe tells more than its status: no version, no detail of a failure (the log has it).
 */
export function serviceRoutes(app: Routes, gw: Gateway, state: ServiceState): void {
  route(app, '/healthz', { get: (_req, res) => void res.json({ status: 'ok' }) });

  route(app, '/readyz', { get: readiness(gw, state) });

  route(app, '/metrics', {
    get: async (_req: Request, res: Response) => {
      await queueGauges(gw);
      res.type(registry.contentType).send(await registry.metrics());
    },
  });
}

/** `GET /readyz`: whether the store answers, the jobs run and no shutdown has begun; a failure is logged once. */
function readiness(gw: Gateway, state: ServiceState) {
  let lastFailure: string | undefined;
  return async (_req: Request, res: Response) => {
    const checks = { store: 'ok', jobs: 'ok', shutdown: 'no' };
    if (state.shuttingDown()) checks.shutdown = 'begun';
    if (!state.jobsRunning()) checks.jobs = 'stopped';
    try {
      await gw.store.ping();
    } catch (err) {
      checks.store = 'unavailable';
      const reason = (err as Error).message;
      if (reason !== lastFailure) gw.log.warn({ reason }, 'not ready: the store is unavailable');
      lastFailure = reason;
    }
    if (checks.store === 'ok') lastFailure = undefined;
    const ready = checks.store === 'ok' && checks.jobs === 'ok' && checks.shutdown === 'no';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  };
}

/** The queue's gauges are read from the store at each scrape: every process of a database shows the same queue. */
async function queueGauges(gw: Gateway): Promise<void> {
  const stats = await gw.store.jobs.stats();
  const at = clockNow();
  for (const gauge of [metrics.jobsQueued, metrics.oldestDueJob, metrics.deadJobs]) gauge.reset();
  for (const { kind, queued, oldestDueAt, dead } of stats) {
    metrics.jobsQueued.set({ kind }, queued);
    metrics.oldestDueJob.set({ kind }, oldestDueAt === null ? 0 : Math.max(0, (at - oldestDueAt) / 1000));
    metrics.deadJobs.set({ kind }, dead);
  }
}
