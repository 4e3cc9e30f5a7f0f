import { answersOnly } from '../api-contract.js';
import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { campaignById, getCampaign } from '../domain/campaigns.js';
import { contactForExternalId } from '../domain/contact-identity.js';
import { addressOf, type Contact } from '../domain/contacts.js';
import { conversationFor, lastMessageOf, touchConversation, type Conversation } from '../domain/conversations.js';
import type { Actor } from '../domain/members.js';
import { newMessage, type Message } from '../domain/messages.js';
import { recordUnreachable } from '../domain/reach.js';
import { reengagementTemplateFor, type WhatsAppTemplate } from '../domain/whatsapp.js';
import { ApiError } from '../errors.js';
import type { Tx } from '../store/store.js';
import { changeStatus } from '../domain/message-status-change.js';
import { countedAnswer } from '../domain/bot-reply-limit.js';
import {
  checkConsent,
  handOver,
  messageTagOf,
  outsideWindow,
  outsideWindowMessage,
  readyToGo,
  receiversFor,
} from './sending.js';

export interface Outgoing {
  body: string;
  author: NonNullable<Message['author']>;
  /** The person of the team who wrote a team reply. */
  by?: Actor;
  campaignId?: string | null;
  /** An approved WhatsApp template to send instead of free text. */
  template?: WhatsAppTemplate | null;
  /**
   * What goes instead when the account cannot pay for this message (INSUFFICIENT_CREDITS): this one is then neither
   * stored nor charged, so no unpaid copy waits to be retried. Without it, the message is stored `failed`.
   */
  unpaid?: Outgoing;
}

/** Why a message cannot go to a contact on a conversation's channel: it has no address there. */
function unreachable(conversation: Conversation): ApiError {
  const { channel } = conversation;
  const message =
    channel === 'custom'
      ? `The contact has no external ID on the custom channel "${conversation.customChannel ?? ''}": give the contact one (externalIds) to reach them there`
      : answersOnly(channel)
        ? `The contact has not written on ${channel === 'messenger' ? 'Messenger' : 'Instagram'}: a business may only answer there`
        : `The contact has no phone number: give the contact one to reach them on ${channel === 'sms' ? 'SMS' : 'WhatsApp'}`;
  return new ApiError(409, 'CONTACT_UNREACHABLE', message);
}

/**
 * The one way a new message goes out on a conversation, whoever wrote it, under the rules of sending.ts: written in
 * the caller's transaction, so the message, its charge and its hand-over commit together. Free text on WhatsApp more
 * than 24 hours after the contact's last message goes as the campaign's re-engagement template, or is `skipped`. A
 * message that cannot go (no credits: INSUFFICIENT_CREDITS, no receiver: NO_RECEIVER) is stored `failed`, and
 * nothing is sent; one the account cannot pay for goes as its `unpaid` alternative where it has one (`unpaid`
 * answered true).
 */
export async function sendOnConversation(
  tx: Tx,
  gw: Gateway,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  out: Outgoing,
): Promise<{ message: Message; conversation: Conversation; unpaid?: true }> {
  checkConsent(contact, out.author);
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
    authorId: out.by?.id ?? null,
    authorName: out.by?.name ?? null,
    template: out.template ?? null,
  };
  if (!fields.toId) throw unreachable(conversation);
  if (outsideWindow(conversation, fields)) {
    const campaign = campaignId && conversation.channel === 'whatsapp' ? await campaignById(tx, campaignId) : undefined;
    fields.template = campaign ? reengagementTemplateFor(campaign, contact) : null;
    if (!fields.template) {
      const error = outsideWindowMessage(conversation.channel);
      const message = await tx.insert(
        'messages',
        newMessage({ ...fields, status: 'skipped', error, errorCode: 'OUTSIDE_24H_WINDOW' }),
      );
      await recordUnreachable(
        tx,
        conversation.channel === 'whatsapp' ? 'outside_whatsapp_window' : 'outside_meta_window',
        message,
      );
      return {
        message,
        conversation: await touchConversation(tx, conversation, { lastMessage: lastMessageOf(message) }),
      };
    }
  }
  const pending = newMessage({ ...fields, messageTag: messageTagOf(conversation, fields), status: 'pending' });
  const receivers = await receiversFor(tx, account, conversation);
  // Paid for before it is stored, so that an unpaid message with something free to send instead leaves no trace.
  const refused = await readyToGo(tx, gw, account, conversation, pending, receivers, true);
  if (refused?.code === 'INSUFFICIENT_CREDITS' && out.unpaid)
    return { ...(await sendOnConversation(tx, gw, account, contact, conversation, out.unpaid)), unpaid: true };
  let message = await tx.insert('messages', pending);
  if (refused)
    message = await changeStatus(tx, message, { status: 'failed', error: refused.message, errorCode: refused.code });
  else await handOver(tx, account, conversation, message, receivers);
  // A failure counted on the conversation meanwhile (changeStatus) is kept: it is written anew from what is stored.
  const current =
    message.status === 'failed'
      ? ((await tx.get<Conversation>('conversations', conversation.id)) ?? conversation)
      : conversation;
  // The bot's answers that go are counted on the conversation, in the same write: past the account's limit within an
  // hour, the team takes it (bot-reply.ts).
  const counted = countedAnswer(account, current, message);
  return {
    message,
    conversation: await touchConversation(tx, current, { lastMessage: lastMessageOf(message), ...counted }),
  };
}

export interface SendInput {
  fromId: string;
  customChannel: string;
  body: string;
  campaignId?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
}

/** Spec §4.4: sends a message through a custom channel to the contact known by fromId. */
export async function sendMessage(
  gw: Gateway,
  account: Account,
  input: SendInput,
  remember?: (tx: Tx, made: { message: Message; contact: Contact }) => Promise<void>,
): Promise<{ message: Message; contact: Contact }> {
  return gw.store.transact(async (tx) => {
    if (input.campaignId) await getCampaign(tx, account.id, input.campaignId);
    const contact = await contactForExternalId(tx, account, input.customChannel, input.fromId, input, true);
    const conversation = await conversationFor(tx, contact, 'custom', input.customChannel, input.campaignId ?? null);
    const { message } = await sendOnConversation(tx, gw, account, contact, conversation, {
      body: input.body,
      author: 'api',
      campaignId: input.campaignId ?? null,
    });
    await remember?.(tx, { message, contact });
    return { message, contact };
  });
}
