import type pg from 'pg';
import {
  CommitOutcomeUnknownError,
  StoreConflictError,
  StoreWriteError,
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
import type { Catalog } from './catalog.js';
import { DocumentReads, versionRead } from './documents.js';
import { answeredByServer, asWriteError, commitMayHaveHappened, isRace } from './errors.js';
import { cancelStatement, enqueueStatement, settleStatement } from './jobs.js';
import { everything, KnownLists, type Includes } from './known-lists.js';
import { oneStatement } from './one-statement.js';
import { Pipeline } from './pipeline.js';
import { Published } from '../published.js';
import { DocumentWrites, VERSION } from './writes.js';

const keyOf = (collection: string, id: string) => `${collection}\u0000${id}`;

/** A write of a document that waits in the pipeline, not sent yet. */
interface Unsent {
  /** Its place among the transaction's writes (see PostgresTx.written). */
  at: number;
  insert: boolean;
  /** The row version a replace checks (undefined: none). */
  version: string | undefined;
  /** Whether a replace gives the document the last place in its collection's order. */
  renew: boolean;
}

/** The server's answer to any statement after one that failed in the transaction. */
const IN_FAILED_TRANSACTION = '25P02';

/**
 * The `tx` handed to a transaction's function. Its writes and queued jobs are sent ahead of its next read or its
 * commit (see Pipeline), since what they answer is known in advance; reads started together (Promise.all) go out
 * together. A function that reads what it needs together, then writes, costs a round trip per such step and one
 * for its commit. A write that loses a race (a key taken, a document changed since it was read) fails the whole
 * transaction with a StoreConflictError, at its next read or its commit; it then runs again.
 *
 * What the transaction read is kept: a document read again by id, or a list read again (see KnownLists), costs no
 * statement, so a step may read ahead what later code reads again.
 */
export class PostgresTx implements Tx {
  /** The first statement that failed, as the transaction fails with it: after it PostgreSQL refuses every statement but a rollback. */
  failure: unknown;
  /** The conflicts this transaction's writes met, told apart from any the function makes of its own. */
  private readonly conflicts = new WeakSet<object>();
  private open = true;
  private readonly pipeline: Pipeline;
  private readonly reads: DocumentReads;
  private readonly writes: DocumentWrites;
  /** The row version of each document read, by collection and id: a write of one applies only if it is unchanged. */
  private readonly versions = new Map<string, string>();
  /**
   * Each document as this transaction last read or wrote it (null: it is absent). Reading one again by id answers
   * from here, without a statement; an update of one is worked out from here.
   */
  private readonly known = new Map<string, Doc | null>();
  /** The documents this transaction wrote: their rows are its own until the commit, no version to check. */
  private readonly mine = new Set<string>();
  /** The documents a write checks the version of: one statement's race lost may be on any of them (see commitAlone). */
  private readonly checked = new Set<string>();
  /**
   * The writes not sent yet, by document: a later write of the document takes the place of its statement, so that
   * a document written twice before the next read costs one statement and one new row, not two (see write).
   */
  private readonly unsent = new Map<string, Unsent>();
  /** How many writes of documents the transaction queued: each one's place among them. */
  private written = 0;
  /** By collection, the place of the last write that gave its document the last place there (an insert or a touch). */
  private readonly placedLast = new Map<string, number>();
  /** Lists read, kept up to date with the transaction's writes. */
  private readonly lists = new KnownLists();

  /**
   * @param contended The documents an earlier attempt of this transaction lost a race on, shared by its attempts:
   * this attempt reads those locked (FOR UPDATE), so it takes its turn on them instead of losing again.
   */
  constructor(
    client: pg.PoolClient,
    private readonly catalog: Catalog,
    private readonly contended = new Set<string>(),
  ) {
    // Explicit, whatever default_transaction_isolation the operator chose: the retry logic assumes it.
    this.pipeline = new Pipeline(client, (err) => this.fail(err), { text: 'BEGIN ISOLATION LEVEL READ COMMITTED' });
    this.reads = new DocumentReads(
      (text, values, shared) => this.send(text, values, shared),
      catalog,
      (collection, doc, version) => {
        const key = keyOf(collection, doc.id);
        if (this.mine.has(key)) return;
        this.versions.set(key, version);
        this.known.set(key, doc);
      },
    );
    this.writes = new DocumentWrites(catalog);
  }

  get<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    const key = keyOf(collection, id);
    return this.usable(async () => {
      if (this.contended.has(key) && !this.mine.has(key)) return this.reads.lock<T>(collection, id);
      const known = this.known.get(key);
      if (known !== undefined) return (known ?? undefined) as T | undefined;
      return this.reads.get<T>(collection, id);
    });
  }

  readBefore<T extends Doc>(collection: string, doc: T): Promise<T | undefined> {
    const key = keyOf(collection, doc.id);
    const version = versionRead(doc);
    // A document this transaction read or wrote is known already; one an earlier attempt lost on is read locked.
    if (version === undefined || this.known.has(key) || this.contended.has(key)) return this.get<T>(collection, doc.id);
    return this.usable(async () => {
      this.versions.set(key, version);
      this.known.set(key, doc);
      return doc;
    });
  }

  lock<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    const key = keyOf(collection, id);
    // A document this transaction wrote is locked already, by its write.
    return this.usable(async () =>
      this.mine.has(key) ? ((this.known.get(key) ?? undefined) as T | undefined) : this.reads.lock<T>(collection, id),
    );
  }

  find<T extends Doc>(collection: string, index: string, values: Scalar[], page?: Page): Promise<T[]> {
    const includes = (): Includes => {
      const texts = values.map(String);
      const { fields } = this.catalog.index(collection, index);
      return (doc) =>
        fields.every((field, i) => {
          const value = (doc as unknown as Record<string, unknown>)[field];
          return value !== null && value !== undefined && String(value) === texts[i];
        });
    };
    return this.list(collection, JSON.stringify([index, values, page]), page ? undefined : includes, () =>
      this.reads.find<T>(collection, index, values, page),
    );
  }

  scan<T extends Doc>(collection: string, page?: Page): Promise<T[]> {
    return this.list(collection, JSON.stringify([page]), page ? undefined : () => everything, () =>
      this.reads.scan<T>(collection, page),
    );
  }

  /** A list read once per transaction (see KnownLists); each caller gets its own array. */
  private list<T extends Doc>(
    collection: string,
    query: string,
    includes: (() => Includes) | undefined,
    read: () => Promise<T[]>,
  ): Promise<T[]> {
    return this.usable(() =>
      this.lists.get(collection, query, includes, () => read().then((found) => this.current(collection, found))),
    );
  }

  /**
   * A list as the transaction sees it: a document it wrote as it wrote it (the database has it so too), and each
   * contended one read again, locked: the transaction waits its turn on it.
   */
  private async current<T extends Doc>(collection: string, docs: T[]): Promise<T[]> {
    const result: T[] = [];
    for (const doc of docs) {
      const key = keyOf(collection, doc.id);
      const seen = this.mine.has(key)
        ? (this.known.get(key) as T | null)
        : this.contended.has(key)
          ? await this.reads.lock<T>(collection, doc.id)
          : doc;
      if (seen) result.push(seen);
    }
    return result;
  }

  insert<T extends Doc>(collection: string, doc: T): Promise<T> {
    return this.usable(async () => {
      const statement = this.writes.insert(collection, doc);
      const stored = JSON.parse(statement.values![1] as string) as T;
      const key = keyOf(collection, doc.id);
      this.pipeline.later(statement, key);
      const at = ++this.written;
      this.unsent.set(key, { at, insert: true, version: undefined, renew: true });
      this.placedLast.set(collection, at);
      this.wrote(collection, stored, true);
      return stored;
    });
  }

  update<T extends Doc>(collection: string, id: string, patch: Partial<T>): Promise<T> {
    return this.write(collection, id, patch, false);
  }

  touch<T extends Doc>(collection: string, id: string, patch: Partial<T>): Promise<T> {
    return this.write(collection, id, patch, true);
  }

  private write<T extends Doc>(collection: string, id: string, patch: Partial<T>, renew: boolean): Promise<T> {
    return this.usable(async () => {
      const key = keyOf(collection, id);
      const before = (this.known.get(key) ??
        (this.known.has(key) ? undefined : await this.reads.get<T>(collection, id))) as T | undefined;
      if (!before) throw new Error(`store: ${collection} has no document "${id}"`);
      const doc = this.writes.merge(collection, before, patch);
      let unsent = this.replaceUnsent(collection, key, doc, renew);
      if (!unsent) {
        const version = this.mine.has(key) ? undefined : this.versions.get(key);
        if (version !== undefined) this.checked.add(key);
        this.pipeline.later(this.writes.replace(collection, doc, version, renew), key);
        this.unsent.set(key, (unsent = { at: ++this.written, insert: false, version, renew }));
      }
      if (renew) this.placedLast.set(collection, unsent.at);
      this.wrote(collection, doc, renew);
      return doc;
    });
  }

  /**
   * Writes `doc` in the place of its document's unsent statement, with what that one checked and did (an insert
   * stays an insert); undefined when there is none, or when this write gives the document the last place and
   * another document of the collection took one after that statement (the order would not be kept).
   */
  private replaceUnsent(collection: string, key: string, doc: Doc, renew: boolean): Unsent | undefined {
    const unsent = this.unsent.get(key);
    if (!unsent || (renew && (this.placedLast.get(collection) ?? 0) > unsent.at)) return undefined;
    const statement = unsent.insert
      ? this.writes.insert(collection, doc)
      : this.writes.replace(collection, doc, unsent.version, unsent.renew || renew);
    if (!this.pipeline.replace(key, statement)) return undefined;
    unsent.renew ||= renew;
    return unsent;
  }

  remove(collection: string, id: string): Promise<void> {
    return this.usable(async () => {
      const key = keyOf(collection, id);
      if (this.known.get(key) === null) return;
      this.unsent.delete(key);
      const version = this.mine.has(key) ? undefined : this.versions.get(key);
      if (version !== undefined) this.checked.add(key);
      this.pipeline.later(this.writes.remove(collection, id, version));
      this.wrote(collection, null, false, id);
    });
  }

  enqueue<D extends JobData>(job: NewJob<D>): Promise<void> {
    return this.usable(async () => this.pipeline.later(enqueueStatement(job)));
  }

  cancelJobs(key: string): Promise<void> {
    return this.usable(async () => this.pipeline.later(cancelStatement(key)));
  }

  settle(job: Job, outcome: JobOutcome): Promise<void> {
    return this.usable(async () => this.pipeline.later(settleStatement(job, outcome)));
  }

  /** Keeps what the transaction wrote (null: removed); `last` for an insert or a touch, which give it the last place. */
  private wrote(collection: string, doc: Doc | null, last: boolean, id = doc!.id): void {
    const key = keyOf(collection, id);
    this.known.set(key, doc);
    this.mine.add(key);
    this.versions.delete(key);
    this.lists.wrote(collection, id, doc, last);
  }

  /** The documents the transaction wrote, as their collection and id. */
  *documentsWritten(): Iterable<readonly [string, string]> {
    for (const key of this.mine) {
      const at = key.indexOf('\u0000');
      yield [key.slice(0, at), key.slice(at + 1)];
    }
  }

  /** Told once COMMIT succeeded (see Tx.afterCommit). */
  readonly committed: Array<() => void> = [];

  afterCommit(fn: () => void): void {
    this.committed.push(fn);
  }

  /** Told once committed (see ChangeNotifications). */
  readonly published = new Published();

  publish(accountId: string, change: Change, key?: string): void {
    if (!this.open) throw new Error('store: a transaction was used after its function returned');
    this.published.add(accountId, change, key);
  }

  /**
   * Sends what waits and commits; throws what failed the transaction, if anything did. When the connection broke
   * after COMMIT (or the one statement, see commitAlone) went out, with no statement before it refused by the server,
   * the database may have committed or not: that is CommitOutcomeUnknownError, never a failure to save (the caller
   * must not count it lost, nor the store run it again).
   */
  commit(): Promise<void> {
    return this.pipeline.begun ? this.commitBlock() : this.commitAlone();
  }

  /** Sends what waits and COMMIT, with BEGIN first when the block is not open yet. */
  private async commitBlock(): Promise<void> {
    let commit: pg.QueryResult;
    try {
      commit = await this.pipeline.now('COMMIT');
    } catch (err) {
      // Answers settle in order: a statement before COMMIT that failed is known by now.
      const before = this.failure;
      this.fail(err);
      if (commitMayHaveHappened(err) && (before === undefined || !answeredByServer(before))) {
        throw new CommitOutcomeUnknownError(
          `store: the connection to the database broke after COMMIT was sent: ${(err as Error).message}`,
          { cause: err },
        );
      }
      throw asWriteError(before ?? err);
    }
    if (this.failure !== undefined) throw asWriteError(this.failure);
    if (commit.command !== 'COMMIT') throw new StoreWriteError('store: the database rolled the transaction back');
  }

  /**
   * Commits a transaction that opened no transaction block (it wrote, if at all, after its last read): one that wrote
   * nothing has nothing to commit, and writes that can go as one statement commit by themselves (see oneStatement).
   * Others open the block now, and commit it.
   */
  private async commitAlone(): Promise<void> {
    // A read that failed fails the transaction, as it would in a block, even if the function went on.
    if (this.failure !== undefined) throw asWriteError(this.failure);
    const writes = this.pipeline.waiting;
    if (!writes.length) return;
    const one = oneStatement(writes);
    if (!one) return this.commitBlock();
    this.pipeline.discard();
    try {
      await this.pipeline.alone(one);
    } catch (err) {
      const failure = one.meaning!(err);
      // The race may have been lost on any document whose version a part checked: the next attempt locks them all.
      if (failure instanceof StoreConflictError && failure.index === VERSION)
        for (const key of this.checked) this.contended.add(key);
      this.fail(failure);
      if (commitMayHaveHappened(err)) {
        throw new CommitOutcomeUnknownError(
          `store: the connection to the database broke after the transaction's statement was sent: ${(err as Error).message}`,
          { cause: err },
        );
      }
      throw asWriteError(failure);
    }
  }

  /** Ends the transaction without what waits; false when the connection could not even roll back. */
  async rollback(): Promise<boolean> {
    this.pipeline.discard();
    if (!this.pipeline.begun) return true;
    try {
      await this.pipeline.now('ROLLBACK');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Whether `err` (thrown by the function, or the failure it went on after) is a race this transaction lost: a
   * write met a key taken meanwhile or a document changed since it was read, or the database failed it (deadlock,
   * serialization). A function that turns a conflict into an error of its own decided what it means: that error
   * is final.
   */
  lost(err: unknown): boolean {
    return (typeof err === 'object' && err !== null && this.conflicts.has(err)) || isRace(err);
  }

  /** A Tx must not be used once its function returned: the change would escape the commit. */
  close(): void {
    this.open = false;
  }

  /** A Tx must not be used once its function returned: the change would escape the commit. */
  private usable<R>(work: () => Promise<R>): Promise<R> {
    if (!this.open) return Promise.reject(new Error('store: a transaction was used after its function returned'));
    return work();
  }

  /** The transaction fails with its first failure; a conflict among them is marked as a race it lost. */
  private fail(err: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    if (err instanceof StoreConflictError) {
      this.conflicts.add(err);
      if (err.index === VERSION) this.contended.add(keyOf(err.collection, err.key));
    }
  }

  private async send(text: string, values?: unknown[], shared?: boolean): Promise<pg.QueryResult> {
    try {
      return await this.pipeline.now(text, values, shared);
    } catch (err) {
      // Refused because a statement sent ahead failed: the transaction fails with that one's failure.
      if ((err as { code?: unknown }).code === IN_FAILED_TRANSACTION && this.failure !== undefined) throw this.failure;
      this.fail(err);
      throw asWriteError(err);
    }
  }
}
