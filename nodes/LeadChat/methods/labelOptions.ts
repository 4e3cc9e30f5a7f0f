import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { leadChatRequest } from '../transport/request';
import { DROPDOWN_RETRY } from './searchRecords';

/**
 * The account's labels in use (GET /labels), by name, each with how many conversations carry it: the Label filter of
 * Conversation › Get Many and the label Conversation › Remove Label takes off.
 */
export async function getLabels(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  const response = await leadChatRequest.call(this, { method: 'GET', path: '/labels', retry: DROPDOWN_RETRY });
  const labels = (response.body as { data?: Array<{ name: string; conversations: number }> }).data ?? [];
  return labels.map((label) => ({
    name: label.name,
    value: label.name,
    description: `${label.conversations} conversation${label.conversations === 1 ? '' : 's'}`,
  }));
}
