import {
  DEFAULT_QUEUE,
  StoreConflictError,
  type Job,
  type JobOutcome,
  type JobQueue,
  type JobStats,
  type Page,
} from '../store.js';
import { UNIQUE_VIOLATION } from './errors.js';
import { JOBS_CHANNEL, type JobNotifications } from './job-notifications.js';
import { epochMs, JOB_COLUMNS, settleStatement, toJob, type JobRow } from './jobs.js';
import { afterClause, hasNul, limitClause, type Query } from './sql.js';
import { clockNow } from '../../clock.js';

/**
 * A claim of a queue's due jobs, as the CTEs `due` (what it takes, locked) and `claimed` (those jobs, leased), with
 * the values of claimValues (and, `skipping`, $6: the accounts whose jobs it leaves). RETURNING keeps no order: the
 * due time before the claim comes back with each job to sort them by.
 */
const claiming = (skipping: boolean) => `due AS (
    SELECT id, run_at AS due_at, seq FROM leadchat_jobs
    WHERE queue = $5 AND status <> 'dead' AND run_at <= $1${skipping ? ' AND (account_id IS NULL OR account_id <> ALL($6::text[]))' : ''}
    ORDER BY run_at, seq LIMIT $2 FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE leadchat_jobs AS j
    SET status = 'running', run_at = $3, attempts = j.attempts + 1, lease = gen_random_uuid()::text, updated_at = $4
    FROM due WHERE j.id = due.id
    RETURNING ${JOB_COLUMNS.split(', ')
      .map((c) => `j.${c}`)
      .join(', ')}, due.due_at, due.seq)`;
const CLAIM = claiming(false);

const claimValues = (queue: string, limit: number, at: number, leaseEnd: number): unknown[] => [
  at,
  Math.max(0, Math.floor(limit)),
  epochMs(leaseEnd),
  new Date(at).toISOString(),
  queue,
];

type ClaimedRow = JobRow & { due_at: string; seq: string };

/** The claimed jobs in the order they came due. */
const inDueOrder = (rows: ClaimedRow[]): Job[] =>
  rows.sort((a, b) => Number(a.due_at) - Number(b.due_at) || Number(a.seq) - Number(b.seq)).map((row) => toJob(row));

/**
 * The queue every process shares. A claim locks the due jobs it takes with SKIP LOCKED, so concurrent claims
 * take different jobs, and gives each a new lease; a job whose lease ran out (its runner died) is due again.
 */
export class PostgresJobQueue implements JobQueue {
  constructor(
    private readonly query: Query,
    private readonly notifications: JobNotifications,
  ) {}

  onEnqueued(queue: string, listener: () => void): () => void {
    return this.notifications.subscribe(queue, listener);
  }

  async claim(queue: string, limit: number, leaseMs: number): Promise<Job[]> {
    if (!(limit > 0)) return [];
    const at = clockNow();
    const { rows } = await this.query(
      `WITH ${CLAIM} SELECT * FROM claimed`,
      claimValues(queue, limit, at, at + leaseMs),
    );
    return inDueOrder(rows as ClaimedRow[]);
  }

  async claimDue(
    queue: string,
    limit: number,
    leaseMs: number,
    skipping: readonly string[] = [],
  ): Promise<{ jobs: Job[]; nextDueAt: number | undefined }> {
    const at = clockNow();
    const leaseEnd = at + leaseMs;
    // One statement: the claim, and the earliest due time of the jobs it left (the snapshot before the claim still
    // shows the claimed ones as due now, so they are left out; they are due again at leaseEnd). A claim of nothing
    // still answers one row, with the due time alone.
    const { rows } = await this.query(
      `WITH ${skipping.length ? claiming(true) : CLAIM},
       later AS (SELECT min(run_at) AS next_due FROM leadchat_jobs WHERE queue = $5 AND status <> 'dead' AND id NOT IN (SELECT id FROM due))
       SELECT claimed.*, later.next_due FROM later LEFT JOIN claimed ON true`,
      [...claimValues(queue, limit, at, leaseEnd), ...(skipping.length ? [[...skipping]] : [])],
    );
    const claimed = (rows as Array<ClaimedRow & { next_due: string | null }>).filter((row) => row.id !== null);
    const later = rows[0]?.next_due === null || rows[0]?.next_due === undefined ? undefined : Number(rows[0].next_due);
    const nextDueAt = claimed.length ? Math.min(leaseEnd, later ?? leaseEnd) : later;
    return { jobs: inDueOrder(claimed), nextDueAt };
  }

  async nextDueAt(queue: string): Promise<number | undefined> {
    const { rows } = await this.query(
      `SELECT min(run_at) AS due FROM leadchat_jobs WHERE queue = $1 AND status <> 'dead'`,
      [queue],
    );
    const due = rows[0]?.due as string | null | undefined;
    return due === null || due === undefined ? undefined : Number(due);
  }

  async settle(job: Job, outcome: JobOutcome): Promise<boolean> {
    const { text, values } = settleStatement(job, outcome);
    return ((await this.query(text, values)).rowCount ?? 0) > 0;
  }

  /**
   * From the counts the database keeps per kind (migration 15: a few rows per kind, whatever the queue holds) and,
   * for each kind, its first waiting job in the index on (kind, run_at): the same cost for 10 jobs or a million.
   */
  async stats(): Promise<JobStats[]> {
    const at = clockNow();
    const { rows } = await this.query(
      `SELECT c.kind, c.queued, c.dead,
              (SELECT j.run_at FROM leadchat_jobs j WHERE j.kind = c.kind AND j.status <> 'dead' ORDER BY j.run_at LIMIT 1) AS oldest
       FROM (SELECT kind, sum(queued) AS queued, sum(dead) AS dead FROM leadchat_job_counts GROUP BY kind) c
       WHERE c.queued <> 0 OR c.dead <> 0`,
    );
    return (rows as Array<{ kind: string; queued: string; dead: string; oldest: string | null }>).map((row) => ({
      kind: row.kind,
      queued: Number(row.queued),
      dead: Number(row.dead),
      oldestDueAt: row.oldest !== null && Number(row.oldest) <= at ? Number(row.oldest) : null,
    }));
  }

  async list(status: Job['status'], page?: Page): Promise<Job[]> {
    const desc = page?.order === 'desc';
    const params: unknown[] = [status];
    let sql = `SELECT ${JOB_COLUMNS} FROM leadchat_jobs WHERE status = $1`;
    if (page?.after !== undefined) {
      const after = afterClause('leadchat_jobs', page, params);
      if (!after) return [];
      sql += ` AND ${after}`;
    }
    sql += ` ORDER BY seq${desc ? ' DESC' : ''}${limitClause(params, page?.limit)}`;
    const { rows } = await this.query(sql, params);
    return (rows as JobRow[]).map((row) => toJob(row));
  }

  /** One statement for all of them: the jobs come in together or not at all. */
  async adopt(jobs: Job[]): Promise<void> {
    if (!jobs.length) return;
    // A running job's runner belongs to the other store: it waits again, due when that lease would have ended.
    const rows = jobs.map((job) => ({
      id: job.id,
      kind: job.kind,
      data: job.data,
      queue: job.queue ?? DEFAULT_QUEUE,
      account_id: job.accountId,
      key: job.status === 'dead' ? null : job.key,
      status: job.status === 'running' ? 'pending' : job.status,
      run_at: job.status === 'dead' || job.runAt === null ? null : epochMs(job.runAt),
      attempts: job.attempts,
      lease: null,
      last_error: job.lastError,
      created_at: job.createdAt,
      updated_at: job.updatedAt,
    }));
    try {
      await this.query(
        `INSERT INTO leadchat_jobs (${JOB_COLUMNS})
         SELECT ${JOB_COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS x(id text, kind text, data jsonb, queue text, account_id text, key text,
           status text, run_at bigint, attempts integer, lease text, last_error text, created_at timestamptz, updated_at timestamptz)`,
        [JSON.stringify(rows)],
      );
      await this.notifyQueued();
    } catch (err) {
      const e = err as { code?: string; constraint?: string; detail?: string };
      if (e.code !== UNIQUE_VIOLATION) throw err;
      const taken = /=\((.*)\) already exists/.exec(e.detail ?? '')?.[1] ?? '';
      throw new StoreConflictError('jobs', e.constraint === 'leadchat_jobs_key' ? 'key' : 'id', taken);
    }
  }

  async discard(id: string): Promise<boolean> {
    if (hasNul(id)) return false;
    const { rowCount } = await this.query(`DELETE FROM leadchat_jobs WHERE id = $1 AND status = 'dead'`, [id]);
    return Boolean(rowCount);
  }

  async discardOfAccount(accountId: string): Promise<number> {
    if (hasNul(accountId)) return 0;
    const { rowCount } = await this.query(`DELETE FROM leadchat_jobs WHERE account_id = $1 AND status <> 'running'`, [
      accountId,
    ]);
    return rowCount ?? 0;
  }

  async revive(id: string): Promise<boolean> {
    if (hasNul(id)) return false;
    const { rowCount } = await this.query(
      `UPDATE leadchat_jobs SET status = 'pending', run_at = $2, attempts = 0, lease = NULL, updated_at = $3 WHERE id = $1 AND status = 'dead'`,
      [id, clockNow(), new Date(clockNow()).toISOString()],
    );
    if (!rowCount) return false;
    await this.notifyQueued();
    return true;
  }

  /**
   * After a statement of its own has committed jobs, so the notification cannot precede them. Not heard, the
   * jobs still run at the runners' next poll: a failure here does not fail the change that was made.
   */
  private async notifyQueued(): Promise<void> {
    await this.query(`NOTIFY ${JOBS_CHANNEL}`).catch(() => undefined);
  }
}
