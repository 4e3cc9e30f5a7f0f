import type { IDataObject } from 'n8n-workflow';

import type {
  FindContactsAnswer,
  ListContactMessagesAnswer,
  ListCampaignsAnswer,
  ListConversationsAnswer,
  ListListContactsAnswer,
  ListListsAnswer,
  ListMembersAnswer,
  ListSubAccountsAnswer,
  ListWebhooksAnswer,
} from './answers';
import { leadChatRequest, type LeadChatContext, type LeadChatRequest } from './request';

/** The most records asked for per page; the server may answer fewer. */
export const PAGE_SIZE = 100;

/** The list endpoints the nodes walk, and what one page of each answers (from the contract, ./answers). */
export interface ListAnswers {
  /** A search, `?q=`: the lookup by phone or email answers one contact instead. */
  '/contacts': Extract<FindContactsAnswer, { data: unknown }>;
  '/campaigns': ListCampaignsAnswer;
  '/conversations': ListConversationsAnswer;
  '/lists': ListListsAnswer;
  /** A list's contacts, in the order they joined. */
  [path: `/lists/${string}/contacts`]: ListListContactsAnswer;
  /** A contact's messages, on every channel, oldest first. */
  [path: `/contacts/${string}/messages`]: ListContactMessagesAnswer;
  '/members': ListMembersAnswer;
  /** An agency's sub-accounts, oldest first, each with its balance. */
  '/subaccounts': ListSubAccountsAnswer;
  '/webhooks': ListWebhooksAnswer;
}

export type ListPath = keyof ListAnswers;

/**
 * One record of a page of `P` as the nodes read it: the contract's type with every field optional, since a server
 * other than the gateway may answer less than the contract says.
 */
export type ListedRecord<P extends ListPath> = Partial<ListAnswers[P]['data'][number]>;

/** A page of any list endpoint, read as loosely as its records. */
type Page = Partial<ListAnswers[ListPath]>;

function dataOf(body: IDataObject): unknown[] {
  const { data } = body as Page;
  return Array.isArray(data) ? data : [];
}

export interface PagedRequest<P extends ListPath> extends Omit<LeadChatRequest, 'method' | 'path'> {
  path: P;
}

export interface PagedResult<P extends ListPath> {
  records: Array<ListedRecord<P>>;
  /** Status of the last page asked for: a status in `request.accept` other than 2xx ended the walk there. */
  statusCode: number;
}

/**
 * Every list endpoint pages the same way: `?limit=` and an opaque `cursor`, answered as `{data: [...], nextCursor}`.
 * Walks the pages until `limit` records are collected (all of them when `limit` is undefined) or the server has
 * no next page. A cursor the server hands out twice ends the walk rather than looping. `recordsOf` finds the
 * records of a page where a server names them otherwise.
 *
 * Called as `leadChatPaged.call(…)`, `P` is every list path; to read one endpoint's records as its own type, name
 * it: `(leadChatPaged<'/members'>).call(this, { path: '/members' })`.
 */
export async function leadChatPaged<P extends ListPath>(
  this: LeadChatContext,
  request: PagedRequest<P>,
  limit?: number,
  recordsOf: (body: IDataObject) => unknown[] = dataOf,
): Promise<PagedResult<P>> {
  const records: Array<ListedRecord<P>> = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let statusCode = 200;
  while (limit === undefined || records.length < limit) {
    const pageSize = limit === undefined ? PAGE_SIZE : Math.min(PAGE_SIZE, limit - records.length);
    const response = await leadChatRequest.call(this, {
      ...request,
      method: 'GET',
      qs: { ...request.qs, limit: pageSize, ...(cursor ? { cursor } : {}) },
    });
    statusCode = response.statusCode;
    if (statusCode < 200 || statusCode >= 300) break;
    // The records of a page are what the path's schema says they are; nothing here depends on their fields.
    const page = recordsOf(response.body) as Array<ListedRecord<P>>;
    records.push(...page.slice(0, limit === undefined ? page.length : limit - records.length));
    const next = (response.body as Page).nextCursor;
    if (typeof next !== 'string' || next === '' || seen.has(next) || page.length === 0) break;
    seen.add(next);
    cursor = next;
  }
  return { records, statusCode };
}

/** The records of a list endpoint, `limit` at most or all of them: what every Get Many operation outputs. */
export async function leadChatGetMany<P extends ListPath>(
  this: LeadChatContext,
  request: Omit<PagedRequest<P>, 'accept'>,
  limit?: number,
): Promise<IDataObject[]> {
  return (await leadChatPaged.call(this, request, limit)).records;
}
