import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as capture from './capture';

export const operations: Record<string, Operation> = { capture };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['lead'] } },
    options: [
      {
        name: 'Capture',
        value: 'capture',
        action: 'Capture a lead',
        description:
          "Add a lead from a form to a campaign: find the contact by phone or email, create it if new, and add it to the campaign's list so it gets the opening message",
      },
    ],
    default: 'capture',
  },
  ...capture.description,
];
