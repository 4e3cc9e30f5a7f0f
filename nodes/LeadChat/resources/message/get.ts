import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { messageIdField, readMessageId } from './messageId';

export const description = forOperation('message', 'get', [
  messageIdField('The messageId of Message > Send or Receive, or of a trigger event'),
]);

/**
 * One message with its delivery status: `status` (pending, sent, delivered, read or failed, with `error` and
 * `errorCode`) and `deliveries`, each attempt to hand it to a receiver.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const messageId = readMessageId.call(this, itemIndex);
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: `/messages/${encodeURIComponent(messageId)}`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Message ID: no message of this account has it.',
  });
  return response.body;
}
