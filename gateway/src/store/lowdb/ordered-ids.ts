/**
 * A set of document ids read back in insertion order (by sequence number). Adds nearly always arrive in order;
 * the rare one that does not (an index key changed on an older document, an undone removal) only marks the set
 * for a re-sort on the next read, so writes stay O(1).
 *
 * Filled while the store opens (`of`, `load`), it keeps its ids in a plain array, several times smaller and faster to
 * fill than a set: most pages and index keys of a large store are only ever read after that. The first change, or
 * question whether it holds an id, makes the set.
 */
export class OrderedIds {
  private ids: Set<string> | undefined;
  private loaded: string[] | undefined;
  private lastSeq = -1;
  private sorted = true;

  /** The ids of a page as the store opens, in the page's order: whether their places are too, and the last one. */
  static of(ids: string[], sorted: boolean, lastSeq: number): OrderedIds {
    const set = new OrderedIds();
    set.loaded = ids;
    set.sorted = sorted;
    set.lastSeq = lastSeq;
    return set;
  }

  get size(): number {
    return this.loaded?.length ?? this.ids?.size ?? 0;
  }

  /** While the store opens: adds an id that is not there, without making the set. */
  load(id: string, seq: number): void {
    if (this.ids) this.ids.add(id);
    else (this.loaded ??= []).push(id);
    this.placed(seq);
  }

  add(id: string, seq: number): void {
    this.set().add(id);
    this.placed(seq);
  }

  has(id: string): boolean {
    return this.set().has(id);
  }

  delete(id: string): void {
    this.set().delete(id);
  }

  inOrder(seqOf: (id: string) => number): Iterable<string> {
    if (!this.sorted) {
      const ordered = [...(this.loaded ?? this.ids ?? [])].sort((a, b) => seqOf(a) - seqOf(b));
      if (this.loaded) this.loaded = ordered;
      else this.ids = new Set(ordered);
      this.sorted = true;
    }
    return this.loaded ?? this.ids ?? [];
  }

  private placed(seq: number): void {
    if (seq > this.lastSeq) this.lastSeq = seq;
    else this.sorted = false;
  }

  private set(): Set<string> {
    if (!this.ids) {
      this.ids = new Set(this.loaded);
      this.loaded = undefined;
    }
    return this.ids;
  }
}
