import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as create from './create';
import * as deleteContact from './delete';
import * as exportContact from './export';
import * as get from './get';
import * as getAll from './getAll';
import * as getOrCreate from './getOrCreate';
import * as merge from './merge';
import * as update from './update';

export const operations: Record<string, Operation> = {
  create,
  delete: deleteContact,
  export: exportContact,
  get,
  getAll,
  getOrCreate,
  merge,
  update,
};

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['contact'] } },
    options: [
      {
        name: 'Create',
        value: 'create',
        action: 'Create a contact',
        description:
          'Create a contact from a phone number and/or email; an existing phone number returns the existing contact',
      },
      {
        name: 'Delete',
        value: 'delete',
        action: 'Delete a contact',
        description: 'Erase a contact with its conversations, messages and files (GDPR erasure); an opt-out is kept',
      },
      {
        name: 'Export',
        value: 'export',
        action: 'Export a contact',
        description:
          'Get everything held about a contact: its conversations, messages, files, lists and consent (GDPR access)',
      },
      {
        name: 'Get',
        value: 'get',
        action: 'Get a contact',
        description: 'Look a contact up by phone number or email, or read it by its ID',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        action: 'Get many contacts',
        description: 'Search contacts by name, email, phone digits or external ID',
      },
      {
        name: 'Get or Create',
        value: 'getOrCreate',
        action: 'Get or create a contact',
        description: 'Find a contact by phone number, then by email, and create it if neither matches',
      },
      {
        name: 'Merge',
        value: 'merge',
        action: 'Merge a contact',
        description: 'Merge a duplicate into a contact: one contact is left, with the conversations and lists of both',
      },
      {
        name: 'Update',
        value: 'update',
        action: 'Update a contact',
        description: "Correct a contact's names, phone, email or custom fields",
      },
    ],
    default: 'getOrCreate',
  },
  ...create.description,
  ...deleteContact.description,
  ...exportContact.description,
  ...get.description,
  ...getAll.description,
  ...getOrCreate.description,
  ...merge.description,
  ...update.description,
];
