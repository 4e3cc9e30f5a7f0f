import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { readPhone, updateContact } from '../../shared/contacts';
import {
  customFieldsField,
  externalIdsField,
  readCustomFields,
  readExternalIdChanges,
  removeCustomFieldsField,
  removeExternalIdsField,
  type CustomFieldsInput,
  type ExternalIdsInput,
} from '../../shared/customFields';
import { forOperation } from '../../shared/display';
import { contactLocator, readPicked } from '../../shared/locators';
import type { RunSettings } from '../../shared/types';
import { textOf } from '../../shared/text';

export const description = forOperation('contact', 'update', [
  contactLocator,
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Clear Fields',
        name: 'clear',
        type: 'multiOptions',
        options: [
          { name: 'Email', value: 'email' },
          { name: 'First Name', value: 'firstName' },
          { name: 'Last Name', value: 'lastName' },
          { name: 'Phone', value: 'phone' },
        ],
        default: [],
        description: 'Fields to empty on the contact',
      },
      customFieldsField,
      {
        displayName: 'Email',
        name: 'email',
        type: 'string',
        placeholder: 'name@email.com',
        default: '',
        description: 'The new email address. Empty: the contact keeps its email; see Clear Fields to remove it.',
      },
      externalIdsField,
      {
        displayName: 'First Name',
        name: 'firstName',
        type: 'string',
        default: '',
      },
      {
        displayName: 'Last Name',
        name: 'lastName',
        type: 'string',
        default: '',
      },
      {
        displayName: 'Phone',
        name: 'phone',
        type: 'string',
        default: '',
        placeholder: 'e.g. +14155550123',
        description: "The new phone number. Without a country code it is read under the account's default country.",
      },
      removeCustomFieldsField,
      removeExternalIdsField,
    ],
  },
]);

interface UpdateFields extends CustomFieldsInput, ExternalIdsInput {
  email?: unknown;
  firstName?: unknown;
  lastName?: unknown;
  phone?: unknown;
  clear?: string[];
}

/**
 * Corrects a contact: the fields given change, the others stay. Custom fields and external IDs merge into the
 * contact's. A phone, email or external ID another contact holds fails with 409 CONTACT_EXISTS, which names that
 * contact.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const contactId = readPicked.call(this, 'contactId', 'Contact', itemIndex);
  const fields = this.getNodeParameter('updateFields', itemIndex, {}) as UpdateFields;
  const changes: IDataObject = {};
  for (const key of ['firstName', 'lastName', 'email'] as const) {
    const value = textOf(fields[key]).trim();
    if (value) changes[key] = value;
  }
  // A number written with + or 00 is cleaned up here; one without is left for the server's default country.
  const phone = textOf(fields.phone).trim();
  if (phone) changes.phone = /^(\+|00)/.test(phone) ? readPhone.call(this, phone, '', itemIndex, true) : phone;
  for (const key of fields.clear ?? []) {
    if (changes[key] !== undefined) {
      throw new NodeOperationError(this.getNode(), `${key} is both given and cleared`, { itemIndex });
    }
    changes[key] = null;
  }
  const customFields = readCustomFields.call(this, fields, itemIndex);
  if (customFields) changes.customFields = customFields;
  const externalIds = readExternalIdChanges.call(this, fields, itemIndex);
  if (externalIds) changes.externalIds = externalIds;
  if (Object.keys(changes).length === 0) {
    throw new NodeOperationError(this.getNode(), 'Nothing to update', {
      itemIndex,
      description: 'Add at least one field under Update Fields.',
    });
  }
  return await updateContact.call(this, contactId, changes, itemIndex, settings);
}
