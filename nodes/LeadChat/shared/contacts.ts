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

/** The API's code for a contact the account does not have. */
export const CONTACT_NOT_FOUND = 'CONTACT_NOT_FOUND';

export type LookupKey = { phoneNumber: string } | { email: string };

/**
 * Spec §4.2: exactly one of phoneNumber or email; 404 CONTACT_NOT_FOUND (or another server's not-found in the API's
 * error shape) means no such contact. A 404 that is no answer about the contact (no route: a Base URL without /v1;
 * a web page) fails, so a wrong address is never taken for a missing contact.
 */
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
    notFoundCode: CONTACT_NOT_FOUND,
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
 * Finds by phone, then by email, and creates the contact when neither matches (spec §1, steps 2-3). A contact
 * found keeps what it has, takes the names it lacks (a contact imported with its phone alone, or who texted before
 * filling the form in: the opening message greets by the first name) and the custom fields given (merged); its
 * external IDs stay. A contact found by email is this lead only when it has no phone or the lead gives none: people
 * with numbers of their own may share an email, so one with another phone is someone else, and the lead is created
 * with its own number.
 */
export async function getOrCreateContact(
  this: IExecuteFunctions,
  contact: NewContact,
  itemIndex: number,
  settings: RunSettings,
): Promise<{ contact: ContactRecord; created: boolean }> {
  if (contact.phone) {
    const byPhone = await findContact.call(this, { phoneNumber: contact.phone }, itemIndex, settings);
    if (byPhone) {
      const changes = { ...missingFields(byPhone, contact), ...customFieldsOf(contact) };
      return await completeContact.call(this, byPhone, changes, itemIndex, settings);
    }
  }
  if (contact.email) {
    const byEmail = await findContact.call(this, { email: contact.email }, itemIndex, settings);
    if (byEmail && !hasOtherPhone(byEmail, contact.phone)) {
      const changes = { ...missingFields(byEmail, contact), ...customFieldsOf(contact) };
      return await completeContact.call(this, byEmail, changes, itemIndex, settings);
    }
  }
  return await createContact.call(this, contact, itemIndex, settings);
}

/** Whether a contact found by the lead's email holds a phone other than the lead's: then it is another person. */
function hasOtherPhone(found: ContactRecord, phone: string | undefined): boolean {
  return Boolean(phone && found.phone && found.phone !== phone);
}

/**
 * What the lead gives that a contact found lacks: the names, and for one found by its email the phone (so the number
 * given is stored, and a campaign can reach it). Values the contact has stay: a lookup does not overwrite a contact.
 */
function missingFields(found: ContactRecord, lead: NewContact): IDataObject {
  const changes: IDataObject = {};
  for (const key of ['phone', 'firstName', 'lastName'] as const) {
    if (lead[key] && !found[key]) changes[key] = lead[key];
  }
  return changes;
}

function customFieldsOf(contact: NewContact): IDataObject {
  return contact.customFields ? { customFields: contact.customFields } : {};
}

/** Writes the changes into the contact found (PATCH), or returns it as it is when there are none. */
async function completeContact(
  this: IExecuteFunctions,
  found: ContactRecord,
  changes: IDataObject,
  itemIndex: number,
  settings: RunSettings,
): Promise<{ contact: ContactRecord; created: boolean }> {
  if (Object.keys(changes).length === 0 || found.id === undefined) return { contact: found, created: false };
  const updated = await updateContact.call(this, String(found.id), changes, itemIndex, settings);
  return { contact: updated, created: false };
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
    const error = new NodeOperationError(
      this.getNode(),
      `Phone "${raw.slice(0, 40)}" is not a phone number with a country code`,
      { itemIndex, description: PHONE_FORMAT_HINT },
    );
    // The API's code for such a phone: refused here or by the API, the error item branches the same way.
    error.context.errorCode = 'INVALID_PHONE';
    throw error;
  }
  return phone;
}
