import { MAX_CUSTOM_FIELDS, MAX_EXTERNAL_IDS, type FieldProblem } from '../api-contract.js';
import type { Gateway } from '../context.js';
import { audit, contactTarget, type AuditBy } from '../domain/audit-log.js';
import { deliveriesOfContact } from '../domain/contact-export.js';
import { registrationsOf, type ExternalId } from '../domain/contact-identity.js';
import { unindexContactIn } from '../domain/contact-search.js';
import { updateContact } from '../domain/contact-writes.js';
import { getContact, type Contact } from '../domain/contacts.js';
import { foldConversation } from '../domain/conversation-fold.js';
import {
  conversationsOfContact,
  removeConversation,
  updateConversation,
  type Conversation,
} from '../domain/conversations.js';
import { moveSteps } from '../domain/funnel.js';
import { cancelFollowUps } from '../domain/follow-up-timers.js';
import { moveAnswersNaming } from '../domain/idempotency.js';
import { reassignInImports } from '../domain/imports.js';
import type { Membership } from '../domain/lists.js';
import type { Message } from '../domain/messages.js';
import { moveNotes } from '../domain/notes.js';
import { openingKey, openingsOf, stateOf, type Opening } from '../domain/openings.js';
import { campaignById, stopped } from '../domain/campaigns.js';
import { followUpFrom, scheduleFollowUp } from './follow-ups.js';
import { keepOptOut } from '../domain/erased-opt-outs.js';
import { forgetFailedOpening } from '../domain/failed-openings.js';
import { holdOptOut, releaseOptOut } from '../domain/opt-out-hold.js';
import { forgetUnreachable, isUnreachableReason, moveUnreachable } from '../domain/reach.js';
import type { Unanswered } from '../domain/unanswered.js';
import type { Delivery } from '../domain/webhooks.js';
import { ApiError, fieldError } from '../errors.js';
import { now } from '../ids.js';
import type { Tx } from '../store/store.js';

/**
 * POST /v1/contacts/{id}/merge {"contactId"}: the other contact (a duplicate) becomes this one. Its conversations,
 * messages, the team's notes, lists, openings, funnel records, deliveries, rows in import reports, answers kept for an
 * Idempotency-Key and external IDs move here; a conversation on a channel this contact has one on too is folded into
 * that one. This contact keeps its own names, phone, email and custom fields and takes the other's where it has none;
 * the other is gone, so one contact is left per phone and email. The person's latest word holds for the merged contact:
 * a STOP of either, unless a START of either came after it.
 */
export async function mergeContacts(
  gw: Gateway,
  accountId: string,
  id: string,
  otherId: string,
  by?: AuditBy,
): Promise<Contact> {
  if (id === otherId)
    throw fieldError('contactId', 'is this contact itself: name the duplicate to merge into it', 'SAME_CONTACT');
  return gw.store.transact(async (tx) => {
    const keep = await getContact(tx, accountId, id);
    const other = await getContact(tx, accountId, otherId);
    const fields = mergedFields(keep, other);
    refuseOverLimits(keep, fields);
    await audit(tx, by, 'contact.merged', contactTarget(id), { duplicateId: otherId });
    const messages = await tx.find<Message>('messages', 'contact', [otherId]);
    const { folded, campaigns } = await moveConversations(tx, keep, other);
    for (const d of await deliveriesOfContact(tx, otherId, messages)) {
      if (d.contactId === otherId) await tx.update<Delivery>('deliveries', d.id, { contactId: id });
    }
    for (const m of messages) {
      if (m.campaignId) campaigns.add(m.campaignId);
      await tx.update<Message>('messages', m.id, {
        contactId: id,
        conversationId: (m.conversationId && folded.get(m.conversationId)) ?? m.conversationId,
      });
    }
    await moveNotes(tx, otherId, id, folded);
    for (const campaignId of campaigns) {
      await moveSteps(tx, campaignId, otherId, id);
      await moveUnreachable(tx, campaignId, otherId, id);
    }
    for (const m of await tx.find<Membership>('memberships', 'contact', [otherId])) {
      const [there] = await tx.find<Membership>('memberships', 'member', [m.listId, id]);
      if (there) await tx.remove('memberships', m.id);
      else await tx.update<Membership>('memberships', m.id, { contactId: id });
    }
    // Every ID of the other, those it took from a duplicate before among them, finds this contact from now on.
    for (const held of await registrationsOf(tx, otherId))
      await tx.update<ExternalId>('external_ids', held.id, { contactId: id });
    await reassignInImports(tx, accountId, otherId, id);
    await moveAnswersNaming(tx, otherId, id);
    await unindexContactIn(tx, other);
    // The other's phone and IDs are free for this contact only once the other is gone: they are unique.
    await tx.remove('contacts', otherId);
    const merged = await updateContact(tx, keep, fields);
    if (merged.optOut) {
      // Opted out, by its own STOP or the other's: the conversations it took from the other too, and the other's
      // addresses it did not take (a second phone) stay opted out.
      await holdOptOut(tx, id);
      await keepOptOut(tx, other, merged.optOut, merged);
    } else if (keep.optOut || other.optOut) await releaseOptOut(tx, merged);
    return merged;
  });
}

/**
 * Creation and correction keep a contact within 50 custom fields and 20 external IDs; two contacts together may hold
 * more. Rather than drop some of the person's data unasked, the merge is refused, naming each limit passed, and
 * nothing moves: the user removes what is not needed from either contact and merges again. A contact already past a
 * limit (merged before the rule) may still take a duplicate that adds nothing there.
 */
function refuseOverLimits(keep: Contact, merged: Partial<Contact>): void {
  const problems: FieldProblem[] = [];
  const check = (field: 'customFields' | 'externalIds', what: string, max: number) => {
    const count = Object.keys(merged[field] ?? {}).length;
    if (count <= max || count <= Object.keys(keep[field] ?? {}).length) return;
    const message = `the merged contact would hold ${count} ${what}, and a contact holds at most ${max}: remove ${count - max} from either contact first`;
    problems.push({ field, code: 'TOO_MANY', message, limit: max });
  };
  check('customFields', 'custom fields', MAX_CUSTOM_FIELDS);
  check('externalIds', 'external IDs', MAX_EXTERNAL_IDS);
  if (problems.length)
    throw new ApiError(
      409,
      'MERGE_TOO_LARGE',
      problems.map((p) => `${p.field}: ${p.message}`).join('; '),
      {},
      problems,
    );
}

/** This contact's fields where it has them, the other's where it has none. */
function mergedFields(keep: Contact, other: Contact): Partial<Contact> {
  const phone = keep.phone ?? other.phone;
  const email = keep.email ?? other.email;
  const externalIds = { ...other.externalIds, ...keep.externalIds };
  const hasIds = Boolean(keep.fromId ?? other.fromId) || Object.keys(externalIds).length > 0;
  const later = (a?: Contact['optIn'], b?: Contact['optIn']) => (a && b ? (a.at >= b.at ? a : b) : (a ?? b ?? null));
  const optOut = later(keep.optOut, other.optOut);
  const optIn = later(keep.optIn, other.optIn);
  return {
    firstName: keep.firstName ?? other.firstName,
    lastName: keep.lastName ?? other.lastName,
    phone,
    email,
    emailOnly: phone || hasIds ? null : email,
    fromId: keep.fromId ?? other.fromId,
    ...(Object.keys(externalIds).length ? { externalIds } : {}),
    customFields: { ...other.customFields, ...keep.customFields },
    // The two are one person, whose latest word counts: a STOP of either holds, unless a START came after it.
    optOut: optOut && optIn && optIn.at > optOut.at ? null : optOut,
    optIn,
    updatedAt: now(),
  };
}

/**
 * The other's conversations become this contact's; one on a channel this contact has a conversation on is folded
 * into it (its messages, openings and unanswered questions go there). Answers the folded ids and the campaigns seen.
 */
async function moveConversations(
  tx: Tx,
  keep: Contact,
  other: Contact,
): Promise<{ folded: Map<string, string>; campaigns: Set<string> }> {
  const went = await stopOpeningsSentToOther(tx, keep, other);
  const mine = new Map((await conversationsOfContact(tx, keep.id)).map((c) => [c.channelKey, c]));
  const folded = new Map<string, string>();
  const campaigns = new Set<string>();
  const theirs: Conversation[] = await conversationsOfContact(tx, other.id);
  for (const c of theirs) {
    if (c.campaignId) campaigns.add(c.campaignId);
    const there = mine.get(c.channelKey);
    if (!there) {
      await updateConversation(tx, c, { contactId: keep.id });
      continue;
    }
    folded.set(c.id, there.id);
    await cancelFollowUps(tx, c);
    const into = await foldConversation(tx, there, c);
    await removeConversation(tx, c);
    const opening = went.find((o) => o.conversationId === c.id);
    if (opening) await followOnFrom(tx, opening, c, into);
  }
  const keptOpenings = new Map((await openingsOf(tx, keep.id)).map((o) => [o.campaignId, o]));
  for (const o of await openingsOf(tx, other.id)) {
    campaigns.add(o.campaignId);
    const kept = keptOpenings.get(o.campaignId);
    if (kept) {
      // A campaign opens a conversation with a contact once: this contact's opening stands.
      await dropOpening(tx, o, kept.status === 'sent');
    } else {
      const moved = await tx.update<Opening>('openings', o.id, {
        contactId: keep.id,
        conversationId: folded.get(o.conversationId) ?? o.conversationId,
      });
      const into = folded.get(o.conversationId);
      const conversation = into ? await tx.get<Conversation>('conversations', into) : undefined;
      // This contact's opening of the campaign, still waiting, was dropped for it: the conversation shows it.
      if (conversation?.opening?.campaignId === o.campaignId)
        await updateConversation(tx, conversation, { opening: stateOf(moved) });
    }
  }
  for (const campaignId of campaigns) {
    for (const u of await tx.find<Unanswered>('unanswered', 'campaign', [campaignId])) {
      const into = folded.get(u.conversationId);
      if (into) await tx.update<Unanswered>('unanswered', u.id, { conversationId: into });
    }
  }
  return { folded, campaigns };
}

/**
 * A campaign opens a conversation with a person once. Where its opening went to the duplicate and this contact's has
 * not (it waits for a delay, the campaign's pace, a sending window or a pause; or it failed, for want of credits, to
 * be retried), the one that went stands: the other is dropped before the duplicate's moves here, or the person would
 * be greeted twice (a failed one's message stays, and a retry refuses it). Answers the duplicate's openings that went
 * and now stand.
 */
async function stopOpeningsSentToOther(tx: Tx, keep: Contact, other: Contact): Promise<Opening[]> {
  const notSent = new Map(
    (await openingsOf(tx, keep.id)).filter((o) => o.status !== 'sent').map((o) => [o.campaignId, o]),
  );
  const went: Opening[] = [];
  for (const o of await openingsOf(tx, other.id)) {
    const mine = notSent.get(o.campaignId);
    if (o.status !== 'sent' || !mine) continue;
    await dropOpening(tx, mine, true);
    const conversation = await tx.get<Conversation>('conversations', mine.conversationId);
    if (conversation?.next?.kind === 'opening') await updateConversation(tx, conversation, { next: null });
    went.push(o);
  }
  return went;
}

/**
 * An opening of a campaign that the merged contact has another of: gone with its job, and no longer among the
 * campaign's failed openings to retry. When the person was `reached` under the other, one skipped for want of a
 * phone (say) is no longer counted unreachable.
 */
async function dropOpening(tx: Tx, opening: Opening, reached: boolean): Promise<void> {
  await tx.cancelJobs(openingKey(opening.id));
  await tx.remove('openings', opening.id);
  if (opening.messageId) await forgetFailedOpening(tx, opening.messageId);
  if (reached && opening.status === 'skipped' && isUnreachableReason(opening.reason))
    await forgetUnreachable(tx, opening.reason, opening);
}

/**
 * The duplicate's conversation that the campaign's opening went on is folded into this contact's: the follow-ups
 * waiting for an answer to it go on there, as they would have (unless the contact wrote there since it went).
 */
async function followOnFrom(tx: Tx, opening: Opening, from: Conversation, into: Conversation): Promise<void> {
  const next = from.next;
  if ((next?.kind !== 'follow_up' && next?.kind !== 'close') || into.next || into.status !== 'active') return;
  const since = followUpFrom(from);
  if (since === undefined || Date.parse(into.lastIncomingAt ?? '') > since) return;
  const campaign = await campaignById(tx, opening.campaignId);
  if (campaign?.status === 'live' && !from.followUpHeld)
    await scheduleFollowUp(tx, campaign, into, next.step ?? 0, since);
  else if (stopped(campaign) || from.followUpHeld)
    await updateConversation(tx, into, {
      next,
      followUpHeld: from.followUpHeld ?? null,
      followUpFrom: from.followUpFrom ?? null,
    });
}
