import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { leadChatRequest } from '../transport/request';
import { contactLocator, conversationLocator, pickerFromV2, readPicked } from './locators';
import type { RunSettings } from './types';

/** The contact whose conversations an operation acts on: its ID in version 1, picked from version 2. */
const contactIdText: INodeProperties = {
  displayName: 'Contact ID',
  name: 'contactId',
  type: 'string',
  default: '',
  required: true,
  placeholder: 'e.g. ct_V1StGXR8Z5jdHi6B',
  description: 'ID of the contact, as in the contactId of a conversation, a message or a trigger event',
};

export const contactIdField: INodeProperties[] = pickerFromV2(contactIdText, contactLocator);

/** One conversation: by its ID in version 1, picked from version 2. */
const conversationIdText: INodeProperties = {
  displayName: 'Conversation ID',
  name: 'conversationId',
  type: 'string',
  default: '',
  required: true,
  placeholder: 'e.g. cnv_V1StGXR8Z5jdHi6B',
  description: 'ID of the conversation, as in the conversationId of a trigger event or Get Many',
};

export const conversationIdField: INodeProperties[] = pickerFromV2(conversationIdText, conversationLocator);

export function readConversationId(this: IExecuteFunctions, itemIndex: number): string {
  return readPicked.call(this, 'conversationId', 'Conversation ID', itemIndex);
}

export function readContactId(this: IExecuteFunctions, itemIndex: number): string {
  return readPicked.call(
    this,
    'contactId',
    'Contact ID',
    itemIndex,
    'Map the contactId of a conversation, a message or a LeadChat Trigger event.',
  );
}

/**
 * Turns the AI bot off (a person takes over: the bot stays silent, follow-ups stop) or back on for every
 * conversation of the contact. The gateway answers with those conversations; a server that answers less still
 * says which contact and which state.
 */
export async function setBotActive(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
  active: boolean,
): Promise<IDataObject> {
  const contactId = readContactId.call(this, itemIndex);
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/contacts/${encodeURIComponent(contactId)}/bot`,
    body: { active },
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Contact ID: no contact of this account has it.',
  });
  return { success: true, contactId, active, ...response.body };
}
