import type pg from 'pg';
import { StoreConflictError, StoreWriteError, type Doc, type JobData, type NewJob, type Page, type Scalar, type Tx } from '../store.js';
import type { Catalog } from './catalog.js';
import { DocumentReads } from './documents.js';
import { asStoreError, isRace, isUnavailable, rethrow, UNIQUE_VIOLATION } from './errors.js';
import { cancelJobs, enqueueJob } from './jobs.js';
import type { Query } from './sql.js';
import { DocumentWrites } from './writes.js';

/** A transaction that lost a race (a key taken meanwhile, a deadlock) is run this many times at most. */
const ATTEMPTS = 10;

/**
 * Runs `fn` in one READ COMMITTED transaction on one connection, then commits. Its reads lock their rows, so
 * read-then-write is safe across processes. A lost race rolls back and runs `fn` again from the start (it then
 * reads what the winner committed); any other error of `fn` rolls back and is thrown unchanged.
 */
export async function runTransaction<R>(pool: pg.Pool, catalog: Catalog, fn: (tx: Tx) => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect().catch(rethrow);
    const tx = new PostgresTx(client, catalog);
    // The server may end the connection between statements; unheard, that error would crash the process.
    const lost = (err: Error) => (tx.failure ??= err);
    client.on('error', lost);
    let broken = false;
    try {
      // Explicit, whatever default_transaction_isolation the operator chose: the retry logic assumes it.
      await client.query('BEGIN ISOLATION LEVEL READ COMMITTED').catch(rethrow);
      let result: R;
      try {
        result = await fn(tx);
      } finally {
        tx.close();
      }
      // `fn` went on after a failed statement: PostgreSQL has given the transaction up, a COMMIT would not commit.
      if (tx.failure !== undefined) throw asStoreError(tx.failure);
      const commit = await client.query('COMMIT').catch(rethrow);
      if (commit.command !== 'COMMIT') throw new StoreWriteError('store: the database rolled the transaction back');
      return result;
    } catch (err) {
      broken = !(await rollback(client)) || isUnavailable(tx.failure);
      if (attempt < ATTEMPTS && (tx.lostRace || isRace(err))) {
        await pause(attempt);
        continue;
      }
      throw err;
    } finally {
      client.removeListener('error', lost);
      client.release(broken);
    }
  }
}

/** False when the connection could not even roll back: it is dropped rather than given to someone else. */
async function rollback(client: pg.PoolClient): Promise<boolean> {
  try {
    await client.query('ROLLBACK');
    return true;
  } catch {
    return false;
  }
}

/** A few jittered milliseconds, more after each loss, so that racing transactions fall out of step. */
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 4 * attempt));

/**
 * The `tx` handed to a transaction's function. Its operations run one at a time, even when the function starts
 * several at once, so that a savepoint rolled back never takes another operation's statement with it.
 */
class PostgresTx implements Tx {
  /** The first statement that failed: after it PostgreSQL refuses every statement but a rollback. */
  failure: unknown;
  /** A write met a key taken by a concurrent transaction, or the database chose this one to fail a race. */
  lostRace = false;
  private open = true;
  private turn: Promise<unknown> = Promise.resolve();
  private readonly reads: DocumentReads;
  private readonly writes: DocumentWrites;
  private readonly query: Query;

  constructor(
    private readonly client: pg.PoolClient,
    catalog: Catalog,
  ) {
    this.query = (text, values) => this.send(text, values);
    this.reads = new DocumentReads(this.query, catalog, true);
    this.writes = new DocumentWrites(this.query, catalog, (work) => this.undoable(work));
  }

  get<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    return this.exclusive(() => this.reads.get<T>(collection, id));
  }

  find<T extends Doc>(collection: string, index: string, values: Scalar[], page?: Page): Promise<T[]> {
    return this.exclusive(() => this.reads.find<T>(collection, index, values, page));
  }

  scan<T extends Doc>(collection: string, page?: Page): Promise<T[]> {
    return this.exclusive(() => this.reads.scan<T>(collection, page));
  }

  insert<T extends Doc>(collection: string, doc: T): Promise<T> {
    return this.exclusive(() => this.writes.insert(collection, doc));
  }

  update<T extends Doc>(collection: string, id: string, patch: Partial<T>): Promise<T> {
    return this.exclusive(() => this.writes.update(collection, id, patch));
  }

  remove(collection: string, id: string): Promise<void> {
    return this.exclusive(() => this.writes.remove(collection, id));
  }

  enqueue<D extends JobData>(job: NewJob<D>) {
    return this.exclusive(() => enqueueJob(this.query, job));
  }

  cancelJobs(key: string): Promise<number> {
    return this.exclusive(() => cancelJobs(this.query, key));
  }

  /** A Tx must not be used once its function returned: the change would escape the commit. */
  close(): void {
    this.open = false;
  }

  private exclusive<R>(work: () => Promise<R>): Promise<R> {
    if (!this.open) return Promise.reject(new Error('store: a transaction was used after its function returned'));
    const run = this.turn.then(work, work);
    this.turn = run.catch(() => undefined);
    return run.catch((err: unknown) => {
      if (err instanceof StoreConflictError) this.lostRace = true;
      throw err;
    });
  }

  private async send(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.client.query(text, values);
    } catch (err) {
      this.failure ??= err;
      if (isRace(err) || (err as { code?: string }).code === UNIQUE_VIOLATION) this.lostRace = true;
      throw asStoreError(err);
    }
  }

  private async undoable<R>(work: () => Promise<R>): Promise<R> {
    await this.send('SAVEPOINT leadchat_write');
    const before = this.failure;
    try {
      const result = await work();
      await this.send('RELEASE SAVEPOINT leadchat_write');
      return result;
    } catch (err) {
      await this.send('ROLLBACK TO SAVEPOINT leadchat_write');
      this.failure = before;
      throw err;
    }
  }
}
