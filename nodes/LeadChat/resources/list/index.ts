import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as addContact from './addContact';

export const operations: Record<string, Operation> = { addContact };

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
				description:
					"Add a contact to a list; a live campaign linked to the list sends it the opening message",
			},
		],
		default: 'addContact',
	},
	...addContact.description,
];
