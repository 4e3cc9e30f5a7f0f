import { NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { leadChatRequest } from '../transport/request';
import type { RunSettings } from './types';

/** The contact whose conversations an operation acts on. */
export const contactIdField: INodeProperties = {
	displayName: 'Contact ID',
	name: 'contactId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. ct_V1StGXR8Z5jdHi6B',
	description: 'ID of the contact, as in the contactId of a conversation, a message or a trigger event',
};

/** One conversation, by its ID. */
export const conversationIdField: INodeProperties = {
	displayName: 'Conversation ID',
	name: 'conversationId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. cnv_V1StGXR8Z5jdHi6B',
	description: 'ID of the conversation, as in the conversationId of a trigger event or Get Many',
};

export function readConversationId(this: IExecuteFunctions, itemIndex: number): string {
	const conversationId = String(this.getNodeParameter('conversationId', itemIndex, '')).trim();
	if (!conversationId) throw new NodeOperationError(this.getNode(), 'Conversation ID is empty', { itemIndex });
	return conversationId;
}

export function readContactId(this: IExecuteFunctions, itemIndex: number): string {
	const contactId = String(this.getNodeParameter('contactId', itemIndex, '')).trim();
	if (!contactId) {
		throw new NodeOperationError(this.getNode(), 'Contact ID is empty', {
			itemIndex,
			description: 'Map the contactId of a conversation, a message or a LeadChat Trigger event.',
		});
	}
	return contactId;
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
