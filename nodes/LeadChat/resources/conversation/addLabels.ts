import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { conversationIdField, readConversationId } from '../../shared/conversations';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('conversation', 'addLabels', [
  ...conversationIdField,
  {
    displayName: 'Labels',
    name: 'labels',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. Hot lead, pricing',
    description:
      'The labels to add, separated by commas, or a list mapped from an expression. Each is 1 to 40 characters, and neither "." nor ".."; one the conversation has already (in any case) changes nothing; a conversation carries at most 20.',
  },
]);

/** The labels typed, one per comma, or those of a list an expression gives (a label of its own may hold a comma). */
export function labelsOf(value: unknown): string[] {
  const parts = Array.isArray(value) ? value.map((v) => String(v ?? '')) : String(value ?? '').split(',');
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/**
 * POST /conversations/{id}/labels: the labels the conversation lacks are added after its own. Adding one twice adds
 * it once, so a retry after a lost answer is safe. Outputs the conversation, with its labels.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const conversationId = readConversationId.call(this, itemIndex);
  const labels = labelsOf(this.getNodeParameter('labels', itemIndex, ''));
  if (labels.length === 0)
    throw new NodeOperationError(this.getNode(), 'Labels is empty', {
      itemIndex,
      description: 'Type one label or more, separated by commas, e.g. Hot lead, pricing.',
    });
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/conversations/${encodeURIComponent(conversationId)}/labels`,
    body: { labels },
    itemIndex,
    retry: settings.retry,
    repeatable: true,
    notFoundHint: 'Check the Conversation ID: this account has no such conversation.',
  });
  return response.body;
}
