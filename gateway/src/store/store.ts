import type { StoreHealth } from './health.js';

/**
 * The Store: every record of the gateway lives in named collections of documents with an `id`, on one of two
 * backends (lowdb, the embedded default, or PostgreSQL). Domain code talks only to this interface.
 *
 * Lookups are query-shaped: a collection declares its indexes as lists of fields, and `find` asks for the
 * documents whose fields equal given values, in insertion order, a page at a time. Uniqueness rules are unique
 * indexes, enforced by the backend itself, so they hold across processes.
 *
 * A write is a transaction: `transact(async (tx) => …)` runs its function as one unit (all or nothing, isolated
 * from concurrent transactions) and settles only once the commit is durable. A transaction that loses a race
 * (a unique key taken, a serialization failure) is run again from the start, so its function must only read and
 * write through `tx`; when it keeps losing, it fails with StoreConflictError.
 */
export interface Doc {
  id: string;
}

export type Scalar = string | number | boolean;

/** An index over one collection. A document in which any of the fields is null or absent is not in the index. */
export interface IndexSpec {
  fields: string[];
  unique?: boolean;
}

export interface CollectionSpec {
  name: string;
  indexes?: Record<string, IndexSpec>;
}

/**
 * Paging of `find` and `scan`: at most `limit` documents after `after`, oldest first. `after` is the id of a document
 * (the page starts where that document is now) or a place a read gave (`findPlaced`): the page then starts where
 * that document was, even if `touch` has moved it since.
 */
export interface Page {
  limit?: number;
  after?: string | number;
  order?: 'asc' | 'desc';
}

/** A document and its place in its collection's order as the read saw it: `touch` gives it a later one. */
export interface Placed<T extends Doc> {
  doc: T;
  place: number;
}

export interface Reader {
  get<T extends Doc>(collection: string, id: string): Promise<T | undefined>;
  /** Documents whose index fields equal `values`, in insertion order (at most one for a unique index). */
  find<T extends Doc>(collection: string, index: string, values: Scalar[], page?: Page): Promise<T[]>;
  /** Every document of a collection, in insertion order. */
  scan<T extends Doc>(collection: string, page?: Page): Promise<T[]>;
}

/**
 * A transaction's reads take no locks: a concurrent transaction may change what was read. What a transaction writes
 * is checked instead: an update or removal of a document it read applies only if the document is still as read;
 * otherwise the transaction lost a race and runs again from the start. A list only read (webhook subscriptions, a
 * contact's openings) therefore never holds anyone up. A document many transactions change at once (a balance, a
 * counter, a campaign's pacing) is read with `lock` instead: they then take turns on it rather than lose races.
 */
export interface Tx extends Reader {
  /** Reads a document to change it, holding it until the commit: a concurrent `lock` of it waits its turn. */
  lock<T extends Doc>(collection: string, id: string): Promise<T | undefined>;
  /**
   * Adds a document. The document given becomes the stored one: the caller hands it over and changes it no more
   * (the embedded store freezes it). A taken id or unique index key fails the transaction with StoreConflictError:
   * here, or at the transaction's next read or its commit (PostgreSQL sends writes ahead of those).
   */
  insert<T extends Doc>(collection: string, doc: T): Promise<T>;
  /**
   * Replaces a document by a shallow merge of `patch`; returns the new document. Throws if absent; a unique key
   * taken fails the transaction as `insert` does.
   */
  update<T extends Doc>(collection: string, id: string, patch: Partial<T>): Promise<T>;
  /**
   * Updates a document as `update` does and moves it to the end of its collection's order, as if inserted now:
   * lists read newest first show it first (the inbox's conversations, by their latest activity).
   */
  touch<T extends Doc>(collection: string, id: string, patch: Partial<T>): Promise<T>;
  /** Removing an absent document is a no-op. */
  remove(collection: string, id: string): Promise<void>;
  /**
   * Queues a job, committed with the transaction (transactional outbox). A job with a `key` that a waiting or
   * running job already holds is not queued twice.
   */
  enqueue<D extends JobData>(job: NewJob<D>): Promise<void>;
  /** Removes the waiting jobs holding `key` (a follow-up made moot). */
  cancelJobs(key: string): Promise<void>;
  /**
   * Records the outcome of a claimed job with the transaction, as JobQueue.settle does: a job's record of what it did
   * and its end then commit together, or neither (and the job runs again). Nothing when its lease was lost meanwhile.
   * Its handler then answers `{ settled }` (JobResult).
   */
  settle(job: Job, outcome: JobOutcome): Promise<void>;
  /**
   * Runs `fn` once the transaction has committed, and never if it rolls back or runs again after losing a race:
   * what is told outside the store (the operator's metrics) counts each change once.
   */
  afterCommit(fn: () => void): void;
  /**
   * Tells the account's `change` to the store's change listeners (Store.changes) once the transaction has
   * committed: on PostgreSQL to those of every process, never if it rolls back or runs again. A change published
   * under a `key` already published in this transaction takes the earlier one's place, so that a document changed
   * several times is told once, as it ends up.
   */
  publish(accountId: string, change: Change, key?: string): void;
  /**
   * `doc`, as the store's `get` answered it before this transaction began and unchanged by the caller since, taken
   * as this transaction's read of it: a write of it then applies only if it is still as read then, or the
   * transaction runs again and reads it anew. Spares reading again what was read before slow work (a webhook's
   * post), to record its outcome. A backend that cannot tell whether it changed leaves this out: see readAgain.
   */
  readBefore?<T extends Doc>(collection: string, doc: T): Promise<T | undefined>;
}

/** `doc`, read before the transaction began, as `tx` takes it (see Tx.readBefore): else read again. */
export const readAgain = <T extends Doc>(tx: Tx, collection: string, doc: T): Promise<T | undefined> =>
  tx.readBefore ? tx.readBefore(collection, doc) : tx.get<T>(collection, doc.id);

export type Json = string | number | boolean | null | readonly Json[] | { readonly [field: string]: Json };

/**
 * A committed change, as its publisher describes it: ids and kinds, never the data itself (a listener reads that
 * where a reader may), and small: on PostgreSQL the changes of a transaction travel in notifications of at most
 * 8000 bytes each.
 */
export type Change = { readonly [field: string]: Json };

export interface ChangeListener {
  /** The changes one transaction committed for one account, in the order they were published. */
  changed(accountId: string, changes: readonly Change[]): void;
  /**
   * Changes may have gone untold: the account's (or, without `accountId`, any account's) were too big to tell, or
   * the connection that hears other processes' was lost and is back. Whoever shows changes reads again.
   */
  missed(accountId?: string): void;
}

/** Where committed changes are told: fanned out by the store, across processes on PostgreSQL. */
export interface ChangeFeed {
  /** Returns the function that unsubscribes `listener`. */
  subscribe(listener: ChangeListener): () => void;
}

export type JobData = Record<string, unknown>;

/** The queue of a job queued without one. */
export const DEFAULT_QUEUE = 'default';

export interface NewJob<D extends JobData = JobData> {
  kind: string;
  data: D;
  /** The queue it waits in (DEFAULT_QUEUE when absent): each queue's jobs are claimed by runners of their own. */
  queue?: string;
  /** Epoch milliseconds at which it is due; now when absent. */
  runAt?: number;
  /** At most one waiting job per key; cancelJobs(key) removes it. */
  key?: string;
  accountId?: string | null;
}

/**
 * What a job's run asks of the queue (times in epoch ms): nothing (it is done); to run again `later`, as planned (a
 * window to wait for, a timer: its attempts start over); or to be retried at `retryAt` after a failure it handled
 * (its attempts count on, up to the queue's limit); or, `settled`, that its own transaction recorded this outcome
 * (Tx.settle).
 */
export type JobResult = { later: number } | { retryAt: number } | { settled: JobOutcome } | void;

export interface Job<D extends JobData = JobData> {
  id: string;
  kind: string;
  data: D;
  queue: string;
  accountId: string | null;
  key: string | null;
  /** pending: waits for runAt. running: claimed, its lease ends at runAt. dead: gave up, kept for the operator. */
  status: 'pending' | 'running' | 'dead';
  /** Epoch milliseconds; null once dead. */
  runAt: number | null;
  attempts: number;
  /** The token of the claim that runs it; a stale runner's outcome is refused. */
  lease: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * How a run ends: done (the job goes); `later`, as the job itself planned (its attempts start over: a job that waits
 * for a window or runs every hour is not failing); `retryAt` after a fault (its attempts count on); dead.
 */
export type JobOutcome = { done: true } | { later: number } | { retryAt: number; error?: string } | { dead: string };

/**
 * The durable job queues. A due job is one that is pending with runAt in the past, or running with an expired
 * lease (its runner died): claim() takes such jobs of one queue for `leaseMs`, so while a lease holds no other
 * process runs the job. Due jobs are found by an index on (queue, runAt), so a poll costs the same however many jobs
 * wait for later or in other queues.
 */
export interface JobQueue {
  claim(queue: string, limit: number, leaseMs: number): Promise<Job[]>;
  /** When the queue's next job is due (epoch ms), or undefined when none waits. */
  nextDueAt(queue: string): Promise<number | undefined>;
  /**
   * A runner's turn: claim() and, in the same round trip, when the queue's next job is due after it (the claimed
   * jobs included, due again when their lease ends), as nextDueAt() would answer just after.
   */
  claimDue(
    queue: string,
    limit: number,
    leaseMs: number,
    /** Accounts whose jobs this claim leaves where they are (a runner's share for the others: jobs/queue.ts). */
    skipping?: readonly string[],
  ): Promise<{ jobs: Job[]; nextDueAt: number | undefined }>;
  /** Records the outcome of a claimed job; false when its lease was lost to another runner meanwhile. */
  settle(job: Job, outcome: JobOutcome): Promise<boolean>;
  /** Jobs of one status, oldest first; for the operator's view of dead jobs. */
  list(status: Job['status'], page?: Page): Promise<Job[]>;
  /** Puts a dead job back in the queue, due now. False when there is no such dead job. */
  revive(id: string): Promise<boolean>;
  /** Removes a dead job (one naming an erased contact). False when there is no such dead job. */
  discard(id: string): Promise<boolean>;
  /**
   * Removes the jobs of an account that wait or died (a deleted account's); a running one is left to its runner.
   * Answers how many went.
   */
  discardOfAccount(accountId: string): Promise<number>;
  /** Takes in jobs of another store as they are (moving to another backend); a running one waits again. */
  adopt(jobs: Job[]): Promise<void>;
  /**
   * Calls `listener` once a transaction that queued a job in `queue` (enqueue, revive, adopt) has committed: on
   * PostgreSQL whichever process committed it, on lowdb this one. Never for a transaction rolled back. A burst of them
   * may come as one call, and a call may come with nothing new (after a lost notification channel is back), so the
   * listener looks at the queue rather than counting calls. Returns the function that unsubscribes it.
   */
  onEnqueued(queue: string, listener: () => void): () => void;
  /**
   * The queue as the operator's metrics show it, one entry per kind of job held, at each scrape: its cost must not
   * grow with the queue (counts kept as jobs change, not a count of every job).
   */
  stats(): Promise<JobStats[]>;
}

export interface JobStats {
  kind: string;
  /** Waiting or running. */
  queued: number;
  /** When the oldest of them already due became due (epoch ms); null when none is. */
  oldestDueAt: number | null;
  dead: number;
}

/**
 * Small values of the whole deployment, each set once and then shared by every process (the generated TLS
 * certificate): the first value stored under a name wins, even when processes store one at the same time.
 */
export interface GatewaySettings {
  get(name: string): Promise<string | undefined>;
  /** Stores `value` unless `name` already holds one; returns the value kept, this one or the one there before. */
  putIfAbsent(name: string, value: string): Promise<string>;
}

/** Files attached to records (embedded media), written before the record that points at them. */
/** Bytes of a file from `start` to `end`, both included. */
export interface ByteSpan {
  start: number;
  end: number;
}

export interface BlobStore {
  put(accountId: string, id: string, bytes: Buffer): Promise<void>;
  /**
   * The file, or only the bytes of `part` (fewer when the file ends first): a player seeking in a long recording
   * reads what it asks for, not the whole file each time. Undefined when there is no such file.
   */
  get(accountId: string, id: string, part?: ByteSpan): Promise<Buffer | undefined>;
  delete(accountId: string, id: string): Promise<void>;
  /** Removes every file of an account (a deleted account's), those no record points at included. */
  deleteAccount(accountId: string): Promise<void>;
}

export interface Store extends Reader {
  readonly backend: 'lowdb' | 'postgres';
  /**
   * As find, each document with its place: a list in the order `touch` keeps (the inbox) pages after a place, so
   * that a document moved meanwhile is neither shown twice nor sends the next page back to the start.
   */
  findPlaced<T extends Doc>(
    collection: string,
    index: string,
    values: Scalar[],
    page?: Page,
  ): Promise<Array<Placed<T>>>;
  transact<R>(fn: (tx: Tx) => Promise<R>): Promise<R>;
  /** Resolves once everything committed so far is durable: a read-only request awaits it before answering. */
  durable(): Promise<void>;
  readonly jobs: JobQueue;
  readonly blobs: BlobStore;
  readonly settings: GatewaySettings;
  /** The committed changes that transactions published (Tx.publish), in commit order. */
  readonly changes: ChangeFeed;
  /**
   * Counts one hit of `key` in its current fixed window of `windowMs`, shared by every process of the backend.
   * `weight` counts that many at once; 0 only reads the count, and a negative weight takes hits back (never below
   * 0). Neither of those starts a window: with none running they answer 0 hits.
   */
  hit(key: string, windowMs: number, weight?: number): Promise<{ hits: number; resetAt: number }>;
  /** Resolves while the store is open and answers; rejects, saying why, once it is closed or out of reach. */
  ping(): Promise<void>;
  /**
   * The store's files found damaged (by the embedded store, when it opens or reads one back), named from the data
   * dir, with why: what needs them is refused until the operator restores a backup. PostgreSQL checks its own.
   */
  damaged?(): Array<{ file: string; reason: string }>;
  /** Whether the store answers, as this process last found it; what the probes, the metrics and the logs read. */
  readonly health: StoreHealth;
  /** Waits for pending commits and releases files and connections. */
  close(): Promise<void>;
}

export class StoreConflictError extends Error {
  constructor(
    readonly collection: string,
    readonly index: string,
    readonly key: string,
  ) {
    super(`${collection}: ${index} "${key}" is taken`);
    this.name = 'StoreConflictError';
  }
}

/**
 * The store is out of reach (the database is down or cannot be reached, the disk failed): what was asked of it was
 * not done. A request answers 503; the subclasses tell what became of a change.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * A file of the store is not as the store wrote it (cut short, changed on disk): what needs it is refused until the
 * operator restores a backup. Retrying cannot help, unlike the other refusals.
 */
export class StoreDamagedError extends StoreUnavailableError {
  constructor(
    /** The file, as the store opened it. */
    readonly file: string,
    readonly reason: string,
  ) {
    super(`store: ${file} is damaged (${reason}); restore the data dir from a backup (README, "Backups")`);
    this.name = 'StoreDamagedError';
  }
}

/** The change was not made durable (a disk or database write failed); nothing of it was kept. */
export class StoreWriteError extends StoreUnavailableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreWriteError';
  }
}

/**
 * The connection to the database failed after the commit was sent and before its answer came: the change may have
 * been kept or not, and only a later read can tell. It is never run again by the store (it would be kept twice);
 * the caller repeats it in a way that is safe to repeat (the same messageSid, the same Idempotency-Key).
 */
export class CommitOutcomeUnknownError extends StoreUnavailableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommitOutcomeUnknownError';
  }
}

/** The key of a document in an index, or undefined when the document is not in it. */
export function indexKey(spec: IndexSpec, doc: Record<string, unknown>): string | undefined {
  const fields = spec.fields;
  if (fields.length === 1) {
    const value = doc[fields[0]!];
    return value === null || value === undefined ? undefined : String(value);
  }
  const parts: string[] = [];
  for (const field of fields) {
    const value = doc[field];
    if (value === null || value === undefined) return undefined;
    parts.push(part(value as Scalar));
  }
  // join() makes one flat string; `+=` would keep a chain of pieces alive in every index entry.
  return parts.join('');
}

/** The same key from the values a `find` asks for. */
export const keyOf = (values: Scalar[]): string =>
  values.length === 1 ? String(values[0]) : values.map(part).join('');

/** Each value with its length in front, so that no two lists of values make the same key. */
const part = (value: Scalar): string => {
  const text = String(value);
  return `${text.length}:${text}`;
};
