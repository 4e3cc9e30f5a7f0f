import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('credit', 'getBalance', []);

/**
 * The account's balance and low-balance warning (GET /credits), and a sub-account's auto-recharge rule, prices and
 * agency, without the whole history the endpoint answers by default: it grows with every message paid for.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: '/credits',
    qs: { transactions: 'false' },
    itemIndex,
    retry: settings.retry,
  });
  return response.body;
}
