import type pg from 'pg';
import { StoreConflictError, type Doc, type JobData, type NewJob, type Page, type Scalar, type Tx } from '../store.js';
import type { Catalog } from './catalog.js';
import { DocumentReads } from './documents.js';
import { asStoreError, isRace } from './errors.js';
import { cancelJobs, enqueueJob } from './jobs.js';
import type { Query } from './sql.js';
import { DocumentWrites } from './writes.js';

/**
 * The `tx` handed to a transaction's function. Its operations run one at a time, even when the function starts
 * several at once, so that a savepoint rolled back never takes another operation's statement with it.
 */
export class PostgresTx implements Tx {
  /** The first statement that failed: after it PostgreSQL refuses every statement but a rollback. */
  failure: unknown;
  /** The conflicts this transaction's writes met, told apart from any the function makes of its own. */
  private readonly conflicts = new WeakSet<object>();
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

  /**
   * Whether `err` (thrown by the function, or the failure it went on after) is a race this transaction lost: a
   * write met a key taken meanwhile, or the database failed it (deadlock, serialization). A function that turns
   * a conflict into an error of its own decided what it means: that error is final.
   */
  lost(err: unknown): boolean {
    return (typeof err === 'object' && err !== null && this.conflicts.has(err)) || isRace(err);
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
      if (err instanceof StoreConflictError) this.conflicts.add(err);
      throw err;
    });
  }

  private async send(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.client.query(text, values);
    } catch (err) {
      this.failure ??= err;
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
