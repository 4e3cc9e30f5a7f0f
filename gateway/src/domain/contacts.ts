import { answersOnly } from '../api-contract.js';
import type { Gateway } from '../context.js';
import { ApiError, FieldChecks, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Reader } from '../store/store.js';
import type { Account } from './accounts.js';
import type { SearchableContact } from './contact-search.js';
import { normalizeEmail } from './email.js';
import { normalizeContactPhone, normalizePhone } from './phone.js';
import type { ContactAnswer } from '../contract/contacts.js';

/** A contact: what it is found by (its identity, see contact-search.ts), and the rest of what the account knows. */
export interface Contact extends SearchableContact {
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

/**
 * The account whose contacts are read, with the country of the phone numbers it writes without a country code:
 * callers hold the account already, so reading a phone costs no read of it.
 */
export type ContactOwner = Pick<Account, 'id' | 'defaultCountry'>;

export interface ContactInput {
  firstName?: string;
  lastName?: string;
  phone?: string;
  email?: string;
  customFields?: Contact['customFields'];
  externalIds?: Record<string, string>;
}

export function publicContact(c: Contact): ContactAnswer {
  return {
    id: c.id,
    firstName: c.firstName ?? '',
    lastName: c.lastName ?? '',
    phone: c.phone ?? '',
    email: c.email ?? '',
    ...(c.fromId ? { fromId: c.fromId } : {}),
    ...(c.externalIds && Object.keys(c.externalIds).length ? { externalIds: c.externalIds } : {}),
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
export const findByEmailOnly = (r: Reader, accountId: string, email: string) =>
  findOne(r, 'emailOnly', accountId, email);
export const findByFromId = (r: Reader, accountId: string, fromId: string) => findOne(r, 'fromId', accountId, fromId);

/**
 * Where the contact is reached on a channel: its phone on SMS and WhatsApp; on a custom channel its ID there,
 * else its fromId. Null when it has none.
 */
export function addressOf(contact: Contact, channel: string, customChannel: string | null): string | null {
  // On Messenger and Instagram the contact is the id Meta gave them, kept as their external ID under the channel's name.
  if (answersOnly(channel)) return contact.externalIds?.[channel] ?? null;
  if (channel !== 'custom') return contact.phone;
  return (customChannel !== null ? contact.externalIds?.[customChannel] : undefined) ?? contact.fromId;
}

export async function getContact(r: Reader, accountId: string, id: string): Promise<Contact> {
  const contact = await r.get<Contact>('contacts', id);
  if (!contact || contact.accountId !== accountId) throw notFound('Contact');
  return contact;
}

export function newContact(accountId: string, fields: Partial<Contact>): Contact {
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
 * The phone in E.164 (one without a country code read as of `defaultCountry`) and the email in lower case, as
 * contacts are stored and found; a bad one is a 400, which names both when both are bad (a form shows each beside
 * its input).
 */
export function normalizeContact(
  input: ContactInput,
  defaultCountry?: string | null,
): Omit<ContactInput, 'phone' | 'email'> & { phone: string | null; email: string | null } {
  const { phone, email } = normalizeAddresses(input, defaultCountry);
  return { ...input, phone: phone ?? null, email: email ?? null };
}

/**
 * The phone and the email given, normalized as normalizeContact does them; one left out stays undefined, one given
 * empty or null is null (a correction clears it). A 400 names every one of the two that cannot be read.
 */
export function normalizeAddresses(
  given: { phone?: string | null; email?: string | null },
  defaultCountry?: string | null,
): { phone?: string | null; email?: string | null } {
  const checks = new FieldChecks();
  const read = (value: string | null | undefined, normalize: (text: string) => string) =>
    value === undefined ? undefined : value ? checks.run(() => normalize(value)) : null;
  const phone = read(given.phone, (text) => normalizeContactPhone(text, 'phone', defaultCountry));
  const email = read(given.email, (text) => normalizeEmail(text));
  checks.done();
  return { phone, email };
}

export type NormalizedFields = {
  firstName?: string;
  lastName?: string;
  phone?: string | null;
  email?: string | null;
  customFields?: Contact['customFields'];
  externalIds?: Record<string, string>;
};

export async function lookupContact(
  gw: Gateway,
  account: ContactOwner,
  by: { phoneNumber?: string; email?: string },
): Promise<Contact> {
  const contact =
    by.phoneNumber !== undefined
      ? await findByPhone(gw.store, account.id, normalizePhone(by.phoneNumber, 'phoneNumber', account.defaultCountry))
      : await findByEmail(gw.store, account.id, normalizeEmail(by.email!));
  if (!contact) throw notFound('Contact');
  return contact;
}

/**
 * A contact holds at most `max` of these: a write adding to them (a correction, a creation that finds the contact)
 * may not go past it. One that holds more already (two contacts merged before merges kept to the limits) may still be
 * written, as long as it holds no more than before.
 */
export function holdsAtMost(max: number, field: string, what: string, after: object = {}, before: object = {}): void {
  const count = Object.keys(after).length;
  if (count <= max || count <= Object.keys(before).length) return;
  const message = `a contact holds at most ${max} ${what}`;
  throw new ApiError(400, 'VALIDATION_ERROR', `${field}: ${message}`, {}, [
    { field, code: 'TOO_MANY', message, limit: max },
  ]);
}
