import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { listLocator, readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';

export const description = forOperation('list', 'getContacts', [
  { ...listLocator, description: 'The list whose contacts to get' },
  ...returnAllAndLimit,
]);

/** The contacts of a list, in the order they joined (each with its `addedAt`), one output item each. */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  const listId = readPicked.call(this, 'list', 'List', itemIndex, 'Pick a list, or give its ID.');
  return await leadChatGetMany.call(
    this,
    {
      path: `/lists/${encodeURIComponent(listId)}/contacts`,
      itemIndex,
      retry: settings.retry,
      notFoundHint: 'Check the List: no list of this account has this ID.',
    },
    readLimit.call(this, itemIndex),
  );
}
