import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import type { Contact } from '../transport/answers';
import { leadChatRequest } from '../transport/request';
import { normalizePhone, PHONE_FORMAT_HINT } from './phone';
import type { RunSettings } from './types';

/**
 * A contact as the nodes read it: the contract's Contact, though a server other than the gateway may leave fields
 * out or give a numeric id.
 */
export type ContactRecord = Omit<Partial<Contact>, 'id'> & { id?: string | number };

/**
 * The lookup's response body is not shown in the spec: accept the contact itself, or one wrapped in `contact` or
 * `data` (object or first element of an array: the gateway's page of contacts, `{data: [...], nextCursor}`).
 */
export function unwrapContact(body: unknown): ContactRecord | undefined {
  if (Array.isArray(body)) return unwrapContact(body[0]);
  if (!body || typeof body !== 'object') return undefined;
  const record = body as ContactRecord & { contact?: unknown; data?: unknown };
  if (typeof record.id === 'string' || typeof record.id === 'number') return record;
  for (const key of ['contact', 'data'] as const) {
    const inner = record[key];
    if (inner && typeof inner === 'object') return unwrapContact(inner);
  }
  return undefined;
}

export type LookupKey = { phoneNumber: string } | { email: string };

/** Spec §4.2: exactly one of phoneNumber or email; 404 means no such contact. */
export async function findContact(
  this: IExecuteFunctions,
  key: LookupKey,
  itemIndex: number,
  settings: RunSettings,
): Promise<ContactRecord | undefined> {
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: '/contacts',
    qs: { ...key },
    itemIndex,
    accept: [404],
    retry: settings.retry,
  });
  if (response.statusCode === 404) return undefined;
  return unwrapContact(response.body);
}

export interface NewContact {
  phone?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  /** Values by name; null removes one (on an update). */
  customFields?: IDataObject;
  /** The contact's ID on each custom channel, by the channel's label. */
  externalIds?: Record<string, string>;
}

/**
 * Spec §4.1, camelCase fields. An existing phone returns the existing contact (200); 201 means it was created now.
 */
export async function createContact(
  this: IExecuteFunctions,
  contact: NewContact,
  itemIndex: number,
  settings: RunSettings,
): Promise<{ contact: ContactRecord; created: boolean }> {
  const body: IDataObject = {};
  for (const [key, value] of Object.entries(contact)) if (value) body[key] = value;
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: '/contacts',
    body,
    itemIndex,
    retry: settings.retry,
  });
  const created = response.statusCode === 201;
  return { contact: unwrapContact(response.body) ?? (response.body as ContactRecord), created };
}

/**
 * Corrects a contact (PATCH /contacts/{id}): the fields given change, the others stay; custom fields merge, a null
 * one is removed. A phone or email of another contact is 409 CONTACT_EXISTS.
 */
export async function updateContact(
  this: IExecuteFunctions,
  contactId: string,
  changes: IDataObject,
  itemIndex: number,
  settings: RunSettings,
): Promise<ContactRecord> {
  const response = await leadChatRequest.call(this, {
    method: 'PATCH',
    path: `/contacts/${encodeURIComponent(contactId)}`,
    body: changes,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the Contact: no contact of this account has this ID.',
  });
  return unwrapContact(response.body) ?? (response.body as ContactRecord);
}

/**
 * Finds by phone, then by email, and creates the contact when neither matches (spec §1, steps 2-3). Custom fields
 * given for a contact found are merged into it; its external IDs stay as they are.
 */
export async function getOrCreateContact(
  this: IExecuteFunctions,
  contact: NewContact,
  itemIndex: number,
  settings: RunSettings,
): Promise<{ contact: ContactRecord; created: boolean }> {
  let found: ContactRecord | undefined;
  if (contact.phone) found = await findContact.call(this, { phoneNumber: contact.phone }, itemIndex, settings);
  if (!found && contact.email) found = await findContact.call(this, { email: contact.email }, itemIndex, settings);
  if (found && contact.customFields && found.id !== undefined) {
    const updated = await updateContact.call(
      this,
      String(found.id),
      { customFields: contact.customFields },
      itemIndex,
      settings,
    );
    return { contact: updated, created: false };
  }
  if (found) return { contact: found, created: false };
  return await createContact.call(this, contact, itemIndex, settings);
}

/** Reads the phone parameter, normalized, or fails naming the field. Empty stays undefined unless required. */
export function readPhone(
  this: IExecuteFunctions,
  raw: string,
  defaultCountryCode: string,
  itemIndex: number,
  required: boolean,
): string | undefined {
  if (!raw.trim()) {
    if (!required) return undefined;
    throw new NodeOperationError(this.getNode(), 'Phone is required', {
      itemIndex,
      description: PHONE_FORMAT_HINT,
    });
  }
  const phone = normalizePhone(raw, defaultCountryCode);
  if (!phone) {
    throw new NodeOperationError(
      this.getNode(),
      `Phone "${raw.slice(0, 40)}" is not a phone number with a country code`,
      { itemIndex, description: PHONE_FORMAT_HINT },
    );
  }
  return phone;
}
