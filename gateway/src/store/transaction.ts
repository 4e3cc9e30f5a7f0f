import type { Collection } from './collection.js';
import type { Doc, Tx } from './store.js';

/** One change for the journal: a full document to upsert, or `doc: null` for a removal. */
export interface Op {
  collection: Collection;
  id: string;
  doc: Doc | null;
  /** The page the document was in (removal) or is in (upsert) when the change was made. */
  page: number;
}

/**
 * A transaction applies each change to memory at once (so its own reads and every later transaction see it),
 * records the journal op, and keeps an undo step so the whole transaction can be taken back.
 */
export class Transaction implements Tx {
  readonly ops: Op[] = [];
  readonly undo: Array<() => void> = [];
  private open = true;

  constructor(private readonly collectionOf: (name: string) => Collection) {}

  get<T extends Doc>(collection: string, id: string): T | undefined {
    return this.use(collection).get(id) as T | undefined;
  }

  lookup<T extends Doc>(collection: string, index: string, key: string): T[] {
    return this.use(collection).lookup(index, key) as T[];
  }

  all<T extends Doc>(collection: string): T[] {
    return this.use(collection).all() as T[];
  }

  count(collection: string): number {
    return this.use(collection).count;
  }

  insert<T extends Doc>(collection: string, doc: T): T {
    const col = this.use(collection);
    if (typeof doc?.id !== 'string' || doc.id === '') {
      throw new TypeError(`store: ${collection} document needs a string id`);
    }
    const stored = deepFreeze({ ...doc });
    col.checkInsert(stored);
    const entry = col.insert(stored);
    this.undo.push(() => col.remove(stored.id));
    this.ops.push({ collection: col, id: stored.id, doc: stored, page: entry.page });
    return stored;
  }

  update<T extends Doc>(collection: string, id: string, patch: Partial<T>): T {
    const col = this.use(collection);
    const entry = col.entry(id);
    if (!entry) throw new Error(`store: ${collection} has no document "${id}"`);
    if (patch.id !== undefined && patch.id !== id) {
      throw new TypeError(`store: cannot change the id of ${collection} "${id}"`);
    }
    const previous = entry.doc;
    const next = deepFreeze({ ...previous, ...patch, id }) as T;
    col.checkReplace(next);
    col.replace(entry, next);
    this.undo.push(() => col.replace(entry, previous));
    this.ops.push({ collection: col, id, doc: next, page: entry.page });
    return next;
  }

  /** Removing an absent document is a no-op. */
  remove(collection: string, id: string): void {
    const col = this.use(collection);
    const entry = col.remove(id);
    if (!entry) return;
    this.undo.push(() => col.restore(entry));
    this.ops.push({ collection: col, id, doc: null, page: entry.page });
  }

  /** Takes back every change, newest first. */
  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]!();
  }

  /** A Tx must not be used after its function returned: the change would escape the commit. */
  close(): void {
    this.open = false;
  }

  private use(collection: string): Collection {
    if (!this.open) throw new Error('store: this transaction is over; a Tx cannot be used after transact() returned');
    return this.collectionOf(collection);
  }
}

/**
 * Stored documents are shared with every reader, so they are frozen: a stray mutation throws instead of changing
 * data behind the journal's back. Frozen sub-objects were frozen before and are skipped.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
