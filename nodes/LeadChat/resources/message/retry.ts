import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { messageIdField, readMessageId } from './messageId';

export const description = forOperation('message', 'retry', [
  messageIdField('The messageId of a failed outgoing message: of Message > Send, or of a delivery_failed event'),
]);

/**
 * Sends a failed outgoing message again (a custom channel's receivers get the same signed delivery; SMS and WhatsApp
 * go to the provider again), charged once. Outputs the message as Message > Get does.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const messageId = readMessageId.call(this, itemIndex);
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/messages/${encodeURIComponent(messageId)}/retry`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Message ID: no message of this account has it.',
  });
  return response.body;
}
