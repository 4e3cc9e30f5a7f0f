import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { filtersOf, nameContains, readFilters, readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';

export const description = forOperation('campaign', 'getAll', [
  ...returnAllAndLimit,
  filtersOf([
    nameContains('campaigns'),
    {
      displayName: 'Status',
      name: 'status',
      type: 'options',
      options: [
        {
          name: 'Archived',
          value: 'archived',
          description: 'Only the archived campaigns, which are left out otherwise',
        },
        { name: 'Draft', value: 'draft' },
        { name: 'Live', value: 'live' },
        { name: 'Paused', value: 'paused' },
      ],
      default: 'archived',
      description: 'Only the campaigns in this status; not set: every campaign but the archived ones',
    },
  ]),
]);

/**
 * The campaigns of the account, oldest first, but the archived ones; or those whose name holds a text, or in one
 * status (Archived lists those), one output item each.
 */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  return await leadChatGetMany.call(
    this,
    { path: '/campaigns', qs: readFilters.call(this, itemIndex, ['q', 'status']), itemIndex, retry: settings.retry },
    readLimit.call(this, itemIndex),
  );
}
