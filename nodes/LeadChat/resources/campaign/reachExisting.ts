import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { campaignLocator, readCampaignId } from './campaignLocator';

export const description = forOperation('campaign', 'reachExisting', [
  {
    displayName:
      "Each contact already on the Live campaign's list that has not had its opening message gets it, paced at the campaign's send rate. Running it again sends nothing twice.",
    name: 'reachExistingNotice',
    type: 'notice',
    default: '',
  },
  campaignLocator,
]);

/**
 * Sends the opening message to the contacts already on a Live campaign's list (imported before it went Live): the
 * answer says how many were queued and, by reason, how many cannot be reached.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const campaignId = readCampaignId.call(this, itemIndex);
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/campaigns/${encodeURIComponent(campaignId)}/reach-existing`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Campaign: no campaign of this account has this ID.',
  });
  return response.body;
}
