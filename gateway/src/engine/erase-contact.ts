import type { Gateway } from '../context.js';
import { audit, contactTarget, type AuditBy } from '../domain/audit-log.js';
import { unindexContactIn } from '../domain/contact-search.js';
import { registrationsOf, type ExternalId } from '../domain/contact-identity.js';
import { campaignsOfContact, deliveriesOfContact, questionsOfContact } from '../domain/contact-export.js';
import { getContact, type Contact } from '../domain/contacts.js';
import { conversationsOfContact, removeConversation } from '../domain/conversations.js';
import { refuseErasedRows } from '../domain/erased-import-rows.js';
import { forgetOptOut, keepOptOut } from '../domain/erased-opt-outs.js';
import { forgetAnswersNaming } from '../domain/idempotency.js';
import { recordErasure } from '../domain/erasures.js';
import { forgetFailedOpening } from '../domain/failed-openings.js';
import { entryNames, type InboundJob } from '../domain/inbound-entries.js';
import { reassignInImports } from '../domain/imports.js';
import { moveSteps } from '../domain/funnel.js';
import type { Membership } from '../domain/lists.js';
import type { Message } from '../domain/messages.js';
import { notesOfContact } from '../domain/notes.js';
import { moveUnreachable } from '../domain/reach.js';
import type { Tx } from '../store/store.js';
import { replyKey } from './bot-reply.js';
import { cancelFollowUps } from '../domain/follow-up-timers.js';
import { openingsOf, stopOpenings } from '../domain/openings.js';

/**
 * DELETE /v1/contacts/{id}: erasure (GDPR Art. 17). In one transaction the contact goes with everything held about it:
 * its conversations and messages, the team's notes on them, its files' records, its lists, search keys and external
 * IDs, its openings, failed openings, funnel and reach records, its rows in import reports, the unanswered questions it
 * asked, the deliveries of events about it, and the jobs still waiting for it: follow-ups, openings and bot replies are
 * cancelled; a send or a delivery waiting holds only the id of what is gone, and ends doing nothing when it runs. The
 * campaigns' counts stay: they count contacts and name none. An opt-out outlives it as keyed hashes of its addresses
 * (domain/erased-opt-outs.ts). The provider's entries from its addresses taken before it and processed after it are
 * dropped (domain/erasures.ts), a STOP among them kept as its opt-out all the same (engine/erased-stop.ts); the rows
 * naming it of imports sent before it and not applied yet are refused (domain/erased-import-rows.ts). Once the commit
 * is durable, the files' bytes go, and so do the provider's entries naming it that could never be processed (dead jobs,
 * outside the transaction's reach).
 *
 * On the embedded store, what was written before stays in the journal until the next checkpoint, which a clean stop
 * always makes; on PostgreSQL the rows are deleted, and VACUUM (autovacuum) reclaims their space.
 */
export async function eraseContact(gw: Gateway, accountId: string, contactId: string, by?: AuditBy): Promise<void> {
  const { files, addresses } = await gw.store.transact(async (tx) => {
    const contact = await getContact(tx, accountId, contactId);
    // The erasure's own entry, the contact's id alone: what the owner proves the erasure by.
    await audit(tx, by, 'contact.erased', contactTarget(contactId));
    // Its IDs are those it shows and those it took from a duplicate without showing them: each goes, opt-out kept.
    const registered = await registrationsOf(tx, contactId);
    const addresses = { ...contact, externalIds: { ...contact.externalIds, ...byId(registered) } };
    if (contact.optOut) await keepOptOut(tx, addresses, contact.optOut);
    else await forgetOptOut(tx, addresses);
    // A provider's entry from one of them taken before now, processed later, is the erased contact's: it is dropped.
    await recordErasure(tx, addresses);
    // So is a row naming it of an import sent before now and not applied yet.
    await refuseErasedRows(tx, addresses);
    // The answers kept for an Idempotency-Key hold what was said to it.
    await forgetAnswersNaming(tx, contactId);
    const messages = await tx.find<Message>('messages', 'contact', [contactId]);
    const campaigns = await forgetConversations(tx, contact, messages);
    for (const n of await notesOfContact(tx, contactId)) await tx.remove('notes', n.id);
    for (const d of await deliveriesOfContact(tx, contactId, messages)) {
      await tx.remove('deliveries', d.id);
    }
    const mediaIds: string[] = [];
    for (const m of messages) {
      await tx.cancelJobs(replyKey(m.id));
      if (m.media?.mediaId) {
        mediaIds.push(m.media.mediaId);
        await tx.remove('media', m.media.mediaId);
      }
      await forgetFailedOpening(tx, m.id);
      await tx.remove('messages', m.id);
    }
    for (const campaignId of campaigns) {
      await moveSteps(tx, campaignId, contactId);
      await moveUnreachable(tx, campaignId, contactId);
    }
    for (const m of await tx.find<Membership>('memberships', 'contact', [contactId]))
      await tx.remove('memberships', m.id);
    for (const held of registered) await tx.remove('external_ids', held.id);
    await reassignInImports(tx, accountId, contactId, null);
    await unindexContactIn(tx, contact);
    await tx.remove('contacts', contactId);
    return { files: mediaIds, addresses };
  });
  // A file whose bytes outlive a crash here is one no record points at: nothing can read it, and the operator's
  // documented cleanup (README, erasure) removes it.
  for (const id of files) await gw.store.blobs.delete(accountId, id);
  await forgetDeadEntries(gw, accountId, [
    addresses.phone,
    addresses.email,
    addresses.fromId,
    ...Object.values(addresses.externalIds),
  ]);
}

/**
 * A provider's entry that could never be processed (a dead `inbound` job) is kept as it came for the operator to
 * read, the sender's number, name and words with it: one naming the contact goes too. Dead jobs are few (the operator
 * is alerted to each), so all of them are read.
 */
async function forgetDeadEntries(gw: Gateway, accountId: string, addresses: Array<string | null>): Promise<void> {
  const naming: string[] = [];
  for (let page = await gw.store.jobs.list('dead', { limit: 200 }); page.length; ) {
    for (const job of page)
      if (
        job.kind === 'inbound' &&
        job.accountId === accountId &&
        entryNames((job.data as InboundJob).entry, addresses)
      )
        naming.push(job.id);
    page = page.length < 200 ? [] : await gw.store.jobs.list('dead', { limit: 200, after: page.at(-1)!.id });
  }
  for (const id of naming) await gw.store.jobs.discard(id);
}

/** Registered IDs as addresses of the contact, each under a key of its own (an address is read by its value). */
const byId = (registered: ExternalId[]): Record<string, string> =>
  Object.fromEntries(registered.map((r) => [r.id, r.externalId]));

/**
 * Removes the contact's conversations with their follow-ups, its openings with their jobs, and the unanswered
 * questions of its conversations; answers the campaigns it was part of, whose per-contact records go too.
 */
async function forgetConversations(tx: Tx, contact: Contact, messages: Message[]): Promise<string[]> {
  const conversations = await conversationsOfContact(tx, contact.id);
  const campaigns = campaignsOfContact(conversations, await openingsOf(tx, contact.id), messages);
  for (const c of conversations) {
    await cancelFollowUps(tx, c);
    await removeConversation(tx, c);
  }
  await stopOpenings(tx, contact.id, 'erased');
  for (const o of await openingsOf(tx, contact.id)) await tx.remove('openings', o.id);
  for (const u of await questionsOfContact(tx, campaigns, messages)) await tx.remove('unanswered', u.id);
  return campaigns;
}
