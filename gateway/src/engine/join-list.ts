import type { Gateway } from '../context.js';
import { parseDuration } from '../domain/durations.js';
import { addMembership, getList, removeMembership, type Membership } from '../domain/lists.js';
import { getContact, type Contact } from '../domain/contacts.js';
import type { Tx } from '../store/store.js';
import { campaignsOfList } from '../domain/campaigns.js';
import { stopOpenings } from '../domain/openings.js';
import { cancelContactFollowUps } from '../domain/follow-up-timers.js';
import { onAddedToList } from './openings.js';

/** Spec §4.3. Adding a member twice changes nothing and reports `added: false`. */
export async function addToList(
  gw: Gateway,
  accountId: string,
  listId: string,
  contactId: string,
  options: { source?: Membership['source']; delay?: string } = {},
): Promise<{ added: boolean; membership: Membership }> {
  const source = options.source ?? 'api';
  const delayMs = options.delay === undefined ? 0 : parseDuration(options.delay, { field: 'delay' });
  return gw.store.transact(async (tx) => {
    await getList(tx, accountId, listId);
    return joinList(tx, listId, await getContact(tx, accountId, contactId), source, delayMs);
  });
}

/**
 * The contact joins the list unless it is a member already. The campaign trigger (spec §3.2): the opening messages
 * of the list's Live campaigns are queued in the same commit, `delayMs` from now.
 */
export async function joinList(
  tx: Tx,
  listId: string,
  contact: Contact,
  source: Membership['source'],
  delayMs = 0,
): Promise<{ added: boolean; membership: Membership; unreachable: boolean }> {
  const { added, membership } = await addMembership(tx, listId, contact, source);
  if (!added) return { added, membership, unreachable: false };
  const { unreachable } = await onAddedToList(tx, contact.accountId, listId, contact, delayMs);
  return { added, membership, unreachable };
}

/**
 * DELETE /v1/lists/{listId}/contacts/{contactId}: the contact leaves the list, and the list's campaigns stop
 * reaching out to it: their opening messages still waiting for it will not go (cancelled, `left_list`), nor their
 * follow-ups. What was sent stays, and so do the conversations: the bot still answers the contact who writes.
 */
export async function removeFromList(gw: Gateway, accountId: string, listId: string, contactId: string): Promise<void> {
  await gw.store.transact(async (tx) => {
    await removeMembership(tx, accountId, listId, contactId);
    const campaigns = new Set((await campaignsOfList(tx, accountId, listId)).map((c) => c.id));
    if (campaigns.size === 0) return;
    await stopOpenings(tx, contactId, 'left_list', (o) => campaigns.has(o.campaignId));
    await cancelContactFollowUps(tx, contactId, (c) => c.campaignId !== null && campaigns.has(c.campaignId));
  });
}
