import type { Tx } from '../store/store.js';
import { conversationsOfContact, updateConversation, type Conversation } from './conversations.js';

/**
 * One timer per conversation and step. The step is part of the key because a running job still holds its key
 * while it queues the next step; the conversation's `next` names the one waiting, so it can be cancelled.
 */
export const followUpKey = (conversationId: string, step: number) => `follow_up:${conversationId}:${step}`;

/** A reply, a hand-off or an opt-out: no follow-up goes out on this conversation any more. */
export async function cancelFollowUps(tx: Tx, conversation: Conversation): Promise<Conversation> {
  const next = conversation.next;
  if (next?.kind !== 'follow_up' && next?.kind !== 'close') return conversation;
  await tx.cancelJobs(followUpKey(conversation.id, next.step!));
  return updateConversation(tx, conversation, { next: null, followUpHeld: null });
}

/**
 * No follow-up goes to the contact on its conversations that `which` names (all of them unless told): the lead
 * wrote or reacted, or left the campaigns' list. Answers the contact's conversations as they were read.
 */
export async function cancelContactFollowUps(
  tx: Tx,
  contactId: string,
  which: (c: Conversation) => boolean = () => true,
): Promise<Conversation[]> {
  const conversations = await conversationsOfContact(tx, contactId);
  for (const c of conversations) if (which(c)) await cancelFollowUps(tx, c);
  return conversations;
}
