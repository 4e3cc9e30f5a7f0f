import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { filtersOf, nameContains, readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';
import { textOf } from '../../shared/text';

export const description = forOperation('list', 'getAll', [...returnAllAndLimit, filtersOf([nameContains('lists')])]);

/** The lists of the account, oldest first, one output item each. */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  const { q } = this.getNodeParameter('filters', itemIndex, {}) as { q?: unknown };
  const name = textOf(q).trim();
  return await leadChatGetMany.call(
    this,
    { path: '/lists', qs: name ? { q: name } : {}, itemIndex, retry: settings.retry },
    readLimit.call(this, itemIndex),
  );
}
