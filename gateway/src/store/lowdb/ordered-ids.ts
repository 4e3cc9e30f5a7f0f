/**
 * A set of document ids read back in insertion order (by sequence number). Adds nearly always arrive in order;
 * the rare one that does not (an index key changed on an older document, an undone removal) only marks the set
 * for a re-sort on the next read, so writes stay O(1).
 */
export class OrderedIds {
  private ids = new Set<string>();
  private lastSeq = -1;
  private sorted = true;

  get size(): number {
    return this.ids.size;
  }

  add(id: string, seq: number): void {
    this.ids.add(id);
    if (seq > this.lastSeq) this.lastSeq = seq;
    else this.sorted = false;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  delete(id: string): void {
    this.ids.delete(id);
  }

  inOrder(seqOf: (id: string) => number): Iterable<string> {
    if (!this.sorted) {
      this.ids = new Set([...this.ids].sort((a, b) => seqOf(a) - seqOf(b)));
      this.sorted = true;
    }
    return this.ids;
  }
}
