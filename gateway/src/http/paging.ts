import { z } from 'zod';
import { badRequest } from '../errors.js';

/**
 * How every list endpoint pages: `?limit=` and an opaque `cursor`, answered as `{data, nextCursor}`. A route
 * parses its query with `pageQuery` (or a schema built from `pageFields` with its filters) and hands a reader
 * of the store to `readPage`:
 *
 *   const query = parse(pageQuery, req.query, 'query');
 *   await sendDurable(gw, res, await readPage(query, (page) => listsOf(gw.store, accountId, page), publicList));
 *
 * The cursor is the id of the last item shown, since the Store pages by "after this id". It is encoded so that
 * clients treat it as a token to pass back, not an id to build or compare: we may change what it holds.
 */

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

const CURSOR_MESSAGE = 'not a cursor from a previous page; pass nextCursor back as it came';

/** The paging fields of a list endpoint's query; spread them into a schema that also takes filters. */
export const pageFields = {
  // Query strings carry text: "20" must count as 20, and "abc", 0 or 201 are refused rather than clamped.
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .default(DEFAULT_LIMIT)
    .describe(`Items per page, 1 to ${MAX_LIMIT}`),
  cursor: z
    .string()
    .refine((c) => idOf(c) !== undefined, { message: CURSOR_MESSAGE, params: { code: 'INVALID_CURSOR' } })
    .optional()
    .describe('The nextCursor of the previous page; absent for the first page'),
};

/** The query of a list endpoint without filters; `pageQuery.extend({...})` adds some. */
export const pageQuery = z.object(pageFields);
export type PageQuery = z.output<typeof pageQuery>;

/** What a reader is asked for: `limit` items after the item whose id is `after` (from the start when absent). */
export interface PageRequest {
  limit: number;
  after?: string;
}

export interface PageOf<T> {
  data: T[];
  /** Null on the last page, so a client loops until it is null. */
  nextCursor: string | null;
}

export const encodeCursor = (lastId: string): string => Buffer.from(lastId, 'utf8').toString('base64url');

/** The id a cursor stands for; a 400 INVALID_CURSOR for anything encodeCursor did not make. */
export function decodeCursor(cursor: string): string {
  const id = idOf(cursor);
  if (id === undefined) throw badRequest(`cursor: ${CURSOR_MESSAGE}`, 'INVALID_CURSOR');
  return id;
}

// Ids are `prefix_` and nanoid characters. Checking the shape (and that re-encoding gives the same text, since
// base64url decoding skips stray characters) refuses a cursor that was edited or taken from elsewhere.
const PLAUSIBLE_ID = /^[a-z]{1,10}_[0-9A-Za-z]{1,64}$/;

function idOf(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(cursor)) return undefined;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return PLAUSIBLE_ID.test(id) && encodeCursor(id) === cursor ? id : undefined;
}

/**
 * One page from `read`, which returns items in the endpoint's order after `page.after`. It is asked for one
 * item more than the page holds: that extra item tells whether another page follows without a count, so the
 * last page says `nextCursor: null` instead of leading to an empty one. `show` turns each item into its
 * public form.
 */
export async function readPage<T extends { id: string }, U = T>(
  query: PageQuery,
  read: (page: PageRequest) => Promise<T[]>,
  show?: (item: T) => U,
): Promise<PageOf<U>> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const found = await read({ limit: query.limit + 1, after });
  const items = found.slice(0, query.limit);
  const nextCursor = found.length > query.limit ? encodeCursor(items.at(-1)!.id) : null;
  // A lambda, not map(show): map's index argument would reach a `show` that takes a second parameter.
  return { data: show ? items.map((item) => show(item)) : (items as unknown as U[]), nextCursor };
}
