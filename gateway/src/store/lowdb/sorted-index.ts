import type { Doc } from '../store.js';

interface Item {
  value: number;
  id: string;
}

/**
 * Where a document sits in a sorted index: its group, its part of that group, and its value there (none: not in the
 * index).
 */
export interface SortKey {
  value: number | undefined;
  group: string;
  part: string;
}

/**
 * A sorted index kept per group: the text of `field` in each document, `absent` for a document without it; and, with
 * `by`, apart within each group by the text of that field (none: a part of its own), so that a scan of the group can
 * pass over some parts without reading a document of theirs (a job queue's busiest accounts).
 */
export interface SortGroups {
  field: string;
  absent: string;
  by?: string;
}

/** Where `doc` sits in an index sorted by `field`, per group of `within` when given. */
export function sortKeyOf(doc: Doc, field: string, within?: SortGroups): SortKey {
  const fields = doc as unknown as Record<string, unknown>;
  const value = fields[field];
  const group = within ? fields[within.field] : '';
  const part = within?.by ? fields[within.by] : '';
  return {
    value: typeof value === 'number' ? value : undefined,
    group: typeof group === 'string' ? group : within!.absent,
    part: typeof part === 'string' ? part : '',
  };
}

/**
 * Ids ordered by a numeric field (a job's runAt), for range scans from the smallest value: finding what is due
 * costs the same however many documents wait for later. Documents without the field are not in it. Kept per group
 * (a job's queue) when `within` is given: a group's scan never passes over another group's documents; and per part
 * of a group (a job's account) when it says `by`: a scan passes over a part it is told to at no cost.
 */
export class SortedIndex {
  /** By group, then by part: the part's items, smallest value first. A part with none is not kept. */
  private readonly groups = new Map<string, Map<string, Item[]>>();

  constructor(
    readonly field: string,
    private readonly within?: SortGroups,
  ) {}

  keyOf(doc: Doc): SortKey {
    return sortKeyOf(doc, this.field, this.within);
  }

  add(id: string, { value, group, part }: SortKey): void {
    if (value === undefined) return;
    const items = this.itemsOf(group, part);
    items.splice(upperBound(items, value), 0, { value, id });
  }

  delete(id: string, { value, group, part }: SortKey): void {
    const parts = this.groups.get(group);
    const items = parts?.get(part);
    if (value === undefined || !items) return;
    for (let i = lowerBound(items, value); i < items.length && items[i]!.value === value; i++) {
      if (items[i]!.id === id) {
        items.splice(i, 1);
        if (!items.length) parts!.delete(part);
        return;
      }
    }
  }

  /**
   * Ids of the group whose value is at most `max`, smallest first, but for those of the parts `passing` names: a
   * merge of its parts, each one's next id compared, so that one passed over costs nothing however many it holds.
   */
  *upTo(max: number, group = '', passing?: ReadonlySet<string>): Iterable<string> {
    const runs: Array<{ items: Item[]; at: number }> = [];
    for (const [part, items] of this.groups.get(group) ?? []) {
      if (!passing?.has(part) && items[0]!.value <= max) runs.push({ items, at: 0 });
    }
    while (runs.length) {
      let next = 0;
      for (let r = 1; r < runs.length; r++) {
        if (runs[r]!.items[runs[r]!.at]!.value < runs[next]!.items[runs[next]!.at]!.value) next = r;
      }
      const run = runs[next]!;
      yield run.items[run.at++]!.id;
      if (run.at === run.items.length || run.items[run.at]!.value > max) runs.splice(next, 1);
    }
  }

  first(group = ''): number | undefined {
    let first: number | undefined;
    for (const items of this.groups.get(group)?.values() ?? []) {
      if (first === undefined || items[0]!.value < first) first = items[0]!.value;
    }
    return first;
  }

  /** Replaces the content with these ids and keys, sorted once. */
  load(keys: Array<[string, SortKey]>): void {
    this.groups.clear();
    for (const [id, { value, group, part }] of keys)
      if (value !== undefined) this.itemsOf(group, part).push({ value, id });
    for (const parts of this.groups.values())
      for (const items of parts.values()) items.sort((a, b) => a.value - b.value);
  }

  /** The part's items, made empty when it has none yet. */
  private itemsOf(group: string, part: string): Item[] {
    let parts = this.groups.get(group);
    if (!parts) this.groups.set(group, (parts = new Map()));
    let items = parts.get(part);
    if (!items) parts.set(part, (items = []));
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
