import {
  type Change,
  type Doc,
  type Job,
  type JobData,
  type JobOutcome,
  type NewJob,
  type Page,
  type Scalar,
  type Tx,
} from '../store.js';
import { Published } from '../published.js';
import type { DocCache } from './cache.js';
import type { Collection, Entry } from './collection.js';
import { deepFreeze } from './freeze.js';
import { cancelJobs, enqueueJob, settleJob } from './jobs.js';

/** One change for the journal: a full document to upsert, or `doc: null` for a removal. */
export interface Op {
  collection: Collection;
  id: string;
  doc: Doc | null;
  /** The page the document was in (removal) or is in (upsert) when the change was made. */
  page: number;
  /** An upsert: the document's place in its collection's order after the change. */
  seq?: number;
}

/**
 * A transaction (or a read) of the lowdb store. Each change is applied to memory at once (so its own reads and
 * every later transaction see it), recorded as a journal op, and given an undo step so the whole transaction can
 * be taken back. The store runs one transaction at a time; the only waits inside one are for page files holding
 * documents no longer in memory, and every document it touches is held in memory until it ends.
 */
export class Transaction implements Tx {
  readonly ops: Op[] = [];
  readonly undo: Array<() => void> = [];
  /** The queues it queued jobs in: their runners hear of it once the commit is durable. */
  readonly queuedJobs = new Set<string>();
  /** Told once the commit is durable (see Tx.afterCommit). */
  readonly committed: Array<() => void> = [];
  /** Told to the store's change listeners once the commit is durable (see Tx.publish). */
  readonly published = new Published();
  private readonly held: Entry[] = [];
  private open = true;

  constructor(
    private readonly collectionOf: (name: string) => Collection,
    private readonly cache: DocCache,
  ) {}

  async get<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    const col = this.use(collection);
    const entry = col.entry(id);
    if (!entry) return undefined;
    const loading = this.bring(col, [entry]);
    if (loading) await loading;
    return entry.doc as T;
  }

  /** One transaction runs at a time here: every read already holds what it read until the commit. */
  lock<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    return this.get<T>(collection, id);
  }

  find<T extends Doc>(collection: string, index: string, values: Scalar[], page?: Page): Promise<T[]> {
    const col = this.use(collection);
    return this.docsOf<T>(collection, col.findIds(index, values, page));
  }

  scan<T extends Doc>(collection: string, page?: Page): Promise<T[]> {
    const col = this.use(collection);
    return this.docsOf<T>(collection, col.scanIds(page));
  }

  /** The documents with these ids, which must exist. */
  async docsOf<T extends Doc>(collection: string, ids: string[]): Promise<T[]> {
    const col = this.use(collection);
    const entries = ids.map((id) => col.entry(id)!);
    const loading = this.bring(col, entries);
    if (loading) await loading;
    return entries.map((entry) => entry.doc as T);
  }

  async insert<T extends Doc>(collection: string, doc: T): Promise<T> {
    const col = this.use(collection);
    if (typeof doc?.id !== 'string' || doc.id === '') {
      throw new TypeError(`store: ${collection} document needs a string id`);
    }
    // Frozen as given, not copied: a spread copy frozen here would get a hidden class of its own (some 600 bytes
    // per document held, and slow reads of every field), where documents built alike share one.
    const stored = deepFreeze(doc);
    col.checkInsert(stored);
    const entry = col.insert(stored);
    this.hold(entry);
    this.cache.changed(entry);
    this.undo.push(() => {
      col.remove(stored.id);
      this.cache.forget(entry);
    });
    this.ops.push({ collection: col, id: stored.id, doc: stored, page: entry.page, seq: entry.seq });
    return stored;
  }

  async update<T extends Doc>(collection: string, id: string, patch: Partial<T>): Promise<T> {
    const col = this.use(collection);
    const entry = col.entry(id);
    if (!entry) throw new Error(`store: ${collection} has no document "${id}"`);
    if (patch.id !== undefined && patch.id !== id) {
      throw new TypeError(`store: cannot change the id of ${collection} "${id}"`);
    }
    const loading = this.bring(col, [entry]);
    if (loading) await loading;
    const previous = entry.doc!;
    const next = deepFreeze({ ...previous, ...patch, id }) as T;
    col.checkReplace(next);
    col.replace(entry, next);
    this.cache.changed(entry);
    this.undo.push(() => col.replace(entry, previous));
    this.ops.push({ collection: col, id, doc: next, page: entry.page, seq: entry.seq });
    return next;
  }

  /** Updates the document in its page and gives it the last place in its collection's order. */
  async touch<T extends Doc>(collection: string, id: string, patch: Partial<T>): Promise<T> {
    const next = await this.update<T>(collection, id, patch);
    const col = this.use(collection);
    const entry = col.entry(id)!;
    const before = col.renew(entry);
    this.undo.push(() => col.renew(entry, before));
    this.ops.at(-1)!.seq = entry.seq;
    return next;
  }

  /** Removing an absent document is a no-op. */
  async remove(collection: string, id: string): Promise<void> {
    const col = this.use(collection);
    const found = col.entry(id);
    if (!found) return;
    const loading = this.bring(col, [found]);
    if (loading) await loading;
    const entry = col.remove(id)!;
    this.cache.forget(entry);
    this.undo.push(() => {
      col.restore(entry);
      this.cache.keep(entry);
    });
    this.ops.push({ collection: col, id, doc: null, page: entry.page });
  }

  async enqueue<D extends JobData>(job: NewJob<D>): Promise<void> {
    await enqueueJob(this, job);
  }

  async cancelJobs(key: string): Promise<void> {
    await cancelJobs(this, key);
  }

  async settle(job: Job, outcome: JobOutcome): Promise<void> {
    await settleJob(this, job, outcome);
  }

  /** The collection itself, for the store's own range scans (due jobs). */
  collection(name: string): Collection {
    return this.use(name);
  }

  afterCommit(fn: () => void): void {
    this.committed.push(fn);
  }

  publish(accountId: string, change: Change, key?: string): void {
    if (!this.open) throw new Error('store: this transaction is over; a Tx cannot be used after transact() returned');
    this.published.add(accountId, change, key);
  }

  /** Takes back every change, newest first. */
  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]!();
  }

  /** Ends the transaction: a Tx must not be used after its function returned, the change would escape the commit. */
  close(): void {
    this.open = false;
    for (const entry of this.held) this.cache.release(entry);
    this.held.length = 0;
  }

  /**
   * Holds the entries for the rest of the transaction; reads back those whose document was dropped, returning
   * the promise of that only when there is something to read (most of the time there is not, and no wait).
   */
  private bring(col: Collection, entries: Entry[]): Promise<void> | undefined {
    let missing = false;
    for (const entry of entries) {
      this.hold(entry);
      if (entry.doc) this.cache.keep(entry);
      else missing = true;
    }
    return missing ? this.cache.load(col, entries) : undefined;
  }

  private hold(entry: Entry): void {
    this.cache.hold(entry);
    this.held.push(entry);
  }

  private use(collection: string): Collection {
    if (!this.open) throw new Error('store: this transaction is over; a Tx cannot be used after transact() returned');
    return this.collectionOf(collection);
  }
}
