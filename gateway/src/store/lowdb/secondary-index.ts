import { OrderedIds } from './ordered-ids.js';
import { indexKey, type Doc, type IndexSpec } from '../store.js';

/** One secondary index of a collection: index key → document id(s). */
export class SecondaryIndex {
  readonly unique: boolean;
  private readonly single = new Map<string, string>();
  /**
   * By key: its one id, or the ids of a key more documents hold. Most keys of a large store's indexes are one
   * document's (a contact's conversation, an external ID's contact): a set for each would cost about 100 bytes more.
   */
  private readonly multi = new Map<string, string | OrderedIds>();

  constructor(
    readonly name: string,
    readonly spec: IndexSpec,
    /** A document's place in its collection's order: the order of a key's ids. */
    private readonly seqOf: (id: string) => number,
  ) {
    this.unique = spec.unique === true;
  }

  keyOf(doc: Doc): string | undefined {
    return indexKey(this.spec, doc as unknown as Record<string, unknown>);
  }

  /** Whether both documents have the same values in this index's fields (and so the same key), without building it. */
  sameFields(a: Doc, b: Doc): boolean {
    for (const field of this.spec.fields) {
      if ((a as unknown as Record<string, unknown>)[field] !== (b as unknown as Record<string, unknown>)[field])
        return false;
    }
    return true;
  }

  /** For a unique index: the id holding `key`, if any. */
  holder(key: string): string | undefined {
    return this.single.get(key);
  }

  /** The ids holding `key`, in their collection's order. */
  ids(key: string): Iterable<string> {
    if (this.unique) {
      const id = this.single.get(key);
      return id === undefined ? [] : [id];
    }
    const held = this.multi.get(key);
    return held === undefined ? [] : typeof held === 'string' ? [held] : held.inOrder(this.seqOf);
  }

  add(key: string | undefined, id: string, seq: number): void {
    if (key === undefined) return;
    if (this.unique) {
      this.single.set(key, id);
      return;
    }
    const held = this.multi.get(key);
    if (held === undefined) this.multi.set(key, id);
    else if (typeof held !== 'string') held.add(id, seq);
    else {
      const other = this.seqOf(held);
      this.multi.set(key, OrderedIds.of(other < seq ? [held, id] : [id, held], true, Math.max(other, seq)));
    }
  }

  /**
   * While the store opens: adds `id` under `key`, with one look-up per key; false when the index is unique and
   * another id held the key (it is now replaced: the store refuses to open).
   */
  load(key: string, id: string, seq: number): boolean {
    if (!this.unique) {
      this.add(key, id, seq);
      return true;
    }
    const size = this.single.size;
    this.single.set(key, id);
    return this.single.size > size;
  }

  delete(key: string | undefined, id: string): void {
    if (key === undefined) return;
    if (this.unique) {
      if (this.single.get(key) === id) this.single.delete(key);
      return;
    }
    const held = this.multi.get(key);
    if (held === id) this.multi.delete(key);
    else if (held !== undefined && typeof held !== 'string') {
      held.delete(id);
      if (held.size === 0) this.multi.delete(key);
    }
  }

  clear(): void {
    this.single.clear();
    this.multi.clear();
  }
}
