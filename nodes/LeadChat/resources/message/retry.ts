import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('message', 'retry', [
  {
    displayName: 'Message ID',
    name: 'messageId',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. msg_V1StGXR8Z5jdHi6B',
    description: 'The messageId of a failed outgoing message: of Message > Send, or of a delivery_failed event',
  },
]);

/**
 * Sends a failed outgoing message again (a custom channel's receivers get the same signed delivery; SMS and WhatsApp
 * go to the provider again), charged once. Outputs the message as Message > Get does.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const messageId = String(this.getNodeParameter('messageId', itemIndex, '')).trim();
  if (!messageId) throw new NodeOperationError(this.getNode(), 'Message ID is empty', { itemIndex });
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/messages/${encodeURIComponent(messageId)}/retry`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Message ID: no message of this account has it.',
  });
  return response.body;
}
