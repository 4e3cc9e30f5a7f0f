import { MAX_EXTERNAL_IDS } from '../api-contract.js';
import type { Gateway } from '../context.js';
import { ApiError } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Reader, Tx } from '../store/store.js';
import { createContactIn, insertContact, updateContact } from './contact-writes.js';
import {
  findByEmail,
  findByFromId,
  findByPhone,
  holdsAtMost,
  newContact,
  normalizeContact,
  type Contact,
  type ContactInput,
  type ContactOwner,
  type NormalizedFields,
} from './contacts.js';
import { isEmail } from './email.js';
import { readPhone } from './phone.js';
import { excerpt } from './storable-text.js';

/** Whether a contact can be found again: it has a phone, an email or an external ID (the rule of every way in). */
export const identifiable = (c: { phone?: unknown; email?: unknown; externalIds?: unknown }): boolean =>
  Boolean(
    c.phone ||
      c.email ||
      (typeof c.externalIds === 'object' && c.externalIds !== null && Object.keys(c.externalIds).length > 0),
  );

/**
 * Which one contact a phone, an email or an external ID stands for. A contact is one person on every channel: its
 * phone on SMS and WhatsApp, its ID on each custom channel (one per label, e.g. a live chat's visitor ID and a CRM's
 * record ID). An external ID belongs to at most one contact of the account, whatever its label, as a phone does:
 * each is registered in `external_ids` under a unique index, so the rule holds on every backend and process.
 */
export interface ExternalId {
  id: string;
  accountId: string;
  externalId: string;
  contactId: string;
}

/** The registration of an external ID, if it has one: the first read of finding its contact. */
export const registrationOf = async (
  r: Reader,
  accountId: string,
  externalId: string,
): Promise<ExternalId | undefined> =>
  (await r.find<ExternalId>('external_ids', 'value', [accountId, externalId], { limit: 1 }))[0];

/**
 * Every external ID registered to a contact: those it shows, and those it took from a duplicate on a label where it
 * kept its own, which find it without being shown (engine/merge-contacts.ts).
 */
export const registrationsOf = (r: Reader, contactId: string): Promise<ExternalId[]> =>
  r.find<ExternalId>('external_ids', 'contact', [contactId]);

/**
 * The contact holding an external ID, under any label, and whether the ID is registered: a contact stored before
 * external IDs were registered holds its one ID as fromId, unregistered.
 */
async function holderOf(
  r: Reader,
  accountId: string,
  externalId: string,
): Promise<{ contact?: Contact; registered: boolean }> {
  const held = await registrationOf(r, accountId, externalId);
  const contact = held && (await r.get<Contact>('contacts', held.contactId));
  if (contact) return { contact, registered: true };
  // A registration naming a contact that is gone (an earlier release's second merge or erasure left some) holds
  // nothing: the ID is found as if unregistered, and whoever is given it next takes the registration over.
  return { contact: await findByFromId(r, accountId, externalId), registered: false };
}

/** The contact holding an external ID under any label, if one does. */
export const contactOfExternalId = async (
  r: Reader,
  accountId: string,
  externalId: string,
): Promise<Contact | undefined> => (await holderOf(r, accountId, externalId)).contact;

const taken = (label: string, externalId: string, holder = 'another contact') =>
  new ApiError(
    409,
    'EXTERNAL_ID_TAKEN',
    `externalIds.${label}: "${excerpt(externalId, 100)}" is the external ID of ${holder}`,
  );

/**
 * Spec §4.1: an existing phone (or, for an email-only contact, an existing email, or one of the external IDs given)
 * returns the existing contact and creates no duplicate; external IDs given that it lacks are added to it. All are
 * unique indexes, so concurrent requests for one contact, on any process, make one: the transaction that loses the
 * race runs again and finds the winner.
 */
export async function createContact(
  gw: Gateway,
  account: ContactOwner,
  input: ContactInput,
): Promise<{ contact: Contact; created: boolean }> {
  const fields = normalizeContact(input, account.defaultCountry);
  return gw.store.transact((tx) => findOrCreateContactIn(tx, account.id, fields));
}

/**
 * The account's contact with this phone (or, with no phone, this email), else the one holding one of these external
 * IDs, else a new one: fields already normalized. A contact found by an external ID gains the phone given when it has
 * none, and any contact found gains the labels it lacks. An external ID held by another contact (or by one with
 * another phone), or a label of the contact holding another ID, is a 409 EXTERNAL_ID_TAKEN before anything is written.
 */
export async function findOrCreateContactIn(
  tx: Tx,
  accountId: string,
  fields: NormalizedFields,
): Promise<{ contact: Contact; created: boolean }> {
  const ids = Object.entries(fields.externalIds ?? {});
  const holders = await Promise.all(ids.map(([, externalId]) => holderOf(tx, accountId, externalId)));
  const byAddress = await findByAddressOf(tx, accountId, fields);
  const existing = byAddress ?? holders.find((h) => h.contact)?.contact;
  const newPhone = !byAddress && existing && fields.phone ? fields.phone : undefined;
  for (const [i, [label, externalId]] of ids.entries()) {
    const holder = holders[i]!.contact;
    if (holder && holder.id !== existing?.id) throw taken(label, externalId);
    if (newPhone && existing!.phone) throw taken(label, externalId, 'a contact with another phone');
    const current = existing?.externalIds?.[label];
    if (current !== undefined && current !== externalId) {
      throw new ApiError(
        409,
        'EXTERNAL_ID_TAKEN',
        `externalIds.${label}: the contact already has the external ID "${excerpt(current, 100)}" there`,
      );
    }
  }
  if (!existing) {
    const contact = await createContactIn(tx, accountId, fields);
    for (const [, externalId] of ids) await register(tx, contact, externalId);
    return { contact, created: true };
  }
  const missing = ids.filter(([label]) => existing.externalIds?.[label] === undefined);
  if (!missing.length && !newPhone) return { contact: existing, created: false };
  const externalIds = { ...existing.externalIds, ...Object.fromEntries(missing) };
  holdsAtMost(MAX_EXTERNAL_IDS, 'externalIds', 'external IDs', externalIds, existing.externalIds);
  for (const [i, [label, externalId]] of ids.entries()) {
    if (existing.externalIds?.[label] === undefined && !holders[i]!.registered)
      await register(tx, existing, externalId);
  }
  return {
    contact: await updateContact(tx, existing, {
      externalIds,
      ...(newPhone ? { phone: newPhone, emailOnly: null } : {}),
      updatedAt: now(),
    }),
    created: false,
  };
}

/** The contact of this phone, or with no phone of this email: the first thing fields are found by. */
const findByAddressOf = (r: Reader, accountId: string, fields: NormalizedFields): Promise<Contact | undefined> =>
  fields.phone
    ? findByPhone(r, accountId, fields.phone)
    : fields.email
      ? findByEmail(r, accountId, fields.email)
      : Promise.resolve(undefined);

/** The contact that findOrCreateContactIn finds for these fields, if there is one; nothing is written. */
export async function findContactOf(
  r: Reader,
  accountId: string,
  fields: NormalizedFields,
): Promise<Contact | undefined> {
  const byAddress = await findByAddressOf(r, accountId, fields);
  if (byAddress) return byAddress;
  for (const externalId of Object.values(fields.externalIds ?? {})) {
    const { contact } = await holderOf(r, accountId, externalId);
    if (contact) return contact;
  }
  return undefined;
}

/**
 * A correction of a contact's external IDs (PATCH /v1/contacts/{id}), by label: an ID given replaces the label's, null
 * removes it, and the fromId follows when it was that ID (the ID of its first message, now corrected). An ID another
 * contact holds, under any label, is a 409 CONTACT_EXISTS naming that contact (the two may be merged instead); the
 * registrations follow in the caller's transaction, so the one-contact rule holds.
 */
export async function correctExternalIds(
  tx: Tx,
  contact: Contact,
  changes: Record<string, string | null>,
): Promise<Pick<Contact, 'externalIds' | 'fromId'>> {
  const externalIds = { ...contact.externalIds };
  let fromId = contact.fromId;
  for (const [label, externalId] of Object.entries(changes)) {
    const current = externalIds[label];
    if (current === externalId) continue;
    const held = externalId === null ? undefined : await holderOf(tx, contact.accountId, externalId);
    if (held?.contact && held.contact.id !== contact.id) throw contactExists(`externalIds.${label}`, held.contact);
    if (externalId !== null && Object.values(externalIds).includes(externalId)) {
      throw new ApiError(
        400,
        'VALIDATION_ERROR',
        `externalIds.${label}: "${excerpt(externalId, 100)}" is this contact's ID on another channel already`,
      );
    }
    if (current !== undefined) {
      delete externalIds[label];
      // An ID the contact still holds under another label stays registered to it, and its fromId.
      const kept = Object.values(externalIds).includes(current);
      if (!kept && fromId === current) fromId = externalId;
      const registration = kept ? undefined : await registrationOf(tx, contact.accountId, current);
      if (registration?.contactId === contact.id) await tx.remove('external_ids', registration.id);
    }
    if (externalId !== null) {
      // The contact's own fromId may be registered already.
      if (!held?.registered) await register(tx, contact, externalId);
      externalIds[label] = externalId;
    }
  }
  return { externalIds, fromId };
}

/** The phone, email or external ID asked for is another contact's: the caller may merge the two instead. */
export const contactExists = (field: string, holder: Contact) =>
  new ApiError(
    409,
    'CONTACT_EXISTS',
    `${field}: another contact (${holder.id}) has this ${field.replace(/^externalIds\..*/, 'external ID')}; merge the two contacts instead`,
    {},
    undefined,
    holder.id,
  );

/** Registers an ID no contact holds to this one: anew, or in place of a registration naming a contact that is gone. */
async function register(tx: Tx, contact: Contact, externalId: string): Promise<void> {
  const stale = await registrationOf(tx, contact.accountId, externalId);
  if (stale) await tx.update<ExternalId>('external_ids', stale.id, { contactId: contact.id });
  else
    await tx.insert<ExternalId>('external_ids', {
      id: newId('xid'),
      accountId: contact.accountId,
      externalId,
      contactId: contact.id,
    });
}

/**
 * The email or the phone an external ID spells, if any, since a custom channel's fromId may be either (spec §2.4): a
 * phone written as the account writes its numbers, with its country code or, under its default country, without.
 * `held` is what a new contact made by the ID is given, so that the same person written another way next time
 * (`Ana@Example.com`, then `ana@example.com`; `+1 415 555 0123`, then `+14155550123`) is found by it, not made again:
 * a phone only when written with its country code, since a number without one may be another system's user ID (a
 * Telegram ID), which a default country would read as a stranger's phone.
 */
function addressIn(
  account: ContactOwner,
  externalId: string,
): { email?: string; phone?: string; held: Partial<Contact> } {
  const text = externalId.trim();
  if (text.includes('@')) {
    const email = text.toLowerCase();
    return { email, held: isEmail(email) ? { email } : {} };
  }
  const phone = readPhone(text, account.defaultCountry);
  return { phone, held: phone && text.startsWith('+') ? { phone } : {} };
}

/** The contact whose phone or email an external ID is (addressIn). */
const findByAddress = (r: Reader, accountId: string, { email, phone }: { email?: string; phone?: string }) =>
  email ? findByEmail(r, accountId, email) : phone ? findByPhone(r, accountId, phone) : undefined;

/**
 * Custom channels (spec §2.1, §2.4): the contact who writes, or is written to, as `externalId` on the custom channel
 * `label` (null: a message without a label). It is the contact holding that ID under any label; else, since a fromId
 * may be an email or a phone number, the contact with that email or phone; else a new one from the details given.
 * The ID becomes the contact's on that label, so replies there go to it, and its fromId when it has none yet (a
 * message without a label sets the fromId, which addresses such messages). With `update`, details given overwrite
 * the stored ones (the send endpoint's rule, §2.5).
 */
export async function contactForExternalId(
  tx: Tx,
  account: ContactOwner,
  label: string | null,
  externalId: string,
  details: { firstName?: string; lastName?: string; email?: string },
  update: boolean,
): Promise<Contact> {
  // Only the contact's own fields: callers pass a whole message input, whose `id` must not become the contact's.
  const { firstName, lastName, email } = details;
  const given = Object.fromEntries(
    Object.entries({ firstName, lastName, email }).filter(([, v]) => v),
  ) as Partial<Contact>;
  const { contact: holder, registered } = await holderOf(tx, account.id, externalId);
  const address = holder ? undefined : addressIn(account, externalId);
  const contact = holder ?? (address && (await findByAddress(tx, account.id, address)));
  if (!contact) {
    // A new contact is written once, already holding the ID, rather than written and then given it.
    const created = await insertContact(
      tx,
      newContact(account.id, {
        ...address?.held,
        ...given,
        fromId: externalId,
        ...(label === null ? {} : { externalIds: { [label]: externalId } }),
      }),
    );
    if (!registered) await register(tx, created, externalId);
    return created;
  }
  if (!registered) await register(tx, contact, externalId);
  const place: Partial<Contact> = {
    ...(label === null
      ? contact.fromId === externalId
        ? {}
        : { fromId: externalId }
      : contact.fromId
        ? {}
        : { fromId: externalId }),
    ...(label === null || contact.externalIds?.[label] === externalId
      ? {}
      : { externalIds: { ...contact.externalIds, [label]: externalId } }),
  };
  const changes = update && Object.entries(given).some(([k, v]) => contact[k as keyof Contact] !== v) ? given : {};
  if (!Object.keys(place).length && !Object.keys(changes).length) return contact;
  return updateContact(tx, contact, { ...place, ...changes, updatedAt: now() });
}
