import {
  NodeOperationError,
  type IDataObject,
  type ILoadOptionsFunctions,
  type INodeListSearchItems,
  type INodeListSearchResult,
} from 'n8n-workflow';

import { leadChatPaged, type ListedRecord, type ListPath } from '../transport/paginate';
import { leadChatRequest } from '../transport/request';

/** A dropdown should answer quickly: one retry on a rate limit, never a long wait. */
export const DROPDOWN_RETRY = { maxRetries: 1, maxWaitSeconds: 5 };

/** Records a dropdown shows per page: n8n asks for the next page (the pagination token) as the user scrolls. */
export const DROPDOWN_PAGE = 50;

/** The list endpoints whose records have a name to show. */
export type NamedListPath = Exclude<
  ListPath,
  '/contacts' | '/conversations' | '/webhooks' | `/lists/${string}/contacts` | `/contacts/${string}/messages`
>;

export interface RecordSearch<P extends NamedListPath> {
  /** The list endpoint, e.g. `/lists`. */
  path: P;
  /** What the records are, in the message for a server without the endpoint ("lists", "campaigns"). */
  plural: string;
  /** The singular, in the same message ("list", "campaign"). */
  singular: string;
  /** The records in the endpoint's answer, when it is not the usual `{data: [...]}`. */
  recordsIn?: (body: IDataObject) => unknown[];
  /** What the dropdown shows under a record's name. */
  describe?: (record: ListedRecord<P>) => string | undefined;
  /** Which records the dropdown offers; all of them by default. */
  keep?: (record: ListedRecord<P>) => boolean;
  /** The text the dropdown shows and the filter searches; the record's name by default. */
  label?: (record: ListedRecord<P>) => string | undefined;
}

function noEndpoint<P extends NamedListPath>(this: ILoadOptionsFunctions, search: RecordSearch<P>): NodeOperationError {
  return new NodeOperationError(
    this.getNode(),
    `This server cannot list your ${search.plural}. Choose "By ID" and paste the ${search.singular} ID from the app.`,
  );
}

function itemsOf<P extends NamedListPath>(
  search: RecordSearch<P>,
  records: Array<ListedRecord<P>>,
): INodeListSearchItems[] {
  const labelOf =
    search.label ?? ((record: ListedRecord<P>) => (typeof record.name === 'string' ? record.name : undefined));
  return records
    .filter((record) => record.id !== undefined && (!search.keep || search.keep(record)))
    .map((record) => ({
      name: labelOf(record) || String(record.id),
      value: String(record.id),
      ...(search.describe ? { description: search.describe(record) } : {}),
    }));
}

/**
 * The account's records of one kind, every page of them, for a dropdown: named (or by ID when unnamed), filtered by
 * name (or label) or exact ID, sorted by name. For an endpoint that cannot search (the team's members, a handful).
 * A server without the endpoint gets a message that says to give the ID instead.
 * Called as `(searchRecords<'/members'>).call(…)`, so that the callbacks read the path's own records.
 */
export async function searchRecords<P extends NamedListPath>(
  this: ILoadOptionsFunctions,
  search: RecordSearch<P>,
  filter?: string,
): Promise<INodeListSearchResult> {
  const { records, statusCode } = await (leadChatPaged<P>).call(
    this,
    { path: search.path, accept: [404, 405], retry: DROPDOWN_RETRY },
    undefined,
    search.recordsIn,
  );
  if (statusCode === 404 || statusCode === 405) throw noEndpoint.call(this, search);
  const needle = (filter ?? '').trim().toLowerCase();
  const results = itemsOf(search, records)
    .filter(
      (item) => !needle || item.name.toLowerCase().includes(needle) || String(item.value).toLowerCase() === needle,
    )
    .sort((a, b) => a.name.localeCompare(b.name));
  return { results };
}

/**
 * One page of the account's records of one kind for a dropdown, searched by name on the server (`?q=`), in the
 * server's order; the next page's cursor is the pagination token n8n hands back as the user scrolls.
 */
export async function searchRecordsOnServer<P extends NamedListPath>(
  this: ILoadOptionsFunctions,
  search: RecordSearch<P>,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  const q = (filter ?? '').trim();
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: search.path,
    qs: { limit: DROPDOWN_PAGE, ...(q ? { q } : {}), ...(paginationToken ? { cursor: paginationToken } : {}) },
    accept: [404, 405],
    retry: DROPDOWN_RETRY,
  });
  if (response.statusCode === 404 || response.statusCode === 405) throw noEndpoint.call(this, search);
  const records = (search.recordsIn ?? ((body: IDataObject) => (Array.isArray(body.data) ? body.data : [])))(
    response.body,
  ) as Array<ListedRecord<P>>;
  const next = response.body.nextCursor;
  const results = itemsOf(search, records);
  // An ID pasted into the search names no record: read that record instead.
  if (results.length === 0 && !paginationToken && LOOKS_LIKE_ID.test(q)) {
    const byId = await leadChatRequest.call(this, {
      method: 'GET',
      path: `${search.path}/${encodeURIComponent(q)}`,
      accept: [400, 404],
      retry: DROPDOWN_RETRY,
    });
    if (byId.statusCode === 200) return { results: itemsOf(search, [byId.body as ListedRecord<P>]) };
  }
  return { results, ...(typeof next === 'string' && next ? { paginationToken: next } : {}) };
}

/** An ID as the API hands them out: a short prefix, an underscore and letters or digits. */
const LOOKS_LIKE_ID = /^[a-z]{1,10}_[0-9A-Za-z]{4,64}$/;
