import type pg from 'pg';
import { StoreConflictError, type Doc, type JobData, type NewJob, type Page, type Scalar, type Tx } from '../store.js';
import type { Catalog } from './catalog.js';
import { DocumentReads } from './documents.js';
import { asStoreError, isRace } from './errors.js';
import { cancelJobs, enqueueJob } from './jobs.js';
import { prepared, type Query } from './sql.js';
import { DocumentWrites, VERSION } from './writes.js';

const keyOf = (collection: string, id: string) => `${collection}\u0000${id}`;

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
  /** The row version of each document read, by collection and id: a write of one applies only if it is unchanged. */
  private readonly versions = new Map<string, string>();
  /**
   * Each document as this transaction last read or wrote it (null: it removed it). Reading one again by id answers
   * from here, without a statement: a write of it is checked against the version read all the same.
   */
  private readonly known = new Map<string, Doc | null>();

  /**
   * @param contended The documents an earlier attempt of this transaction lost a race on, shared by its attempts:
   * this attempt reads those locked (FOR UPDATE), so it takes its turn on them instead of losing again.
   */
  constructor(
    private readonly client: pg.PoolClient,
    catalog: Catalog,
    private readonly contended = new Set<string>(),
  ) {
    this.query = (text, values) => this.send(text, values);
    this.reads = new DocumentReads(this.query, catalog, (collection, doc, version) => {
      const key = keyOf(collection, doc.id);
      this.versions.set(key, version);
      this.known.set(key, doc);
    });
    this.writes = new DocumentWrites(this.query, catalog, (work) => this.undoable(work));
  }

  get<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    const key = keyOf(collection, id);
    return this.exclusive(async () => {
      if (this.contended.has(key)) return this.reads.lock<T>(collection, id);
      const known = this.known.get(key);
      if (known !== undefined) return (known ?? undefined) as T | undefined;
      return this.reads.get<T>(collection, id);
    });
  }

  lock<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    return this.exclusive(() => this.reads.lock<T>(collection, id));
  }

  find<T extends Doc>(collection: string, index: string, values: Scalar[], page?: Page): Promise<T[]> {
    return this.exclusive(async () => this.lockContended(collection, await this.reads.find<T>(collection, index, values, page)));
  }

  scan<T extends Doc>(collection: string, page?: Page): Promise<T[]> {
    return this.exclusive(async () => this.lockContended(collection, await this.reads.scan<T>(collection, page)));
  }

  /** Each contended document of a list read is read again, locked: the transaction waits its turn on it. */
  private async lockContended<T extends Doc>(collection: string, docs: T[]): Promise<T[]> {
    if (this.contended.size === 0) return docs;
    const result: T[] = [];
    for (const doc of docs) {
      const locked = this.contended.has(keyOf(collection, doc.id)) ? await this.reads.lock<T>(collection, doc.id) : doc;
      if (locked) result.push(locked);
    }
    return result;
  }

  insert<T extends Doc>(collection: string, doc: T): Promise<T> {
    // A document this transaction inserts is its own until the commit: no one else can change it meanwhile.
    return this.exclusive(async () => {
      const inserted = await this.writes.insert(collection, doc);
      this.versions.delete(keyOf(collection, doc.id));
      this.known.set(keyOf(collection, doc.id), inserted);
      return inserted;
    });
  }

  update<T extends Doc>(collection: string, id: string, patch: Partial<T>): Promise<T> {
    return this.write(collection, id, patch, false);
  }

  touch<T extends Doc>(collection: string, id: string, patch: Partial<T>): Promise<T> {
    return this.write(collection, id, patch, true);
  }

  private write<T extends Doc>(collection: string, id: string, patch: Partial<T>, renew: boolean): Promise<T> {
    return this.exclusive(async () => {
      const key = keyOf(collection, id);
      const { doc, version } = await this.writes.update(collection, id, patch, this.versions.get(key), renew);
      this.versions.set(key, version);
      this.known.set(key, doc);
      return doc as T;
    });
  }

  remove(collection: string, id: string): Promise<void> {
    return this.exclusive(async () => {
      const key = keyOf(collection, id);
      await this.writes.remove(collection, id, this.versions.get(key));
      this.versions.delete(key);
      this.known.set(key, null);
    });
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
      if (err instanceof StoreConflictError) {
        this.conflicts.add(err);
        if (err.index === VERSION) this.contended.add(keyOf(err.collection, err.key));
      }
      throw err;
    });
  }

  private async send(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.client.query(prepared(text, values));
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
