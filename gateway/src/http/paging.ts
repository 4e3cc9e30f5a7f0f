import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { fieldError } from '../errors.js';
import type { Doc, GatewaySettings, Placed } from '../store/store.js';
import { MAX_PAGE_LIMIT } from '../api-contract.js';
import { accountOf, parse, sendDurable } from './route.js';

/**
 * How every list endpoint pages: `?limit=` and an opaque `cursor`, answered as `{data, nextCursor}`. A route
 * parses its query with `pageQuery` (or a schema built from `pageFields` with its filters) and hands it, with who
 * pages, and a reader of the store to `readPage`; a page of the caller's account's records with no filter is
 * `accountPage`'s:
 *
 *   get: accountPage(gw, (agency, _req, page) => subAccountsOf(gw.store, agency, page), publicSubAccount),
 *
 * The cursor holds the place of the last item shown when the reader gives it (see Placed): a list whose items may
 * leave it (a list's contacts, the team, webhooks, a search) or move in it (the inbox, in the order `touch` changes)
 * pages after a place, which outlives the item, where "after this id" finds nothing once the item is gone and would
 * end the walk there. Other lists page after the last item's id. With it goes a signature (HMAC under
 * the deployment's cursor key) of it with who pages, the endpoint's concrete path and its filters. Tampering with
 * it, or using it elsewhere (another account, another list's members, other filters), is a 400 INVALID_CURSOR
 * instead of a page read from a place the client chose. The key is shared by every process, so any of them takes a
 * cursor another handed out.
 */

export const DEFAULT_LIMIT = 50;

// 16 bytes of HMAC-SHA256 (128 bits) cannot be guessed and keep the cursor short: about 55 characters with an id.
const MAC_BYTES = 16;
// A MAC and an id or a place of at least 1 character, base64url, bounded so that no long text is ever decoded.
const CURSOR_SHAPE = /^[A-Za-z0-9_-]{23,150}$/;
// Ids are `prefix_` and nanoid characters; places are whole numbers.
const PLAUSIBLE_ID = /^[a-z]{1,10}_[0-9A-Za-z]{1,64}$/;
const PLAUSIBLE_PLACE = /^[0-9]{1,15}$/;
const CURSOR_MESSAGE = 'not a cursor from a previous page of this endpoint; pass nextCursor back as it came';

/** The paging fields of a list endpoint's query; spread them into a schema that also takes filters. */
export const pageFields = {
  // Query strings carry text: "20" must count as 20, and "abc", 0 or 201 are refused rather than clamped. Out of
  // range is the one problem, not also the bounds of a safe integer that int() checks.
  limit: z.coerce
    .number()
    .min(1, { abort: true })
    .max(MAX_PAGE_LIMIT, { abort: true })
    .int()
    .default(DEFAULT_LIMIT)
    .describe(`Items per page, 1 to ${MAX_PAGE_LIMIT}`),
  cursor: z
    .string()
    .refine((c) => CURSOR_SHAPE.test(c), { message: CURSOR_MESSAGE, params: { code: 'INVALID_CURSOR' } })
    .optional()
    .describe(
      'The nextCursor of the previous page, unchanged; absent for the first page. It is good only for the same endpoint, ' +
        'account and filters, and one from an earlier version of the gateway is refused (400 INVALID_CURSOR)',
    ),
};

/** The query of a list endpoint without filters; `pageQuery.extend({...})` adds some. */
export const pageQuery = z.object(pageFields);
export type PageQuery = z.output<typeof pageQuery>;

/** What a reader is asked for: `limit` items after `after`, an item's id or place (from the start when absent). */
export interface PageRequest {
  limit: number;
  after?: string | number;
}

/** What a page is read as: items with an id, or placed documents (a list in the order `touch` changes). */
type Item = { id: string } | Placed<Doc>;

/** Where the next page starts: after the item's place when it has one, else after its id. */
const keyOf = (item: Item): string =>
  'place' in item && 'doc' in item ? String(item.place) : (item as { id: string }).id;

export interface PageOf<T> {
  data: T[];
  /** Null on the last page, so a client loops until it is null. */
  nextCursor: string | null;
}

/** Who pages and where: the cursors `readPage` hands out and takes are good for this scope only. */
export interface PageScope {
  gw: Pick<Gateway, 'cursorKey'>;
  /** The request of the page: its route and the values in its path are the endpoint a cursor is bound to. */
  req: Request;
  /** The account that pages, or "admin" for the operator's lists. */
  owner: string;
}

export const CURSOR_KEY_SETTING = 'cursor-key';

/** The deployment's cursor key: made by the first process that starts, then read by every one (once, at start). */
export async function loadCursorKey(settings: GatewaySettings): Promise<Buffer> {
  const held =
    (await settings.get(CURSOR_KEY_SETTING)) ??
    (await settings.putIfAbsent(CURSOR_KEY_SETTING, randomBytes(32).toString('base64url')));
  return Buffer.from(held, 'base64url');
}

/**
 * What the cursor's MAC covers besides the id or place: the owner, the route (`/v1/lists/:listId/contacts`) with
 * its decoded path values, so the same endpoint reached as `lst_A` or `lst%5FA` agrees, and the query's other
 * fields, the endpoint's filters (limit may change from one page to the next).
 */
function macOf(scope: PageScope, query: PageQuery, key: string): Buffer {
  const { limit: _limit, cursor: _cursor, ...filters } = query as PageQuery & Record<string, unknown>;
  const { req } = scope;
  const route = `${req.baseUrl}${(req.route as { path: string }).path}`;
  const bound = JSON.stringify([scope.owner, route, req.params, filters, key]);
  return createHmac('sha256', scope.gw.cursorKey).update(bound).digest().subarray(0, MAC_BYTES);
}

function encodeCursor(scope: PageScope, query: PageQuery, key: string): string {
  return Buffer.concat([macOf(scope, query, key), Buffer.from(key, 'utf8')]).toString('base64url');
}

/** The id or place a cursor stands for; a 400 INVALID_CURSOR for anything encodeCursor did not make for this scope. */
function decodeCursor(scope: PageScope, query: PageQuery, cursor: string): string | number {
  const bytes = CURSOR_SHAPE.test(cursor) ? Buffer.from(cursor, 'base64url') : Buffer.alloc(0);
  const key = bytes.subarray(MAC_BYTES).toString('utf8');
  // base64url decoding skips stray characters: only the text that re-encodes the same is the one handed out.
  const wellFormed =
    bytes.length > MAC_BYTES &&
    (PLAUSIBLE_ID.test(key) || PLAUSIBLE_PLACE.test(key)) &&
    bytes.toString('base64url') === cursor;
  if (!wellFormed || !timingSafeEqual(bytes.subarray(0, MAC_BYTES), macOf(scope, query, key))) {
    throw fieldError('cursor', CURSOR_MESSAGE, 'INVALID_CURSOR');
  }
  return PLAUSIBLE_PLACE.test(key) ? Number(key) : key;
}

/**
 * One page from `read`, which returns items in the endpoint's order after `page.after`. It is asked for one
 * item more than the page holds: that extra item tells whether another page follows without a count, so the
 * last page says `nextCursor: null` instead of leading to an empty one. `show` turns each item into its
 * public form. `query` is the whole parsed query: its fields other than limit and cursor bind the cursor.
 */
export async function readPage<T extends Item, U = T>(
  scope: PageScope,
  query: PageQuery,
  read: (page: PageRequest) => Promise<T[]>,
  show?: (item: T) => U,
): Promise<PageOf<U>> {
  const after = query.cursor === undefined ? undefined : decodeCursor(scope, query, query.cursor);
  const found = await read({ limit: query.limit + 1, after });
  const items = found.slice(0, query.limit);
  const nextCursor = found.length > query.limit ? encodeCursor(scope, query, keyOf(items.at(-1)!)) : null;
  // A lambda, not map(show): map's index argument would reach a `show` that takes a second parameter.
  return { data: show ? items.map((item) => show(item)) : (items as unknown as U[]), nextCursor };
}

/**
 * The GET of a list endpoint answering one page of the caller's account's records: `read` finds them after
 * `page.after` (the request gives it the path's ids, `query` its filters when `schema` has some beside
 * `pageFields`), `show` makes each one's public form.
 */
export const accountPage =
  <T extends Item, U, S extends z.ZodType<PageQuery> = typeof pageQuery>(
    gw: Gateway,
    read: (account: Account, req: Request, page: PageRequest, query: z.output<S>) => Promise<T[]>,
    show: (item: T) => U,
    schema: S = pageQuery as unknown as S,
  ): RequestHandler =>
  async (req, res) => {
    const query = parse(schema, req.query, 'query');
    const account = accountOf(res);
    const scope = { gw, req, owner: account.id };
    await sendDurable(gw, res, await readPage(scope, query, (page) => read(account, req, page, query), show));
  };
