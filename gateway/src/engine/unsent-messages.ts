import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { lastMessageOf, updateConversation, type Conversation } from '../domain/conversations.js';
import { bySid, type Message } from '../domain/messages.js';
import { now } from '../ids.js';
import type { UnsentMessage } from './ports/channel-provider.js';

/**
 * A message the contact deleted ("unsent") on Messenger or Instagram: what they took back is not kept. Its text and
 * file are cleared and it stays in its place as `deleted`, so the conversation (the inbox, the bot's reading of it)
 * no longer holds what they wrote; the conversation's last message, when it was that one, shows it deleted. Only the
 * contact's own message is: a deletion naming another's changes nothing.
 */
export async function withdrawMessage(gw: Gateway, account: Account, unsent: UnsentMessage): Promise<void> {
  await gw.store.transact(async (tx) => {
    const message = await bySid(tx, account.id, unsent.providerMessageId);
    const theirs =
      message?.direction === 'incoming' && message.channel === unsent.channel && message.fromId === unsent.from;
    if (!theirs || message.status === 'deleted') return;
    const withdrawn = await tx.update<Message>('messages', message.id, {
      body: '',
      media: null,
      status: 'deleted',
      updatedAt: now(),
    });
    const conversation = message.conversationId
      ? await tx.get<Conversation>('conversations', message.conversationId)
      : undefined;
    if (conversation?.lastMessage?.id === message.id)
      await updateConversation(tx, conversation, { lastMessage: lastMessageOf(withdrawn) });
  });
}
