import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { unwrapContact } from '../../shared/contacts';
import { forOperation } from '../../shared/display';
import { contactLocator, readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('contact', 'merge', [
  {
    ...contactLocator,
    description:
      "The contact to keep: it takes the duplicate's conversations, messages, lists and external IDs, and its fields where it has none",
  },
  {
    ...contactLocator,
    displayName: 'Duplicate',
    name: 'duplicateId',
    description: 'The contact merged into the one kept: it is gone afterwards. An opt-out of either holds.',
  },
]);

/**
 * Merges a duplicate into a contact (POST /contacts/{id}/merge): one contact is left, with the conversations,
 * messages, lists and external IDs of both. The API key's owner or an admin may. Output: the contact kept.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const contactId = readPicked.call(this, 'contactId', 'Contact', itemIndex);
  const duplicateId = readPicked.call(this, 'duplicateId', 'Duplicate', itemIndex);
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/contacts/${encodeURIComponent(contactId)}/merge`,
    body: { contactId: duplicateId },
    itemIndex,
    retry: settings.retry,
    notFoundHint:
      'Check the Contact and the Duplicate: no contact of this account has one of these IDs (a merged duplicate is gone).',
  });
  return (unwrapContact(response.body) ?? response.body) as IDataObject;
}
