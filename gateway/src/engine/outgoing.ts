import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { campaignById } from '../domain/campaigns.js';
import { addressOf, type Contact } from '../domain/contacts.js';
import { lastMessageOf, touchConversation, type Conversation } from '../domain/conversations.js';
import { spend } from '../domain/credits.js';
import { recordUnreachable } from '../domain/reach.js';
import { newMessage, queueReply, type Message } from '../domain/messages.js';
import { ApiError } from '../errors.js';
import type { WhatsAppTemplate } from '../providers/channels/channel-provider.js';
import type { Tx } from '../store/store.js';
import { deliveryFailed } from './events.js';
import { priceOf } from './prices.js';
import { inServiceWindow, reengagementTemplateFor } from './whatsapp.js';

export interface Outgoing {
  body: string;
  author: NonNullable<Message['author']>;
  campaignId?: string | null;
  /** An approved WhatsApp template to send instead of free text. */
  template?: WhatsAppTemplate | null;
}

export const optedOut = () => new ApiError(409, 'CONTACT_OPTED_OUT', 'The contact opted out (STOP): nothing more is sent until they reply START');

/** Why a message cannot go to a contact on a conversation's channel: it has no address there. */
function unreachable(conversation: Conversation): ApiError {
  const message = conversation.channel === 'custom'
    ? `The contact has no external ID on the custom channel "${conversation.customChannel ?? ''}": give the contact one (externalIds) to reach them there`
    : `The contact has no phone number: give the contact one to reach them on ${conversation.channel === 'sms' ? 'SMS' : 'WhatsApp'}`;
  return new ApiError(409, 'CONTACT_UNREACHABLE', message);
}

const OUTSIDE_WINDOW = "Outside WhatsApp's 24-hour customer-service window: only an approved template may be sent (set the campaign's reengagementTemplate)";

/**
 * The one way a message goes out on a conversation, whoever wrote it: a custom channel posts it to the account's
 * receivers (signed, retried); SMS and WhatsApp queue a send through the channel's provider. Written in the caller's
 * transaction, so the message, its charge and its sending commit together. Nothing but the gateway's own opt-out
 * answers goes to a contact who opted out. Free text on WhatsApp more than 24 hours after the contact's last message
 * goes as the campaign's re-engagement template, or is `skipped`. A sub-account without the credits it costs gets
 * it `failed` with INSUFFICIENT_CREDITS, and nothing is sent.
 */
export async function sendOnConversation(
  tx: Tx,
  gw: Gateway,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  out: Outgoing,
): Promise<{ message: Message; conversation: Conversation }> {
  if (contact.optOut && out.author !== 'system') throw optedOut();
  const campaignId = out.campaignId === undefined ? conversation.campaignId : out.campaignId;
  const fields = {
    accountId: account.id,
    contactId: contact.id,
    direction: 'outgoing' as const,
    body: out.body,
    channel: conversation.channel === 'custom' ? conversation.customChannel : conversation.channel,
    toId: addressOf(contact, conversation.channel, conversation.customChannel),
    campaignId,
    conversationId: conversation.id,
    author: out.author,
    template: out.template ?? null,
  };
  if (!fields.toId) throw unreachable(conversation);
  let message: Message;
  if (conversation.channel === 'whatsapp' && !fields.template && !inServiceWindow(conversation.lastIncomingAt, Date.now())) {
    const campaign = campaignId ? await campaignById(tx, campaignId) : undefined;
    fields.template = campaign ? reengagementTemplateFor(campaign, contact) : null;
    if (!fields.template) {
      message = await tx.insert('messages', newMessage({ ...fields, status: 'skipped', error: OUTSIDE_WINDOW, errorCode: 'OUTSIDE_24H_WINDOW' }));
      await recordUnreachable(tx, 'outside_whatsapp_window', message);
      return { message, conversation: await touchConversation(tx, conversation, { lastMessage: lastMessageOf(message) }) };
    }
  }
  const price = await priceOf(gw.config.prices, account, conversation.channel, fields);
  const balance = price > 0 ? (await tx.get<Account>('accounts', account.id))?.balanceCents ?? 0 : 0;
  if (price > balance) {
    const error = `Balance ${balance / 100} is below the message's price of ${price / 100} credits`;
    message = await tx.insert('messages', newMessage({ ...fields, status: 'failed', error, errorCode: 'INSUFFICIENT_CREDITS' }));
    await deliveryFailed(tx, message);
  } else if (conversation.channel === 'custom') {
    message = await queueReply(tx, account, contact, fields);
  } else {
    message = await tx.insert('messages', newMessage({ ...fields, status: 'pending' }));
    await tx.enqueue({ kind: 'send', data: { messageId: message.id }, accountId: account.id });
  }
  if (price > 0 && message.status !== 'failed') await spend(tx, account, price, { messageId: message.id, description: `${message.author} message on ${conversation.channelKey}` });
  // A failure counted on the conversation meanwhile (deliveryFailed) is kept: it is written anew from what is stored.
  const current = message.status === 'failed' ? ((await tx.get<Conversation>('conversations', conversation.id)) ?? conversation) : conversation;
  return { message, conversation: await touchConversation(tx, current, { lastMessage: lastMessageOf(message) }) };
}
