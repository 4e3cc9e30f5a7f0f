import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { delayField, readDelay } from '../../shared/delay';
import { listLocator } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { contactLocator, pickerFromV2 } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import type { AddContactToListAnswer } from '../../transport/answers';
import { leadChatRequest } from '../../transport/request';
import { textOf } from '../../shared/text';

export const description = forOperation('list', 'addContact', [
  listLocator,
  ...pickerFromV2(
    {
      displayName: 'Contact ID',
      name: 'contactId',
      type: 'string',
      default: '',
      required: true,
      placeholder: 'e.g. ct_V1StGXR8Z5jdHi6B',
      description: 'ID of the contact, as returned by Contact > Create or Get',
    },
    contactLocator,
  ),
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [delayField],
  },
]);

/**
 * Spec §4.3. `added` is false when the contact already was on the list (the gateway says so; a server that does
 * not is taken to have added it). `delay` (already validated) holds the opening message that long.
 */
export async function addContactToList(
  this: IExecuteFunctions,
  listId: string,
  contactId: string,
  itemIndex: number,
  settings: RunSettings,
  delay?: string,
): Promise<AddContactToListAnswer> {
  if (!listId.trim()) {
    throw new NodeOperationError(this.getNode(), 'List is empty', {
      itemIndex,
      description: 'Pick a list, or give its ID.',
    });
  }
  if (!contactId.trim()) {
    throw new NodeOperationError(this.getNode(), 'Contact ID is empty', { itemIndex });
  }
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/lists/${encodeURIComponent(listId.trim())}/contacts`,
    body: { contactId: contactId.trim(), ...(delay ? { delay } : {}) },
    // A contact already on the list stays on it once: sending this again cannot add it twice.
    repeatable: true,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the List and the Contact ID.',
  });
  const body = response.body as Partial<AddContactToListAnswer>;
  return {
    success: true,
    listId: listId.trim(),
    contactId: contactId.trim(),
    ...body,
    added: typeof body.added === 'boolean' ? body.added : true,
  };
}

export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const listId = textOf(this.getNodeParameter('list', itemIndex, '', { extractValue: true }));
  const contactId = textOf(this.getNodeParameter('contactId', itemIndex, '', { extractValue: true }));
  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as { delay?: string };
  const delay = readDelay.call(this, fields.delay, itemIndex);
  return await addContactToList.call(this, listId, contactId, itemIndex, settings, delay);
}
