import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { filtersOf, readFilters, readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { contactLocator, readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';

export const description = forOperation('message', 'getAll', [
  { ...contactLocator, description: 'The contact whose messages to get, on every channel' },
  {
    displayName: 'Order',
    name: 'order',
    type: 'options',
    options: [
      { name: 'Oldest First', value: 'asc', description: 'From the start of the history' },
      {
        name: 'Newest First',
        value: 'desc',
        description: 'From the latest message back: with a Limit, the latest messages',
      },
    ],
    default: 'asc',
  },
  ...returnAllAndLimit.map((field) =>
    field.name === 'limit'
      ? {
          ...field,
          // A limit keeps the start of the history unless the order is newest first, which a builder may not expect.
          description:
            'Max number of results to return: the first ones in the Order chosen (by default the oldest messages)',
        }
      : field,
  ),
  filtersOf([
    {
      displayName: 'Conversation ID',
      name: 'conversationId',
      type: 'string',
      default: '',
      placeholder: 'e.g. cnv_V1StGXR8Z5jdHi6B',
      description:
        "Only the messages of this conversation of the contact's (one channel): the conversationId of a trigger event or of Conversation > Get Many",
    },
  ]),
]);

/**
 * A contact's messages (GET /contacts/{id}/messages), oldest or newest first, one output item each: incoming and
 * outgoing, on every channel and conversation (`conversationId` and `channel` say which) or of one conversation,
 * with their delivery status.
 */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  const contactId = readPicked.call(this, 'contactId', 'Contact', itemIndex);
  const qs = readFilters.call(this, itemIndex, ['conversationId']);
  // Workflows saved before the option existed read oldest first, as they did; the API's default is the same.
  if (this.getNodeParameter('order', itemIndex, 'asc') === 'desc') qs.order = 'desc';
  return await leadChatGetMany.call(
    this,
    {
      path: `/contacts/${encodeURIComponent(contactId)}/messages`,
      qs,
      itemIndex,
      retry: settings.retry,
      notFoundHint: qs.conversationId
        ? 'Check the Contact and the Conversation ID: no contact, or no conversation, of this account has this ID (an erased contact is gone).'
        : 'Check the Contact: no contact of this account has this ID (an erased contact is gone).',
    },
    readLimit.call(this, itemIndex),
  );
}
