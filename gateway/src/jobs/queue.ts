import type { Gateway } from '../context.js';
import { newId, now } from '../ids.js';
import type { Tx } from '../store/store.js';

/**
 * The durable job queue (transactional outbox): a job is written in the same transaction as the change that
 * caused it, so a side effect is never lost nor run for a change that did not commit.
 */
export interface Job<D = Record<string, unknown>> {
  id: string;
  kind: string;
  data: D;
  status: 'pending' | 'running';
  /** Epoch milliseconds at which the job is due. */
  runAt: number;
  createdAt: string;
}

export function enqueue<D extends Record<string, unknown>>(tx: Tx, kind: string, data: D, runAt = Date.now()): Job<D> {
  return tx.insert<Job<D>>('jobs', { id: newId('job'), kind, data, status: 'pending', runAt, createdAt: now() });
}

export type JobResult = { retryAt: number } | void;
export type JobHandler = (gw: Gateway, job: Job<any>) => Promise<JobResult>;

/**
 * Claims due jobs and runs them, a few at a time. A job's handler records its own outcome; the runner removes
 * the job when it finishes or reschedules it when asked. Jobs left running by a crash run again on start.
 */
export class JobRunner {
  private timer: NodeJS.Timeout | undefined;
  private running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly gw: Gateway,
    private readonly handlers: Record<string, JobHandler>,
    private readonly concurrency = 8,
    private readonly pollMs = 1000,
  ) {}

  async start(): Promise<void> {
    const interrupted = this.gw.store.lookup<Job>('jobs', 'status', 'running');
    if (interrupted.length) {
      await this.gw.store.transact((tx) => {
        for (const job of interrupted) tx.update<Job>('jobs', job.id, { status: 'pending' });
      });
    }
    this.tick();
  }

  /** Runs due jobs now instead of at the next poll. */
  wake(): void {
    if (!this.stopped) setImmediate(() => this.tick());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.running]);
  }

  private tick(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const t = Date.now();
    let next = t + this.pollMs;
    for (const job of this.gw.store.lookup<Job>('jobs', 'status', 'pending')) {
      if (job.runAt > t) {
        next = Math.min(next, job.runAt);
        continue;
      }
      if (this.running.size >= this.concurrency) break;
      this.launch(job);
    }
    this.timer = setTimeout(() => this.tick(), Math.max(10, next - Date.now()));
    this.timer.unref();
  }

  private launch(job: Job): void {
    const run = this.run(job).finally(() => {
      this.running.delete(run);
      this.wake();
    });
    this.running.add(run);
  }

  private async run(job: Job): Promise<void> {
    const handler = this.handlers[job.kind];
    try {
      await this.gw.store.transact((tx) => tx.update<Job>('jobs', job.id, { status: 'running' }));
      const result = handler ? await handler(this.gw, job) : this.gw.log.error({ kind: job.kind }, 'no handler for job');
      await this.gw.store.transact((tx) => {
        if (result) tx.update<Job>('jobs', job.id, { status: 'pending', runAt: result.retryAt });
        else tx.remove('jobs', job.id);
      });
    } catch (err) {
      // A handler that throws has hit a fault of ours or of the disk: try again later rather than lose the job.
      this.gw.log.error({ err, job: job.id, kind: job.kind }, 'job failed; retrying in a minute');
      await this.gw.store
        .transact((tx) => tx.get('jobs', job.id) && tx.update<Job>('jobs', job.id, { status: 'pending', runAt: Date.now() + 60_000 }))
        .catch(() => undefined);
    }
  }
}
