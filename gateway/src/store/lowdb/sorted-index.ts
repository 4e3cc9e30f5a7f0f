import type { Doc } from '../store.js';

interface Item {
  value: number;
  id: string;
}

/** Where a document sits in a sorted index: its group, and its value in that group (none: not in the index). */
export interface SortKey {
  value: number | undefined;
  group: string;
}

/** A sorted index kept per group: the text of `field` in each document, `absent` for a document without it. */
export interface SortGroups {
  field: string;
  absent: string;
}

/** Where `doc` sits in an index sorted by `field`, per group of `within` when given. */
export function sortKeyOf(doc: Doc, field: string, within?: SortGroups): SortKey {
  const fields = doc as unknown as Record<string, unknown>;
  const value = fields[field];
  const group = within ? fields[within.field] : '';
  return {
    value: typeof value === 'number' ? value : undefined,
    group: typeof group === 'string' ? group : within!.absent,
  };
}

/**
 * Ids ordered by a numeric field (a job's runAt), for range scans from the smallest value: finding what is due
 * costs the same however many documents wait for later. Documents without the field are not in it. Kept per group
 * (a job's queue) when `within` is given: a group's scan never passes over another group's documents.
 */
export class SortedIndex {
  private readonly groups = new Map<string, Item[]>();

  constructor(
    readonly field: string,
    private readonly within?: SortGroups,
  ) {}

  keyOf(doc: Doc): SortKey {
    return sortKeyOf(doc, this.field, this.within);
  }

  add(id: string, { value, group }: SortKey): void {
    if (value === undefined) return;
    const items = this.itemsOf(group);
    items.splice(upperBound(items, value), 0, { value, id });
  }

  delete(id: string, { value, group }: SortKey): void {
    const items = this.groups.get(group);
    if (value === undefined || !items) return;
    for (let i = lowerBound(items, value); i < items.length && items[i]!.value === value; i++) {
      if (items[i]!.id === id) {
        items.splice(i, 1);
        return;
      }
    }
  }

  /** Ids of the group whose value is at most `max`, smallest first. */
  *upTo(max: number, group = ''): Iterable<string> {
    for (const item of this.groups.get(group) ?? []) {
      if (item.value > max) return;
      yield item.id;
    }
  }

  first(group = ''): number | undefined {
    return this.groups.get(group)?.[0]?.value;
  }

  /** Replaces the content with these ids and keys, sorted once. */
  load(keys: Array<[string, SortKey]>): void {
    this.groups.clear();
    for (const [id, { value, group }] of keys) if (value !== undefined) this.itemsOf(group).push({ value, id });
    for (const items of this.groups.values()) items.sort((a, b) => a.value - b.value);
  }

  /** The group's items, an empty array kept for it when it has none yet. */
  private itemsOf(group: string): Item[] {
    let items = this.groups.get(group);
    if (!items) this.groups.set(group, (items = []));
    return items;
  }
}

function lowerBound(items: Item[], value: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.value < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound(items: Item[], value: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.value <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
