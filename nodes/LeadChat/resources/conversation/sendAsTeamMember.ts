import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { contactIdField, readContactId } from '../../shared/conversations';
import { messageTextField } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { failedMessageError } from '../../shared/failedMessage';
import type { RunSettings } from '../../shared/types';
import type { ReplyToContactAnswer } from '../../transport/answers';
import { hintForCode } from '../../transport/errors';
import { leadChatRequest } from '../../transport/request';
import { textOf } from '../../shared/text';

export const description = forOperation('conversation', 'sendAsTeamMember', [
  ...contactIdField,
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
      {
        displayName: 'Idempotency Key',
        name: 'idempotencyKey',
        type: 'string',
        default: '',
        placeholder: 'e.g. {{ $json.ticketId }}',
        description:
          'A key of this reply alone (e.g. the ID of the ticket or message it answers): sent again with the same key, contact and text, as when its answer was lost and the node retried, the reply goes once and the first one is output. Never one key for several replies.',
      },
    ],
  },
]);

/**
 * A team member's reply, sent on the conversation's channel. It hands the conversation off too: the bot stays
 * silent until it is resumed. A reply that cannot go (no credits, no receiver) is stored `failed` and answered
 * 201 all the same: the item fails with the message's reason, so that a workflow never counts it as sent.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const contactId = readContactId.call(this, itemIndex);
  const text = textOf(this.getNodeParameter('text', itemIndex, ''));
  if (!text.trim()) throw new NodeOperationError(this.getNode(), 'Text is empty', { itemIndex });
  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as {
    conversationId?: unknown;
    idempotencyKey?: unknown;
  };
  const conversationId = textOf(fields.conversationId).trim();
  const idempotencyKey = textOf(fields.idempotencyKey).trim();
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/contacts/${encodeURIComponent(contactId)}/messages`,
    body: { body: text, ...(conversationId ? { conversationId } : {}) },
    headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : undefined,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Contact ID and the Conversation ID.',
  });
  const message = response.body as Partial<ReplyToContactAnswer>;
  if (message.status === 'failed') {
    const code = typeof message.errorCode === 'string' ? message.errorCode : undefined;
    const reason = typeof message.error === 'string' && message.error ? message.error : 'The message could not be sent';
    const hint = code ? hintForCode(code) : undefined;
    throw failedMessageError(
      this.getNode(),
      `LeadChat: the message was stored as failed: ${reason}`,
      `Message ${String(message.id ?? '')} was not sent${code ? ` (${code})` : ''}.${hint ? ` ${hint}` : ''}`,
      itemIndex,
      { messageId: typeof message.id === 'string' ? message.id : undefined, errorCode: code },
    );
  }
  return response.body;
}
