import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Contact, Conversation } from '../transport/answers';
import { FROM_V2, V1 } from './locators';
import { contactLabel } from './labels';

const SIMPLIFY: INodeProperties = {
  displayName: 'Simplify',
  name: 'simplify',
  type: 'boolean',
  default: false,
  description: 'Whether to return the fields a workflow or an AI agent usually needs instead of the whole record',
};

/**
 * Simplify, off by default in a workflow and on for the AI tool from version 2 (an agent reads every key of every
 * item; version 1's tool keeps its whole records).
 */
export const simplifyFields: INodeProperties[] = [
  { ...SIMPLIFY, displayOptions: { show: { '@tool': [false] } } },
  { ...SIMPLIFY, displayOptions: { show: { '@tool': [true], ...V1 } } },
  { ...SIMPLIFY, default: true, displayOptions: { show: { '@tool': [true], ...FROM_V2 } } },
];

export function readSimplify(this: IExecuteFunctions, itemIndex: number): boolean {
  return this.getNodeParameter('simplify', itemIndex, false) as boolean;
}

/** A contact in the words a person or an agent uses: who, how to reach them, what is known of them. */
export function simplifyContact(contact: Partial<Contact> & IDataObject): IDataObject {
  return {
    id: contact.id,
    name: contactLabel(contact),
    phone: contact.phone,
    email: contact.email,
    customFields: contact.customFields ?? {},
    externalIds: contact.externalIds ?? {},
    optedOut: contact.optOut !== undefined && contact.optOut !== null,
    createdAt: contact.createdAt,
  };
}

/**
 * A conversation as the inbox shows it: whose, where, its state, whether it waits for the team or is snoozed, its
 * labels and its last message, in 15 keys instead of 27 with nested objects.
 */
export function simplifyConversation(conversation: Partial<Conversation> & IDataObject): IDataObject {
  const last = conversation.lastMessage;
  return {
    id: conversation.id,
    contactId: conversation.contactId,
    contactName: conversation.contact ? contactLabel(conversation.contact) : null,
    channel: conversation.channel === 'custom' ? conversation.customChannel : conversation.channel,
    campaignId: conversation.campaignId,
    status: conversation.status,
    botActive: conversation.bot?.active ?? null,
    assigneeId: conversation.assigneeId,
    needsReply: conversation.needsReply,
    unread: conversation.unread,
    snoozedUntil: conversation.snoozedUntil ?? null,
    labels: conversation.labels ?? [],
    lastMessage: last ? last.body : null,
    lastMessageFrom: last ? (last.direction === 'incoming' ? 'contact' : (last.author ?? 'team')) : null,
    lastActivityAt: conversation.lastActivityAt,
  };
}
