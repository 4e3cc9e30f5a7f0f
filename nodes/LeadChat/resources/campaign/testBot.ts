import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { campaignLocator, readCampaignId } from './campaignLocator';
import { textOf } from '../../shared/text';

type Author = 'contact' | 'bot' | 'team';

export const description = forOperation('campaign', 'testBot', [
  campaignLocator,
  {
    displayName: 'Message',
    name: 'message',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '',
    required: true,
    placeholder: 'e.g. What are your opening hours?',
    description: "The contact's message the bot should answer",
  },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Conversation So Far',
        name: 'history',
        type: 'fixedCollection',
        typeOptions: { multipleValues: true, sortable: true },
        placeholder: 'Add Earlier Message',
        default: {},
        description: 'Earlier messages of the conversation, oldest first, that the bot reads before answering',
        options: [
          {
            displayName: 'Earlier Message',
            name: 'messages',
            values: [
              {
                displayName: 'From',
                name: 'from',
                type: 'options',
                options: [
                  { name: 'Bot', value: 'bot' },
                  { name: 'Contact', value: 'contact' },
                  { name: 'Team Member', value: 'team' },
                ],
                default: 'contact',
              },
              {
                displayName: 'Text',
                name: 'body',
                type: 'string',
                default: '',
              },
            ],
          },
        ],
      },
      {
        displayName: 'First Name',
        name: 'firstName',
        type: 'string',
        default: '',
        description: "The contact's first name, as the bot would know it from the contact",
      },
    ],
  },
]);

interface TestBotFields {
  firstName?: unknown;
  history?: { messages?: Array<{ from?: string; body?: string }> };
}

/** The conversation so far as the API takes it; an earlier message without text fails the item, naming it. */
function readHistory(
  this: IExecuteFunctions,
  fields: TestBotFields,
  itemIndex: number,
): Array<{ from: Author; body: string }> {
  return (fields.history?.messages ?? []).map((entry, index) => {
    const body = String(entry.body ?? '').trim();
    if (!body) {
      throw new NodeOperationError(this.getNode(), `Earlier message ${index + 1} of Conversation So Far is empty`, {
        itemIndex,
        description: 'Give each earlier message its text, or remove it.',
      });
    }
    const from: Author = entry.from === 'bot' || entry.from === 'team' ? entry.from : 'contact';
    return { from, body };
  });
}

/**
 * Asks the campaign's bot, with the account's bot provider, what it would answer; nothing is sent to anyone,
 * stored or charged. The output is the API's answer: `reply` is a reply (with `goalReached`), a hand-off (with its
 * reason) or silence; what the gateway itself sends (an opt-out, HELP, a request for a person); or nothing,
 * the bot off or the campaign paused. `fallbackReason` says why the FAQ bot answered in place of an AI provider.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const campaignId = readCampaignId.call(this, itemIndex);
  const message = textOf(this.getNodeParameter('message', itemIndex, '')).trim();
  if (!message) {
    throw new NodeOperationError(this.getNode(), 'Message is empty', {
      itemIndex,
      description: 'Write the question a contact would ask the bot.',
    });
  }
  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as TestBotFields;
  const body: IDataObject = { message };
  const history = readHistory.call(this, fields, itemIndex);
  if (history.length) body.history = history;
  const firstName = textOf(fields.firstName).trim();
  if (firstName) body.firstName = firstName;
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/campaigns/${encodeURIComponent(campaignId)}/bot/test`,
    body,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Campaign: no campaign of this account has this ID.',
  });
  return response.body;
}
