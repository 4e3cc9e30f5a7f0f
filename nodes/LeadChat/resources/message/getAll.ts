import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { contactLocator, readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';

export const description = forOperation('message', 'getAll', [
  { ...contactLocator, description: 'The contact whose messages to get, on every channel' },
  ...returnAllAndLimit.map((field) =>
    field.name === 'limit'
      ? {
          ...field,
          // Oldest first: a limit keeps the start of the history, which a builder may not expect.
          description:
            'Max number of results to return: the oldest messages. Turn on Return All for the whole history.',
        }
      : field,
  ),
]);

/**
 * A contact's messages (GET /contacts/{id}/messages), oldest first, one output item each: incoming and outgoing, on
 * every channel and conversation (`conversationId` and `channel` say which), with their delivery status.
 */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  const contactId = readPicked.call(this, 'contactId', 'Contact', itemIndex);
  return await leadChatGetMany.call(
    this,
    {
      path: `/contacts/${encodeURIComponent(contactId)}/messages`,
      itemIndex,
      retry: settings.retry,
      notFoundHint: 'Check the Contact: no contact of this account has this ID (an erased contact is gone).',
    },
    readLimit.call(this, itemIndex),
  );
}
