import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { DEFAULT_RETRY_POLICY } from '../transport/rateLimit';
import { textOf } from './text';
import type { RunSettings } from './types';

/** A list's name, as List › Create gives it and List › Update changes it. */
export const listName: INodeProperties = {
  displayName: 'Name',
  name: 'name',
  type: 'string',
  default: '',
  required: true,
  placeholder: 'e.g. Spring open day',
};

/** A list, picked from the server's lists (GET /lists, where the server has it) or given by ID. */
export const listLocator: INodeProperties = {
  displayName: 'List',
  name: 'list',
  type: 'resourceLocator',
  default: { mode: 'list', value: '' },
  required: true,
  description: 'The contact list linked to the campaign that should contact this lead',
  modes: [
    {
      displayName: 'From List',
      name: 'list',
      type: 'list',
      placeholder: 'Select a list...',
      typeOptions: {
        searchListMethod: 'searchLists',
        searchable: true,
      },
    },
    {
      displayName: 'By ID',
      name: 'id',
      type: 'string',
      placeholder: 'e.g. lst_V1StGXR8Z5jdHi6B',
      hint: 'The list ID shown in the app',
    },
  ],
};

/** The text of an outgoing message, for every operation that sends one. */
export const messageTextField: INodeProperties = {
  displayName: 'Text',
  name: 'text',
  type: 'string',
  typeOptions: { rows: 3 },
  default: '',
  required: true,
  description: 'Text of the message',
};

/** Shown for every operation: how large inputs are paced and how the node waits out rate limits. */
export const runOptions: INodeProperties = {
  displayName: 'Options',
  name: 'options',
  type: 'collection',
  placeholder: 'Add option',
  default: {},
  options: [
    {
      displayName: 'Batching',
      name: 'batching',
      placeholder: 'Add Batching',
      type: 'fixedCollection',
      typeOptions: {
        multipleValues: false,
      },
      default: {
        batch: {},
      },
      options: [
        {
          displayName: 'Batching',
          name: 'batch',
          values: [
            {
              displayName: 'Items per Batch',
              name: 'batchSize',
              type: 'number',
              typeOptions: {
                minValue: 1,
              },
              default: 50,
              description: 'How many items are sent at the same time. Items of one batch run in parallel.',
            },
            {
              displayName: 'Batch Interval (Ms)',
              name: 'batchInterval',
              type: 'number',
              typeOptions: {
                minValue: 0,
              },
              default: 1000,
              description: 'Time (in milliseconds) to wait after each batch before the next one',
            },
          ],
        },
      ],
    },
    {
      displayName: 'Max Wait on Rate Limit or Restart (Seconds)',
      name: 'maxWaitSeconds',
      type: 'number',
      typeOptions: {
        minValue: 0,
      },
      default: 60,
      description:
        'On a 429 answer, or a 503 while the gateway restarts, the node waits as long as the server asks (Retry-After), but never longer than this per retry',
    },
    {
      displayName: 'Retries on Rate Limit or Restart',
      name: 'maxRetries',
      type: 'number',
      typeOptions: {
        minValue: 0,
      },
      default: 3,
      description:
        'How many times a request answered with 429, or with 503 while the gateway restarts, is retried before the item fails',
    },
  ],
};

export interface Batching {
  batchSize: number;
  batchInterval: number;
}

/** Reads the node's options once per run. */
export function readRunOptions(this: IExecuteFunctions): { settings: RunSettings; batching?: Batching } {
  const options = this.getNodeParameter('options', 0, {}) as {
    maxRetries?: number;
    maxWaitSeconds?: number;
    batching?: { batch?: Partial<Batching> };
  };
  const batch = options.batching?.batch;
  return {
    settings: {
      retry: {
        maxRetries: Math.max(0, Math.floor(options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries)),
        maxWaitSeconds: Math.max(0, options.maxWaitSeconds ?? DEFAULT_RETRY_POLICY.maxWaitSeconds),
      },
    },
    batching: batch
      ? {
          batchSize: Math.max(1, Math.floor(batch.batchSize ?? 50)),
          batchInterval: Math.max(0, batch.batchInterval ?? 1000),
        }
      : undefined,
  };
}

/** n8n's standard pair for a Get Many operation; place inside `forOperation` so both show for it only. */
export const returnAllAndLimit: INodeProperties[] = [
  {
    displayName: 'Return All',
    name: 'returnAll',
    type: 'boolean',
    default: false,
    description: 'Whether to return all results or only up to a given limit',
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: {
      minValue: 1,
    },
    default: 50,
    description: 'Max number of results to return',
    displayOptions: { show: { returnAll: [false] } },
  },
];

/** A Get Many's Filters: the collection of `options` a builder adds one by one. */
export function filtersOf(options: INodeProperties[]): INodeProperties {
  return {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    options,
  };
}

/** The filter on a name, as the API's `q`, for the `records` of a Get Many ("lists", "campaigns"). */
export function nameContains(records: string): INodeProperties {
  return {
    displayName: 'Name Contains',
    name: 'q',
    type: 'string',
    default: '',
    description: `Only the ${records} whose name holds this text; case and accents do not matter`,
  };
}

/**
 * The filters an item set, as the API's query parameters: each of `texts` trimmed (an empty one not sent), each of
 * `switches` as `true` or `false` (one not added is neither, and filters nothing).
 */
export function readFilters(
  this: IExecuteFunctions,
  itemIndex: number,
  texts: string[],
  switches: string[] = [],
): IDataObject {
  const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  const qs: IDataObject = {};
  for (const name of texts) {
    const value = textOf(filters[name]).trim();
    if (value) qs[name] = value;
  }
  for (const name of switches) if (typeof filters[name] === 'boolean') qs[name] = String(filters[name]);
  return qs;
}

/** How many records a Get Many returns: undefined for all of them. */
export function readLimit(this: IExecuteFunctions, itemIndex: number): number | undefined {
  if (this.getNodeParameter('returnAll', itemIndex, false) as boolean) return undefined;
  return Math.max(1, Math.floor(this.getNodeParameter('limit', itemIndex, 50) as number));
}
