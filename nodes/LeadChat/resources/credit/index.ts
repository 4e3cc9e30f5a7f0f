import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as grant from './grant';

export const operations: Record<string, Operation> = { grant };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['credit'] } },
    options: [
      {
        name: 'Grant to Sub-Account',
        value: 'grant',
        action: 'Grant credits to a sub account',
        description: 'Give credits to a sub-account of your agency, at most once per Idempotency Key',
      },
    ],
    default: 'grant',
  },
  ...grant.description,
];
