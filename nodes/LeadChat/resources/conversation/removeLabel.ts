import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { conversationIdField, readConversationId } from '../../shared/conversations';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('conversation', 'removeLabel', [
  ...conversationIdField,
  {
    displayName: 'Label Name or ID',
    name: 'label',
    type: 'options',
    typeOptions: { loadOptionsMethod: 'getLabels' },
    default: '',
    required: true,
    description:
      'The label to take off, in any case; one the conversation does not have changes nothing. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
  },
]);

/**
 * DELETE /conversations/{id}/labels/{label}: the label goes, whatever its case. Outputs the conversation, with the
 * labels left.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const conversationId = readConversationId.call(this, itemIndex);
  const label = String(this.getNodeParameter('label', itemIndex, '') ?? '').trim();
  if (!label) throw new NodeOperationError(this.getNode(), 'Label is empty', { itemIndex });
  const response = await leadChatRequest.call(this, {
    method: 'DELETE',
    path: `/conversations/${encodeURIComponent(conversationId)}/labels/${encodeURIComponent(label)}`,
    itemIndex,
    retry: settings.retry,
    repeatable: true,
    notFoundHint: 'Check the Conversation ID: this account has no such conversation.',
  });
  return response.body;
}
