import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import { contactLocator, readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('contact', 'delete', [
  {
    ...contactLocator,
    description:
      'The contact to erase, with its conversations, messages and files. A contact who opted out stays opted out.',
  },
]);

/**
 * Erases a contact (DELETE /contacts/{id}, a GDPR erasure): it, its conversations, messages, files and list
 * memberships are gone for good. The API key's owner or an admin may.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const contactId = readPicked.call(this, 'contactId', 'Contact', itemIndex);
  await leadChatRequest.call(this, {
    method: 'DELETE',
    path: `/contacts/${encodeURIComponent(contactId)}`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Contact: no contact of this account has this ID (an erased contact is gone).',
  });
  return { deleted: true, contactId };
}
