import { NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

/** Custom fields to set: each a name and a value, read by personalisation as {{custom.name}}. */
export const customFieldsField: INodeProperties = {
  displayName: 'Custom Fields',
  name: 'customFields',
  type: 'fixedCollection',
  typeOptions: { multipleValues: true },
  placeholder: 'Add Custom Field',
  default: {},
  description: 'Values kept on the contact; a message reads one as {{custom.name}}',
  options: [
    {
      displayName: 'Field',
      name: 'field',
      values: [
        {
          displayName: 'Name',
          name: 'name',
          type: 'string',
          default: '',
          placeholder: 'e.g. plan',
        },
        {
          displayName: 'Value',
          name: 'value',
          type: 'string',
          default: '',
          placeholder: 'e.g. Gold',
        },
      ],
    },
  ],
};

/** The contact's ID on custom channels (and Messenger, Instagram), by the channel's label. */
export const externalIdsField: INodeProperties = {
  displayName: 'External IDs',
  name: 'externalIds',
  type: 'fixedCollection',
  typeOptions: { multipleValues: true },
  placeholder: 'Add External ID',
  default: {},
  description:
    "The contact's ID in another system, e.g. your live chat's visitor ID: messages on that custom channel reach this contact",
  options: [
    {
      displayName: 'External ID',
      name: 'id',
      values: [
        {
          displayName: 'Channel',
          name: 'channel',
          type: 'string',
          default: '',
          placeholder: 'e.g. livechat',
          description: 'The label of the custom channel',
        },
        {
          displayName: 'ID',
          name: 'value',
          type: 'string',
          default: '',
          placeholder: 'e.g. visitor-42',
        },
      ],
    },
  ],
};

/** Custom fields to remove from a contact, by name. */
export const removeCustomFieldsField: INodeProperties = {
  displayName: 'Remove Custom Fields',
  name: 'removeCustomFields',
  type: 'string',
  default: '',
  placeholder: 'e.g. plan, coupon',
  description: 'Names of custom fields to remove, separated by commas',
};

/** External IDs to remove from a contact, by channel label. */
export const removeExternalIdsField: INodeProperties = {
  displayName: 'Remove External IDs',
  name: 'removeExternalIds',
  type: 'string',
  default: '',
  placeholder: 'e.g. livechat, crm',
  description: 'Labels of the custom channels whose external ID to remove, separated by commas',
};

type Pairs<K extends string> = Partial<Record<K, Array<{ [name: string]: unknown }>>>;

/** The fields of a collection that holds the custom fields above. */
export interface CustomFieldsInput {
  customFields?: Pairs<'field'>;
  removeCustomFields?: string;
}

/** The fields of a collection that holds the external IDs above. */
export interface ExternalIdsInput {
  externalIds?: Pairs<'id'>;
  removeExternalIds?: string;
}

/** The names of a comma-separated field, trimmed, the empty ones left out. */
const namesOf = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);

/**
 * The pairs of a fixedCollection as one object; a name given twice keeps its last value. An empty name fails the
 * item naming the field.
 */
function pairsOf(
  this: IExecuteFunctions,
  rows: Array<{ [name: string]: unknown }> | undefined,
  key: string,
  what: string,
  itemIndex: number,
): Record<string, string> | undefined {
  if (!rows?.length) return undefined;
  const out: Record<string, string> = {};
  for (const row of rows) {
    const name = String(row[key] ?? '').trim();
    if (!name) throw new NodeOperationError(this.getNode(), `${what} without a name`, { itemIndex });
    out[name] = String(row.value ?? '');
  }
  return out;
}

/** The custom fields of a collection's `customFields`, and `removeCustomFields` as names set to null. */
export function readCustomFields(
  this: IExecuteFunctions,
  fields: CustomFieldsInput,
  itemIndex: number,
): IDataObject | undefined {
  const set = pairsOf.call(this, fields.customFields?.field, 'name', 'A custom field', itemIndex);
  const removed = namesOf(fields.removeCustomFields);
  if (!set && !removed.length) return undefined;
  const out: IDataObject = { ...(set ?? {}) };
  for (const name of removed) out[name] = null;
  return out;
}

/** The external IDs of a collection's `externalIds`, by channel. */
export function readExternalIds(
  this: IExecuteFunctions,
  fields: ExternalIdsInput,
  itemIndex: number,
): Record<string, string> | undefined {
  const ids = pairsOf.call(this, fields.externalIds?.id, 'channel', 'An external ID', itemIndex);
  if (!ids) return undefined;
  for (const [channel, value] of Object.entries(ids)) {
    if (!value.trim()) {
      throw new NodeOperationError(this.getNode(), `The external ID of "${channel}" is empty`, { itemIndex });
    }
    ids[channel] = value.trim();
  }
  return ids;
}

/** A correction of external IDs: those of `externalIds` set, those of `removeExternalIds` as labels set to null. */
export function readExternalIdChanges(
  this: IExecuteFunctions,
  fields: ExternalIdsInput,
  itemIndex: number,
): IDataObject | undefined {
  const set = readExternalIds.call(this, fields, itemIndex);
  const removed = namesOf(fields.removeExternalIds);
  if (!set && !removed.length) return undefined;
  const out: IDataObject = { ...(set ?? {}) };
  for (const label of removed) {
    if (out[label] !== undefined) {
      throw new NodeOperationError(this.getNode(), `The external ID of "${label}" is both given and removed`, {
        itemIndex,
      });
    }
    out[label] = null;
  }
  return out;
}
