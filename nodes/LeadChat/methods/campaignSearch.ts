import {
	NodeOperationError,
	type IDataObject,
	type ILoadOptionsFunctions,
	type INodeListSearchItems,
	type INodeListSearchResult,
} from 'n8n-workflow';

import { leadChatPaged } from '../transport/paginate';

/** What the dropdown shows under a campaign's name, so two campaigns of the same name can be told apart. */
function detailsOf(campaign: IDataObject): string | undefined {
	const parts = [campaign.status, campaign.channel].filter(
		(part): part is string => typeof part === 'string' && part !== '',
	);
	return parts.length ? parts.join(', ') : undefined;
}

/**
 * The campaigns of the account, every page of them, for the Campaign dropdown (GET /campaigns on the gateway). A
 * server without that endpoint gets a message that says to give the campaign by ID instead.
 */
export async function searchCampaigns(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const { records, statusCode } = await leadChatPaged.call(this, {
		path: '/campaigns',
		accept: [404, 405],
		retry: { maxRetries: 1, maxWaitSeconds: 5 },
	});
	if (statusCode === 404 || statusCode === 405) {
		throw new NodeOperationError(
			this.getNode(),
			'This server cannot list your campaigns. Choose "By ID" and paste the campaign ID from the app.',
		);
	}
	const needle = (filter ?? '').trim().toLowerCase();
	const results: INodeListSearchItems[] = records
		.filter((campaign) => campaign.id !== undefined)
		.map((campaign) => ({
			name: typeof campaign.name === 'string' && campaign.name ? campaign.name : String(campaign.id),
			value: String(campaign.id),
			description: detailsOf(campaign),
		}))
		.filter((item) => !needle || item.name.toLowerCase().includes(needle) || item.value.toLowerCase() === needle)
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
