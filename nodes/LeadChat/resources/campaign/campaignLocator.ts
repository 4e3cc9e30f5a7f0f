import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';
import { textOf } from '../../shared/text';

/** A campaign, picked from the account's campaigns (GET /campaigns) or given by ID. */
export const campaignLocator: INodeProperties = {
  displayName: 'Campaign',
  name: 'campaign',
  type: 'resourceLocator',
  default: { mode: 'list', value: '' },
  required: true,
  description: 'The campaign to use',
  modes: [
    {
      displayName: 'From List',
      name: 'list',
      type: 'list',
      placeholder: 'Select a campaign...',
      typeOptions: {
        searchListMethod: 'searchCampaigns',
        searchable: true,
      },
    },
    {
      displayName: 'By ID',
      name: 'id',
      type: 'string',
      placeholder: 'e.g. cmp_V1StGXR8Z5jdHi6B',
      hint: 'The campaign ID shown in the app, or the campaignId of a trigger event',
    },
  ],
};

/** The campaign ID of one item, or the item fails before any request is sent. */
export function readCampaignId(this: IExecuteFunctions, itemIndex: number): string {
  const campaignId = textOf(this.getNodeParameter('campaign', itemIndex, '', { extractValue: true })).trim();
  if (!campaignId) {
    throw new NodeOperationError(this.getNode(), 'Campaign is empty', {
      itemIndex,
      description: 'Pick the campaign, or give its ID.',
    });
  }
  return campaignId;
}
