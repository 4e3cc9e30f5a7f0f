import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { defaultCountryCodeField } from '../../shared/contactFields';
import { getOrCreateContact, readPhone } from '../../shared/contacts';
import {
  customFieldsField,
  externalIdsField,
  readCustomFields,
  readExternalIds,
  type CustomFieldsInput,
  type ExternalIdsInput,
} from '../../shared/customFields';
import { delayField, readDelay } from '../../shared/delay';
import { listLocator } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { addContactToList } from '../list/addContact';
import { textOf } from '../../shared/text';

export const description = forOperation('lead', 'capture', [
  {
    displayName: 'Phone',
    name: 'phone',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. +14155550123',
    description:
      'Phone number with the country code, or a national number (see Default Country Code). Spaces, dashes, brackets and a leading 00 are cleaned up.',
  },
  {
    displayName: 'First Name',
    name: 'firstName',
    type: 'string',
    default: '',
    required: true,
    description: 'Used to personalize the opening message',
  },
  listLocator,
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      defaultCountryCodeField,
      delayField,
      {
        displayName: 'Email',
        name: 'email',
        type: 'string',
        placeholder: 'name@email.com',
        default: '',
        description: 'Looked up when no contact has the phone number, and stored on a new contact',
      },
      {
        displayName: 'Last Name',
        name: 'lastName',
        type: 'string',
        default: '',
      },
      customFieldsField,
      externalIdsField,
    ],
  },
]);

/**
 * Spec §1 funnel in one step: normalize the phone, look the contact up by phone then email, create it when new,
 * and add it to the campaign's list (which sends the opening message when the campaign is live).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as {
    defaultCountryCode?: unknown;
    delay?: string;
    email?: unknown;
    lastName?: unknown;
  } & CustomFieldsInput &
    ExternalIdsInput;
  const phone = readPhone.call(
    this,
    textOf(this.getNodeParameter('phone', itemIndex)),
    textOf(fields.defaultCountryCode),
    itemIndex,
    true,
  );
  const firstName = textOf(this.getNodeParameter('firstName', itemIndex)).trim();
  if (!firstName) {
    throw new NodeOperationError(this.getNode(), 'First Name is empty', {
      itemIndex,
      description: 'A lead needs a first name: the campaign uses it to personalize the opening message.',
    });
  }
  const listId = textOf(this.getNodeParameter('list', itemIndex, '', { extractValue: true })).trim();
  if (!listId) {
    throw new NodeOperationError(this.getNode(), 'List is empty', {
      itemIndex,
      description: "Pick the campaign's list, or give its ID.",
    });
  }
  const delay = readDelay.call(this, fields.delay, itemIndex);
  const { contact, created } = await getOrCreateContact.call(
    this,
    {
      phone,
      email: textOf(fields.email).trim() || undefined,
      firstName,
      lastName: textOf(fields.lastName).trim() || undefined,
      customFields: readCustomFields.call(this, fields, itemIndex),
      externalIds: readExternalIds.call(this, fields, itemIndex),
    },
    itemIndex,
    settings,
  );
  const membership = await addContactToList.call(this, listId, String(contact.id), itemIndex, settings, delay);
  return { ...contact, created, addedToList: membership.added, listId, ...(delay ? { delay } : {}) };
}
