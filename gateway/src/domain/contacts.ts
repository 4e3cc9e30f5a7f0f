import type { Gateway } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Reader, Tx } from '../store/store.js';
import { normalizePhone } from './phone.js';

export interface Contact {
  id: string;
  accountId: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  email: string | null;
  /** The contact's ID on an external platform (custom channels); one fromId is one contact. */
  fromId: string | null;
  /** The email of a contact known by its email alone (no phone, no fromId): at most one such contact per email. */
  emailOnly?: string | null;
  customFields: Record<string, string | number | boolean | null>;
  /** Set while the contact is opted out of every channel of the account (STOP and its kin), until START. */
  optOut?: ConsentChange | null;
  /** The last opt-in (START, UNSTOP) after an opt-out. */
  optIn?: ConsentChange | null;
  createdAt: string;
  updatedAt: string;
}

/** When and where a contact opted out or in, and with which word. */
export interface ConsentChange {
  at: string;
  /** The conversation's channel: 'sms', 'whatsapp' or 'custom:<label>'. */
  channel: string;
  keyword: string;
}

export interface ContactInput {
  firstName?: string;
  lastName?: string;
  phone?: string;
  email?: string;
  customFields?: Contact['customFields'];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(input: string, field = 'email'): string {
  const email = input.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 320) throw badRequest(`${field}: "${input.slice(0, 60)}" is not an email address`, 'INVALID_EMAIL');
  return email;
}

export function publicContact(c: Contact) {
  return {
    id: c.id,
    firstName: c.firstName ?? '',
    lastName: c.lastName ?? '',
    phone: c.phone ?? '',
    email: c.email ?? '',
    ...(c.fromId ? { fromId: c.fromId } : {}),
    ...(Object.keys(c.customFields).length ? { customFields: c.customFields } : {}),
    ...(c.optOut ? { optOut: c.optOut } : {}),
    ...(c.optIn ? { optIn: c.optIn } : {}),
    createdAt: c.createdAt,
  };
}

const findOne = async (r: Reader, index: string, accountId: string, value: string) =>
  (await r.find<Contact>('contacts', index, [accountId, value], { limit: 1 }))[0];

export const findByPhone = (r: Reader, accountId: string, phone: string) => findOne(r, 'phone', accountId, phone);
export const findByEmail = (r: Reader, accountId: string, email: string) => findOne(r, 'email', accountId, email);
export const findByFromId = (r: Reader, accountId: string, fromId: string) => findOne(r, 'fromId', accountId, fromId);

export async function getContact(r: Reader, accountId: string, id: string): Promise<Contact> {
  const contact = await r.get<Contact>('contacts', id);
  if (!contact || contact.accountId !== accountId) throw notFound('Contact');
  return contact;
}

function newContact(accountId: string, fields: Partial<Contact>): Contact {
  const at = now();
  return {
    id: newId('ct'),
    accountId,
    firstName: null,
    lastName: null,
    phone: null,
    email: null,
    fromId: null,
    customFields: {},
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

/**
 * Spec §4.1: an existing phone (or, for an email-only contact, an existing email) returns the existing contact
 * and creates no duplicate. Both are unique indexes, so concurrent requests for one phone or email, on any
 * process, make one contact: the transaction that loses the race runs again and finds the winner.
 */
export async function createContact(gw: Gateway, accountId: string, input: ContactInput): Promise<{ contact: Contact; created: boolean }> {
  const fields = normalizeContact(input);
  return gw.store.transact((tx) => findOrCreateContactIn(tx, accountId, fields));
}

/** The phone in E.164 and the email in lower case, as contacts are stored and found; a bad one is a 400. */
export function normalizeContact(input: ContactInput): Omit<ContactInput, 'phone' | 'email'> & { phone: string | null; email: string | null } {
  return { ...input, phone: input.phone ? normalizePhone(input.phone) : null, email: input.email ? normalizeEmail(input.email) : null };
}

type NormalizedFields = { firstName?: string; lastName?: string; phone?: string | null; email?: string | null; customFields?: Contact['customFields'] };

/**
 * The account's contact with this phone (or, with no phone, this email), taken as it is, or a new one: fields
 * already normalized, and a phone or an email given.
 */
export async function findOrCreateContactIn(tx: Tx, accountId: string, fields: NormalizedFields): Promise<{ contact: Contact; created: boolean }> {
  const existing = fields.phone ? await findByPhone(tx, accountId, fields.phone) : await findByEmail(tx, accountId, fields.email!);
  if (existing) return { contact: existing, created: false };
  return { contact: await createContactIn(tx, accountId, fields), created: true };
}

/** Inserts a new contact from fields already normalized (an E.164 phone, a lower-case email). */
export function createContactIn(tx: Tx, accountId: string, input: NormalizedFields): Promise<Contact> {
  const phone = input.phone ?? null;
  const email = input.email ?? null;
  return tx.insert('contacts', newContact(accountId, {
    firstName: input.firstName || null,
    lastName: input.lastName || null,
    phone,
    email,
    emailOnly: phone ? null : email,
    customFields: input.customFields ?? {},
  }));
}

export async function lookupContact(gw: Gateway, accountId: string, by: { phoneNumber?: string; email?: string }): Promise<Contact> {
  const contact = by.phoneNumber !== undefined
    ? await findByPhone(gw.store, accountId, normalizePhone(by.phoneNumber, 'phoneNumber'))
    : await findByEmail(gw.store, accountId, normalizeEmail(by.email!));
  if (!contact) throw notFound('Contact');
  return contact;
}

/**
 * Custom channels (spec §2.1): the contact is the one with this fromId, or a new one made from the details
 * given. With `update`, given details overwrite the stored ones (the send endpoint's rule, §2.5).
 */
export async function contactForFromId(
  tx: Tx,
  accountId: string,
  fromId: string,
  details: { firstName?: string; lastName?: string; email?: string },
  update: boolean,
): Promise<Contact> {
  const existing = await findByFromId(tx, accountId, fromId);
  // Only the contact's own fields: callers pass a whole message input, whose `id` must not become the contact's.
  const { firstName, lastName, email } = details;
  const given = Object.fromEntries(Object.entries({ firstName, lastName, email }).filter(([, v]) => v)) as Partial<Contact>;
  if (!existing) return tx.insert('contacts', newContact(accountId, { fromId, ...given }));
  if (!update || Object.entries(given).every(([k, v]) => existing[k as keyof Contact] === v)) return existing;
  return tx.update<Contact>('contacts', existing.id, { ...given, updatedAt: now() });
}
