import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { readPhone, type NewContact } from './contacts';
import {
  customFieldsField,
  externalIdsField,
  readCustomFields,
  readExternalIds,
  type CustomFieldsInput,
  type ExternalIdsInput,
} from './customFields';
import { textOf } from './text';

/** Lets a builder pass local numbers from a form: added in front of a phone that has neither + nor 00. */
export const defaultCountryCodeField: INodeProperties = {
  displayName: 'Default Country Code',
  name: 'defaultCountryCode',
  type: 'string',
  default: '',
  placeholder: 'e.g. 1',
  description:
    "Country calling code used when the phone has neither + nor 00 in front, e.g. 1 for the US or 44 for the UK. Empty: the account's default country on the gateway applies.",
};

/** Phone, email and names of a contact to create: shared by Contact > Create and Contact > Get or Create. */
export const contactFields: INodeProperties[] = [
  {
    displayName: 'Phone',
    name: 'phone',
    type: 'string',
    default: '',
    placeholder: 'e.g. +14155550123',
    description:
      'Phone number with the country code, or a national number (see Default Country Code). Give a phone, an email or both. Spaces, dashes, brackets and a leading 00 are cleaned up.',
  },
  {
    displayName: 'Email',
    name: 'email',
    type: 'string',
    placeholder: 'name@email.com',
    default: '',
    description: 'Email address. Give a phone, an email or both.',
  },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      defaultCountryCodeField,
      {
        displayName: 'First Name',
        name: 'firstName',
        type: 'string',
        default: '',
        description: 'Used to personalize messages',
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
];

/**
 * Reads the fields of `contactFields` for one item. A contact needs a phone, an email or an external ID: without
 * any the item fails with `why`, which tells the builder what the operation does with them.
 */
export function readContactFields(this: IExecuteFunctions, itemIndex: number, why: string): NewContact {
  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as {
    defaultCountryCode?: unknown;
    firstName?: unknown;
    lastName?: unknown;
  } & CustomFieldsInput &
    ExternalIdsInput;
  const phone = readPhone.call(
    this,
    textOf(this.getNodeParameter('phone', itemIndex, '')),
    textOf(fields.defaultCountryCode),
    itemIndex,
    false,
  );
  const email = textOf(this.getNodeParameter('email', itemIndex, '')).trim() || undefined;
  const externalIds = readExternalIds.call(this, fields, itemIndex);
  if (!phone && !email && !externalIds) {
    throw new NodeOperationError(this.getNode(), 'Give a phone or an email', { itemIndex, description: why });
  }
  return {
    phone,
    email,
    firstName: textOf(fields.firstName).trim() || undefined,
    lastName: textOf(fields.lastName).trim() || undefined,
    customFields: readCustomFields.call(this, fields, itemIndex),
    externalIds,
  };
}
