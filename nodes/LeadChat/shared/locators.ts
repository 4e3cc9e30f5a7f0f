import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';
import { textOf } from './text';

/** A contact, found by a search on the server or given by ID. */
export const contactLocator: INodeProperties = {
  displayName: 'Contact',
  name: 'contactId',
  type: 'resourceLocator',
  default: { mode: 'list', value: '' },
  required: true,
  description: 'The contact: search by name, email, the last digits of the phone or an external ID, or give its ID',
  modes: [
    {
      displayName: 'From List',
      name: 'list',
      type: 'list',
      placeholder: 'Type a name, email or phone digits...',
      typeOptions: {
        searchListMethod: 'searchContacts',
        searchable: true,
        searchFilterRequired: true,
      },
    },
    {
      displayName: 'By ID',
      name: 'id',
      type: 'string',
      placeholder: 'e.g. ct_V1StGXR8Z5jdHi6B',
      hint: 'The contactId of a contact, a conversation, a message or a trigger event',
    },
  ],
};

/** A conversation, picked from the inbox or a search of its contact, or given by ID. */
export const conversationLocator: INodeProperties = {
  displayName: 'Conversation',
  name: 'conversationId',
  type: 'resourceLocator',
  default: { mode: 'list', value: '' },
  required: true,
  description: 'The conversation: the newest first, or search its contact by name, email or phone digits',
  modes: [
    {
      displayName: 'From List',
      name: 'list',
      type: 'list',
      placeholder: 'Select a conversation...',
      typeOptions: {
        searchListMethod: 'searchConversations',
        searchable: true,
      },
    },
    {
      displayName: 'By ID',
      name: 'id',
      type: 'string',
      placeholder: 'e.g. cnv_V1StGXR8Z5jdHi6B',
      hint: 'The conversationId of a trigger event or of Conversation > Get Many',
    },
  ],
};

/** Version 1 of the node as it was; the next versions from 2 on. */
export const V1 = { '@version': [1] };
export const FROM_V2 = { '@version': [{ _cnd: { gte: 2 } }] };

/** A field that was a plain ID in version 1 and is a picker from version 2: both, each shown for its versions. */
export function pickerFromV2(v1: INodeProperties, picker: INodeProperties): INodeProperties[] {
  return [
    { ...v1, displayOptions: { ...v1.displayOptions, show: { ...v1.displayOptions?.show, ...V1 } } },
    { ...picker, displayOptions: { ...picker.displayOptions, show: { ...picker.displayOptions?.show, ...FROM_V2 } } },
  ];
}

/**
 * The ID a picker (or a version 1 text field of the same name) holds for one item, or the item fails naming the
 * field before any request is sent.
 */
export function readPicked(
  this: IExecuteFunctions,
  name: string,
  what: string,
  itemIndex: number,
  description?: string,
): string {
  const value = textOf(this.getNodeParameter(name, itemIndex, '', { extractValue: true })).trim();
  if (!value) throw new NodeOperationError(this.getNode(), `${what} is empty`, { itemIndex, description });
  return value;
}
