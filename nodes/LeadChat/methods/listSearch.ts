import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import type { ListListsAnswer } from '../transport/answers';
import { searchRecordsOnServer } from './searchRecords';

/** GET /lists answers `{data: [...]}` on the gateway; accept a bare array or `lists`/`items` too. */
function listsIn(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object') {
    const answer = body as Partial<ListListsAnswer> & { lists?: unknown; items?: unknown };
    for (const value of [answer.data, answer.lists, answer.items]) {
      if (Array.isArray(value)) return value;
    }
  }
  return [];
}

/**
 * The lists of the account for the List dropdown, searched by name on the server, a page at a time. The spec names
 * no endpoint that lists them; the gateway has GET /lists.
 */
export async function searchLists(
  this: ILoadOptionsFunctions,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  return (searchRecordsOnServer<'/lists'>).call(
    this,
    { path: '/lists', plural: 'lists', singular: 'list', recordsIn: listsIn },
    filter,
    paginationToken,
  );
}
