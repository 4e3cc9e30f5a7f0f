import { UNREACHABLE_REASONS } from '../contract/campaigns.js';
import type { Page, Placed, Reader, Store, Tx } from '../store/store.js';
import { getCampaign } from './campaigns.js';
import { publicContact, type Contact } from './contacts.js';
import type { ContactAnswer } from '../contract/contacts.js';
import { countOne, moveRecord, SHARDS, shardOf, type StepSubject } from './funnel.js';

/**
 * The contacts a campaign could not reach, by reason, counted once per campaign, reason and contact in the
 * transaction that found it, so a campaign's page says at once why some of its list never heard from it:
 * - `no_external_id`: a custom-channel campaign's contact with no ID on its label (nor a fromId);
 * - `no_phone`: an SMS or WhatsApp campaign's contact with no phone;
 * - `opted_out`: a contact who opted out before its opening message;
 * - `outside_whatsapp_window`: a free-text WhatsApp message skipped more than 24 hours after the contact wrote;
 * - `no_first_message`: a Messenger or Instagram campaign's list contact, whom the business may not write to first;
 * - `outside_meta_window`: a Messenger or Instagram message skipped outside Meta's window (24 hours; 7 days for a
 *   person's reply).
 *
 * Like the funnel, a `unreachable` document per campaign, reason and contact (its id made of the three) keeps a
 * contact from counting twice, and the counts are split over a few documents by contact.
 */
export { UNREACHABLE_REASONS };
export type UnreachableReason = (typeof UNREACHABLE_REASONS)[number];

export const isUnreachableReason = (reason: string | null | undefined): reason is UnreachableReason =>
  (UNREACHABLE_REASONS as readonly string[]).includes(reason ?? '');

interface Unreachable {
  id: string;
  accountId: string;
  campaignId: string;
  contactId: string;
  reason: UnreachableReason;
}

interface UnreachableCounts {
  id: string;
  accountId: string;
  campaignId: string;
  counts: Partial<Record<UnreachableReason, number>>;
}

export async function recordUnreachable(tx: Tx, reason: UnreachableReason, subject: StepSubject): Promise<void> {
  const { accountId, campaignId, contactId } = subject;
  if (!campaignId) return;
  const id = `${reason}:${campaignId}:${contactId}`;
  if (await tx.get('unreachable', id)) return;
  await tx.insert('unreachable', { id, accountId, campaignId, contactId, reason });
  await countOne(tx, 'unreachable_counts', `${campaignId}:${shardOf(contactId)}`, reason, { accountId, campaignId });
}

/**
 * The campaign reached the contact after all (its opening, skipped for `reason`, goes now): it is counted and named
 * among those it could not reach no more.
 */
export async function forgetUnreachable(tx: Tx, reason: UnreachableReason, subject: StepSubject): Promise<void> {
  const { accountId, campaignId, contactId } = subject;
  if (!campaignId) return;
  const id = `${reason}:${campaignId}:${contactId}`;
  if (!(await tx.get('unreachable', id))) return;
  await tx.remove('unreachable', id);
  await countOne(
    tx,
    'unreachable_counts',
    `${campaignId}:${shardOf(contactId)}`,
    reason,
    { accountId, campaignId },
    -1,
  );
}

/** How many contacts the campaign could not reach, in all and by reason (every reason present, 0 when none). */
export async function unreachableOf(
  r: Reader,
  campaignId: string,
): Promise<{ total: number; byReason: Record<UnreachableReason, number> }> {
  const byReason = Object.fromEntries(UNREACHABLE_REASONS.map((reason) => [reason, 0])) as Record<
    UnreachableReason,
    number
  >;
  const shards = await Promise.all(
    Array.from({ length: SHARDS }, (_, shard) =>
      r.get<UnreachableCounts>('unreachable_counts', `${campaignId}:${shard}`),
    ),
  );
  for (const shard of shards) for (const reason of UNREACHABLE_REASONS) byReason[reason] += shard?.counts[reason] ?? 0;
  return { total: UNREACHABLE_REASONS.reduce((sum, reason) => sum + byReason[reason], 0), byReason };
}

/** One contact a campaign could not reach, with the contact as it is now (null once deleted), at its place. */
export type UnreachableContact = Placed<Unreachable> & { contact: ContactAnswer | null };

/**
 * The contacts the campaign could not reach, all or for one reason, in the order they were found, a page at a
 * time: what its page names, so the team can give them what they lack.
 */
export async function unreachableContacts(
  r: Reader & Pick<Store, 'findPlaced'>,
  accountId: string,
  campaignId: string,
  reason: UnreachableReason | undefined,
  page: Page,
): Promise<UnreachableContact[]> {
  await getCampaign(r, accountId, campaignId);
  const found = reason
    ? await r.findPlaced<Unreachable>('unreachable', 'reason', [campaignId, reason], page)
    : await r.findPlaced<Unreachable>('unreachable', 'campaign', [campaignId], page);
  return Promise.all(
    found.map(async (placed) => {
      const contact = await r.get<Contact>('contacts', placed.doc.contactId);
      return { ...placed, contact: contact && contact.accountId === accountId ? publicContact(contact) : null };
    }),
  );
}

export const publicUnreachable = (u: UnreachableContact) => ({
  reason: u.doc.reason,
  contactId: u.doc.contactId,
  contact: u.contact,
});

/** Why the campaign could not reach the contact, if it could not: what its export shows. */
export async function unreachableReasonsOf(
  r: Reader,
  campaignId: string,
  contactId: string,
): Promise<UnreachableReason[]> {
  const found = await Promise.all(
    UNREACHABLE_REASONS.map((reason) => r.get<Unreachable>('unreachable', `${reason}:${campaignId}:${contactId}`)),
  );
  return found.flatMap((u) => (u ? [u.reason] : []));
}

/** The campaign's record that it could not reach the contact: removed, or moved to `into` (see moveRecord). */
export async function moveUnreachable(tx: Tx, campaignId: string, contactId: string, into?: string): Promise<void> {
  for (const reason of UNREACHABLE_REASONS)
    await moveRecord(tx, 'unreachable', `${reason}:${campaignId}:`, contactId, into);
}
