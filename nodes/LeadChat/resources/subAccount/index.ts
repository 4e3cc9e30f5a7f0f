import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as getAll from './getAll';

export const operations: Record<string, Operation> = { getAll };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['subAccount'] } },
    options: [
      {
        name: 'Get Many',
        value: 'getAll',
        action: 'Get many sub accounts',
        description: 'List the sub-accounts of your agency, oldest first, each with its credit balance',
      },
    ],
    default: 'getAll',
  },
  ...getAll.description,
];
