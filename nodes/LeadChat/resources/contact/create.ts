import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { contactFields, readContactFields } from '../../shared/contactFields';
import { createContact } from '../../shared/contacts';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';

export const description = forOperation('contact', 'create', contactFields);

/** Spec §4.1. A phone that already exists returns that contact (`created: false`) instead of a duplicate. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const fields = readContactFields.call(
    this,
    itemIndex,
    'A contact needs at least a phone number with country code or an email address.',
  );
  const { contact, created } = await createContact.call(this, fields, itemIndex, settings);
  return { ...contact, created };
}
