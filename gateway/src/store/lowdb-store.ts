import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Collection } from './collection.js';
import { fsyncDir } from './durable-file.js';
import { Group } from './group.js';
import type { Journal } from './journal.js';
import { writePage } from './pages.js';
import { encodeOps } from './records.js';
import { markDirty, recover, type DirtyPages } from './recovery.js';
import { StoreWriteError, type CollectionSpec, type Doc, type Store, type Tx } from './store.js';

export { StoreWriteError };
import { Transaction } from './transaction.js';

export interface LowdbStoreOptions {
  /** Directory of the store: `journal.log` and one folder of page files per collection. */
  dir: string;
  collections: CollectionSpec[];
  /** Documents per page file. */
  pageSize?: number;
  /** Journal records between checkpoints. */
  checkpointEvery?: number;
  /** Journal size that also triggers a checkpoint. */
  checkpointBytes?: number;
}

export interface StoreStats {
  transactions: number;
  /** Journal records written, each one fsync: group commits. */
  commits: number;
  checkpoints: number;
  pagesWritten: number;
}

export interface LowdbStore extends Store {
  stats(): StoreStats;
}


interface PageImage {
  collection: Collection;
  page: number;
  docs: Doc[];
}

const COLLECTION_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Opens the store in `dir`, recovering whatever the last run left there.
 *
 * Layout: lowdb page files hold the documents, at most `pageSize` each in insertion order; `journal.log` holds
 * every group commit since the last checkpoint. A commit appends one journal line and fsyncs it, so its cost
 * does not depend on how much is stored; a checkpoint rewrites only the pages changed since the previous one.
 */
export async function openLowdbStore(options: LowdbStoreOptions): Promise<LowdbStore> {
  const pageSize = options.pageSize ?? 2000;
  const checkpointEvery = options.checkpointEvery ?? 1000;
  const checkpointBytes = options.checkpointBytes ?? 32 * 1024 * 1024;
  if (!(pageSize >= 1 && checkpointEvery >= 1 && checkpointBytes >= 1)) {
    throw new RangeError('store: pageSize, checkpointEvery and checkpointBytes must be at least 1');
  }
  const collections = new Map<string, Collection>();
  for (const spec of options.collections) {
    if (!COLLECTION_NAME.test(spec.name) || collections.has(spec.name)) {
      throw new Error(`store: collection name "${spec.name}" is invalid or declared twice`);
    }
    collections.set(spec.name, new Collection(spec, pageSize));
  }
  await mkdir(options.dir, { recursive: true });
  for (const name of collections.keys()) await mkdir(join(options.dir, name), { recursive: true });
  await fsyncDir(options.dir);

  const { journal, dirty, replayed } = await recover(options.dir, collections);
  const store = new JournaledStore(options.dir, collections, journal, dirty, checkpointEvery, checkpointBytes);
  if (replayed > 0 || dirty.size > 0) await store.checkpointNow();
  return store;
}

class JournaledStore implements LowdbStore {
  /** Transactions applied in memory and waiting for the next journal write. */
  private pending = new Group();
  /** The group whose journal record is being written. */
  private inflight: Group | null = null;
  private writer: Promise<void> | null = null;
  private scheduled = false;
  private inTransaction = false;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | null = null;
  /** Set when the journal can no longer be trusted: the store then refuses every write until restarted. */
  private failure: Error | null = null;
  /** After a failed checkpoint, the journal record count before which none is tried again. */
  private checkpointRetryAt = 0;
  private readonly counters: StoreStats = { transactions: 0, commits: 0, checkpoints: 0, pagesWritten: 0 };

  constructor(
    private readonly dir: string,
    private readonly collections: Map<string, Collection>,
    private readonly journal: Journal,
    private dirty: DirtyPages,
    private readonly checkpointEvery: number,
    private readonly checkpointBytes: number,
  ) {}

  get<T extends Doc>(collection: string, id: string): T | undefined {
    return this.collection(collection).get(id) as T | undefined;
  }

  lookup<T extends Doc>(collection: string, index: string, key: string): T[] {
    return this.collection(collection).lookup(index, key) as T[];
  }

  all<T extends Doc>(collection: string): T[] {
    return this.collection(collection).all() as T[];
  }

  count(collection: string): number {
    return this.collection(collection).count;
  }

  stats(): StoreStats {
    return { ...this.counters };
  }

  transact<R>(fn: (tx: Tx) => R): Promise<R> {
    // A nested call is a bug in the caller: throwing here aborts the outer transaction too.
    if (this.inTransaction) throw new Error('store: transact() called inside a transaction');
    if (this.state !== 'open') return Promise.reject(new Error('store: closed'));
    if (this.failure) return Promise.reject(this.failure);
    const tx = new Transaction((name) => this.collection(name));
    let result: R;
    this.inTransaction = true;
    try {
      result = fn(tx);
      if (isThenable(result)) {
        result.then(undefined, () => undefined);
        throw new Error('store: a transaction function must be synchronous');
      }
    } catch (err) {
      tx.rollback();
      return Promise.reject(err);
    } finally {
      tx.close();
      this.inTransaction = false;
    }
    this.counters.transactions += 1;
    // Nothing to write, but what it read may still be on its way to disk.
    if (tx.ops.length === 0) return this.durable().then(() => result);
    this.pending.add(tx);
    this.kick();
    return this.pending.done.then(() => result);
  }

  durable(): Promise<void> {
    if (!this.pending.empty) return this.pending.done;
    if (this.inflight) return this.inflight.done;
    return this.failure ? Promise.reject(this.failure) : Promise.resolve();
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Writes every dirty page and empties the journal; used on open after a replay. */
  async checkpointNow(): Promise<void> {
    await this.checkpoint(this.takeDirtyPages());
  }

  private async shutdown(): Promise<void> {
    this.state = 'closing';
    for (;;) {
      if (this.writer) await this.writer;
      else if (!this.pending.empty && !this.failure) await this.startWriter();
      else break;
    }
    if (!this.failure) await this.checkpointNow();
    await this.journal.close();
    this.state = 'closed';
  }

  private collection(name: string): Collection {
    const collection = this.collections.get(name);
    if (!collection) throw new Error(`store: unknown collection "${name}"`);
    return collection;
  }

  /**
   * Starts a write on the next turn of the event loop rather than now, so that every request handled in this
   * turn joins the same group commit.
   */
  private kick(): void {
    if (this.writer || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.startWriter();
    });
  }

  private startWriter(): Promise<void> {
    this.writer ??= this.writeLoop().finally(() => {
      this.writer = null;
      // Transactions that arrived while the loop was finishing.
      if (!this.pending.empty && !this.failure) this.kick();
    });
    return this.writer;
  }

  /** The single writer: one journal write in flight at a time, everything that arrives meanwhile batched. */
  private async writeLoop(): Promise<void> {
    while (!this.pending.empty && !this.failure) {
      const group = this.pending;
      this.pending = new Group();
      this.inflight = group;
      for (const op of group.ops) markDirty(this.dirty, op.collection, op.page);
      const payload = encodeOps(group.ops);
      // Memory now holds exactly what the journal will hold once this record is written: the moment to take
      // the images a checkpoint writes.
      const images = this.checkpointDue(payload.length) ? this.takeDirtyPages() : null;
      try {
        await this.journal.append(payload);
      } catch (err) {
        this.inflight = null;
        if (images) this.returnDirtyPages(images);
        this.abandon(group, err);
        continue;
      }
      this.inflight = null;
      this.counters.commits += 1;
      group.resolve();
      if (images) await this.checkpoint(images);
    }
  }

  /**
   * A journal write failed (disk full, I/O error). Choice: the store stays usable. The failed group and every
   * transaction applied after it are taken back from memory in reverse order and their promises reject with
   * StoreWriteError (callers answer 503); nothing of them was acknowledged. The journal was cut back to its last
   * intact record; only if that failed too does the store refuse all further writes until a restart recovers it
   * from disk, since fsync errors cannot be retried safely.
   */
  private abandon(group: Group, cause: unknown): void {
    const later = this.pending;
    this.pending = new Group();
    later.undoAll();
    group.undoAll();
    const error = new StoreWriteError('store: the change could not be saved', { cause });
    group.reject(error);
    later.reject(error);
    if (this.journal.broken) this.failure = brokenJournal(cause);
  }

  private checkpointDue(nextRecordBytes: number): boolean {
    const records = this.journal.records + 1;
    if (records < this.checkpointRetryAt) return false;
    return records >= this.checkpointEvery || this.journal.size + nextRecordBytes >= this.checkpointBytes;
  }

  /**
   * Images are written in ascending page order, so that after a crash in the middle of a checkpoint, a document
   * missing from the pages was inserted after every document they do hold: its replay appends it in its place.
   */
  private takeDirtyPages(): PageImage[] {
    const images: PageImage[] = [];
    for (const [collection, pages] of this.dirty) {
      for (const page of [...pages].sort((a, b) => a - b)) {
        images.push({ collection, page, docs: collection.pageDocs(page) });
      }
    }
    this.dirty = new Map();
    return images;
  }

  private returnDirtyPages(images: PageImage[]): void {
    for (const { collection, page } of images) markDirty(this.dirty, collection, page);
  }

  /**
   * Pages first, each durable, then the journal is emptied. A crash in between leaves new pages under the old
   * journal, whose replay rewrites the same full documents: the result is the same.
   */
  private async checkpoint(images: PageImage[]): Promise<void> {
    try {
      for (const { collection, page, docs } of images) {
        await writePage(join(this.dir, collection.name), page, docs);
        this.counters.pagesWritten += 1;
      }
      await this.journal.reset();
      this.counters.checkpoints += 1;
      this.checkpointRetryAt = 0;
    } catch (err) {
      // The journal still holds everything, so no data is at risk; try again after another round of records.
      this.returnDirtyPages(images);
      this.checkpointRetryAt = this.journal.records + this.checkpointEvery;
      if (this.journal.broken) this.failure = brokenJournal(err);
      process.emitWarning(`store: checkpoint failed, will retry: ${(err as Error).message}`);
    }
  }
}

function brokenJournal(cause: unknown): StoreWriteError {
  return new StoreWriteError('store: the journal can no longer be written; restart the gateway', { cause });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}
