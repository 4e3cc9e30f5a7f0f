import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { listName } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { textOf } from '../../shared/text';

export const description = forOperation('list', 'create', [listName]);

/** A new, empty list: a campaign linked to it sends its opening message to each contact added. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const name = textOf(this.getNodeParameter('name', itemIndex, '')).trim();
  if (!name) throw new NodeOperationError(this.getNode(), 'Name is empty', { itemIndex });
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: '/lists',
    body: { name },
    itemIndex,
    retry: settings.retry,
  });
  return response.body;
}
