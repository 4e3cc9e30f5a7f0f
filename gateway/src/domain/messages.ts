import { isDeepStrictEqual } from 'node:util';
import { notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Page, Reader } from '../store/store.js';
import { getContact } from './contacts.js';
import type { EventPayload } from './events.js';
import { OWNER_TARGET, type Delivery } from './webhooks.js';
import type { WhatsAppTemplate } from './whatsapp.js';
import type { MessageAnswer, messageWithDeliveries } from '../contract/messages.js';
import type { Answer } from '../contract/shared.js';

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
  /** A team reply's writer: the member, or the owner (ownerIdOf) for the account's own sign-in and API key. */
  authorId: string | null;
  /** Their name as it was when they wrote: a reply keeps its signature after its writer leaves the team. */
  authorName: string | null;
  /** The approved WhatsApp template the message went out as, instead of free text. */
  template: WhatsAppTemplate | null;
  /** Messenger and Instagram: HUMAN_AGENT when a person's reply went after the 24-hour window (within 7 days). */
  messageTag?: 'HUMAN_AGENT' | null;
  /** What a sub-account paid for it, in hundredths of a credit (messages stored before it was kept have none). */
  paidCents?: number;
  /** The channel provider that sent it (SMS, WhatsApp), and its id for the message there. */
  provider: string | null;
  providerMessageId: string | null;
  media: { url: string; contentType: string; mediaId: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

/** The account's message with this messageSid (a custom channel's id, or the provider's), if one is stored. */
export const bySid = async (r: Reader, accountId: string, sid: string) =>
  (await r.find<Message>('messages', 'messageSid', [accountId, sid]))[0];

export function newMessage(
  fields: Partial<Message> & Pick<Message, 'accountId' | 'contactId' | 'direction' | 'body' | 'status'>,
): Message {
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
    authorId: null,
    authorName: null,
    template: null,
    provider: null,
    providerMessageId: null,
    media: null,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

/** What a reply's receivers are posted: exactly spec §2.6, and for a team reply who of the team wrote it. */
export const replyPayload = (message: Message): EventPayload<'reply'> => ({
  contactId: message.contactId,
  messageId: message.id,
  userId: message.accountId,
  body: message.body,
  toId: message.toId ?? '',
  // A reply goes out on a custom channel only, whose label a message always has.
  channel: message.channel ?? '',
  ...(message.authorId ? { authorId: message.authorId, authorName: message.authorName } : {}),
});

export async function getMessage(r: Reader, accountId: string, id: string): Promise<Message> {
  const message = await r.get<Message>('messages', id);
  if (!message || message.accountId !== accountId) throw notFound('Message');
  return message;
}

/** A contact's messages, oldest first (newest first with `page.order` "desc"); a page of them when `page` is given. */
export async function messagesOf(r: Reader, accountId: string, contactId: string, page?: Page): Promise<Message[]> {
  await getContact(r, accountId, contactId);
  return r.find<Message>('messages', 'contact', [contactId], page);
}

export const deliveriesOf = (r: Reader, messageId: string) => r.find<Delivery>('deliveries', 'message', [messageId]);

/**
 * The account's message and its deliveries as they stood together. A delivery settling commits with its message's
 * status, but two reads may fall on either side of that commit (`pending` beside a failed delivery, or `sent` beside
 * a delivery still waiting): the message is read again after its deliveries, and the deliveries again while it moved.
 */
export async function messageAndDeliveries(r: Reader, accountId: string, id: string) {
  let message = await getMessage(r, accountId, id);
  for (let tries = 1; ; tries++) {
    const deliveries = await deliveriesOf(r, id);
    const again = await getMessage(r, accountId, id);
    if (tries === 5 || isDeepStrictEqual(again, message)) return { message: again, deliveries };
    message = again;
  }
}

export function publicMessage(m: Message): MessageAnswer;
export function publicMessage(m: Message, deliveries: Delivery[]): Answer<typeof messageWithDeliveries>;
export function publicMessage(
  m: Message,
  deliveries?: Delivery[],
): MessageAnswer | Answer<typeof messageWithDeliveries> {
  // What it paid is the credit history's to tell (its usage line), not the message's.
  const { accountId: _a, paidCents: _p, ...fields } = m;
  const rest = { ...fields, authorId: m.authorId ?? null, authorName: m.authorName ?? null };
  if (!deliveries) return rest;
  return {
    ...rest,
    deliveries: deliveries.map((d) => ({
      id: d.id,
      target: d.target === OWNER_TARGET ? 'customChannelWebhook' : d.target,
      status: d.status,
      attempts: d.attempts,
      nextAttemptAt: d.nextAttemptAt ?? null,
    })),
  };
}
