import { canAct } from '../api-contract.js';
import type { Gateway } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Page, Reader, Tx } from '../store/store.js';
import type { note } from '../contract/notes.js';
import type { Answer } from '../contract/shared.js';
import { getConversation } from './conversations.js';
import { noteChanged } from './inbox-changes.js';
import type { Actor } from './members.js';

/**
 * A note the team leaves on a conversation ("wants a quote by Friday"). Kept apart from messages, in a collection of
 * its own: nothing that reads messages (the contact's channel, the bot's context, events, receivers, credits, unread
 * counts, needs-reply, follow-ups, the funnel, the message lists) can meet one. It is data about the person all the
 * same: the contact's export shows it, its erasure removes it, its merge moves it.
 */
export interface Note {
  id: string;
  accountId: string;
  conversationId: string;
  contactId: string;
  text: string;
  /** The member who wrote it (the owner's member id for the owner's sign-in); null for the API key. */
  authorId: string | null;
  /** Their name as it was when they wrote: a note keeps its signature after its writer leaves the team. */
  authorName: string | null;
  createdAt: string;
}

export const publicNote = (n: Note): Answer<typeof note> => ({
  id: n.id,
  conversationId: n.conversationId,
  contactId: n.contactId,
  text: n.text,
  authorId: n.authorId,
  authorName: n.authorName,
  createdAt: n.createdAt,
});

/**
 * POST /v1/conversations/{id}/notes: the note, by `author` (null: the API key). The conversation is left as it is;
 * whoever shows it is told to read its notes again. `remember` keeps the answer in the note's own transaction, for an
 * Idempotency-Key to replay (idempotency.ts).
 */
export async function addNote(
  gw: Gateway,
  accountId: string,
  conversationId: string,
  text: string,
  author: Actor | null,
  remember?: (tx: Tx, note: Note) => Promise<void>,
): Promise<Note> {
  return gw.store.transact(async (tx) => {
    const conversation = await getConversation(tx, accountId, conversationId);
    const note = await tx.insert<Note>('notes', {
      id: newId('nte'),
      accountId,
      conversationId: conversation.id,
      contactId: conversation.contactId,
      text,
      authorId: author?.id ?? null,
      authorName: author?.name ?? null,
      createdAt: now(),
    });
    noteChanged(tx, accountId, conversation.id, note.id, 'created');
    await remember?.(tx, note);
    return note;
  });
}

/** The conversation's notes, oldest first; a page of them when `page` is given. */
export async function notesOf(r: Reader, accountId: string, conversationId: string, page?: Page): Promise<Note[]> {
  const conversation = await getConversation(r, accountId, conversationId);
  return r.find<Note>('notes', 'conversation', [conversation.id], page);
}

/** Who may delete a note: its author, and the owner and admins (the API key acts as the owner). */
const mayDelete = (actor: Actor, n: Note) => canAct(actor.role, 'admin') || n.authorId === actor.id;

/** DELETE /v1/conversations/{id}/notes/{noteId}: 404 for a note not of the conversation, 403 for another's note. */
export async function deleteNote(
  gw: Gateway,
  accountId: string,
  conversationId: string,
  noteId: string,
  actor: Actor,
): Promise<void> {
  await gw.store.transact(async (tx) => {
    const conversation = await getConversation(tx, accountId, conversationId);
    const found = await tx.get<Note>('notes', noteId);
    if (!found || found.conversationId !== conversation.id) throw notFound('Note');
    if (!mayDelete(actor, found))
      throw forbidden(
        'FORBIDDEN',
        `Only ${found.authorName ?? 'its author'}, an admin or the account's owner deletes this note; your role is ${actor.role}`,
      );
    await tx.remove('notes', found.id);
    noteChanged(tx, accountId, conversation.id, found.id, 'deleted');
  });
}

/** The contact's notes, on any of its conversations, oldest first: what its export shows and its erasure removes. */
export const notesOfContact = (r: Reader, contactId: string): Promise<Note[]> =>
  r.find<Note>('notes', 'contact', [contactId]);

/**
 * A merge: the duplicate's notes become the kept contact's, each on the conversation its own went to (`folded`: a
 * conversation folded into the kept contact's, by id; one not folded keeps its id).
 */
export async function moveNotes(tx: Tx, from: string, into: string, folded: Map<string, string>): Promise<void> {
  for (const n of await notesOfContact(tx, from))
    await tx.update<Note>('notes', n.id, {
      contactId: into,
      conversationId: folded.get(n.conversationId) ?? n.conversationId,
    });
}
