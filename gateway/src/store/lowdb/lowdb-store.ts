import { mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import {
  StoreWriteError,
  type StoreDamagedError,
  type CollectionSpec,
  type Doc,
  type Page,
  type Placed,
  type Scalar,
  type Store,
  type Tx,
} from '../store.js';
import { FileBlobs } from './blobs.js';
import { DocCache } from './cache.js';
import { Collection, type Entry } from './collection.js';
import { fsyncDir } from './durable-file.js';
import { Group } from './group.js';
import { failureClass, processWarnings, StoreHealth } from '../health.js';
import { diskTakes, HEADROOM_BYTES } from './headroom.js';
import { HitCounter } from './hits.js';
import { JobTally } from './job-tally.js';
import { jobsCollection, LowdbJobQueue, releaseLeases } from './jobs.js';
import type { Journal } from './journal.js';
import { checkPage, writePage, type UncheckedPage } from './pages.js';
import { encodeOps } from './records.js';
import { markDirty, recover, type DirtyPages } from './recovery.js';
import { LowdbSettings, settingsCollection } from './settings.js';
import { Transaction } from './transaction.js';
import { Changes } from '../change-feed.js';
import { metrics } from '../../metrics.js';
import { countWrites } from '../writes-counted.js';

export { StoreWriteError };

export interface LowdbStoreOptions {
  /** Directory of the store: the journal (`journal.log`) and one folder of page files per collection. */
  dir: string;
  collections: CollectionSpec[];
  /** Directory of media files; `<dir>/../media` when absent. */
  mediaDir?: string;
  /** Documents per page file. */
  pageSize?: number;
  /** Journal records between checkpoints. */
  checkpointEvery?: number;
  /** Journal size that also triggers a checkpoint. */
  checkpointBytes?: number;
  /** Documents kept in memory beyond those in use or not yet checkpointed. */
  cacheSize?: number;
  /** Hears whether the disk takes the commits; one telling process warnings when absent. */
  health?: StoreHealth;
  /**
   * Told of each page found damaged, named from the data dir as `damaged()` names it: at the open, by the check of
   * the pages' documents that runs once the store is open, or at a read.
   */
  onDamaged?: (damage: { file: string; reason: string }) => void;
}

export interface StoreStats {
  transactions: number;
  /** Journal records written, each one fsync: group commits. */
  commits: number;
  checkpoints: number;
  pagesWritten: number;
  /** Documents in memory now. */
  cached: number;
}

export interface LowdbStore extends Store {
  damaged(): Array<{ file: string; reason: string }>;
  /** Settles when the documents of every page opened from its keys alone are checked (see `onDamaged`). */
  checked(): Promise<void>;
  stats(): StoreStats;
  /** Settles when no checkpoint is writing pages. */
  checkpointed(): Promise<void>;
  /** Writes the pages changed so far, and empties the journal of them. */
  checkpointNow(): Promise<void>;
  /**
   * Runs `fn` at a point where the store's files hold exactly the commits acknowledged so far and nothing writes
   * them: transactions asked for meanwhile wait for `fn` to end (reads go on), those under way finish and their group
   * commit is written first, and so is any checkpoint writing pages. `fn` gets the length of `journal.log` then.
   */
  snapshot<R>(fn: (journalBytes: number) => Promise<R>): Promise<R>;
}

/** A page as a checkpoint writes it: its documents, or the id alone of one dropped from memory (clean on disk). */
interface PageImage {
  collection: Collection;
  page: number;
  docs: Array<[string, Doc | undefined]>;
  /** Each document's place in its collection's order. */
  seqs: number[];
}

/** A checkpoint under way: the pages it writes, and the sealed journal it makes needless once they are written. */
interface Checkpoint {
  images: PageImage[];
  sealed: number;
}

const COLLECTION_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Opens the store in `dir`, recovering whatever the last run left there.
 *
 * Layout: lowdb page files hold the documents, at most `pageSize` each in insertion order; `journal.log` holds
 * every group commit since the last checkpoint began. A commit appends one journal line and fsyncs it, so its cost
 * does not depend on how much is stored; a checkpoint rewrites only the pages changed since the previous one, while
 * commits go on (journal.ts).
 */
export async function openLowdbStore(options: LowdbStoreOptions): Promise<LowdbStore> {
  const pageSize = options.pageSize ?? 2000;
  const checkpointEvery = options.checkpointEvery ?? 2000;
  const checkpointBytes = options.checkpointBytes ?? 8 * 1024 * 1024;
  if (!(pageSize >= 1 && checkpointEvery >= 1 && checkpointBytes >= 1)) {
    throw new RangeError('store: pageSize, checkpointEvery and checkpointBytes must be at least 1');
  }
  const collections = new Map<string, Collection>();
  for (const spec of [...options.collections, jobsCollection, settingsCollection]) {
    if (!COLLECTION_NAME.test(spec.name) || collections.has(spec.name)) {
      throw new Error(`store: collection name "${spec.name}" is invalid or declared twice`);
    }
    collections.set(spec.name, new Collection(spec, pageSize));
  }
  await mkdir(options.dir, { recursive: true });
  for (const name of collections.keys()) await mkdir(join(options.dir, name), { recursive: true });
  await fsyncDir(options.dir);

  // Counts the jobs as the store opens, from what opening reads anyway, then as they change.
  const tally = new JobTally();
  collections.get(jobsCollection.name)!.watch(tally);
  const { journal, dirty, replayed, damaged, unchecked } = await recover(options.dir, collections);
  const blobs = new FileBlobs(options.mediaDir ?? join(options.dir, '..', 'media'));
  const found = new Map<string, StoreDamagedError>();
  // A page found damaged later, by the check of its documents or at a read, is told as those found at the open are.
  const tell = (err: StoreDamagedError) => {
    if (found.has(err.file)) return;
    found.set(err.file, err);
    options.onDamaged?.(named(options.dir, err));
  };
  damaged.forEach(tell);
  const cache = new DocCache(options.dir, options.cacheSize ?? 10_000, tell);
  const health = options.health ?? new StoreHealth(processWarnings);
  const store = new JournaledStore(
    options.dir,
    collections,
    journal,
    dirty,
    blobs,
    cache,
    checkpointEvery,
    checkpointBytes,
    tally,
    health,
    found,
  );
  if (replayed > 0 || dirty.size > 0) await store.checkpointNow();
  if ((await store.find(jobsCollection.name, 'status', ['running'], { limit: 1 })).length > 0)
    await store.run(releaseLeases);
  store.checkPages(unchecked, tell);
  return store;
}

class JournaledStore implements LowdbStore {
  readonly backend = 'lowdb';
  readonly jobs: LowdbJobQueue;
  readonly settings: LowdbSettings;
  /** One process holds the store: its commits are told here, in memory. */
  readonly changes = new Changes();
  /** Transactions applied in memory and waiting for the next journal write. */
  private pending = new Group();
  /** The group whose journal record is being written. */
  private inflight: Group | null = null;
  private writer: Promise<void> | null = null;
  /** The transaction running now, if any: one at a time, so each sees the data as the previous one left it. */
  private current: Promise<unknown> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Transactions asked for and not yet started. */
  private queued = 0;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | null = null;
  /** Set when the journal can no longer be trusted: the store then refuses every write until restarted (lose). */
  private failure: Error | null = null;
  /** After a failed checkpoint, the journal record count before which none is tried again. */
  private checkpointRetryAt = 0;
  /** The check of the pages' documents after the open (checkPages). */
  private checking: Promise<void> = Promise.resolve();
  /** The checkpoint writing its pages now, if any; commits go on meanwhile. */
  private checkpointing: Promise<void> | null = null;
  private readonly counters = { transactions: 0, commits: 0, checkpoints: 0, pagesWritten: 0 };
  /** Transactions started so far: a read that saw none start meanwhile saw no transaction half done. */
  private started = 0;
  private readonly hits = new HitCounter();
  /** Set while a snapshot is taken: transactions asked for meanwhile wait until it ends. */
  private hold: Promise<void> | null = null;
  /**
   * Set when the disk refused a write (full, failing) and has not yet shown room again: the store counts as away
   * meanwhile, however many small writes still go through (see backOnDisk).
   */
  private refused: { error: Error; bytes: number } | null = null;
  /** The last look at the disk's room since it refused: shared by whoever asks while it runs or within a second. */
  private probe: { at: number; room: Promise<boolean>; settled: boolean } | null = null;

  constructor(
    private readonly dir: string,
    private readonly collections: Map<string, Collection>,
    private readonly journal: Journal,
    private dirty: DirtyPages,
    readonly blobs: FileBlobs,
    private readonly cache: DocCache,
    private readonly checkpointEvery: number,
    private readonly checkpointBytes: number,
    tally: JobTally,
    readonly health: StoreHealth,
    private readonly damage: Map<string, StoreDamagedError>,
  ) {
    this.jobs = new LowdbJobQueue(
      (fn) => this.run(fn),
      this,
      async (queue) => {
        while (this.current) await this.current.catch(() => undefined);
        return this.collection(jobsCollection.name).sorted!.first(queue);
      },
      tally,
    );
    this.settings = new LowdbSettings((fn) => this.run(fn), this);
  }

  async get<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    return (await this.read(collection, (col) => [id].filter((i) => col.has(i)), docOf))[0] as T | undefined;
  }

  async find<T extends Doc>(collection: string, index: string, values: Scalar[], page?: Page): Promise<T[]> {
    return (await this.read(collection, (col) => col.findIds(index, values, page), docOf)) as T[];
  }

  findPlaced<T extends Doc>(
    collection: string,
    index: string,
    values: Scalar[],
    page?: Page,
  ): Promise<Array<Placed<T>>> {
    return this.read(
      collection,
      (col) => col.findIds(index, values, page),
      (entry) => ({ doc: entry.doc as T, place: entry.seq }),
    );
  }

  async scan<T extends Doc>(collection: string, page?: Page): Promise<T[]> {
    return (await this.read(collection, (col) => col.scanIds(page), docOf)) as T[];
  }

  async hit(key: string, windowMs: number, weight?: number): Promise<{ hits: number; resetAt: number }> {
    return this.hits.hit(key, windowMs, weight);
  }

  damaged(): Array<{ file: string; reason: string }> {
    return [...this.damage.values()].map((err) => named(this.dir, err));
  }

  /**
   * Checks the documents of the pages opened from their keys alone, one page at a time, while the store serves:
   * opening reads only the keys. `checked()` settles when all are checked, or the store closes.
   */
  checkPages(pages: UncheckedPage[], tell: (err: StoreDamagedError) => void): void {
    this.checking = (async () => {
      for (const page of pages) {
        if (this.state !== 'open') return;
        const damage = await checkPage(page);
        if (damage) tell(damage);
      }
    })();
  }

  checked(): Promise<void> {
    return this.checking;
  }

  stats(): StoreStats {
    return { ...this.counters, cached: this.cache.size };
  }

  async checkpointed(): Promise<void> {
    while (this.checkpointing) await this.checkpointing;
  }

  transact<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    return this.run(fn);
  }

  /**
   * Runs `fn` as one transaction, after the one running now. Its changes are applied to memory as it makes them
   * and joined to the next group commit before the next transaction starts, so the journal holds them in the
   * order they were made; the promise settles once that commit is durable. If `fn` throws, every change it made
   * is undone and the promise rejects with its error.
   */
  async run<R>(fn: (t: Transaction) => Promise<R>): Promise<R> {
    // Refused when asked for after close(); those asked for before still run.
    if (this.state !== 'open') throw new Error('store: closed');
    while (this.hold) await this.hold;
    const applied = this.exclusive(async () => {
      if (this.failure) throw this.failure;
      this.started += 1;
      const t = this.transaction();
      let result: R;
      try {
        result = await fn(t);
      } catch (err) {
        t.rollback();
        throw err;
      } finally {
        t.close();
      }
      this.counters.transactions += 1;
      // Nothing to write, but what it read may still be on its way to disk.
      if (t.ops.length === 0) return { result, t, done: this.durable() };
      this.pending.add(t);
      return { result, t, done: this.pending.done };
    });
    const { result, t, done } = await applied;
    const ended = performance.now();
    this.kick();
    await done;
    if (t.ops.length > 0) {
      metrics.commitSeconds.observe((performance.now() - ended) / 1000);
      countWrites(t.ops.map((op) => [op.collection.name, op.id] as const));
    }
    if (t.queuedJobs.size) this.jobs.queued(t.queuedJobs);
    if (!t.published.empty)
      for (const [accountId, changes] of t.published.byAccount()) this.changes.tell(accountId, changes);
    for (const fn of t.committed) fn();
    return result;
  }

  /**
   * A read outside any transaction: what `pick` takes of the entries of the ids that `select` chooses (a document,
   * or a document and its place, read in the same turn). It never sees a transaction half done: between
   * transactions it answers at once from memory; during one it waits for its end, and after a few tries takes its
   * turn among them. Documents dropped from memory are read back first, and the read starts over.
   */
  private async read<R>(
    collection: string,
    select: (col: Collection) => string[],
    pick: (entry: Entry) => R,
  ): Promise<R[]> {
    const col = this.collection(collection);
    for (let tries = 0; tries < 3; tries++) {
      if (this.current) {
        await this.current.catch(() => undefined);
        continue;
      }
      const entries = select(col).map((id) => col.entry(id)!);
      if (entries.every((entry) => entry.doc)) {
        for (const entry of entries) this.cache.keep(entry);
        return entries.map(pick);
      }
      await this.cache.load(col, entries);
    }
    return this.exclusive(async () => {
      const t = this.transaction();
      try {
        const ids = select(col);
        await t.docsOf(collection, ids);
        return ids.map((id) => pick(col.entry(id)!));
      } finally {
        t.close();
      }
    });
  }

  private transaction(): Transaction {
    return new Transaction((name) => this.collection(name), this.cache);
  }

  private exclusive<R>(fn: () => Promise<R>): Promise<R> {
    this.queued += 1;
    const turn = this.queue.then(() => {
      this.queued -= 1;
      const running = fn();
      this.current = running;
      return running.finally(() => {
        if (this.current === running) this.current = null;
      });
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Open, and its journal writable: a failed write refuses every transaction until a restart recovers. After a
   * failed write that left the journal intact the store goes on: it answers again.
   */
  async ping(): Promise<void> {
    if (this.state !== 'open') throw new Error('the store is closing');
    if (this.failure) {
      this.health.failed(this.failure);
      throw this.failure;
    }
    const refused = this.refused;
    if (refused && !(await this.backOnDisk())) {
      this.health.failed(refused.error);
      throw refused.error;
    }
    this.health.answered();
  }

  /**
   * After the disk refused a write: whether it takes writes again with room to spare (twice the refused record,
   * a megabyte at least), looked at once a second at most, by the probes and by the writes that go through. Until
   * then the store stays away: a full disk still takes a few bytes now and then, and counting those as a recovery
   * would say "unavailable" and "available again" in turns. Writes are tried all the while, so they succeed as soon
   * as space is freed.
   */
  private async backOnDisk(): Promise<boolean> {
    const refused = this.refused;
    if (!refused) return true;
    const at = performance.now();
    if (!this.probe || (this.probe.settled && at - this.probe.at >= PROBE_EVERY_MS)) {
      const probe = { at, room: this.takesWrites(Math.max(HEADROOM_BYTES, 2 * refused.bytes)), settled: false };
      void probe.room.then(() => (probe.settled = true));
      this.probe = probe;
    }
    const room = await this.probe.room;
    if (room && this.refused === refused) {
      this.refused = null;
      this.health.answered();
    }
    return room || this.refused === null;
  }

  /**
   * Whether the store takes writes again: its disk has `bytes` of room, its journal may be written (an owner, mode
   * or attribute changed meanwhile may still refuse it while the directory takes files), and a checkpoint that
   * failed is written now. A store whose checkpoint cannot run is not back: its journal would grow without end.
   */
  private async takesWrites(bytes: number): Promise<boolean> {
    if (!(await diskTakes(this.dir, bytes)) || !(await this.journal.writable())) return false;
    return this.checkpointRetryAt === 0 || this.checkpointAgain();
  }

  /**
   * Tries a failed checkpoint again at once, rather than after another round of records: sealed between group
   * commits, transactions held back meanwhile as for a snapshot; its pages are written while commits go on.
   * Whether it was written.
   */
  private async checkpointAgain(): Promise<boolean> {
    try {
      await this.snapshot(async () => {
        const checkpoint = await this.beginCheckpoint();
        if (checkpoint) this.startCheckpoint(checkpoint);
      });
    } catch {
      return false;
    }
    await this.checkpointed();
    return this.checkpointRetryAt === 0;
  }

  durable(): Promise<void> {
    if (!this.pending.empty) return this.pending.done;
    if (this.inflight) return this.inflight.done;
    return this.failure ? Promise.reject(this.failure) : Promise.resolve();
  }

  async snapshot<R>(fn: (journalBytes: number) => Promise<R>): Promise<R> {
    if (this.state !== 'open') throw new Error('store: closed');
    while (this.hold) await this.hold;
    // Set in the same turn as the check above: no transaction can slip in between.
    const taken = this.quiesce().then(() => fn(this.journal.size));
    const hold = taken.then(
      () => undefined,
      () => undefined,
    );
    this.hold = hold;
    void hold.then(() => {
      if (this.hold === hold) this.hold = null;
    });
    return taken;
  }

  /**
   * Waits, with new transactions held back, until every transaction started is applied, its group commit written
   * and no checkpoint is writing: only then do the files stop changing. Waiting outside the transactions' turns
   * matters: a failed journal write takes a turn to undo its group, and must not wait for us. The turns queued
   * after this call are reads only (transactions are held back), which write nothing: they are not waited for.
   */
  private async quiesce(): Promise<void> {
    await this.queue;
    for (this.kick(); this.writer; this.kick()) await this.writer;
    await this.checkpointed();
    if (this.failure) throw this.failure;
    if (!this.pending.empty) throw new StoreWriteError('store: the last changes could not be saved');
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Writes every dirty page and deletes the journals they make needless; used on open after a replay and on close. */
  async checkpointNow(): Promise<void> {
    await this.checkpointed();
    const checkpoint = await this.beginCheckpoint();
    if (checkpoint) await this.writeCheckpoint(checkpoint);
  }

  private async shutdown(): Promise<void> {
    // A snapshot under way is let finish: the checkpoint below would change the files it reads.
    while (this.hold) await this.hold;
    this.state = 'closing';
    await this.checking;
    this.jobs.close();
    this.changes.close();
    await this.queue;
    // Writes what is pending, and whatever the writes leave pending.
    for (this.kick(); this.writer; this.kick()) await this.writer;
    if (!this.failure) await this.checkpointNow();
    await this.checkpointed();
    await this.journal.close();
    this.state = 'closed';
  }

  private collection(name: string): Collection {
    const collection = this.collections.get(name);
    if (!collection) throw new Error(`store: unknown collection "${name}"`);
    return collection;
  }

  /**
   * Starts a write unless one is in flight, as soon as a transaction has taken its turn rather than at the end of
   * the event loop's turn: the wait for the disk then overlaps with the other requests of this turn, and whatever
   * commits while a write is in flight joins the next group commit.
   */
  private kick(): void {
    if (this.writer || this.pending.empty || this.failure) return;
    this.writer = this.writeLoop().finally(() => {
      this.writer = null;
      // Transactions that arrived while the loop was finishing.
      this.kick();
    });
  }

  /** The single writer: one journal write in flight at a time, everything that arrives meanwhile batched. */
  private async writeLoop(): Promise<void> {
    while (!this.pending.empty && !this.failure) {
      const group = this.pending;
      this.pending = new Group();
      this.inflight = group;
      for (const op of group.ops) markDirty(this.dirty, op.collection, op.page);
      const payload = encodeOps(group.ops);
      // Unless a transaction is under way (waiting for a page file, its changes already in memory), memory now
      // holds exactly what the journal will hold once this record is written: the moment to take the images a
      // checkpoint writes, and to seal the journal. The record goes to the new journal; replaying it over pages
      // that already hold it changes nothing. With a transaction under way, the checkpoint waits for a later record.
      const checkpoint = this.checkpointDue(payload.length) && !this.current ? await this.beginCheckpoint() : undefined;
      try {
        await this.journal.append(payload);
      } catch (err) {
        this.inflight = null;
        if (checkpoint) this.returnDirtyPages(checkpoint.images);
        // A transaction under way (waiting for a page file) may have built on the failed group: take the turn
        // between transactions, so that everything applied after the failed group is undone with it.
        await this.exclusive(async () => this.abandon(group, err, payload.length));
        continue;
      }
      this.inflight = null;
      this.counters.commits += 1;
      if (this.refused) void this.backOnDisk();
      else this.health.answered();
      group.resolve();
      if (checkpoint) this.startCheckpoint(checkpoint);
    }
  }

  /** Writes the checkpoint's pages while commits go on; `checkpointed()` waits for it. */
  private startCheckpoint(checkpoint: Checkpoint): void {
    this.checkpointing = this.writeCheckpoint(checkpoint).finally(() => {
      this.checkpointing = null;
    });
  }

  /**
   * A journal write failed (disk full, I/O error, a journal file made immutable). Choice: the store stays usable.
   * The failed group and every transaction applied after it are taken back from memory in reverse order and their
   * promises reject with StoreWriteError (callers answer 503); nothing of them was acknowledged. The journal was cut
   * back to its last intact record, or the write left nothing of itself; only if neither holds does the store refuse
   * all further writes until a restart recovers it from disk, since fsync errors cannot be retried safely (see
   * lose). Otherwise the store counts as away until the disk takes writes again (backOnDisk).
   */
  private abandon(group: Group, cause: unknown, bytes: number): void {
    const later = this.pending;
    this.pending = new Group();
    later.undoAll();
    group.undoAll();
    const error = new StoreWriteError('store: the change could not be saved', { cause });
    if (this.journal.broken) this.lose(cause);
    else {
      this.refuse(error, bytes);
      this.health.failed(error);
    }
    group.reject(error);
    later.reject(error);
  }

  /**
   * The journal's state on disk is unknown: every write is refused until a restart recovers the store from its
   * files, which hold every acknowledged commit. The health says a restart is needed, so `/healthz` fails and a
   * supervisor restarts the process rather than leave it refusing writes for good.
   */
  private lose(cause: unknown): void {
    this.failure ??= brokenJournal(cause);
    this.health.restartNeeded(this.failure);
  }

  /** The disk refused a write: a look at its room taken before this one says nothing of it. */
  private refuse(error: Error, bytes: number): void {
    this.refused = { error, bytes };
    this.probe = null;
  }

  private checkpointDue(nextRecordBytes: number): boolean {
    if (this.checkpointing) return false;
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
        images.push({ collection, page, ...collection.pageContents(page) });
      }
    }
    this.dirty = new Map();
    this.cache.captured += 1;
    return images;
  }

  private returnDirtyPages(images: PageImage[]): void {
    for (const { collection, page } of images) markDirty(this.dirty, collection, page);
  }

  /**
   * Takes the images of the dirty pages and seals the journal at that point, so that later records go to a new
   * journal while the pages are written. Undefined if sealing failed (the checkpoint then fails).
   */
  private async beginCheckpoint(): Promise<Checkpoint | undefined> {
    const images = this.takeDirtyPages();
    try {
      return { images, sealed: await this.journal.seal() };
    } catch (err) {
      this.checkpointFailed(images, err);
      return undefined;
    }
  }

  /**
   * Pages first, each durable, then the sealed journals are deleted. A crash in between leaves new pages under the
   * sealed journals, whose replay rewrites the same full documents: the result is the same.
   */
  private async writeCheckpoint({ images, sealed }: Checkpoint): Promise<void> {
    const captured = this.cache.captured;
    try {
      for (const { collection, page, docs, seqs } of images) {
        await writePage(
          join(this.dir, collection.name),
          page,
          await this.cache.pageImage(collection, page, docs),
          collection.shape,
          seqs,
        );
        this.counters.pagesWritten += 1;
      }
      await this.journal.release(sealed);
      this.counters.checkpoints += 1;
      this.checkpointRetryAt = 0;
      this.cache.written = captured;
      this.cache.pagesWritten();
      this.cache.trim();
    } catch (err) {
      this.checkpointFailed(images, err);
    }
  }

  /**
   * The journals still hold everything, so no data is at risk; try again after another round of records. A disk
   * that refused the pages or the journal's seal (full, failing, a data dir the gateway may no longer change) makes
   * the store away, as a refused commit does: the journal would grow without end, and the next commits may meet it
   * too. The store is back once the checkpoint is written (takesWrites).
   */
  private checkpointFailed(images: PageImage[], err: unknown): void {
    this.returnDirtyPages(images);
    this.checkpointRetryAt = this.journal.records + this.checkpointEvery;
    if (this.journal.broken) this.lose(err);
    else if (failureClass(err) !== undefined) {
      const error = new StoreWriteError('store: a checkpoint could not write its pages', { cause: err });
      if (!this.refused) this.refuse(error, 0);
      this.health.failed(error);
    }
    this.health.report(
      err,
      {},
      'store: a checkpoint failed; it is tried again once the disk takes writes, or after more commits',
    );
  }
}

const docOf = (entry: Entry): Doc => entry.doc!;

/** How long one look at the disk's room answers for, while the disk refuses writes. */
const PROBE_EVERY_MS = 1_000;

function brokenJournal(cause: unknown): StoreWriteError {
  return new StoreWriteError('store: the journal can no longer be written; restart the gateway', { cause });
}

/** A damaged file named from the data dir (the store's parent): where an operator looks, and nothing beyond it. */
const named = (dir: string, { file, reason }: StoreDamagedError) => ({ file: relative(dirname(dir), file), reason });
