import type { Account } from '../domain/accounts.js';
import type { Contact } from '../domain/contacts.js';
import { lastMessageOf, touchConversation, type Conversation } from '../domain/conversations.js';
import { newMessage, queueReply, type Message } from '../domain/messages.js';
import { ApiError } from '../errors.js';
import type { WhatsAppTemplate } from '../providers/channels/channel-provider.js';
import type { Tx } from '../store/store.js';

export interface Outgoing {
  body: string;
  author: NonNullable<Message['author']>;
  campaignId?: string | null;
  /** An approved WhatsApp template to send instead of free text. */
  template?: WhatsAppTemplate | null;
}

export const optedOut = () => new ApiError(409, 'CONTACT_OPTED_OUT', 'The contact opted out (STOP): nothing more is sent until they reply START');

/**
 * The one way a message goes out on a conversation, whoever wrote it: a custom channel posts it to the account's
 * receivers (signed, retried); SMS and WhatsApp queue a send through the channel's provider. Written in the caller's
 * transaction, so the message and its sending commit together. Nothing but the gateway's own opt-out answers goes to
 * a contact who opted out.
 */
export async function sendOnConversation(
  tx: Tx,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  out: Outgoing,
): Promise<{ message: Message; conversation: Conversation }> {
  if (contact.optOut && out.author !== 'system') throw optedOut();
  const campaignId = out.campaignId === undefined ? conversation.campaignId : out.campaignId;
  let message: Message;
  if (conversation.channel === 'custom') {
    message = await queueReply(tx, account, contact, {
      body: out.body,
      channel: conversation.customChannel,
      campaignId,
      conversationId: conversation.id,
      author: out.author,
    });
  } else {
    message = await tx.insert('messages', newMessage({
      accountId: account.id,
      contactId: contact.id,
      direction: 'outgoing',
      body: out.body,
      status: 'pending',
      toId: contact.phone,
      channel: conversation.channel,
      campaignId,
      conversationId: conversation.id,
      author: out.author,
      template: out.template ?? null,
    }));
    await tx.enqueue({ kind: 'send', data: { messageId: message.id }, accountId: account.id });
  }
  return { message, conversation: await touchConversation(tx, conversation, { lastMessage: lastMessageOf(message) }) };
}
