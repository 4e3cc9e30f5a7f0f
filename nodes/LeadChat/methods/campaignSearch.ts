import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { searchRecords } from './searchRecords';

/** What the dropdown shows under a campaign's name, so two campaigns of the same name can be told apart. */
function detailsOf(campaign: IDataObject): string | undefined {
	const parts = [campaign.status, campaign.channel].filter(
		(part): part is string => typeof part === 'string' && part !== '',
	);
	return parts.length ? parts.join(', ') : undefined;
}

/** The campaigns of the account, every page of them, for the Campaign dropdown (GET /campaigns on the gateway). */
export async function searchCampaigns(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	return searchRecords.call(
		this,
		{ path: '/campaigns', plural: 'campaigns', singular: 'campaign', describe: detailsOf },
		filter,
	);
}
