import type { Gateway } from '../context.js';
import { now } from '../ids.js';
import { getConversation, updateConversation, type Conversation } from './conversations.js';

/**
 * POST /v1/conversations/{id}/read: the account has read the conversation up to now. Its unread count, which each
 * message from the contact raises in the transaction that stores it, starts again from zero.
 */
export async function markRead(gw: Gateway, accountId: string, conversationId: string): Promise<Conversation> {
  return gw.store.transact(async (tx) => {
    const conversation = await getConversation(tx, accountId, conversationId);
    return updateConversation(tx, conversation, { unread: 0, lastReadAt: now() });
  });
}
