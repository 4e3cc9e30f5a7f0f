import { now } from '../ids.js';
import type { Reader } from '../store/store.js';
import { registrationsOf } from './contact-identity.js';
import { getContact, publicContact, type Contact } from './contacts.js';
import { conversationAnswer, conversationsOfContact, type Conversation } from './conversations.js';
import { stepsOf } from './funnel.js';
import { importsNaming, rowsNaming } from './imports.js';
import { listsOfContact } from './lists.js';
import type { Media } from './media.js';
import { deliveriesOf, publicMessage, type Message } from './messages.js';
import { notesOfContact, publicNote } from './notes.js';
import { openingsOf, stateOf, type Opening } from './openings.js';
import { unreachableReasonsOf } from './reach.js';
import type { Unanswered } from './unanswered.js';
import { OWNER_TARGET, type Delivery } from './webhooks.js';
import type { contactExport } from '../contract/contact-export.js';
import type { Answer } from '../contract/shared.js';

/** The deliveries about a contact: those naming it, and those of its messages stored before deliveries named it. */
export async function deliveriesOfContact(r: Reader, contactId: string, messages: Message[]): Promise<Delivery[]> {
  const found = new Map<string, Delivery>();
  for (const d of await r.find<Delivery>('deliveries', 'contact', [contactId])) found.set(d.id, d);
  for (const batch of await Promise.all(messages.map((m) => deliveriesOf(r, m.id))))
    for (const d of batch) found.set(d.id, d);
  return [...found.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** The campaigns the contact was part of: those of its conversations, its opening messages and its messages. */
export function campaignsOfContact(conversations: Conversation[], openings: Opening[], messages: Message[]): string[] {
  const campaigns = new Set<string>();
  for (const c of conversations) {
    if (c.campaignId) campaigns.add(c.campaignId);
    if (c.opening?.campaignId) campaigns.add(c.opening.campaignId);
  }
  for (const o of openings) campaigns.add(o.campaignId);
  for (const m of messages) if (m.campaignId) campaigns.add(m.campaignId);
  return [...campaigns];
}

/** The contact's messages its campaigns' bots could not answer (domain/unanswered.ts). */
export async function questionsOfContact(r: Reader, campaigns: string[], messages: Message[]): Promise<Unanswered[]> {
  const asked = new Set(messages.map((m) => m.id));
  const found = await Promise.all(campaigns.map((id) => r.find<Unanswered>('unanswered', 'campaign', [id])));
  return found.flat().filter((u) => asked.has(u.messageId));
}

/** What each campaign the contact was part of recorded about it: its opening, its funnel steps, its reach. */
async function campaignRecords(r: Reader, contactId: string, campaigns: string[], openings: Opening[]) {
  return Promise.all(
    campaigns.map(async (id) => {
      const opening = openings.find((o) => o.campaignId === id);
      const [steps, unreachable] = await Promise.all([
        stepsOf(r, id, contactId),
        unreachableReasonsOf(r, id, contactId),
      ]);
      return {
        id,
        opening: opening ? { status: opening.status, reason: opening.reason, at: stateOf(opening).at } : null,
        steps: steps.map((s) => ({ step: s.step, at: s.at })),
        unreachable,
      };
    }),
  );
}

/**
 * Every address the contact is found by: its phone, its email, the IDs it shows by label, and those it took from a
 * duplicate on a label where it kept its own (engine/merge-contacts.ts), which find it without being shown.
 */
async function identifiersOf(r: Reader, contact: Contact): Promise<Answer<typeof contactExport>['identifiers']> {
  // By label: the store keeps no order among them (PostgreSQL's jsonb sorts an object's keys its own way).
  const shown = Object.entries(contact.externalIds ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, value]) => ({ value, label: label as string | null }));
  const registered = (await registrationsOf(r, contact.id)).map((x) => x.externalId);
  const ids = [...shown];
  for (const value of [...registered, contact.fromId])
    if (value && !ids.some((id) => id.value === value)) ids.push({ value, label: null });
  return [
    ...(contact.phone ? [{ kind: 'phone' as const, value: contact.phone, label: null }] : []),
    ...(contact.email ? [{ kind: 'email' as const, value: contact.email, label: null }] : []),
    ...ids.map((id) => ({ kind: 'externalId' as const, ...id })),
  ];
}

/**
 * GET /v1/contacts/{id}/export: everything the account holds about the contact, in one JSON document: the contact,
 * every address it is found by, its conversations and messages, the team's notes on them, its files as links, its
 * lists, the rows of import reports naming it, what its campaigns recorded about it and the questions their bots could
 * not answer, its consent, and the deliveries of events about it: all its erasure removes (engine/erase-contact.ts).
 */
export async function exportContact(r: Reader, accountId: string, id: string): Promise<Answer<typeof contactExport>> {
  const contact = await getContact(r, accountId, id);
  const [conversations, messages, notes, lists, identifiers, imports] = await Promise.all([
    conversationsOfContact(r, id),
    r.find<Message>('messages', 'contact', [id]),
    notesOfContact(r, id),
    listsOfContact(r, id),
    identifiersOf(r, contact),
    importsNaming(r, accountId, id),
  ]);
  const openings = await openingsOf(r, id);
  const campaigns = campaignsOfContact(conversations, openings, messages);
  const [deliveries, media, records, questions] = await Promise.all([
    deliveriesOfContact(r, id, messages),
    Promise.all(messages.map((m) => (m.media?.mediaId ? r.get<Media>('media', m.media.mediaId) : undefined))),
    campaignRecords(r, id, campaigns, openings),
    questionsOfContact(r, campaigns, messages),
  ]);
  const consent = [
    ...(contact.optOut ? [{ change: 'opt_out' as const, ...contact.optOut }] : []),
    ...(contact.optIn ? [{ change: 'opt_in' as const, ...contact.optIn }] : []),
  ].sort((a, b) => a.at.localeCompare(b.at));
  return {
    exportedAt: now(),
    contact: publicContact(contact),
    identifiers,
    conversations: await Promise.all(conversations.map((c) => conversationAnswer(r, c, contact))),
    messages: messages.map((m) => publicMessage(m)),
    notes: notes.map(publicNote),
    files: messages.flatMap((m, i) => {
      if (!m.media) return [];
      const kept = media[i];
      return [
        {
          id: kept?.id ?? null,
          messageId: m.id,
          url: m.media.url,
          contentType: m.media.contentType,
          size: kept?.size ?? null,
          createdAt: kept?.createdAt ?? m.createdAt,
        },
      ];
    }),
    lists: lists.map((m) => ({ id: m.list.id, name: m.list.name, addedAt: m.addedAt, source: m.source })),
    imports: imports.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((report) => rowsNaming(report, id)),
    campaigns: records,
    unanswered: questions.map((u) => ({
      campaignId: u.campaignId,
      messageId: u.messageId,
      question: u.question,
      at: u.at,
    })),
    consent,
    deliveries: deliveries.map((d) => ({
      id: d.id,
      event: d.event,
      messageId: d.messageId,
      target: d.target === OWNER_TARGET ? 'customChannelWebhook' : d.target,
      url: d.url,
      status: d.status,
      payload: d.payload,
      attempts: d.attempts,
      nextAttemptAt: d.nextAttemptAt ?? null,
      createdAt: d.createdAt,
    })),
  };
}
