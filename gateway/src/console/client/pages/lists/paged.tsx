import { useCallback, useEffect, useState } from 'preact/hooks';
import type { PageOf } from '../../answers.js';
import { get, type ApiResult } from '../../api.js';
import { useLatest } from '../../components/load.js';

/** A page of a paged endpoint: `limit` items after `cursor` (none: the first), `path` holding a query or not. */
const pagePath = (path: string, limit: number, cursor: string | null | undefined) =>
  `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

/**
 * One page at a time of a paged endpoint (`?limit=&cursor=`), with the cursors of the pages before it kept so
 * "Previous" goes back without the API having to page backwards.
 */
export function usePaged<T>(path: string, limit = 25) {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  // The page shown and its number: "Page 2" only once page 2 has arrived.
  const [shown, setShown] = useState<{ page: PageOf<T>; number: number } | undefined>(undefined);
  const page = shown?.page;
  const [error, setError] = useState<string | undefined>(undefined);
  const cursor = cursors.at(-1);
  const number = cursors.length;
  const begin = useLatest();
  const load = useCallback(async () => {
    const fresh = begin();
    const res = await get<PageOf<T>>(pagePath(path, limit, cursor));
    if (!fresh()) return;
    if (res.ok) setShown({ page: res.data!, number });
    setError(res.ok ? undefined : res.error);
  }, [path, limit, cursor, number]);
  useEffect(() => void load(), [load]);
  return {
    items: page?.data,
    error,
    /** 1 for the first page. */
    number: shown?.number ?? 1,
    // While a page is on its way, neither button moves on from it.
    hasNext: Boolean(page?.nextCursor) && shown?.number === number,
    hasPrevious: number > 1 && shown?.number === number,
    next: () => page?.nextCursor && setCursors([...cursors, page.nextCursor]),
    previous: () => setCursors(cursors.slice(0, -1)),
    /** Back to the first page, read again (after something was added). */
    first: () => (cursors.length === 1 ? void load() : setCursors([undefined])),
    reload: load,
  };
}

/**
 * Every item of a paged endpoint (`path` may hold a query of its own), for choices such as a campaign's list; stops
 * after `maxPages` pages.
 */
export async function allPages<T>(path: string, maxPages = 50): Promise<{ items: T[]; error?: string }> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < maxPages; n++) {
    const res: ApiResult<PageOf<T>> = await get<PageOf<T>>(pagePath(path, 200, cursor));
    if (!res.ok) return { items, error: res.error };
    items.push(...res.data!.data);
    cursor = res.data!.nextCursor;
    if (!cursor) break;
  }
  return { items };
}

/** "Previous" and "Next" under a table; the buttons are there only when there is somewhere to go. */
export function Pager(props: {
  label: string;
  paged: Pick<ReturnType<typeof usePaged>, 'number' | 'hasNext' | 'hasPrevious' | 'next' | 'previous'>;
}) {
  const { paged } = props;
  if (!paged.hasNext && !paged.hasPrevious) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" class="secondary" disabled={!paged.hasPrevious} onClick={() => paged.previous()}>
        Previous page
      </button>
      <span>Page {paged.number}</span>
      <button type="button" class="secondary" disabled={!paged.hasNext} onClick={() => void paged.next()}>
        Next page
      </button>
    </nav>
  );
}
