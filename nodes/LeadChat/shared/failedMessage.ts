import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

/**
 * What an item that failed because its message was stored `failed` keeps of it, for the error item. `errorCode` is
 * also the API's code of any other refusal (leadChatApiError), so one field names what went wrong.
 */
export interface FailedMessage {
  messageId?: string;
  errorCode?: string;
}

/**
 * The error of a message the API stored as failed (no receiver, no credits). It carries the message's id and code,
 * so that with Continue On Fail the error item holds them as fields: Message › Retry sends the message by that id
 * once the cause is fixed, and a workflow branches on the code without reading the text.
 */
export function failedMessageError(
  node: INode,
  message: string,
  description: string,
  itemIndex: number,
  failed: FailedMessage,
): NodeOperationError {
  const error = new NodeOperationError(node, message, { itemIndex, description });
  if (failed.messageId) error.context.messageId = failed.messageId;
  if (failed.errorCode) error.context.errorCode = failed.errorCode;
  return error;
}

/** The code and the failed message's id an error carries, for the error item; else none. */
export function failedMessageFields(error: { context?: IDataObject }): IDataObject {
  const fields: IDataObject = {};
  for (const key of ['messageId', 'errorCode'] as const) {
    const value = error.context?.[key];
    if (typeof value === 'string' && value) fields[key] = value;
  }
  return fields;
}
