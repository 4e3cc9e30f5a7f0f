import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { filtersOf, nameContains, readFilters, readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';

export const description = forOperation('campaign', 'getAll', [
  ...returnAllAndLimit,
  filtersOf([nameContains('campaigns')]),
]);

/** The campaigns of the account, oldest first, or those whose name holds a text, one output item each. */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  return await leadChatGetMany.call(
    this,
    { path: '/campaigns', qs: readFilters.call(this, itemIndex, ['q']), itemIndex, retry: settings.retry },
    readLimit.call(this, itemIndex),
  );
}
