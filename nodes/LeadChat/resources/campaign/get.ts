import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { campaignLocator, readCampaignId } from './campaignLocator';

export const description = forOperation('campaign', 'get', [campaignLocator]);

/** One campaign: its channel, list, status, opening message, follow-ups and bot (FAQs, goal). */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const campaignId = readCampaignId.call(this, itemIndex);
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: `/campaigns/${encodeURIComponent(campaignId)}`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Campaign: no campaign of this account has this ID.',
  });
  return response.body;
}
