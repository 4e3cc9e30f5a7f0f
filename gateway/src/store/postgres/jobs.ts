import { newId } from '../../ids.js';
import { DEFAULT_QUEUE, type Job, type JobData, type NewJob } from '../store.js';
import { JOBS_CHANNEL } from './job-notifications.js';
import type { Ahead } from './pipeline.js';
import { clockNow } from '../../clock.js';

const JOBS_TABLE = 'leadchat_jobs';

export const JOB_COLUMNS =
  'id, kind, data, queue, account_id, key, status, run_at, attempts, lease, last_error, created_at, updated_at';

export interface JobRow {
  id: string;
  kind: string;
  data: JobData;
  queue: string;
  account_id: string | null;
  key: string | null;
  status: Job['status'];
  /** bigint: node-postgres gives it as text. */
  run_at: string | null;
  attempts: number;
  lease: string | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export const toJob = <D extends JobData = JobData>(row: JobRow): Job<D> => ({
  id: row.id,
  kind: row.kind,
  data: row.data as D,
  queue: row.queue,
  accountId: row.account_id,
  key: row.key,
  status: row.status,
  runAt: row.run_at === null ? null : Number(row.run_at),
  attempts: row.attempts,
  lease: row.lease,
  lastError: row.last_error,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** Epoch milliseconds as the bigint column takes them. */
export const epochMs = (at: number): number => Math.round(at);

/**
 * Queues a job in the caller's transaction (a statement sent ahead, see Pipeline); a key already held by a waiting or
 * running job queues nothing. The notification of a new job, naming its queue, goes out with the commit, and not at
 * all on a rollback; those of one transaction to one queue come as one.
 */
export function enqueueStatement<D extends JobData>(job: NewJob<D>): Ahead {
  const at = new Date(clockNow()).toISOString();
  const insert = `INSERT INTO leadchat_jobs (${JOB_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, 0, NULL, NULL, $8, $8)
         ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING RETURNING queue`;
  return {
    text: `WITH queued AS (${insert}) SELECT pg_notify('${JOBS_CHANNEL}', queue) FROM queued`,
    part: { text: insert, table: JOBS_TABLE, then: 'notify' },
    values: [
      newId('job'),
      job.kind,
      JSON.stringify(job.data),
      job.queue ?? DEFAULT_QUEUE,
      job.accountId ?? null,
      job.key ?? null,
      epochMs(job.runAt ?? clockNow()),
      at,
    ],
  };
}

/** Removes the waiting (not the running) jobs holding `key`. */
export function cancelStatement(key: string): Ahead {
  const text = `DELETE FROM ${JOBS_TABLE} WHERE key = $1 AND status = 'pending'`;
  return { text, values: [key], part: { text, table: JOBS_TABLE } };
}
