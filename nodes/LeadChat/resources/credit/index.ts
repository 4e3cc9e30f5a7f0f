import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as getBalance from './getBalance';
import * as grant from './grant';

export const operations: Record<string, Operation> = { getBalance, grant };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['credit'] } },
    options: [
      {
        name: 'Get Balance',
        value: 'getBalance',
        action: 'Get the credit balance',
        description: "Read the account's credit balance and whether it is under its low-balance threshold",
      },
      {
        name: 'Grant to Sub-Account',
        value: 'grant',
        action: 'Grant credits to a sub account',
        description: 'Give credits to a sub-account of your agency, at most once per Idempotency Key',
      },
    ],
    default: 'grant',
  },
  ...getBalance.description,
  ...grant.description,
];
