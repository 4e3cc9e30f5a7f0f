import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as addContact from './addContact';
import * as create from './create';
import * as deleteList from './delete';
import * as getAll from './getAll';
import * as getContacts from './getContacts';
import * as removeContact from './removeContact';
import * as update from './update';

export const operations: Record<string, Operation> = {
  addContact,
  create,
  delete: deleteList,
  getAll,
  getContacts,
  removeContact,
  update,
};

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['list'] } },
    options: [
      {
        name: 'Add Contact',
        value: 'addContact',
        action: 'Add a contact to a list',
        description: 'Add a contact to a list; a live campaign linked to the list sends it the opening message',
      },
      {
        name: 'Create',
        value: 'create',
        action: 'Create a list',
        description: 'Create an empty list of contacts',
      },
      {
        name: 'Delete',
        value: 'delete',
        action: 'Delete a list',
        description: 'Delete a list no campaign is linked to; its contacts stay',
      },
      {
        name: 'Get Contacts',
        value: 'getContacts',
        action: 'Get the contacts of a list',
        description: 'List the contacts of a list, in the order they joined',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        action: 'Get many lists',
        description: 'List the lists of the account, oldest first, or those whose name holds a text',
      },
      {
        name: 'Remove Contact',
        value: 'removeContact',
        action: 'Remove a contact from a list',
        description: 'Take a contact off a list; the contact itself stays',
      },
      {
        name: 'Update',
        value: 'update',
        action: 'Rename a list',
        description: 'Give a list a new name',
      },
    ],
    default: 'addContact',
  },
  ...addContact.description,
  ...create.description,
  ...deleteList.description,
  ...getAll.description,
  ...getContacts.description,
  ...removeContact.description,
  ...update.description,
];
