import type { Gateway } from '../context.js';
import { editContactIn, type ContactPatch } from '../domain/contact-edit.js';
import { getContact, type Contact, type ContactOwner } from '../domain/contacts.js';
import { holdOptOut } from './consent.js';

/**
 * PATCH /v1/contacts/{id} (see editContactIn). A correction to an address an erased contact opted out with brings
 * its opt-out back (the contact is opted out from then on): as on a STOP, nothing more goes to the contact, on any
 * of its conversations.
 */
export async function correctContact(
  gw: Gateway,
  account: ContactOwner,
  id: string,
  patch: ContactPatch,
): Promise<Contact> {
  return gw.store.transact(async (tx) => {
    const before = await getContact(tx, account.id, id);
    const contact = await editContactIn(tx, account, id, patch);
    if (contact.optOut && !before.optOut) await holdOptOut(tx, contact.id);
    return contact;
  });
}
