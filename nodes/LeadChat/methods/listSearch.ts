import {
	NodeOperationError,
	type IDataObject,
	type ILoadOptionsFunctions,
	type INodeListSearchItems,
	type INodeListSearchResult,
} from 'n8n-workflow';

import { leadChatPaged } from '../transport/paginate';

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
 * the gateway has GET /lists. On a server without it, the dropdown says to give the list by ID instead.
 */
export async function searchLists(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const { records, statusCode } = await leadChatPaged.call(
		this,
		{ path: '/lists', accept: [404, 405], retry: { maxRetries: 1, maxWaitSeconds: 5 } },
		undefined,
		listsIn,
	);
	if (statusCode === 404 || statusCode === 405) {
		throw new NodeOperationError(
			this.getNode(),
			'This server cannot list your lists. Choose "By ID" and paste the list ID from the app.',
		);
	}
	const needle = (filter ?? '').trim().toLowerCase();
	const results: INodeListSearchItems[] = records
		.filter((list) => list.id !== undefined)
		.map((list) => ({
			name: typeof list.name === 'string' && list.name ? list.name : String(list.id),
			value: String(list.id),
		}))
		.filter((item) => !needle || item.name.toLowerCase().includes(needle) || item.value.toLowerCase() === needle)
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
