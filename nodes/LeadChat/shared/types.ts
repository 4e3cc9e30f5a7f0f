import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { RetryPolicy } from '../transport/rateLimit';

/** Settings shared by every operation of one run, read once from the node's options. */
export interface RunSettings {
  retry: RetryPolicy;
}

/** An output item that carries a file besides its JSON, as n8n's nodes that download one give it. */
export class ItemWithFile {
  constructor(
    readonly json: IDataObject,
    readonly binary: IBinaryKeyData,
  ) {}
}

/** One operation: its parameters, and what it does for one input item. */
export interface Operation {
  description: INodeProperties[];
  execute(
    this: IExecuteFunctions,
    itemIndex: number,
    settings: RunSettings,
  ): Promise<IDataObject | IDataObject[] | ItemWithFile>;
}
