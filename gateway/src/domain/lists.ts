import type { Gateway } from '../context.js';
import { notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Reader } from '../store/store.js';
import { getContact, type Contact } from './contacts.js';

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

export const publicList = (l: List) => ({ id: l.id, name: l.name, createdAt: l.createdAt });

export async function getList(r: Reader, accountId: string, id: string): Promise<List> {
  const list = await r.get<List>('lists', id);
  if (!list || list.accountId !== accountId) throw notFound('List');
  return list;
}

export async function createList(gw: Gateway, accountId: string, name: string): Promise<List> {
  return gw.store.transact(async (tx) => tx.insert<List>('lists', { id: newId('lst'), accountId, name, createdAt: now() }));
}

export const listsOf = (r: Reader, accountId: string) => r.find<List>('lists', 'account', [accountId]);

export async function membersOf(r: Reader, accountId: string, listId: string): Promise<Array<{ contact: Contact; addedAt: string }>> {
  await getList(r, accountId, listId);
  const members = await r.find<Membership>('memberships', 'list', [listId]);
  return Promise.all(members.map(async (m) => ({ contact: (await r.get<Contact>('contacts', m.contactId))!, addedAt: m.addedAt })));
}

/** Spec §4.3. Adding a member twice changes nothing and reports `added: false`. */
export async function addToList(
  gw: Gateway,
  accountId: string,
  listId: string,
  contactId: string,
  source: Membership['source'] = 'api',
): Promise<{ added: boolean; membership: Membership }> {
  return gw.store.transact(async (tx) => {
    await getList(tx, accountId, listId);
    await getContact(tx, accountId, contactId);
    const [existing] = await tx.find<Membership>('memberships', 'member', [listId, contactId]);
    if (existing) return { added: false, membership: existing };
    const membership = await tx.insert<Membership>('memberships', {
      id: newId('mem'),
      accountId,
      listId,
      contactId,
      source,
      addedAt: now(),
    });
    return { added: true, membership };
  });
}
