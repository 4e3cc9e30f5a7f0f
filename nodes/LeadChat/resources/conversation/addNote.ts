import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { conversationIdField, readConversationId } from '../../shared/conversations';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { textOf } from '../../shared/text';

export const description = forOperation('conversation', 'addNote', [
  ...conversationIdField,
  {
    displayName: 'Text',
    name: 'text',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '',
    required: true,
    placeholder: 'e.g. Wants a quote by Friday',
    description:
      'What the team should know about this conversation, up to 4,096 characters. Only the team sees it: it is never sent to the contact.',
  },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Idempotency Key',
        name: 'idempotencyKey',
        type: 'string',
        default: '',
        placeholder: 'e.g. {{ $json.ticketId }}',
        description:
          'A key of this note alone: sent again with the same key, conversation and text, as when its answer was lost and the node retried, the note is added once and the first one is output. Never one key for several notes.',
      },
    ],
  },
]);

/**
 * POST /conversations/{id}/notes: a private note for the team on the conversation, signed by nobody of the team (the
 * API key is a workflow's). It changes nothing of the conversation. Outputs the note.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const conversationId = readConversationId.call(this, itemIndex);
  const text = textOf(this.getNodeParameter('text', itemIndex, '')).trim();
  if (!text) throw new NodeOperationError(this.getNode(), 'Text is empty', { itemIndex });
  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as { idempotencyKey?: unknown };
  const idempotencyKey = textOf(fields.idempotencyKey).trim();
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/conversations/${encodeURIComponent(conversationId)}/notes`,
    body: { text },
    headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : undefined,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Conversation ID: this account has no such conversation.',
  });
  return response.body;
}
