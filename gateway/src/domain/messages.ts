import type { Gateway } from '../context.js';
import { notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Page, Reader, Tx } from '../store/store.js';
import type { Account } from './accounts.js';
import { getCampaign } from './campaigns.js';
import { contactForExternalId } from './contact-identity.js';
import { createContactIn, findByPhone, getContact, type Contact } from './contacts.js';
import { normalizePhone } from './phone.js';
import { decodeDataUri, isDataUri, keptMedia, saveMedia, storingMedia, type Media } from './media.js';
import { conversationFor, messageSettled } from './conversations.js';
import { deliveryFailed } from '../engine/events.js';
import { onIncoming } from '../engine/incoming.js';
import { sendOnConversation } from '../engine/outgoing.js';
import { emit, type Delivery } from './webhooks.js';
import type { WhatsAppTemplate } from '../providers/channels/channel-provider.js';

export interface Message {
  id: string;
  accountId: string;
  contactId: string;
  direction: 'incoming' | 'outgoing';
  body: string;
  /** Incoming: as given, default "received". Outgoing: pending, then sent or failed (spec §3.1). */
  status: string;
  error: string | null;
  /** A machine-readable reason with `error`: INSUFFICIENT_CREDITS, OUTSIDE_24H_WINDOW, or the provider's own code. */
  errorCode: string | null;
  messageType: 'text' | 'reaction';
  messageSid: string | null;
  fromId: string | null;
  toId: string | null;
  channel: string | null;
  campaignId: string | null;
  conversationId: string | null;
  /** Who wrote an outgoing message: the campaign, a follow-up, the bot, a team member, the API, or the gateway itself (opt-out and HELP answers). */
  author: 'campaign' | 'follow_up' | 'bot' | 'team' | 'api' | 'system' | null;
  /** The approved WhatsApp template the message went out as, instead of free text. */
  template: WhatsAppTemplate | null;
  /** The channel provider that sent it (SMS, WhatsApp), and its id for the message there. */
  provider: string | null;
  providerMessageId: string | null;
  media: { url: string; contentType: string; mediaId: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

export interface IncomingInput {
  messageSid: string;
  fromId: string;
  toId: string;
  body: string;
  status?: string;
  channel?: string;
  campaignId?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  mediaUrl?: string | null;
  mediaContentType?: string | null;
  messageType?: 'text' | 'reaction';
}

/** The account's message with this messageSid (a custom channel's id, or the provider's), if one is stored. */
export const bySid = async (r: Reader, accountId: string, sid: string) => (await r.find<Message>('messages', 'messageSid', [accountId, sid]))[0];

export function newMessage(fields: Partial<Message> & Pick<Message, 'accountId' | 'contactId' | 'direction' | 'body' | 'status'>): Message {
  const at = now();
  return {
    id: newId('msg'),
    error: null,
    errorCode: null,
    messageType: 'text',
    messageSid: null,
    fromId: null,
    toId: null,
    channel: null,
    campaignId: null,
    conversationId: null,
    author: null,
    template: null,
    provider: null,
    providerMessageId: null,
    media: null,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

/**
 * Spec §4.5: stores a message from a custom channel. A messageSid already seen returns the original message
 * and changes nothing, so callers can retry safely (§6.3).
 */
export async function receiveMessage(gw: Gateway, account: Account, input: IncomingInput): Promise<{ message: Message; duplicate: boolean }> {
  const { mediaUrl, mediaContentType } = input;
  const embedded = mediaUrl && isDataUri(mediaUrl)
    ? async () => {
      const file = await decodeDataUri(mediaUrl, mediaContentType!, gw.config.maxMediaBytes);
      return saveMedia(gw, account.id, file.bytes, file.contentType);
    }
    : undefined;

  return receivingFile(gw, account.id, input.messageSid, embedded, (media) => gw.store.transact(async (tx) => {
    if (input.campaignId) await getCampaign(tx, account.id, input.campaignId);
    const original = await bySid(tx, account.id, input.messageSid);
    if (original) return { message: original, duplicate: true };
    const contact = await contactForExternalId(tx, account.id, input.channel ?? null, input.fromId, input, false);
    const conversation = await conversationFor(tx, contact, 'custom', input.channel ?? null, input.campaignId ?? null);
    if (media) await tx.insert('media', media);
    const message = await tx.insert('messages', newMessage({
      accountId: account.id,
      contactId: contact.id,
      direction: 'incoming',
      body: input.body,
      status: input.status || 'received',
      messageType: input.messageType ?? 'text',
      messageSid: input.messageSid,
      fromId: input.fromId,
      toId: input.toId,
      channel: input.channel ?? null,
      campaignId: input.campaignId ?? null,
      conversationId: conversation.id,
      media: media ? keptMedia(media) : mediaUrl ? { url: mediaUrl, contentType: mediaContentType!, mediaId: null } : null,
    }));
    await onIncoming(tx, gw, account, contact, conversation, message);
    return { message, duplicate: false };
  }));
}

/**
 * A message from a contact on SMS or WhatsApp, from the provider's webhook (or posted by hand on the log provider).
 * The contact is the one with this phone number, or a new one named as the provider knows them; a messageSid
 * already seen returns the original and changes nothing (providers deliver a webhook again when unsure).
 */
export async function receiveOnChannel(
  gw: Gateway,
  account: Account,
  channel: 'sms' | 'whatsapp',
  input: {
    phone: string;
    body: string;
    messageSid?: string;
    /**
     * The provider's address of the message's file, and `keepFile`, which copies it into the gateway (undefined
     * when it could not be read).
     */
    media?: { url: string; contentType: string } | null;
    keepFile?: () => Promise<Media | undefined>;
    firstName?: string | null;
    sentAt?: string | null;
  },
): Promise<{ message: Message; contact: Contact }> {
  const phone = normalizePhone(input.phone);
  const result = await receivingFile(gw, account.id, input.messageSid, input.keepFile, (file) => gw.store.transact(async (tx) => {
    const original = input.messageSid ? await bySid(tx, account.id, input.messageSid) : undefined;
    if (original) return { message: original, contact: (await tx.get<Contact>('contacts', original.contactId))!, duplicate: true };
    const contact = (await findByPhone(tx, account.id, phone)) ?? (await createContactIn(tx, account.id, { phone, firstName: input.firstName ?? undefined }));
    const conversation = await conversationFor(tx, contact, channel, null);
    if (file) await tx.insert('media', file);
    const message = await tx.insert('messages', newMessage({
      accountId: account.id,
      contactId: contact.id,
      direction: 'incoming',
      body: input.body,
      status: 'received',
      messageSid: input.messageSid ?? null,
      fromId: phone,
      channel,
      conversationId: conversation.id,
      media: file ? keptMedia(file) : input.media ? { ...input.media, mediaId: null } : null,
      ...(input.sentAt && input.sentAt < now() ? { createdAt: input.sentAt } : {}),
    }));
    await onIncoming(tx, gw, account, contact, conversation, message);
    return { message, contact, duplicate: false };
  }));
  return { message: result.message, contact: result.contact };
}

/**
 * Stores an incoming message whose file the gateway keeps: `keep` saves the file before the message's transaction,
 * `store`. A message already stored (a retry: providers deliver again, clients retry) has its file already, so
 * `keep` is not called and the transaction answers with the original; it checks again for one racing it. A file
 * saved for a message that is not stored after all is removed again (storingMedia).
 */
async function receivingFile<T extends { duplicate: boolean }>(
  gw: Gateway,
  accountId: string,
  messageSid: string | undefined,
  keep: (() => Promise<Media | undefined>) | undefined,
  store: (file: Media | undefined) => Promise<T>,
): Promise<T> {
  const stored = keep && messageSid ? await bySid(gw.store, accountId, messageSid) : undefined;
  const file = keep && !stored ? await keep() : undefined;
  return storingMedia(gw, file, () => store(file));
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

export const NO_RECEIVER = 'No Custom Channel Webhook URL is configured (Settings > Custom Channel Webhook)';

/** What a reply's receivers are posted (spec §2.6). */
export const replyPayload = (message: Message) => ({
  contactId: message.contactId,
  messageId: message.id,
  userId: message.accountId,
  body: message.body,
  toId: message.toId ?? '',
  channel: message.channel,
});

/**
 * Writes an outgoing custom-channel message and queues its delivery (spec §6.1) in the same commit: to the Custom
 * Channel Webhook URL and to the `reply` subscribers.
 */
export async function queueReply(
  tx: Tx,
  account: Account,
  contact: Contact,
  fields: Pick<Message, 'body' | 'channel' | 'toId' | 'campaignId' | 'conversationId' | 'author'>,
): Promise<Message> {
  const message = await tx.insert('messages', newMessage({
    ...fields,
    accountId: account.id,
    contactId: contact.id,
    direction: 'outgoing',
    status: 'pending',
  }));
  if ((await emit(tx, account, 'reply', replyPayload(message), message.id)).length === 0) {
    const failed = await tx.update<Message>('messages', message.id, { status: 'failed', error: NO_RECEIVER });
    await deliveryFailed(tx, failed);
    return failed;
  }
  return message;
}

/** Spec §4.4: sends a message through a custom channel to the contact known by fromId. */
export async function sendMessage(gw: Gateway, account: Account, input: SendInput): Promise<{ message: Message; contact: Contact }> {
  return gw.store.transact(async (tx) => {
    if (input.campaignId) await getCampaign(tx, account.id, input.campaignId);
    const contact = await contactForExternalId(tx, account.id, input.customChannel, input.fromId, input, true);
    const conversation = await conversationFor(tx, contact, 'custom', input.customChannel, input.campaignId ?? null);
    const { message } = await sendOnConversation(tx, gw, account, contact, conversation, { body: input.body, author: 'api', campaignId: input.campaignId ?? null });
    return { message, contact };
  });
}

/**
 * A reply is Sent once any receiver accepted it, Failed once every receiver gave up (spec §3.1); the error of
 * the last failure is kept with it.
 */
export async function settleMessage(tx: Tx, messageId: string): Promise<void> {
  const message = await tx.get<Message>('messages', messageId);
  if (!message) return;
  const deliveries = await deliveriesOf(tx, messageId);
  const sent = deliveries.some((d) => d.status === 'sent');
  const failed = !sent && deliveries.length > 0 && deliveries.every((d) => d.status === 'failed');
  const status = sent ? 'sent' : failed ? 'failed' : 'pending';
  const error = failed ? deliveries.map((d) => d.attempts.at(-1)?.error).filter(Boolean).at(-1) ?? 'Delivery failed' : null;
  if (status === message.status && error === message.error) return;
  const settled = await tx.update<Message>('messages', messageId, { status, error, updatedAt: now() });
  await messageSettled(tx, settled);
  if (status === 'failed') await deliveryFailed(tx, settled);
}

export async function getMessage(r: Reader, accountId: string, id: string): Promise<Message> {
  const message = await r.get<Message>('messages', id);
  if (!message || message.accountId !== accountId) throw notFound('Message');
  return message;
}

/** A contact's messages, oldest first; a page of them when `page` is given. */
export async function messagesOf(r: Reader, accountId: string, contactId: string, page?: Page): Promise<Message[]> {
  await getContact(r, accountId, contactId);
  return r.find<Message>('messages', 'contact', [contactId], page);
}

export const deliveriesOf = (r: Reader, messageId: string) => r.find<Delivery>('deliveries', 'message', [messageId]);

export function publicMessage(m: Message, deliveries?: Delivery[]) {
  const { accountId: _a, ...rest } = m;
  if (!deliveries) return rest;
  return {
    ...rest,
    deliveries: deliveries.map((d) => ({
      id: d.id,
      target: d.target === 'settings' ? 'customChannelWebhook' : d.target,
      status: d.status,
      attempts: d.attempts,
      nextAttemptAt: d.nextAttemptAt ?? null,
    })),
  };
}
