import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as create from './create';
import * as get from './get';
import * as getFunnel from './getFunnel';
import * as getAll from './getAll';
import * as reachExisting from './reachExisting';
import * as testBot from './testBot';
import * as update from './update';

export const operations: Record<string, Operation> = { create, get, getAll, getFunnel, reachExisting, testBot, update };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['campaign'] } },
    options: [
      {
        name: 'Create',
        value: 'create',
        action: 'Create a campaign',
        description:
          'Create a campaign on SMS, WhatsApp, Messenger, Instagram or a custom channel, with its opening message and bot',
      },
      {
        name: 'Get',
        value: 'get',
        action: 'Get a campaign',
        description: 'Get a campaign with its channel, status, opening message and bot settings',
      },
      {
        name: 'Get Funnel',
        value: 'getFunnel',
        action: 'Get the funnel of a campaign',
        description:
          'Count the contacts added, sent the opening message, replied, handed off, opted out, reaching the goal or failed, in total and per day',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        action: 'Get many campaigns',
        description: 'List the campaigns of the account, oldest first',
      },
      {
        name: 'Reach Existing Contacts',
        value: 'reachExisting',
        action: 'Message the contacts already on a campaign list',
        description:
          "Send the opening message to the contacts that were on the Live campaign's list before it went Live, paced; each gets it once",
      },
      {
        name: 'Test Bot',
        value: 'testBot',
        action: 'Test the bot of a campaign',
        description:
          "See what the campaign's bot would answer a contact, and why (the FAQs or resources it rests on, its confidence); nothing is sent, stored or charged",
      },
      {
        name: 'Update',
        value: 'update',
        action: 'Update a campaign',
        description: 'Rename a campaign, make it Live or pause it',
      },
    ],
    default: 'getAll',
  },
  ...create.description,
  ...get.description,
  ...getAll.description,
  ...getFunnel.description,
  ...reachExisting.description,
  ...testBot.description,
  ...update.description,
];
