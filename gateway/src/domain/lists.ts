import type { Gateway } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Page, Placed, Reader, Store, Tx } from '../store/store.js';
import type { Contact } from './contacts.js';
import type { list } from '../contract/lists.js';
import type { Answer } from '../contract/shared.js';

export interface List {
  id: string;
  accountId: string;
  name: string;
  createdAt: string;
}

/** A contact's place in a list, with when and how it joined: the campaign trigger acts on it. */
export interface Membership {
  id: string;
  accountId: string;
  listId: string;
  contactId: string;
  source: 'api' | 'import' | 'manual';
  addedAt: string;
}

export const publicList = (l: List): Answer<typeof list> => ({ id: l.id, name: l.name, createdAt: l.createdAt });

export async function getList(r: Reader, accountId: string, id: string): Promise<List> {
  const list = await r.get<List>('lists', id);
  if (!list || list.accountId !== accountId) throw notFound('List');
  return list;
}

/**
 * The list, held until the commit: what links a campaign or an import to it takes turns with its deletion, so that
 * neither is linked to a list deleted meanwhile nor lets the deletion through (domain/list-deletion.ts).
 */
export async function lockList(tx: Tx, accountId: string, id: string): Promise<List> {
  const list = await tx.lock<List>('lists', id);
  if (!list || list.accountId !== accountId) throw notFound('List');
  return list;
}

/** `remember` keeps the answer in the creation's own transaction, for an Idempotency-Key to replay (idempotency.ts). */
export async function createList(
  gw: Gateway,
  accountId: string,
  name: string,
  remember?: (tx: Tx, list: List) => Promise<void>,
): Promise<List> {
  return gw.store.transact(async (tx) => {
    const list = await tx.insert<List>('lists', { id: newId('lst'), accountId, name, createdAt: now() });
    await remember?.(tx, list);
    return list;
  });
}

/** PATCH /v1/lists/{id}: a new name. Names need not be unique, as at creation. */
export async function renameList(gw: Gateway, accountId: string, id: string, name: string): Promise<List> {
  return gw.store.transact(async (tx) => {
    const list = await getList(tx, accountId, id);
    return tx.update<List>('lists', list.id, { name });
  });
}

/** The account's lists, oldest first; a page of them when `page` is given. */
export const listsOf = (r: Reader, accountId: string, page?: Page) =>
  r.find<List>('lists', 'account', [accountId], page);

/**
 * A list's memberships in the order the contacts joined, each with its contact, at its place: paged over memberships
 * (a contact may sit in many lists), after the place of the last one shown, so that a contact taken off the list
 * between two pages does not end the walk there.
 */
export async function membersOf(
  r: Reader & Pick<Store, 'findPlaced'>,
  accountId: string,
  listId: string,
  page?: Page,
): Promise<Array<Placed<Membership> & { contact: Contact }>> {
  await getList(r, accountId, listId);
  const members = await r.findPlaced<Membership>('memberships', 'list', [listId], page);
  return Promise.all(
    members.map(async (m) => ({ ...m, contact: (await r.get<Contact>('contacts', m.doc.contactId))! })),
  );
}

/** The contact joins the list unless it is a member already (the engine's joinList adds the campaign trigger). */
export async function addMembership(
  tx: Tx,
  listId: string,
  contact: Contact,
  source: Membership['source'],
): Promise<{ added: boolean; membership: Membership }> {
  const [existing] = await tx.find<Membership>('memberships', 'member', [listId, contact.id]);
  if (existing) return { added: false, membership: existing };
  const membership = await tx.insert<Membership>('memberships', {
    id: newId('lsm'),
    accountId: contact.accountId,
    listId,
    contactId: contact.id,
    source,
    addedAt: now(),
  });
  return { added: true, membership };
}

/** Whether the contact is on the list now. */
export const isOnList = async (r: Reader, listId: string, contactId: string) =>
  (await r.find<Membership>('memberships', 'member', [listId, contactId])).length > 0;

/**
 * Whether the contact is on the campaign's list now: the list it was on when the campaign's opening was queued may
 * not be, as the contact may have left it since, or the campaign moved to another one. A campaign with no list has
 * none.
 */
export const isOnCampaignList = async (r: Reader, campaign: { listId: string | null }, contactId: string) =>
  campaign.listId !== null && (await isOnList(r, campaign.listId, contactId));

/** The contact leaves the list (engine/join-list.ts stops what its campaigns still had waiting); 404 when it is not on it. */
export async function removeMembership(tx: Tx, accountId: string, listId: string, contactId: string): Promise<void> {
  await getList(tx, accountId, listId);
  const [membership] = await tx.find<Membership>('memberships', 'member', [listId, contactId]);
  if (!membership || membership.accountId !== accountId)
    throw new ApiError(404, 'CONTACT_NOT_IN_LIST', 'The contact is not on this list');
  await tx.remove('memberships', membership.id);
}

/** The lists a contact is on, with when and how it joined each. */
export async function listsOfContact(r: Reader, contactId: string): Promise<Array<Membership & { list: List }>> {
  const memberships = await r.find<Membership>('memberships', 'contact', [contactId]);
  const lists = await Promise.all(memberships.map((m) => r.get<List>('lists', m.listId)));
  return memberships.flatMap((m, i) => (lists[i] ? [{ ...m, list: lists[i] }] : []));
}
