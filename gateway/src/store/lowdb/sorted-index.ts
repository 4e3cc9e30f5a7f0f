import type { Doc } from '../store.js';

interface Item {
  value: number;
  id: string;
}

/**
 * Ids ordered by a numeric field (a job's runAt), for range scans from the smallest value: finding what is due
 * costs the same however many documents wait for later. Documents without the field are not in it.
 */
export class SortedIndex {
  private items: Item[] = [];

  constructor(readonly field: string) {}

  valueOf(doc: Doc): number | undefined {
    const value = (doc as unknown as Record<string, unknown>)[this.field];
    return typeof value === 'number' ? value : undefined;
  }

  add(id: string, value: number | undefined): void {
    if (value === undefined) return;
    this.items.splice(this.upperBound(value), 0, { value, id });
  }

  delete(id: string, value: number | undefined): void {
    if (value === undefined) return;
    for (let i = this.lowerBound(value); i < this.items.length && this.items[i]!.value === value; i++) {
      if (this.items[i]!.id === id) {
        this.items.splice(i, 1);
        return;
      }
    }
  }

  /** Ids whose value is at most `max`, smallest first. */
  *upTo(max: number): Iterable<string> {
    for (const item of this.items) {
      if (item.value > max) return;
      yield item.id;
    }
  }

  first(): number | undefined {
    return this.items[0]?.value;
  }

  /** Replaces the content with these ids and values, sorted once. */
  load(values: Array<[string, number | undefined]>): void {
    this.items = [];
    for (const [id, value] of values) if (value !== undefined) this.items.push({ value, id });
    this.items.sort((a, b) => a.value - b.value);
  }

  private lowerBound(value: number): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]!.value < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private upperBound(value: number): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]!.value <= value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
