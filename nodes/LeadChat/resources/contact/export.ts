import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import { contactLocator, readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('contact', 'export', [
  { ...contactLocator, description: 'The contact whose data to export' },
]);

/**
 * Everything the account holds about a contact (GET /contacts/{id}/export), for a person who asks for a copy of
 * their data: the contact, its conversations and messages, its files as links, its lists, its opt-outs and opt-ins
 * and the webhook deliveries about it. Output: one item holding all of it.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const contactId = readPicked.call(this, 'contactId', 'Contact', itemIndex);
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: `/contacts/${encodeURIComponent(contactId)}/export`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Contact: no contact of this account has this ID (an erased contact is gone).',
  });
  return response.body;
}
