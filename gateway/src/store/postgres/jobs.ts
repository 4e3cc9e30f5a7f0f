import { newId } from '../../ids.js';
import { DEFAULT_QUEUE, type Job, type JobData, type JobOutcome, type NewJob } from '../store.js';
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

/** The claim's own lease holds only while the job is running under it. */
const OWNED = `id = $1 AND lease = $2 AND status = 'running'`;

/** Records a claimed job's outcome, if its lease still holds (see JobQueue.settle). */
export function settleStatement(job: Job, outcome: JobOutcome): Ahead {
  const updatedAt = new Date(clockNow()).toISOString();
  const owned = [job.id, job.lease];
  let statement: { text: string; values: unknown[] };
  if ('done' in outcome) statement = { text: `DELETE FROM ${JOBS_TABLE} WHERE ${OWNED}`, values: owned };
  else if ('later' in outcome)
    statement = {
      text: `UPDATE ${JOBS_TABLE} SET status = 'pending', run_at = $3, attempts = 0, lease = NULL, last_error = NULL, updated_at = $4 WHERE ${OWNED}`,
      values: [...owned, epochMs(outcome.later), updatedAt],
    };
  else if ('retryAt' in outcome)
    statement = {
      text: `UPDATE ${JOBS_TABLE} SET status = 'pending', run_at = $3, lease = NULL, last_error = $4, updated_at = $5 WHERE ${OWNED}`,
      values: [...owned, epochMs(outcome.retryAt), outcome.error ?? null, updatedAt],
    };
  // A dead job lets its key go: a new job with that key may be queued.
  else
    statement = {
      text: `UPDATE ${JOBS_TABLE} SET status = 'dead', run_at = NULL, key = NULL, lease = NULL, last_error = $3, updated_at = $4 WHERE ${OWNED}`,
      values: [...owned, outcome.dead, updatedAt],
    };
  return { ...statement, part: { text: statement.text, table: JOBS_TABLE } };
}
