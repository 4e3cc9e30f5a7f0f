import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { contactFields, readContactFields } from '../../shared/contactFields';
import { getOrCreateContact } from '../../shared/contacts';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';

export const description = forOperation('contact', 'getOrCreate', contactFields);

/** Looks the contact up by phone, then by email; creates it when neither matches. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const fields = readContactFields.call(
    this,
    itemIndex,
    'The contact is looked up by phone, then by email, and created from these fields if new.',
  );
  const { contact, created } = await getOrCreateContact.call(this, fields, itemIndex, settings);
  return { ...contact, created };
}
