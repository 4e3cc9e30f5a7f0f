import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { conversationIdField, readConversationId } from '../../shared/conversations';
import { forOperation } from '../../shared/display';
import { readSimplify, simplifyConversation, simplifyFields } from '../../shared/simplify';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('conversation', 'get', [...conversationIdField, ...simplifyFields]);

/** One conversation: the contact on one channel, its status, bot, opening message and what is due next. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const conversationId = readConversationId.call(this, itemIndex);
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: `/conversations/${encodeURIComponent(conversationId)}`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Conversation ID: no conversation of this account has it.',
  });
  return readSimplify.call(this, itemIndex) ? simplifyConversation(response.body) : response.body;
}
