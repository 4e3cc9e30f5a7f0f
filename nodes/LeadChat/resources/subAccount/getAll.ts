import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';

export const description = forOperation('subAccount', 'getAll', [...returnAllAndLimit]);

/** The agency's sub-accounts, oldest first, each with its balance and auto-recharge rule, one output item each. */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  return await leadChatGetMany.call(
    this,
    { path: '/subaccounts', itemIndex, retry: settings.retry },
    readLimit.call(this, itemIndex),
  );
}
