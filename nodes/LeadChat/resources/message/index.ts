import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as receive from './receive';
import * as send from './send';

export const operations: Record<string, Operation> = { receive, send };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['message'] } },
		options: [
			{
				name: 'Receive',
				value: 'receive',
				action: 'Receive a message',
				description:
					'Post a message from an external system (live chat, email, CRM) into the inbox, where the AI bot can answer it',
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
	...receive.description,
	...send.description,
];
