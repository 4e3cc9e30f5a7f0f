import type { Tx } from '../store/store.js';
import { awaitingOf, waitBegan, waitsForPerson, type Conversation } from './conversations.js';
import { earlierWait } from './handoff-waits.js';
import type { Message } from './messages.js';

/**
 * A conversation as an earlier release stored it, given the fields this release derives and reads: the author of
 * its last message (0.1.0 kept none there, and needsReply reads it), `awaiting` by today's needsReply (0.1.0 decided
 * it by another rule), and when the contact was last told a person will answer (0.1.0 told them at every request
 * for a person, without keeping when). Returns the changes, none when it is up to date; `updatedAt` is left as it
 * was: nothing happened in the conversation.
 */
export async function upgradedFields(tx: Tx, c: Conversation): Promise<Partial<Conversation> | undefined> {
  const patch: Partial<Conversation> = {};
  let last = c.lastMessage;
  if (last && !('author' in last)) {
    const message = await tx.get<Message>('messages', last.id);
    last = { ...last, author: message?.author ?? null, authorName: message?.authorName ?? null };
    patch.lastMessage = last;
  }
  const awaiting = awaitingOf({ status: c.status, lastMessage: last });
  if ((c.awaiting ?? null) !== awaiting) patch.awaiting = awaiting;
  // A hand-off the contact asked for was told at once, in its own transaction.
  if (c.handoffNoticeAt === undefined && c.handoff?.reason === 'contact_asked') patch.handoffNoticeAt = c.handoff.at;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** Writes what upgradedFields finds missing; whether anything was. */
export async function upgradeConversation(tx: Tx, c: Conversation): Promise<boolean> {
  const patch = await upgradedFields(tx, c);
  if (patch) await tx.update<Conversation>('conversations', c.id, patch);
  return patch !== undefined;
}

/**
 * Times the wait of a contact an earlier release left waiting for a person, which it did not time: from when it began
 * (waitBegan), its reminder queued. Whether it was one such.
 */
export async function timeEarlierWait(tx: Tx, c: Conversation): Promise<boolean> {
  if (c.waitingSince || !waitsForPerson(c)) return false;
  await tx.update<Conversation>('conversations', c.id, await earlierWait(tx, c, await waitBegan(tx, c)));
  return true;
}
