import type { Gateway } from '../context.js';
import { channelLabel, metrics } from '../metrics.js';
import type { Account } from '../domain/accounts.js';
import { answersOnly, type BuiltInChannel } from '../api-contract.js';
import { getCampaign, liveCampaignOn } from '../domain/campaigns.js';
import { contactForExternalId, registrationOf } from '../domain/contact-identity.js';
import { createContactIn } from '../domain/contact-writes.js';
import { erasedSince, TakenBeforeErasure } from '../domain/erasures.js';
import { findByPhone, type Contact } from '../domain/contacts.js';
import { conversationFor, existingConversation, type Conversation } from '../domain/conversations.js';
import { decodeDataUri, isDataUri, keptMedia, saveMedia, storingMedia, type Media } from '../domain/media.js';
import { bySid, newMessage, type Message } from '../domain/messages.js';
import { normalizePhone } from '../domain/phone.js';
import { now } from '../ids.js';
import { ApiError, badRequest } from '../errors.js';
import type { Tx } from '../store/store.js';
import type { ApiPost, CustomChannelMessage } from './ports/api-channels.js';
import type { ChannelReceiver } from './ports/channel-adapter.js';
import { onIncoming, readForIncoming, recordIncoming } from './incoming.js';

/** A contact's message on the custom channel, as its adapter parsed it. */
export type IncomingInput = CustomChannelMessage;

/**
 * A post to one of the gateway's own channel entries, taken by its channel's adapter as a provider's webhook is
 * (verified, split, parsed), but while the caller waits: its one message, for the engine to store before answering.
 */
export async function messageOfPost<Body, Message>(
  adapter: ChannelReceiver<ApiPost<Body>, Message>,
  body: Body,
): Promise<Message> {
  const request = { body };
  if (!(await adapter.verify(request)))
    throw new ApiError(403, 'INVALID_SIGNATURE', "The request is not the channel's");
  const [entry] = adapter.entries(request).entries;
  const message = entry && adapter.parse(entry).messages[0];
  if (!message) throw badRequest('The request holds no message');
  return message;
}

/**
 * Spec §4.5: stores a message from a custom channel. A messageSid already seen returns the original message
 * and changes nothing, so callers can retry safely (§6.3). A file embedded in it (a data: URI) is read by
 * `readFile`, the channel's adapter's (by default decoded as the custom channel does), and kept by the gateway; a
 * file at an address stays there.
 */
export async function receiveMessage(
  gw: Gateway,
  account: Account,
  input: IncomingInput,
  readFile: ChannelReceiver['readFile'] = (url, declared) => decodeDataUri(url, declared!, gw.config.maxMediaBytes),
): Promise<{ message: Message; duplicate: boolean }> {
  const { mediaUrl, mediaContentType } = input;
  const embedded =
    mediaUrl && isDataUri(mediaUrl)
      ? async () => {
          const file = await readFile(mediaUrl, mediaContentType!);
          return file && saveMedia(gw, account.id, file.bytes, file.contentType);
        }
      : undefined;

  return receivingFile(gw, account.id, input.messageSid, embedded, (media) =>
    gw.store.transact(async (tx) => {
      // Read together: the campaign named, the messageSid and the sender's ID; then the contact, with its
      // conversations (its conversation on this channel among them) and what the engine reads.
      const [, original, registration] = await Promise.all([
        input.campaignId ? getCampaign(tx, account.id, input.campaignId) : undefined,
        bySid(tx, account.id, input.messageSid),
        registrationOf(tx, account.id, input.fromId),
      ]);
      if (original) return { message: original, duplicate: true };
      if (registration)
        await Promise.all([
          tx.get('contacts', registration.contactId),
          readForIncoming(tx, account.id, registration.contactId),
        ]);
      const contact = await contactForExternalId(tx, account, input.channel ?? null, input.fromId, input, false);
      const conversation = await conversationFor(
        tx,
        contact,
        'custom',
        input.channel ?? null,
        input.campaignId ?? null,
      );
      const message = await storeIncoming(tx, gw, account, contact, conversation, media, {
        body: input.body,
        status: input.status || 'received',
        messageType: input.messageType ?? 'text',
        messageSid: input.messageSid,
        fromId: input.fromId,
        toId: input.toId,
        channel: input.channel ?? null,
        campaignId: input.campaignId ?? null,
        media: media
          ? keptMedia(media)
          : mediaUrl
            ? { url: mediaUrl, contentType: mediaContentType!, mediaId: null }
            : null,
      });
      return { message, duplicate: false };
    }),
  );
}

/**
 * A message from a contact on a built-in channel, from the provider's webhook (or posted by hand on the log
 * provider). On SMS and WhatsApp the contact is the one with this phone number; on Messenger and Instagram the one
 * holding this id of Meta's as their external ID under the channel's name, and a new conversation there is the
 * channel's Live campaign's to answer. An unknown sender is a new contact named as the provider knows them. A
 * messageSid already seen returns the original and changes nothing (providers deliver a webhook again when unsure).
 */
export async function receiveOnChannel(
  gw: Gateway,
  account: Account,
  channel: BuiltInChannel,
  input: {
    /** The contact's phone number (SMS, WhatsApp) or their id on Meta's platform (Messenger, Instagram). */
    from: string;
    body: string;
    messageSid?: string;
    messageType?: Message['messageType'];
    /**
     * The provider's address of the message's file, and `keepFile`, which copies it into the gateway (undefined
     * when it could not be read).
     */
    media?: { url: string; contentType: string } | null;
    keepFile?: () => Promise<Media | undefined>;
    firstName?: string | null;
    lastName?: string | null;
    sentAt?: string | null;
    /** When the gateway took the provider's entry: its sender erased since, it throws TakenBeforeErasure. */
    takenAt?: string;
  },
): Promise<{ message: Message; contact: Contact }> {
  const meta = answersOnly(channel);
  const from = meta ? input.from : normalizePhone(input.from, 'phone', account.defaultCountry);
  const names = { firstName: input.firstName ?? undefined, lastName: input.lastName ?? undefined };
  const result = await receivingFile(gw, account.id, input.messageSid, input.keepFile, (file) =>
    gw.store.transact(async (tx) => {
      const original = input.messageSid ? await bySid(tx, account.id, input.messageSid) : undefined;
      if (original)
        return {
          message: original,
          contact: (await tx.get<Contact>('contacts', original.contactId))!,
          duplicate: true,
        };
      // Checked in the transaction that would store it: an erasure committed while the entry was read is seen here.
      const address = meta ? `id:${from}` : `phone:${from}`;
      if (input.takenAt && (await erasedSince(tx, account.id, [address], input.takenAt)))
        throw new TakenBeforeErasure();
      const contact = meta
        ? await contactForExternalId(tx, account, channel, from, names, false)
        : ((await findByPhone(tx, account.id, from)) ??
          (await createContactIn(tx, account.id, { phone: from, ...names })));
      // A new conversation on Messenger or Instagram is the channel's Live campaign's to answer: the campaigns are read
      // only for a contact who has none there yet.
      const conversation = !meta
        ? await conversationFor(tx, contact, channel, null)
        : ((await existingConversation(tx, contact, channel, null)) ??
          (await conversationFor(
            tx,
            contact,
            channel,
            null,
            (await liveCampaignOn(tx, account.id, channel))?.id ?? null,
          )));
      const message = await storeIncoming(tx, gw, account, contact, conversation, file, {
        body: input.body,
        status: 'received',
        messageType: input.messageType ?? 'text',
        messageSid: input.messageSid ?? null,
        fromId: from,
        channel,
        media: file ? keptMedia(file) : input.media ? { ...input.media, mediaId: null } : null,
        ...(input.sentAt && input.sentAt < now() ? { createdAt: input.sentAt } : {}),
      });
      return { message, contact, duplicate: false };
    }),
  );
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

/** Stores a contact's message on its conversation, with the file the gateway keeps of it, and lets the engine act. */
async function storeIncoming(
  tx: Tx,
  gw: Gateway,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  file: Media | undefined,
  fields: Omit<Parameters<typeof newMessage>[0], 'accountId' | 'contactId' | 'direction' | 'conversationId'>,
): Promise<Message> {
  const message = newMessage({
    ...fields,
    accountId: account.id,
    contactId: contact.id,
    direction: 'incoming',
    conversationId: conversation.id,
  });
  // The conversation's row first, then the message: every writer takes them in this order, so two deliveries of one
  // messageSid queue on the conversation rather than deadlock over the messageSid's unique key.
  const current = await recordIncoming(tx, conversation, message);
  if (file) await tx.insert('media', file);
  await tx.insert('messages', message);
  await onIncoming(tx, gw, account, contact, current, message, Boolean(conversation.waitingSince));
  tx.afterCommit(() => metrics.messagesReceived.inc({ channel: channelLabel(message.channel) }));
  return message;
}
