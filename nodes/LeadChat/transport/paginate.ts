import type { IDataObject } from 'n8n-workflow';

import { leadChatRequest, type LeadChatContext, type LeadChatRequest } from './request';

/** The most records asked for per page; the server may answer fewer. */
export const PAGE_SIZE = 100;

function dataOf(body: IDataObject): IDataObject[] {
	return Array.isArray(body.data) ? (body.data as IDataObject[]) : [];
}

export interface PagedResult {
	records: IDataObject[];
	/** Status of the last page asked for: a status in `request.accept` other than 2xx ended the walk there. */
	statusCode: number;
}

/**
 * Every list endpoint pages the same way: `?limit=` and an opaque `cursor`, answered as `{data: [...], nextCursor}`.
 * Walks the pages until `limit` records are collected (all of them when `limit` is undefined) or the server has
 * no next page. A cursor the server hands out twice ends the walk rather than looping. `recordsOf` finds the
 * records of a page where a server names them otherwise.
 */
export async function leadChatPaged(
	this: LeadChatContext,
	request: Omit<LeadChatRequest, 'method'>,
	limit?: number,
	recordsOf: (body: IDataObject) => IDataObject[] = dataOf,
): Promise<PagedResult> {
	const records: IDataObject[] = [];
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
		const page = recordsOf(response.body);
		records.push(...page.slice(0, limit === undefined ? page.length : limit - records.length));
		const next = response.body.nextCursor;
		if (typeof next !== 'string' || next === '' || seen.has(next) || page.length === 0) break;
		seen.add(next);
		cursor = next;
	}
	return { records, statusCode };
}

/** The records of a list endpoint, `limit` at most or all of them: what every Get Many operation outputs. */
export async function leadChatGetMany(
	this: LeadChatContext,
	request: Omit<LeadChatRequest, 'method' | 'accept'>,
	limit?: number,
): Promise<IDataObject[]> {
	return (await leadChatPaged.call(this, request, limit)).records;
}
