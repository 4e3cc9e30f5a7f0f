import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { searchRecords } from './searchRecords';

/** GET /lists answers `{data: [...]}` on the gateway; accept a bare array or `lists`/`items` too. */
function listsIn(body: unknown): IDataObject[] {
	if (Array.isArray(body)) return body as IDataObject[];
	if (body && typeof body === 'object') {
		for (const key of ['data', 'lists', 'items']) {
			const value = (body as IDataObject)[key];
			if (Array.isArray(value)) return value as IDataObject[];
		}
	}
	return [];
}

/**
 * The lists of the account, every page of them, for the List dropdown. The spec names no endpoint that lists them;
 * the gateway has GET /lists.
 */
export async function searchLists(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	return searchRecords.call(this, { path: '/lists', plural: 'lists', singular: 'list', recordsIn: listsIn }, filter);
}
