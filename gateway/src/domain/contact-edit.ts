import { MAX_CUSTOM_FIELDS, MAX_EXTERNAL_IDS } from '../api-contract.js';
import { fieldError } from '../errors.js';
import { now } from '../ids.js';
import type { Tx } from '../store/store.js';
import { contactExists, correctExternalIds } from './contact-identity.js';
import { updateContact } from './contact-writes.js';
import { contactCorrected } from './conversations.js';
import {
  findByEmail,
  findByEmailOnly,
  findByPhone,
  getContact,
  holdsAtMost,
  normalizeAddresses,
  type Contact,
  type ContactOwner,
} from './contacts.js';

/** What a correction of a contact may change: an absent field stays, null (or "") clears it. */
export interface ContactPatch {
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  email?: string | null;
  /** Merged into the contact's: a key given null is removed. */
  customFields?: Record<string, Contact['customFields'][string]>;
  /** By custom channel label: an ID replaces the label's, null removes it. */
  externalIds?: Record<string, string | null>;
}

/**
 * PATCH /v1/contacts/{id}: corrects a contact, in the caller's transaction. The phone is read as the account writes
 * numbers (its default country), the email in lower case; one that another contact of the account holds (or an
 * external ID it holds) is a 409 CONTACT_EXISTS naming that contact, as dedup stays one contact per phone and email.
 * Its search keys and dedup indexes follow in the same commit.
 */
export async function editContactIn(tx: Tx, account: ContactOwner, id: string, patch: ContactPatch): Promise<Contact> {
  return correct(tx, account.id, id, { ...patch, ...normalizeAddresses(patch, account.defaultCountry) });
}

const SHOWN = ['firstName', 'lastName', 'phone', 'email'] as const;

async function correct(tx: Tx, accountId: string, id: string, patch: ContactPatch): Promise<Contact> {
  const before = await getContact(tx, accountId, id);
  const phone = patch.phone === undefined ? before.phone : patch.phone;
  const email = patch.email === undefined ? before.email : patch.email;
  const ids = patch.externalIds ? await correctExternalIds(tx, before, patch.externalIds) : before;
  const hasIds = Boolean(ids.fromId) || Object.keys(ids.externalIds ?? {}).length > 0;
  if (!phone && !email && !hasIds)
    throw fieldError(
      patch.phone === null ? 'phone' : 'email',
      'a contact keeps a phone, an email or an external ID; it cannot lose the last one',
    );
  if (phone && phone !== before.phone) {
    const holder = await findByPhone(tx, accountId, phone);
    if (holder && holder.id !== id) throw contactExists('phone', holder);
  }
  if (email && email !== before.email) {
    const holder = await findByEmail(tx, accountId, email);
    if (holder && holder.id !== id) throw contactExists('email', holder);
  }
  // Known by its email alone (see createContactIn): neither a phone nor an external ID tells it apart, and one
  // contact at most is so known by an email.
  const emailOnly = phone || hasIds ? null : email;
  if (emailOnly && emailOnly !== before.emailOnly) {
    const holder = await findByEmailOnly(tx, accountId, emailOnly);
    if (holder && holder.id !== id) throw contactExists('email', holder);
  }
  const customFields = { ...before.customFields };
  for (const [key, value] of Object.entries(patch.customFields ?? {})) {
    if (value === null) delete customFields[key];
    else customFields[key] = value;
  }
  holdsAtMost(MAX_CUSTOM_FIELDS, 'customFields', 'custom fields', customFields, before.customFields);
  if (patch.externalIds)
    holdsAtMost(MAX_EXTERNAL_IDS, 'externalIds', 'external IDs', ids.externalIds, before.externalIds);
  const changes: Partial<Contact> = {
    ...(patch.firstName !== undefined ? { firstName: patch.firstName || null } : {}),
    ...(patch.lastName !== undefined ? { lastName: patch.lastName || null } : {}),
    phone,
    email,
    emailOnly,
    customFields,
    ...(patch.externalIds ? ids : {}),
    updatedAt: now(),
  };
  const after = await updateContact(tx, before, changes);
  // The inbox shows the contact by these: open inboxes read its conversations again.
  if (SHOWN.some((field) => before[field] !== after[field])) await contactCorrected(tx, id);
  return after;
}
