import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { contactIdField, setBotActive } from '../../shared/conversations';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';

export const description = forOperation('conversation', 'resumeBot', [...contactIdField]);

/** Gives the contact's conversations back to the AI bot after a hand-off. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  return await setBotActive.call(this, itemIndex, settings, true);
}
