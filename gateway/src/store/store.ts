/**
 * The Store: every record of the gateway lives in named collections of documents with an `id`.
 *
 * Reads are synchronous and come from memory. A write is a transaction: its function runs synchronously
 * against memory (so no other request interleaves with it), and the returned promise settles only once the
 * commit holding it is durable on disk. Any other backend (a server database) implements this interface.
 */
export interface Doc {
  id: string;
}

/** A secondary index over one collection: `key` returns the index key of a document, or undefined to skip it. */
export interface IndexSpec {
  unique?: boolean;
  key: (doc: any) => string | undefined;
}

export interface CollectionSpec {
  name: string;
  indexes?: Record<string, IndexSpec>;
}

export interface Reader {
  get<T extends Doc>(collection: string, id: string): T | undefined;
  /** Documents whose index key equals `key`, in insertion order (at most one for a unique index). */
  lookup<T extends Doc>(collection: string, index: string, key: string): T[];
  all<T extends Doc>(collection: string): T[];
  count(collection: string): number;
}

export interface Tx extends Reader {
  /** Adds a document; throws StoreConflictError on a taken id or unique index key. */
  insert<T extends Doc>(collection: string, doc: T): T;
  /** Replaces a document by a shallow merge of `patch`; returns the new document. Throws if absent. */
  update<T extends Doc>(collection: string, id: string, patch: Partial<T>): T;
  remove(collection: string, id: string): void;
}

export interface Store extends Reader {
  /**
   * Runs `fn` synchronously as one transaction. If it throws, every change it made is undone and the promise
   * rejects with that error. Otherwise the promise resolves with its result once the change is durable.
   */
  transact<R>(fn: (tx: Tx) => R): Promise<R>;
  /** Resolves once everything applied so far is durable: a read-only request awaits it before answering. */
  durable(): Promise<void>;
  /** Flushes pending commits and releases files. */
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

/** The change was not made durable (a disk write failed); it has been taken back from memory. */
export class StoreWriteError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreWriteError';
  }
}
