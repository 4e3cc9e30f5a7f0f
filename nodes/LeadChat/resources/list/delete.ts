import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { listLocator } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('list', 'delete', [
  {
    ...listLocator,
    description: "The list to delete, with its contacts' places in it and its import reports. The contacts stay.",
  },
]);

/**
 * Deletes a list (DELETE /lists/{id}); its contacts stay. Refused while a campaign is linked to the list
 * (LIST_HAS_CAMPAIGNS, naming them) or an import into it runs (LIST_IMPORT_RUNNING).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const listId = readPicked.call(this, 'list', 'List', itemIndex, 'Pick a list, or give its ID.');
  await leadChatRequest.call(this, {
    method: 'DELETE',
    path: `/lists/${encodeURIComponent(listId)}`,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the List: no list of this account has this ID (a deleted list is gone).',
  });
  return { deleted: true, listId };
}
