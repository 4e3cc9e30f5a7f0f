import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { readSimplify, simplifyContact, simplifyFields } from '../../shared/simplify';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';
import { textOf } from '../../shared/text';

export const description = forOperation('contact', 'getAll', [
  {
    displayName: 'Search',
    name: 'query',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. noah lee, @clinic.com, 0123',
    description:
      'The start of a word of the name or of the email, the last 4 or more digits of the phone, or an external ID; case and accents do not matter',
  },
  ...returnAllAndLimit,
  ...simplifyFields,
]);

/** The contacts a search finds (GET /contacts?q=), newest first, one output item each. */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  const q = textOf(this.getNodeParameter('query', itemIndex, '')).trim();
  if (!q) {
    throw new NodeOperationError(this.getNode(), 'Search is empty', {
      itemIndex,
      description: 'Give a word of the name or email (2 characters or more), or 4 digits of the phone.',
    });
  }
  const contacts = await leadChatGetMany.call(
    this,
    { path: '/contacts', qs: { q }, itemIndex, retry: settings.retry },
    readLimit.call(this, itemIndex),
  );
  return readSimplify.call(this, itemIndex) ? contacts.map(simplifyContact) : contacts;
}
