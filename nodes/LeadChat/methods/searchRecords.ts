import {
	NodeOperationError,
	type IDataObject,
	type ILoadOptionsFunctions,
	type INodeListSearchItems,
	type INodeListSearchResult,
} from 'n8n-workflow';

import { leadChatPaged, type ListedRecord, type ListPath } from '../transport/paginate';

/** A dropdown should answer quickly: one retry on a rate limit, never a long wait. */
export const DROPDOWN_RETRY = { maxRetries: 1, maxWaitSeconds: 5 };

/** The list endpoints whose records have a name to show. */
export type NamedListPath = Exclude<ListPath, '/conversations' | '/webhooks'>;

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

/**
 * The account's records of one kind, every page of them, for a dropdown: named (or by ID when unnamed), filtered by
 * name (or label) or exact ID, sorted by name. A server without the endpoint gets a message that says to give the ID instead.
 * Called as `(searchRecords<'/lists'>).call(…)`, so that the callbacks read the path's own records.
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
	if (statusCode === 404 || statusCode === 405) {
		throw new NodeOperationError(
			this.getNode(),
			`This server cannot list your ${search.plural}. Choose "By ID" and paste the ${search.singular} ID from the app.`,
		);
	}
	const needle = (filter ?? '').trim().toLowerCase();
	const labelOf =
		search.label ?? ((record: ListedRecord<P>) => (typeof record.name === 'string' ? record.name : undefined));
	const results: INodeListSearchItems[] = records
		.filter((record) => record.id !== undefined && (!search.keep || search.keep(record)))
		.map((record) => ({
			name: labelOf(record) || String(record.id),
			value: String(record.id),
			...(search.describe ? { description: search.describe(record) } : {}),
		}))
		.filter((item) => !needle || item.name.toLowerCase().includes(needle) || item.value.toLowerCase() === needle)
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
