import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';
import { textOf } from '../../shared/text';

export const description = forOperation('campaign', 'getAll', [
  ...returnAllAndLimit,
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    options: [
      {
        displayName: 'Name Contains',
        name: 'q',
        type: 'string',
        default: '',
        description: 'Only the campaigns whose name holds this text; case and accents do not matter',
      },
    ],
  },
]);

/** The campaigns of the account, oldest first, or those whose name holds a text, one output item each. */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  const { q } = this.getNodeParameter('filters', itemIndex, {}) as { q?: unknown };
  const name = textOf(q).trim();
  return await leadChatGetMany.call(
    this,
    { path: '/campaigns', qs: name ? { q: name } : {}, itemIndex, retry: settings.retry },
    readLimit.call(this, itemIndex),
  );
}
