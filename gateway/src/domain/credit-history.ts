import { fieldError } from '../errors.js';
import { clockNow } from '../clock.js';
import type { Placed, Scalar, Store } from '../store/store.js';
import type { Account } from './accounts.js';
import { dayOf, type CreditTransaction, type HistoryLine } from './credits.js';
import { DAY_MS } from './durations.js';
import { canonicalZone, instantAt, offsetAt } from './time-zone.js';

/**
 * GET /v1/credits/history and GET /v1/subaccounts/{id}/credits/history with their filters: one kind of entry, and a
 * range of days of a time zone. Every read goes through an index: the account's entries, or those of one stored
 * kind, and an agency's grants to its sub-accounts (`granted`, found by `grantedBy`), per UTC day of the range when
 * dates are given. A page reads at most a page of entries per day and index, plus those of the range's first and
 * last UTC days that fall outside its local days: never the account's whole history.
 */

/**
 * The kinds an entry of the history shows (the contract's), `granted` being an agency's grant to a sub-account and
 * `returned` a deleted sub-account's unspent balance come back to its agency.
 */
export const HISTORY_KINDS = ['grant', 'recharge', 'usage', 'refund', 'granted', 'returned'] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

/** The longest range of days a filtered history covers, as for a funnel. */
export const MAX_HISTORY_DAYS = 366;

export interface HistoryFilter {
  kind?: HistoryKind;
  from?: string;
  to?: string;
  timezone: string;
}

const addDays = (date: string, n: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** What a page of the history is read as: `limit` lines after the place `after` (the HTTP layer's page request). */
export interface PageRequest {
  limit: number;
  after?: string | number;
}

/** The instants [start, end) of the filter's days, and the UTC days holding them, newest first; none without dates. */
interface Range {
  start: string;
  end: string;
  days: string[];
}

function rangeOf(filter: HistoryFilter): Range | undefined {
  if (filter.from === undefined && filter.to === undefined) return undefined;
  const timezone = canonicalZone(filter.timezone);
  const today = new Date(clockNow() + offsetAt(timezone, clockNow())).toISOString().slice(0, 10);
  const to = filter.to ?? (filter.from !== undefined && filter.from > today ? filter.from : today);
  const earliest = addDays(to, -(MAX_HISTORY_DAYS - 1));
  const from = filter.from ?? earliest;
  if (from > to) throw fieldError('from', 'must not be after to');
  if (from < earliest) throw fieldError('from', `the range from from to to may cover at most ${MAX_HISTORY_DAYS} days`);
  const start = new Date(instantAt(timezone, Date.parse(`${from}T00:00:00Z`))).toISOString();
  const end = new Date(instantAt(timezone, Date.parse(`${addDays(to, 1)}T00:00:00Z`))).toISOString();
  const days: string[] = [];
  const last = dayOf(new Date(Date.parse(end) - 1).toISOString());
  for (let d = last; d >= dayOf(start); d = addDays(d, -1)) days.push(d);
  return { start, end, days };
}

/** One index the history reads, newest first: its name, the values before the day, and which entries it keeps. */
interface Stream {
  index: string;
  dayIndex: string;
  values: Scalar[];
  keep: (t: CreditTransaction) => boolean;
}

function streamsOf(account: Pick<Account, 'id' | 'type'>, kind: HistoryKind | undefined): Stream[] {
  const streams: Stream[] = [];
  if (kind === undefined) {
    streams.push({ index: 'account', dayIndex: 'accountDay', values: [account.id], keep: () => true });
  } else if (kind !== 'granted') {
    // A recharge is stored as a grant that answered a request: both are read from the grants, told apart here.
    const stored = kind === 'recharge' ? 'grant' : kind;
    const keep =
      kind === 'grant'
        ? (t: CreditTransaction) => !t.recharge
        : kind === 'recharge'
          ? (t: CreditTransaction) => t.recharge === true
          : () => true;
    streams.push({ index: 'kind', dayIndex: 'kindDay', values: [account.id, stored], keep });
  }
  // The grants an agency made are entries of its sub-accounts' ledgers, found by who granted them.
  if (account.type === 'agency' && (kind === undefined || kind === 'granted'))
    streams.push({ index: 'grantedBy', dayIndex: 'grantedByDay', values: [account.id], keep: () => true });
  return streams;
}

/** Every line of the history, newest first, as its pages show them one after the other, with no filter. */
export const wholeHistory = (store: Store, account: Pick<Account, 'id' | 'type'>) =>
  historyPage(store, account, { timezone: 'UTC' }, { limit: Number.POSITIVE_INFINITY });

/**
 * A page of the history after `page.after` (a place), newest first: each stream's entries read from its index, then
 * merged by place (every stream is of the same collection, so places compare).
 */
export async function historyPage(
  store: Store,
  account: Pick<Account, 'id' | 'type'>,
  filter: HistoryFilter,
  page: PageRequest,
): Promise<Array<Placed<HistoryLine>>> {
  const range = rangeOf(filter);
  const streams = streamsOf(account, filter.kind);
  const read = await Promise.all(streams.map((s) => readStream(store, s, range, page)));
  const lines = read
    .flatMap((placed, i) =>
      placed.map(({ doc, place }) => ({ doc: streams[i]!.index === 'grantedBy' ? granted(doc) : doc, place })),
    )
    .sort((a, b) => b.place - a.place)
    .slice(0, page.limit);
  return named(store, lines);
}

/** Up to `page.limit` entries of one stream after `page.after`, in the range's days when it has some. */
async function readStream(
  store: Store,
  stream: Stream,
  range: Range | undefined,
  page: PageRequest,
): Promise<Array<Placed<CreditTransaction>>> {
  const found: Array<Placed<CreditTransaction>> = [];
  const within = (t: CreditTransaction) =>
    stream.keep(t) && (!range || (t.createdAt >= range.start && t.createdAt < range.end));
  const keys = range ? range.days.map((day) => [...stream.values, day]) : [stream.values];
  for (const values of keys) {
    let after = page.after;
    // Entries the filter leaves (a grant that is a recharge, a time outside the local days) are read past, a page
    // at a time, until the page is full or the day has no more.
    while (found.length < page.limit) {
      const batch = await store.findPlaced<CreditTransaction>(
        'transactions',
        range ? stream.dayIndex : stream.index,
        values,
        { limit: Number.isFinite(page.limit) ? page.limit : undefined, after, order: 'desc' },
      );
      found.push(...batch.filter(({ doc }) => within(doc)).slice(0, page.limit - found.length));
      if (batch.length < page.limit) break;
      after = batch.at(-1)!.place;
    }
    if (found.length >= page.limit) break;
  }
  return found;
}

/**
 * A grant seen from the agency that made it: the credits went from it to the sub-account, so the amount is negative.
 * The gateway does not debit an agency for its grants, so no balance of the agency's changed: there is none to show.
 */
const granted = (t: CreditTransaction): HistoryLine => ({
  ...t,
  kind: 'granted',
  amountCents: -t.amountCents,
  grantedTo: { id: t.accountId, name: null },
});

/** The sub-accounts of `granted` lines named as they are now, each read once per page. */
async function named(store: Store, lines: Array<Placed<HistoryLine>>): Promise<Array<Placed<HistoryLine>>> {
  const ids = [...new Set(lines.flatMap(({ doc }) => (doc.grantedTo ? [doc.grantedTo.id] : [])))];
  if (ids.length === 0) return lines;
  const accounts = await Promise.all(ids.map((id) => store.get<Account>('accounts', id)));
  const names = new Map(ids.map((id, i) => [id, accounts[i]?.name ?? null]));
  return lines.map(({ doc, place }) => ({
    doc: doc.grantedTo
      ? { ...doc, grantedTo: { id: doc.grantedTo.id, name: names.get(doc.grantedTo.id) ?? null } }
      : doc,
    place,
  }));
}
