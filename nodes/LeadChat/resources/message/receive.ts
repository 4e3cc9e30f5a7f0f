import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { textOf } from '../../shared/text';

export const description = forOperation('message', 'receive', [
  {
    displayName: 'Message ID',
    name: 'messageSid',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. msg-1001',
    description:
      'Unique ID of the message in the external system. A message whose ID was already received is not processed again, so retries are safe.',
  },
  {
    displayName: 'Sender ID',
    name: 'fromId',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. user-42',
    description:
      "The sender's ID in the external system (user ID, email or phone number). Keep it stable: the same ID is the same contact and conversation.",
  },
  {
    displayName: 'Business ID',
    name: 'toId',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. support@mycompany.com',
    description: 'Identifier of your business on the external system; any text',
  },
  {
    displayName: 'Message Type',
    name: 'messageType',
    type: 'options',
    options: [
      { name: 'Text', value: 'text', description: 'A message, optionally with media' },
      { name: 'Reaction', value: 'reaction', description: 'An emoji reaction' },
    ],
    default: 'text',
  },
  {
    displayName: 'Text',
    name: 'text',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '',
    required: true,
    description: 'Text of the message; must not be empty or only spaces',
    displayOptions: { show: { messageType: ['text'] } },
  },
  {
    displayName: 'Emoji',
    name: 'text',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. 👍',
    description: 'The reaction',
    displayOptions: { show: { messageType: ['reaction'] } },
  },
  {
    displayName: 'Media',
    name: 'media',
    type: 'options',
    options: [
      { name: 'None', value: 'none' },
      { name: 'URL', value: 'url', description: 'A publicly accessible file' },
      {
        name: 'Binary File',
        value: 'binary',
        description: 'A file of the input item, embedded as base64. Prefer a URL for large files.',
      },
    ],
    default: 'none',
    displayOptions: { show: { messageType: ['text'] } },
  },
  {
    displayName: 'Media URL',
    name: 'mediaUrl',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. https://example.com/photo.jpg',
    displayOptions: { show: { messageType: ['text'], media: ['url'] } },
  },
  {
    displayName: 'Input Binary Field',
    name: 'binaryPropertyName',
    type: 'string',
    default: 'data',
    required: true,
    hint: 'The name of the input binary field containing the file to send',
    displayOptions: { show: { messageType: ['text'], media: ['binary'] } },
  },
  {
    displayName: 'Media Content Type',
    name: 'mediaContentType',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. image/jpeg',
    description: 'MIME type of the file; it must match the real content',
    displayOptions: { show: { messageType: ['text'], media: ['url'] } },
  },
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
        description: 'Routes the message to this campaign and its AI bot',
      },
      {
        displayName: 'Channel',
        name: 'channel',
        type: 'string',
        default: '',
        placeholder: 'e.g. livechat',
        description: 'Label of the source shown in the inbox, e.g. live chat, email or CRM',
      },
      {
        displayName: 'Email',
        name: 'email',
        type: 'string',
        placeholder: 'name@email.com',
        default: '',
        description: 'Stored when the message creates a new contact',
      },
      {
        displayName: 'First Name',
        name: 'firstName',
        type: 'string',
        default: '',
        description: 'Stored when the message creates a new contact',
      },
      {
        displayName: 'Last Name',
        name: 'lastName',
        type: 'string',
        default: '',
        description: 'Stored when the message creates a new contact',
      },
      {
        displayName: 'Media Content Type',
        name: 'mediaContentType',
        type: 'string',
        default: '',
        placeholder: 'e.g. image/png',
        description:
          'For a binary file: MIME type to send instead of the one n8n detected. It must match the real content.',
      },
      {
        displayName: 'Status',
        name: 'status',
        type: 'string',
        default: '',
        placeholder: 'received',
        description: 'Status of the message; "received" when empty',
      },
    ],
  },
]);

/** Spec §2.4 / §4.5: post a message from an external system into the inbox, where the AI bot may answer it. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const node = this.getNode();
  const messageType = this.getNodeParameter('messageType', itemIndex, 'text') as 'text' | 'reaction';
  const customData: IDataObject = {
    messageSid: textOf(this.getNodeParameter('messageSid', itemIndex)).trim(),
    fromId: textOf(this.getNodeParameter('fromId', itemIndex)).trim(),
    toId: textOf(this.getNodeParameter('toId', itemIndex)).trim(),
    body: textOf(this.getNodeParameter('text', itemIndex)),
  };
  const labels: Record<string, string> = {
    messageSid: 'Message ID',
    fromId: 'Sender ID',
    toId: 'Business ID',
    body: messageType === 'reaction' ? 'Emoji' : 'Text',
  };
  for (const [field, label] of Object.entries(labels)) {
    if (!String(customData[field]).trim()) {
      throw new NodeOperationError(node, `${label} is empty`, {
        itemIndex,
        description: field === 'body' ? 'The service refuses messages that are empty or only spaces.' : undefined,
      });
    }
  }

  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
  for (const key of ['status', 'channel', 'campaignId', 'firstName', 'lastName', 'email']) {
    const value = textOf(fields[key]).trim();
    if (value) customData[key] = value;
  }

  const media = messageType === 'text' ? (this.getNodeParameter('media', itemIndex, 'none') as string) : 'none';
  if (media === 'url') {
    customData.mediaUrl = textOf(this.getNodeParameter('mediaUrl', itemIndex)).trim();
    customData.mediaContentType = textOf(this.getNodeParameter('mediaContentType', itemIndex)).trim();
    if (!customData.mediaUrl) throw new NodeOperationError(node, 'Media URL is empty', { itemIndex });
    if (!customData.mediaContentType) {
      throw new NodeOperationError(node, 'Media Content Type is empty', {
        itemIndex,
        description: 'A media URL needs its MIME type, e.g. image/jpeg.',
      });
    }
  } else if (media === 'binary') {
    const property = textOf(this.getNodeParameter('binaryPropertyName', itemIndex)).trim();
    const binary = this.helpers.assertBinaryData(itemIndex, property);
    const contentType =
      (typeof fields.mediaContentType === 'string' && fields.mediaContentType.trim()) || binary.mimeType;
    if (!contentType) {
      throw new NodeOperationError(node, `The file in "${property}" has no MIME type`, {
        itemIndex,
        description: 'Set Additional Fields > Media Content Type.',
      });
    }
    const buffer = await this.helpers.getBinaryDataBuffer(itemIndex, property);
    customData.mediaUrl = `data:${contentType};base64,${buffer.toString('base64')}`;
    customData.mediaContentType = contentType;
  }

  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: '/incoming_custom_channel_message',
    body: messageType === 'reaction' ? { customData, messageType } : { customData },
    // The gateway takes one message per messageSid: the same one posted again is not a second message.
    repeatable: true,
    itemIndex,
    retry: settings.retry,
  });
  return response.body;
}
