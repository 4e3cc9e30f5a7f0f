import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as downloadMedia from './downloadMedia';
import * as get from './get';
import * as getAll from './getAll';
import * as receive from './receive';
import * as retry from './retry';
import * as send from './send';

export const operations: Record<string, Operation> = { downloadMedia, get, getAll, receive, retry, send };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['message'] } },
    options: [
      {
        name: 'Download Media',
        value: 'downloadMedia',
        action: 'Download the file of a message',
        description: 'Get the photo, voice note or document of a message as a file, for the next node to save or read',
      },
      {
        name: 'Get',
        value: 'get',
        action: 'Get a message',
        description: 'Get a message with its delivery status and every attempt to deliver it',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        action: 'Get many messages',
        description:
          "Get a contact's messages, oldest first: what they wrote and what the bot, the team and the campaigns sent",
      },
      {
        name: 'Receive',
        value: 'receive',
        action: 'Receive a message',
        description:
          'Post a message from an external system (live chat, email, CRM) into the inbox, where the AI bot can answer it',
      },
      {
        name: 'Retry',
        value: 'retry',
        action: 'Retry a failed message',
        description: 'Send a failed outgoing message again, once what made it fail is fixed',
      },
      {
        name: 'Send',
        value: 'send',
        action: 'Send a message',
        description: 'Send a message to a contact through a custom channel',
      },
    ],
    default: 'send',
  },
  ...downloadMedia.description,
  ...get.description,
  ...getAll.description,
  ...receive.description,
  ...retry.description,
  ...send.description,
];
