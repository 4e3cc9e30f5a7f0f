import type { Tx } from '../store/store.js';
import { indexContactIn } from './contact-search.js';
import { newContact, type Contact, type NormalizedFields } from './contacts.js';
import { erasedOptOutOf, keepOptOut } from './erased-opt-outs.js';
import { holdOptOut } from './opt-out-hold.js';

/** Inserts a new contact from fields already normalized (an E.164 phone, a lower-case email), with its search keys. */
export async function createContactIn(tx: Tx, accountId: string, input: NormalizedFields): Promise<Contact> {
  const phone = input.phone ?? null;
  const email = input.email ?? null;
  const hasExternalIds = Object.keys(input.externalIds ?? {}).length > 0;
  return insertContact(
    tx,
    newContact(accountId, {
      firstName: input.firstName || null,
      lastName: input.lastName || null,
      phone,
      email,
      // Known by its email alone: neither a phone nor an external ID tells it apart.
      emailOnly: phone || hasExternalIds ? null : email,
      customFields: input.customFields ?? {},
      ...(hasExternalIds ? { externalIds: input.externalIds } : {}),
    }),
  );
}

/**
 * Every write of a contact goes through these two, in the transaction that makes it: its search keys follow it
 * (domain/contact-search.ts).
 */
export async function insertContact(tx: Tx, contact: Contact): Promise<Contact> {
  const optOut = contact.optOut ? undefined : await erasedOptOutOf(tx, contact);
  const inserted = await tx.insert<Contact>('contacts', optOut ? { ...contact, optOut } : contact);
  await indexContactIn(tx, undefined, inserted);
  return inserted;
}

export async function updateContact(tx: Tx, before: Contact, patch: Partial<Contact>): Promise<Contact> {
  const next = { ...before, ...patch };
  // An address an erased contact opted out with comes back opted out, whichever way it comes, and holds as a STOP.
  const optOut = next.optOut ? undefined : await erasedOptOutOf(tx, next, before);
  const updated = await tx.update<Contact>('contacts', before.id, optOut ? { ...patch, optOut } : patch);
  await indexContactIn(tx, before, updated);
  if (optOut) await holdOptOut(tx, before.id);
  // An address leaving an opted-out contact stays opted out: whoever comes with it next is not written to.
  if (updated.optOut) await keepOptOut(tx, before, updated.optOut, updated);
  return updated;
}
