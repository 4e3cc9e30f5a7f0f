/** Up to this many ids stay in an array whatever is asked of them: a look-up along it is then as fast as a set's. */
const FEW = 16;

/**
 * A set of document ids read back in insertion order (by sequence number). Adds nearly always arrive in order;
 * the rare one that does not (an index key changed on an older document, an undone removal) only marks the set
 * for a re-sort on the next read, so writes stay O(1).
 *
 * The ids stay in a plain array, faster to fill than a set and at most half its size (for one id, or five and more),
 * until one is looked up or removed among more than a few: most index keys hold a few ids (a contact's conversations,
 * a conversation's messages), and most pages of a large store, and keys of many ids, are only ever added to and read
 * in order.
 */
export class OrderedIds {
  private ids: string[] | Set<string> = [];
  private lastSeq = -1;
  private sorted = true;

  /** The ids of a page as the store opens, in the page's order: whether their places are too, and the last one. */
  static of(ids: string[], sorted: boolean, lastSeq: number): OrderedIds {
    const set = new OrderedIds();
    set.ids = ids;
    set.sorted = sorted;
    set.lastSeq = lastSeq;
    return set;
  }

  get size(): number {
    return Array.isArray(this.ids) ? this.ids.length : this.ids.size;
  }

  /** Adds an id that is not there. */
  add(id: string, seq: number): void {
    // The first id makes an array of one: pushed onto an empty one, it would get room for seventeen.
    if (Array.isArray(this.ids)) {
      if (this.ids.length === 0) this.ids = [id];
      else this.ids.push(id);
    } else this.ids.add(id);
    this.placed(seq);
  }

  has(id: string): boolean {
    const ids = this.searchable();
    return Array.isArray(ids) ? ids.includes(id) : ids.has(id);
  }

  delete(id: string): void {
    const ids = this.searchable();
    if (!Array.isArray(ids)) ids.delete(id);
    else {
      const at = ids.indexOf(id);
      if (at >= 0) ids.splice(at, 1);
    }
  }

  inOrder(seqOf: (id: string) => number): Iterable<string> {
    if (!this.sorted) {
      const ordered = [...this.ids].sort((a, b) => seqOf(a) - seqOf(b));
      this.ids = Array.isArray(this.ids) ? ordered : new Set(ordered);
      this.sorted = true;
    }
    return this.ids;
  }

  private placed(seq: number): void {
    if (seq > this.lastSeq) this.lastSeq = seq;
    else this.sorted = false;
  }

  /** The ids as a set once they are more than a few, to look one up or remove it. */
  private searchable(): string[] | Set<string> {
    if (Array.isArray(this.ids) && this.ids.length > FEW) this.ids = new Set(this.ids);
    return this.ids;
  }
}
