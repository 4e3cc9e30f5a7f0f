import { newId } from '../../ids.js';
import { StoreConflictError, type Job, type JobData, type NewJob } from '../store.js';
import { JOBS_CHANNEL } from './job-notifications.js';
import type { Query } from './sql.js';
import { clockNow } from '../../clock.js';

export const JOB_COLUMNS = 'id, kind, data, account_id, key, status, run_at, attempts, lease, last_error, created_at, updated_at';

export interface JobRow {
  id: string;
  kind: string;
  data: JobData;
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

/** How often a key is tried when its holder ends between the insert and the look-up of the holder. */
const KEY_TRIES = 3;

/** Queues a job in the caller's transaction; a key already held by a waiting or running job returns the holder. */
export async function enqueueJob<D extends JobData>(query: Query, job: NewJob<D>): Promise<Job<D>> {
  for (let i = 0; i < KEY_TRIES; i++) {
    const at = new Date(clockNow()).toISOString();
    // DO NOTHING: a unique violation would abort the caller's transaction. The notification of a new job goes out
    // with the commit, and not at all on a rollback; those of one transaction come as one.
    const { rows } = await query(
      `WITH queued AS (
         INSERT INTO leadchat_jobs (${JOB_COLUMNS}) VALUES ($1, $2, $3, $4, $5, 'pending', $6, 0, NULL, NULL, $7, $7)
         ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING RETURNING ${JOB_COLUMNS})
       SELECT queued.*, pg_notify('${JOBS_CHANNEL}', '') FROM queued`,
      [newId('job'), job.kind, JSON.stringify(job.data), job.accountId ?? null, job.key ?? null, epochMs(job.runAt ?? clockNow()), at],
    );
    if (rows[0]) return toJob<D>(rows[0] as JobRow);
    const holder = await query(`SELECT ${JOB_COLUMNS} FROM leadchat_jobs WHERE key = $1`, [job.key]);
    if (holder.rows[0]) return toJob<D>(holder.rows[0] as JobRow);
  }
  throw new StoreConflictError('jobs', 'key', job.key ?? '');
}

/** Removes the waiting (not the running) jobs holding `key`. */
export async function cancelJobs(query: Query, key: string): Promise<number> {
  const { rowCount } = await query(`DELETE FROM leadchat_jobs WHERE key = $1 AND status = 'pending'`, [key]);
  return rowCount ?? 0;
}
