import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { RetryPolicy } from '../transport/rateLimit';

/** Settings shared by every operation of one run, read once from the node's options. */
export interface RunSettings {
  retry: RetryPolicy;
}

/** One operation: its parameters, and what it does for one input item. */
export interface Operation {
  description: INodeProperties[];
  execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject | IDataObject[]>;
}
