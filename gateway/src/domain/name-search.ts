import type { Page } from '../store/store.js';
import { normalizeSearch } from '../normal-form.js';

/** Records read per step while a page is filtered by name: lists and campaigns are few, so a page takes one or two. */
const SCAN_BATCH = 200;

/** Whether a name holds the text searched for, case and accents aside ("promo" finds "Spring Promo"). */
export const nameHolds = (name: string, q: string): boolean => normalizeSearch(name).includes(normalizeSearch(q));

/**
 * A page of the records `read` gives in its order whose name holds `q`, as `read` would page them unfiltered: the
 * `limit` first after `page.after`. Without `q` (or without a page: every record) it is `read` itself.
 */
export async function findByName<T extends { id: string; name: string }>(
  read: (page?: Page) => Promise<T[]>,
  q: string | undefined,
  page?: Page,
): Promise<T[]> {
  if (q === undefined) return read(page);
  return findWhere(read, (record) => nameHolds(record.name, q), page);
}

/** A page of the records `read` gives in its order that `keep` keeps, as `read` would page them unfiltered. */
export async function findWhere<T extends { id: string }>(
  read: (page?: Page) => Promise<T[]>,
  keep: (record: T) => boolean,
  page?: Page,
): Promise<T[]> {
  if (!page?.limit) return (await read()).filter(keep);
  const found: T[] = [];
  let after = page.after;
  for (;;) {
    const batch = await read({ ...page, after, limit: SCAN_BATCH });
    found.push(...batch.filter(keep));
    if (found.length >= page.limit || batch.length < SCAN_BATCH) return found.slice(0, page.limit);
    after = batch.at(-1)!.id;
  }
}
