import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { textOf } from '../../shared/text';

export const description = forOperation('credit', 'grant', [
  {
    displayName: 'Sub-Account Email',
    name: 'email',
    type: 'string',
    placeholder: 'name@email.com',
    default: '',
    required: true,
    description: 'Email of an existing sub-account of your agency',
  },
  {
    displayName: 'Amount',
    name: 'amount',
    type: 'number',
    typeOptions: { minValue: 0 },
    default: 0,
    required: true,
    description: 'Number of credits to grant',
  },
  {
    displayName: 'Idempotency Key',
    name: 'idempotencyKey',
    type: 'string',
    default: '',
    placeholder: 'e.g. {{ $json.idempotency_key }}',
    description:
      'Optional. Requests with the same key grant only once, so a webhook delivered twice cannot grant twice. Use the idempotency_key of the auto-recharge event.',
  },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Description',
        name: 'description',
        type: 'string',
        default: '',
        description: 'Note shown in the credit transaction history',
      },
    ],
  },
]);

/** Spec §2.7 / §4.6 (agency accounts only). The key goes in x-api-key, the only way this endpoint takes it. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const node = this.getNode();
  const email = textOf(this.getNodeParameter('email', itemIndex)).trim();
  const amount = Number(this.getNodeParameter('amount', itemIndex));
  if (!email) throw new NodeOperationError(node, 'Sub-Account Email is empty', { itemIndex });
  if (!Number.isFinite(amount) || amount <= 0) {
    throw new NodeOperationError(node, `Amount must be a positive number, not ${String(amount)}`, { itemIndex });
  }
  const body: IDataObject = { email, amount };
  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as { description?: unknown };
  const description = textOf(fields.description).trim();
  if (description) body.description = description;

  const idempotencyKey = textOf(this.getNodeParameter('idempotencyKey', itemIndex, '')).trim();
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: '/subaccounts/credits',
    body,
    headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : undefined,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Sub-Account Email: it must belong to a sub-account of this agency.',
  });
  return response.body;
}
