import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import type { ListedRecord } from '../transport/paginate';
import { searchRecordsOnServer } from './searchRecords';

/** What the dropdown shows under a campaign's name, so two campaigns of the same name can be told apart. */
function detailsOf(campaign: ListedRecord<'/campaigns'>): string | undefined {
  // Read as whatever came: a server other than the gateway may answer other values, or none.
  const fields: unknown[] = [campaign.status, campaign.channel];
  const parts = fields.filter((part): part is string => typeof part === 'string' && part !== '');
  return parts.length ? parts.join(', ') : undefined;
}

/** The campaigns of the account for the Campaign dropdown, searched by name on the server, a page at a time. */
export async function searchCampaigns(
  this: ILoadOptionsFunctions,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  return (searchRecordsOnServer<'/campaigns'>).call(
    this,
    { path: '/campaigns', plural: 'campaigns', singular: 'campaign', describe: detailsOf },
    filter,
    paginationToken,
  );
}
