import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { listLocator, listName } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { textOf } from '../../shared/text';

export const description = forOperation('list', 'update', [
  { ...listLocator, description: 'The list to rename' },
  { ...listName, description: 'The new name of the list; another list may have it too' },
]);

/** Renames a list (PATCH /lists/{id}): the name follows the rules of a new list's. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const listId = readPicked.call(this, 'list', 'List', itemIndex, 'Pick a list, or give its ID.');
  const name = textOf(this.getNodeParameter('name', itemIndex, '')).trim();
  if (!name) throw new NodeOperationError(this.getNode(), 'Name is empty', { itemIndex });
  const response = await leadChatRequest.call(this, {
    method: 'PATCH',
    path: `/lists/${encodeURIComponent(listId)}`,
    body: { name },
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the List: no list of this account has this ID.',
  });
  return response.body;
}
