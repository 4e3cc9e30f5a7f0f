import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';
import { textOf } from '../../shared/text';

/** The Message ID field of an operation on one message, described for what that operation takes. */
export const messageIdField = (description: string): INodeProperties => ({
  displayName: 'Message ID',
  name: 'messageId',
  type: 'string',
  default: '',
  required: true,
  placeholder: 'e.g. msg_V1StGXR8Z5jdHi6B',
  description,
});

/** The Message ID of an item, trimmed; an empty one fails the item. */
export function readMessageId(this: IExecuteFunctions, itemIndex: number): string {
  const messageId = textOf(this.getNodeParameter('messageId', itemIndex, '')).trim();
  if (!messageId) throw new NodeOperationError(this.getNode(), 'Message ID is empty', { itemIndex });
  return messageId;
}
