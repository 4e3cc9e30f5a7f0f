import { randomUUID } from 'node:crypto';
import { newId, now } from '../../ids.js';
import { Signals } from '../signal.js';
import {
  DEFAULT_QUEUE,
  type Job,
  type JobData,
  type JobOutcome,
  type JobQueue,
  type JobStats,
  type NewJob,
  type Page,
  type Reader,
  type Tx,
} from '../store.js';
import type { Collection, LowdbCollectionSpec } from './collection.js';
import type { JobTally } from './job-tally.js';
import { clockNow } from '../../clock.js';

/** What the job queue needs of an embedded-store transaction: its writes, its own collections, and the queues whose runners to wake. */
export interface JobsTx extends Tx {
  queuedJobs: Set<string>;
  collection(name: string): Collection;
}

/**
 * The store's own collection of jobs: `runAt` kept sorted per queue, so each queue's due jobs are found from the
 * front. A job stored before queues were kept is in the default queue.
 */
export const JOBS = 'jobs';
/** Jobs read per transaction when an account's go. */
const DISCARD_PAGE = 500;
export const jobsCollection: LowdbCollectionSpec = {
  name: JOBS,
  // By kind: the job queue's counts are found again from the page keys as the store opens (see JobTally).
  indexes: { key: { unique: true, fields: ['key'] }, status: { fields: ['status'] }, kind: { fields: ['kind'] } },
  sortedBy: 'runAt',
  // Per account within a queue: a claim leaves an account's due jobs where they are without reading one of them.
  sortedWithin: { field: 'queue', absent: DEFAULT_QUEUE, by: 'accountId' },
};

export async function enqueueJob<D extends JobData>(t: JobsTx, job: NewJob<D>): Promise<Job<D>> {
  if (job.key !== undefined) {
    const [holder] = await t.find<Job<D>>(JOBS, 'key', [job.key]);
    if (holder) return holder;
  }
  const at = now();
  const queued = await t.insert<Job<D>>(JOBS, {
    id: newId('job'),
    kind: job.kind,
    data: job.data,
    queue: job.queue ?? DEFAULT_QUEUE,
    accountId: job.accountId ?? null,
    key: job.key ?? null,
    status: 'pending',
    runAt: job.runAt ?? clockNow(),
    attempts: 0,
    lease: null,
    lastError: null,
    createdAt: at,
    updatedAt: at,
  });
  t.queuedJobs.add(queued.queue);
  return queued;
}

export async function cancelJobs(t: JobsTx, key: string): Promise<number> {
  const waiting = (await t.find<Job>(JOBS, 'key', [key])).filter((job) => job.status === 'pending');
  for (const job of waiting) await t.remove(JOBS, job.id);
  return waiting.length;
}

/** Records a claimed job's outcome in `t`; false when its lease was lost (see JobQueue.settle). */
export async function settleJob(t: JobsTx, job: Job, outcome: JobOutcome): Promise<boolean> {
  const current = await t.get<Job>(JOBS, job.id);
  if (!current || current.status !== 'running' || current.lease !== job.lease) return false;
  if ('done' in outcome) await t.remove(JOBS, job.id);
  else if ('later' in outcome) {
    await t.update<Job>(JOBS, job.id, {
      status: 'pending',
      runAt: outcome.later,
      attempts: 0,
      lease: null,
      lastError: null,
      updatedAt: now(),
    });
  } else if ('retryAt' in outcome) {
    await t.update<Job>(JOBS, job.id, {
      status: 'pending',
      runAt: outcome.retryAt,
      lease: null,
      lastError: outcome.error ?? null,
      updatedAt: now(),
    });
  } else {
    await t.update<Job>(JOBS, job.id, {
      status: 'dead',
      runAt: null,
      key: null,
      lease: null,
      lastError: outcome.dead,
      updatedAt: now(),
    });
  }
  return true;
}

/** A job whose runner is gone (the previous run of the gateway) is due again at once. */
export async function releaseLeases(t: JobsTx): Promise<void> {
  for (const job of await t.find<Job>(JOBS, 'status', ['running'])) {
    await t.update<Job>(JOBS, job.id, { status: 'pending', runAt: clockNow(), lease: null });
  }
}

type Run = <R>(fn: (t: JobsTx) => Promise<R>) => Promise<R>;

/**
 * The job queue over the lowdb store: every change is an ordinary transaction of the store, and the store calls
 * queued() after the durable commit of one that queued a job (one process: its own runner is all there is to tell).
 */
export class LowdbJobQueue implements JobQueue {
  private readonly enqueued = new Signals();

  constructor(
    private readonly run: Run,
    private readonly reader: Reader,
    private readonly firstDue: (queue: string) => Promise<number | undefined>,
    private readonly tally: JobTally,
  ) {}

  onEnqueued(queue: string, listener: () => void): () => void {
    return this.enqueued.subscribe(queue, listener);
  }

  queued(queues: Iterable<string>): void {
    for (const queue of queues) this.enqueued.raise(queue);
  }

  /** A closing store tells no one of anything, not even of what committed just before. */
  close(): void {
    this.enqueued.close();
  }

  claim(queue: string, limit: number, leaseMs: number, skipping: readonly string[] = []): Promise<Job[]> {
    return this.run(async (t) => {
      const at = clockNow();
      const claimed: Job[] = [];
      const due: Array<{ id: string; job: Job }> = [];
      for (const id of t.collection(JOBS).sorted!.upTo(at, queue, new Set(skipping))) {
        if (due.length >= limit) break;
        due.push({ id, job: (await t.get<Job>(JOBS, id))! });
      }
      for (const { id, job } of due) {
        claimed.push(
          await t.update<Job>(JOBS, id, {
            queue,
            status: 'running',
            runAt: at + leaseMs,
            attempts: job.attempts + 1,
            lease: randomUUID(),
            updatedAt: new Date(at).toISOString(),
          }),
        );
      }
      return claimed;
    });
  }

  nextDueAt(queue: string): Promise<number | undefined> {
    return this.firstDue(queue);
  }

  async claimDue(
    queue: string,
    limit: number,
    leaseMs: number,
    skipping?: readonly string[],
  ): Promise<{ jobs: Job[]; nextDueAt: number | undefined }> {
    const jobs = await this.claim(queue, limit, leaseMs, skipping);
    return { jobs, nextDueAt: await this.firstDue(queue) };
  }

  settle(job: Job, outcome: JobOutcome): Promise<boolean> {
    return this.run((t) => settleJob(t, job, outcome));
  }

  list(status: Job['status'], page?: Page): Promise<Job[]> {
    return this.reader.find<Job>(JOBS, 'status', [status], page);
  }

  /** From the counts kept in memory as jobs change (see JobTally): a few numbers per kind, whatever the queue holds. */
  async stats(): Promise<JobStats[]> {
    return this.tally.stats(clockNow());
  }

  adopt(jobs: Job[]): Promise<void> {
    return this.run(async (t) => {
      for (const job of jobs) {
        await t.insert<Job>(JOBS, job.status === 'running' ? { ...job, status: 'pending', lease: null } : job);
      }
      for (const job of jobs) t.queuedJobs.add(job.queue ?? DEFAULT_QUEUE);
    });
  }

  discard(id: string): Promise<boolean> {
    return this.run(async (t) => {
      const job = await t.get<Job>(JOBS, id);
      if (!job || job.status !== 'dead') return false;
      await t.remove(JOBS, id);
      return true;
    });
  }

  /** A page of jobs at a time, each page's in a transaction of its own: a long queue never holds the store. */
  async discardOfAccount(accountId: string): Promise<number> {
    let removed = 0;
    for (const status of ['pending', 'dead'] as const) {
      for (let after: string | undefined; ; ) {
        const page = await this.reader.find<Job>(JOBS, 'status', [status], { limit: DISCARD_PAGE, after });
        const mine = page.filter((job) => job.accountId === accountId);
        if (mine.length)
          removed += await this.run(async (t) => {
            let n = 0;
            for (const job of mine)
              if ((await t.get<Job>(JOBS, job.id))?.status === status) {
                await t.remove(JOBS, job.id);
                n++;
              }
            return n;
          });
        if (page.length < DISCARD_PAGE) break;
        after = page.filter((job) => job.accountId !== accountId).at(-1)?.id ?? after;
      }
    }
    return removed;
  }

  revive(id: string): Promise<boolean> {
    return this.run(async (t) => {
      const job = await t.get<Job>(JOBS, id);
      if (!job || job.status !== 'dead') return false;
      await t.update<Job>(JOBS, id, { status: 'pending', runAt: clockNow(), attempts: 0, updatedAt: now() });
      t.queuedJobs.add(job.queue ?? DEFAULT_QUEUE);
      return true;
    });
  }
}
