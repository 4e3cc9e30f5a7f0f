import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { listLocator } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { contactLocator, readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('list', 'removeContact', [
  { ...listLocator, description: 'The list to take the contact off' },
  contactLocator,
]);

/** Takes a contact off a list (the contact stays); a contact not on the list is a 404. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const listId = readPicked.call(this, 'list', 'List', itemIndex, 'Pick a list, or give its ID.');
  const contactId = readPicked.call(this, 'contactId', 'Contact', itemIndex);
  await leadChatRequest.call(this, {
    method: 'DELETE',
    path: `/lists/${encodeURIComponent(listId)}/contacts/${encodeURIComponent(contactId)}`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the List and the Contact: the contact is not on this list, or one of them does not exist.',
  });
  return { removed: true, listId, contactId };
}
