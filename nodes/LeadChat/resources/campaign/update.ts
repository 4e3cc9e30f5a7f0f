import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { campaignLocator, readCampaignId } from './campaignLocator';
import { textOf } from '../../shared/text';

export const description = forOperation('campaign', 'update', [
  campaignLocator,
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Name',
        name: 'name',
        type: 'string',
        default: '',
      },
      {
        displayName: 'Status',
        name: 'status',
        type: 'options',
        options: [
          {
            name: 'Archived',
            value: 'archived',
            description:
              'Done with: stops as Paused does, leaves Get Many unless asked for and no longer keeps its list from being deleted. Paused or Draft brings it back.',
          },
          { name: 'Draft', value: 'draft', description: 'Sends nothing; for a campaign still being written' },
          {
            name: 'Live',
            value: 'live',
            description: 'Sends the opening message to each contact added to its list, and its bot answers',
          },
          {
            name: 'Paused',
            value: 'paused',
            description: 'Stops sending: new contacts of its list wait, and its bot stays silent',
          },
        ],
        default: 'live',
      },
    ],
  },
]);

/**
 * Renames a campaign, makes it Live, pauses or archives it (PATCH /campaigns/{id}). A campaign that cannot send yet
 * is refused going Live with what it lacks (CAMPAIGN_CANNOT_SEND); an archived one is refused any change but being
 * brought back, Paused or Draft (CAMPAIGN_ARCHIVED).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const campaignId = readCampaignId.call(this, itemIndex);
  const fields = this.getNodeParameter('updateFields', itemIndex, {}) as { name?: unknown; status?: string };
  const changes: IDataObject = {};
  if (fields.name !== undefined) {
    const name = textOf(fields.name).trim();
    if (!name) throw new NodeOperationError(this.getNode(), 'Name is empty', { itemIndex });
    changes.name = name;
  }
  if (fields.status) changes.status = fields.status;
  if (Object.keys(changes).length === 0) {
    throw new NodeOperationError(this.getNode(), 'Nothing to update', {
      itemIndex,
      description: 'Add Name or Status under Update Fields.',
    });
  }
  const response = await leadChatRequest.call(this, {
    method: 'PATCH',
    path: `/campaigns/${encodeURIComponent(campaignId)}`,
    body: changes,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Campaign: no campaign of this account has this ID.',
  });
  return response.body;
}
