import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { messageTextField } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { failedMessageError } from '../../shared/failedMessage';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { hintForCode } from '../../transport/errors';
import { textOf } from '../../shared/text';

export const description = forOperation('message', 'send', [
  {
    displayName: 'Contact External ID',
    name: 'fromId',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. user-42',
    description:
      "The contact's ID on the external platform (the fromId of its incoming messages). A new ID creates a new contact.",
  },
  {
    displayName: 'Custom Channel',
    name: 'customChannel',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. livechat',
    description: 'Name of the custom channel the message goes out on',
  },
  messageTextField,
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Campaign ID',
        name: 'campaignId',
        type: 'string',
        default: '',
        description: 'Routes the conversation to this campaign',
      },
      {
        displayName: 'Email',
        name: 'email',
        type: 'string',
        placeholder: 'name@email.com',
        default: '',
        description: 'Stored on the contact',
      },
      {
        displayName: 'First Name',
        name: 'firstName',
        type: 'string',
        default: '',
        description: 'Stored on the contact',
      },
      {
        displayName: 'Last Name',
        name: 'lastName',
        type: 'string',
        default: '',
        description: 'Stored on the contact',
      },
    ],
  },
]);

/** Spec §2.5 / §4.4: send a message to a contact through a custom channel. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const customData: IDataObject = {
    fromId: textOf(this.getNodeParameter('fromId', itemIndex)).trim(),
    customChannel: textOf(this.getNodeParameter('customChannel', itemIndex)).trim(),
    body: textOf(this.getNodeParameter('text', itemIndex)),
  };
  for (const [field, label] of [
    ['fromId', 'Contact External ID'],
    ['customChannel', 'Custom Channel'],
    ['body', 'Text'],
  ] as const) {
    if (!String(customData[field]).trim()) {
      throw new NodeOperationError(this.getNode(), `${label} is empty`, { itemIndex });
    }
  }
  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
  for (const key of ['campaignId', 'firstName', 'lastName', 'email']) {
    const value = textOf(fields[key]).trim();
    if (value) customData[key] = value;
  }
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: '/send_custom_channel_message',
    body: { customData },
    itemIndex,
    retry: settings.retry,
  });
  const answer = response.body as IDataObject;
  // Stored, but failed at once (nothing receives the channel, no credits): the builder is told, and how to fix it.
  if (answer.success === false) {
    const errorCode = typeof answer.errorCode === 'string' ? answer.errorCode : undefined;
    const messageId = typeof answer.messageId === 'string' ? answer.messageId : undefined;
    const hint = errorCode ? hintForCode(errorCode) : undefined;
    throw failedMessageError(
      this.getNode(),
      `LeadChat: ${String(answer.message)}`,
      [`The message is stored as failed (${String(messageId)}).`, hint].filter(Boolean).join(' '),
      itemIndex,
      { messageId, errorCode },
    );
  }
  return answer;
}
