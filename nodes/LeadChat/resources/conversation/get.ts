import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('conversation', 'get', [
	{
		displayName: 'Conversation ID',
		name: 'conversationId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. cnv_V1StGXR8Z5jdHi6B',
		description: 'ID of the conversation, as in the conversationId of a trigger event or Get Many',
	},
]);

/** One conversation: the contact on one channel, its status, bot, opening message and what is due next. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	settings: RunSettings,
): Promise<IDataObject> {
	const conversationId = String(this.getNodeParameter('conversationId', itemIndex, '')).trim();
	if (!conversationId) throw new NodeOperationError(this.getNode(), 'Conversation ID is empty', { itemIndex });
	const response = await leadChatRequest.call(this, {
		method: 'GET',
		path: `/conversations/${encodeURIComponent(conversationId)}`,
		itemIndex,
		retry: settings.retry,
		notFoundHint: 'Check the Conversation ID: no conversation of this account has it.',
	});
	return response.body;
}
