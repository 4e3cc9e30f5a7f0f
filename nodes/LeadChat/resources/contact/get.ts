import { NodeApiError, NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { CONTACT_NOT_FOUND, findContact, readPhone, unwrapContact, type ContactRecord } from '../../shared/contacts';
import { contactLocator, readPicked } from '../../shared/locators';
import { readSimplify, simplifyContact, simplifyFields } from '../../shared/simplify';
import { leadChatRequest } from '../../transport/request';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { textOf } from '../../shared/text';

export const description = forOperation('contact', 'get', [
  {
    displayName: 'Search By',
    name: 'searchBy',
    type: 'options',
    noDataExpression: true,
    options: [
      { name: 'Phone', value: 'phone' },
      { name: 'Email', value: 'email' },
      { name: 'Contact', value: 'id', description: 'Pick the contact, or give its ID' },
    ],
    default: 'phone',
  },
  { ...contactLocator, displayOptions: { show: { searchBy: ['id'] } } },
  {
    displayName: 'Phone',
    name: 'phone',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. +14155550123',
    description: "Phone number with the country code; a national number is read under the account's default country",
    displayOptions: { show: { searchBy: ['phone'] } },
  },
  {
    displayName: 'Email',
    name: 'email',
    type: 'string',
    placeholder: 'name@email.com',
    default: '',
    required: true,
    displayOptions: { show: { searchBy: ['email'] } },
  },
  {
    displayName: 'Error If Not Found',
    name: 'errorIfNotFound',
    type: 'boolean',
    default: true,
    description: 'Whether a missing contact fails the item. Off: an item with no matching contact produces no output.',
  },
  ...simplifyFields,
]);

/** Spec §4.2: look a contact up by phone or by email; or read one by its ID. */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  const searchBy = this.getNodeParameter('searchBy', itemIndex) as 'phone' | 'email' | 'id';
  let contact: ContactRecord | undefined;
  let what: string;
  if (searchBy === 'id') {
    const contactId = readPicked.call(this, 'contactId', 'Contact', itemIndex);
    what = `ID ${contactId}`;
    const response = await leadChatRequest.call(this, {
      method: 'GET',
      path: `/contacts/${encodeURIComponent(contactId)}`,
      itemIndex,
      notFoundCode: CONTACT_NOT_FOUND,
      retry: settings.retry,
    });
    contact = response.statusCode === 404 ? undefined : unwrapContact(response.body);
  } else if (searchBy === 'phone') {
    const phone = readPhone.call(this, textOf(this.getNodeParameter('phone', itemIndex)), '', itemIndex, true)!;
    what = `phone number ${phone}`;
    contact = await findContact.call(this, { phoneNumber: phone }, itemIndex, settings);
  } else {
    const email = textOf(this.getNodeParameter('email', itemIndex)).trim();
    if (!email) throw new NodeOperationError(this.getNode(), 'Email is empty', { itemIndex });
    what = `email ${email}`;
    contact = await findContact.call(this, { email }, itemIndex, settings);
  }
  if (contact) return [readSimplify.call(this, itemIndex) ? simplifyContact(contact as IDataObject) : contact];
  if (!(this.getNodeParameter('errorIfNotFound', itemIndex, true) as boolean)) return [];
  throw new NodeApiError(
    this.getNode(),
    { httpCode: '404', message: `No contact with ${what}` },
    {
      message: `LeadChat: no contact with ${what}`,
      description: 'Use Contact > Get or Create to create it, or turn off "Error If Not Found".',
      httpCode: '404',
      itemIndex,
    },
  );
}
