import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as create from './create';
import * as get from './get';
import * as getOrCreate from './getOrCreate';

export const operations: Record<string, Operation> = { create, get, getOrCreate };

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
				name: 'Get',
				value: 'get',
				action: 'Get a contact',
				description: 'Look a contact up by phone number or email',
			},
			{
				name: 'Get or Create',
				value: 'getOrCreate',
				action: 'Get or create a contact',
				description: 'Find a contact by phone number, then by email, and create it if neither matches',
			},
		],
		default: 'getOrCreate',
	},
	...create.description,
	...get.description,
	...getOrCreate.description,
];
