import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { contactIdField, setBotActive } from '../../shared/conversations';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';

export const description = forOperation('conversation', 'handOff', [...contactIdField]);

/** The team takes over the contact's conversations: the bot stays silent and follow-ups stop. */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  return await setBotActive.call(this, itemIndex, settings, false);
}
