import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { campaignLocator, readCampaignId } from './campaignLocator';

export const description = forOperation('campaign', 'getFunnel', [
  campaignLocator,
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'From',
        name: 'from',
        type: 'string',
        default: '',
        placeholder: 'e.g. 2025-03-01',
        description: "First day counted (YYYY-MM-DD); by default the campaign's first day, at most 366 days before To",
      },
      {
        displayName: 'Time Zone',
        name: 'timezone',
        type: 'string',
        default: '',
        placeholder: 'e.g. America/New_York',
        description: 'The IANA time zone whose days are counted; UTC when empty',
      },
      {
        displayName: 'To',
        name: 'to',
        type: 'string',
        default: '',
        placeholder: 'e.g. 2025-03-31',
        description: 'Last day counted (YYYY-MM-DD); today when empty',
      },
    ],
  },
]);

interface FunnelFields {
  from?: string;
  to?: string;
  timezone?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The campaign's funnel: how many contacts were added, got the opening message, replied, were handed off, opted
 * out, reached the goal or had a message fail, in total and per day. A date written another way (an n8n date
 * expression gives a full timestamp) is cut to its day, so `{{ $today.minus({ days: 7 }) }}` works as it reads.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const campaignId = readCampaignId.call(this, itemIndex);
  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as FunnelFields;
  const query: IDataObject = {};
  for (const name of ['from', 'to'] as const) {
    const value = String(fields[name] ?? '')
      .trim()
      .slice(0, 10);
    if (!value) continue;
    if (!DAY.test(value)) {
      throw new NodeOperationError(this.getNode(), `${name === 'from' ? 'From' : 'To'} is not a date`, {
        itemIndex,
        description: 'Write the day as YYYY-MM-DD, e.g. 2025-03-01.',
      });
    }
    query[name] = value;
  }
  const timezone = String(fields.timezone ?? '').trim();
  if (timezone) query.timezone = timezone;
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: `/campaigns/${encodeURIComponent(campaignId)}/funnel`,
    qs: query,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Campaign: no campaign of this account has this ID.',
  });
  return response.body;
}
