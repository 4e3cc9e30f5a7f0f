import type { Page } from '../store.js';

/**
 * One page of `ids` (in insertion order): those after `page.after` (a place, or where the document of an id is now)
 * in the page's order, at most `page.limit`. An id that names no document gives an empty page.
 */
export function pageOf(
  ids: Iterable<string>,
  page: Page | undefined,
  seqOf: (id: string) => number | undefined,
): string[] {
  const limit = page?.limit ?? Infinity;
  const desc = page?.order === 'desc';
  let afterSeq: number | undefined;
  if (page?.after !== undefined) {
    afterSeq = typeof page.after === 'number' ? page.after : seqOf(page.after);
    if (afterSeq === undefined) return [];
  }
  const ordered = desc ? [...ids].reverse() : ids;
  const found: string[] = [];
  for (const id of ordered) {
    if (found.length >= limit) break;
    if (afterSeq !== undefined) {
      const seq = seqOf(id)!;
      if (desc ? seq >= afterSeq : seq <= afterSeq) continue;
    }
    found.push(id);
  }
  return found;
}
