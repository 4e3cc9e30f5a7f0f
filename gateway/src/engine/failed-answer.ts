import type { Account } from '../domain/accounts.js';
import { campaignById } from '../domain/campaigns.js';
import type { Contact } from '../domain/contacts.js';
import type { Conversation } from '../domain/conversations.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { Message } from '../domain/messages.js';
import { ApiError } from '../errors.js';
import { handOff, tellHandoff } from './handoff.js';
import type { Engine } from './ports/providers.js';

/** Whether the bot's answer `messageId` is still the last word of a conversation the bot has. */
const lastWord = (c: Conversation, messageId: string) =>
  c.lastMessage?.id === messageId && c.status === 'active' && c.bot.active;

/** The bot's failed answer that is the conversation's last word, if it is one: the team answers it instead. */
export const failedAnswerOf = (c: Conversation): string | undefined =>
  c.lastMessage?.author === 'bot' && c.lastMessage.status === 'failed' && lastWord(c, c.lastMessage.id)
    ? c.lastMessage.id
    : undefined;

/**
 * Job `reply_failed`: the bot's answer failed for good (no receiver of a custom channel's replies, the provider or
 * every receiver gave up), at once or hours later. The contact heard nothing, and the bot cannot tell: the team
 * answers instead. The conversation is handed off (`reply_failed`, with the contact's message the bot answered): the
 * team is told as of any hand-off, and the contact is told a person will answer, on the channel that failed (that
 * notice may fail too: the conversation needs a reply either way), unless nobody can write to them there any more.
 * Nothing when the answer is no longer the conversation's latest word (the contact or a person wrote since), it went
 * on a retry meanwhile, or the bot no longer has the conversation.
 */
export async function runReplyFailed(gw: Engine, { messageId }: JobKinds['reply_failed']): Promise<void> {
  await gw.store.transact(async (tx) => {
    const answer = await tx.get<Message>('messages', messageId);
    if (answer?.status !== 'failed' || !answer.conversationId) return;
    const conversation = await tx.get<Conversation>('conversations', answer.conversationId);
    if (!conversation || !lastWord(conversation, messageId)) return;
    const [account, contact, campaign, asked] = await Promise.all([
      tx.get<Account>('accounts', conversation.accountId),
      tx.get<Contact>('contacts', conversation.contactId),
      answer.campaignId ? campaignById(tx, answer.campaignId) : undefined,
      conversation.botAnsweredId ? tx.get<Message>('messages', conversation.botAnsweredId) : undefined,
    ]);
    if (!account || !contact) return;
    const told = await tellHandoff(tx, gw, account, contact, conversation, campaign).catch((err: unknown) => {
      // Its address there was taken off since: nobody can write to them on it, and the team must know all the more.
      if (err instanceof ApiError && err.code === 'CONTACT_UNREACHABLE') return conversation;
      throw err;
    });
    await handOff(tx, account, told, 'reply_failed', asked?.body || null);
  });
}
