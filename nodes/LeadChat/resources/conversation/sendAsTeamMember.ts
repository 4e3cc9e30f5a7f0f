import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { contactIdField, readContactId } from '../../shared/conversations';
import { messageTextField } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('conversation', 'sendAsTeamMember', [
	contactIdField,
	messageTextField,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Conversation ID',
				name: 'conversationId',
				type: 'string',
				default: '',
				placeholder: 'e.g. cnv_V1StGXR8Z5jdHi6B',
				description:
					"The conversation to answer in, when the contact has several (one per channel). Empty: the contact's latest conversation.",
			},
		],
	},
]);

/**
 * A team member's reply, sent on the conversation's channel. It hands the conversation off too: the bot stays
 * silent until it is resumed.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	settings: RunSettings,
): Promise<IDataObject> {
	const contactId = readContactId.call(this, itemIndex);
	const text = String(this.getNodeParameter('text', itemIndex, ''));
	if (!text.trim()) throw new NodeOperationError(this.getNode(), 'Text is empty', { itemIndex });
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as { conversationId?: string };
	const conversationId = fields.conversationId?.trim();
	const response = await leadChatRequest.call(this, {
		method: 'POST',
		path: `/contacts/${encodeURIComponent(contactId)}/messages`,
		body: { body: text, ...(conversationId ? { conversationId } : {}) },
		itemIndex,
		retry: settings.retry,
		notFoundHint: 'Check the Contact ID and the Conversation ID.',
	});
	return response.body;
}
