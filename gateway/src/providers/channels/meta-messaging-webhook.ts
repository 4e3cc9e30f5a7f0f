import { ApiError, badRequest } from '../../errors.js';
import { textFault, type RefusedPart, excerpt } from '../../domain/storable-text.js';
import type { InboundEntry } from '../../domain/inbound-entries.js';
import type { Inbound, SkippedPart, WebhookEntries } from '../../engine/ports/channel-adapter.js';
import type {
  BusinessMessage,
  InboundMessage,
  MetaChannel,
  StatusUpdate,
  UnsentMessage,
  Watermark,
} from '../../engine/ports/channel-provider.js';
import { isRecord, kindName, list, record, str } from './meta-graph.js';
import { PLATFORMS, USER_ID, type Platform } from './meta-platforms.js';

/** What one webhook of a Page or an Instagram account tells: contacts' messages, receipts by message, watermarks. */
export interface MetaMessagingWebhook {
  messages: InboundMessage[];
  statuses: StatusUpdate[];
  watermarks: Watermark[];
  /** The business's own messages to contacts (echoes), when there were any. */
  sent?: BusinessMessage[];
  /** The messages contacts deleted, when there were any. */
  unsent?: UnsentMessage[];
  /** The events refused for their text, when there were any. */
  refused?: RefusedPart[];
}

/**
 * A type for a file Meta hosts for a message, from the attachment's type only: Meta gives no MIME type, so an image
 * is "image/*" (any image), and what is not image, video or audio (a file, a shared post, a story) is
 * "application/octet-stream".
 */
const ATTACHMENT_TYPES: Record<string, string> = { image: 'image/*', video: 'video/*', audio: 'audio/*' };
const UNKNOWN_TYPE = 'application/octet-stream';

const httpUrl = (v: unknown): string | undefined => {
  const url = str(v);
  return url && /^https?:\/\//i.test(url) ? url : undefined;
};

/**
 * The contact's id on the platform: who sent the event (`sender`), or, for a message of the business (an echo), whom
 * it went to (`recipient`).
 */
function contactOf(
  event: Record<string, unknown>,
  where: string,
  platform: Platform,
  side: 'sender' | 'recipient' = 'sender',
): string {
  const party = event[side];
  const id = isRecord(party) ? party.id : undefined;
  if (id === undefined || id === null || id === '') throw badRequest(`${where}.${side}.id is missing`);
  if (typeof id !== 'string' || !USER_ID.test(id))
    throw badRequest(`${where}.${side}.id: "${excerpt(String(id), 40)}" is not ${platform.userId}`);
  return id;
}

/** The event's time (epoch milliseconds) as an ISO string; null when Meta gave none. */
function sentAt(timestamp: unknown): string | null {
  return typeof timestamp === 'number' && Number.isSafeInteger(timestamp) && timestamp > 0
    ? new Date(timestamp).toISOString()
    : null;
}

/** A receipt's watermark: every message sent before it (epoch milliseconds) is delivered, or read. */
function watermarkOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A message's text, '' without one. */
function textOf(m: Record<string, unknown>, where: string): string {
  if (m.text === undefined || m.text === null) return '';
  if (typeof m.text !== 'string') throw badRequest(`${where}.message.text: expected the message's text, a string`);
  return m.text;
}

/** Each file of a message, as Meta's address of it. */
function filesOf(m: Record<string, unknown>, where: string): InboundMessage['media'] {
  const media: InboundMessage['media'] = [];
  list(m.attachments, `${where}.message.attachments`).forEach((a, k) => {
    const attachment = record(a, `${where}.message.attachments[${k}]`);
    // Locations and templates have no file to point at; a shared link's address is a web page (see linksOf).
    const url = isRecord(attachment.payload) ? httpUrl(attachment.payload.url) : undefined;
    const type = str(attachment.type) ?? '';
    if (url && type !== 'fallback')
      media.push({ url, contentType: Object.hasOwn(ATTACHMENT_TYPES, type) ? ATTACHMENT_TYPES[type]! : UNKNOWN_TYPE });
  });
  return media;
}

/**
 * The links a message shares, as text, '' without one: a link shared on Messenger or Instagram comes as a `fallback`
 * attachment, the page's title and address in its payload (or beside it, as older webhook versions put them). Each is
 * its title and its address on the next line; a fallback with neither (a share Meta does not show) gives nothing.
 */
function linksOf(m: Record<string, unknown>): string {
  const links = (Array.isArray(m.attachments) ? m.attachments : []).map((a) => {
    if (!isRecord(a) || a.type !== 'fallback') return '';
    const payload = isRecord(a.payload) ? a.payload : {};
    const url = httpUrl(payload.url) ?? httpUrl(a.url);
    const title = str(payload.title) ?? str(a.title);
    return [title === url ? undefined : title, url].filter(Boolean).join('\n');
  });
  return links.filter(Boolean).join('\n');
}

/**
 * A message the business sent the contact, as Meta echoes it: the gateway's own, or one a person of the Page typed in
 * Meta's inbox. Undefined when it holds nothing to show.
 */
function echo(channel: MetaChannel, m: Record<string, unknown>, event: Record<string, unknown>, where: string) {
  if (m.is_deleted === true) return undefined;
  const mid = str(m.mid);
  if (!mid) throw badRequest(`${where}.message.mid is missing`);
  const to = contactOf(event, where, PLATFORMS[channel], 'recipient');
  const media = filesOf(m, where);
  const body = textOf(m, where) || linksOf(m);
  return body || media.length ? { channel, providerMessageId: mid, to, body, media } : undefined;
}

/** Messenger's like button: a thumbs-up sticker, in its three sizes (the longer it is held, the larger). */
const LIKE_STICKERS: ReadonlySet<string> = new Set(['369239263222822', '369239343222814', '369239383222810']);

/** The sticker a message is, when it is one: Meta names it in the message or in its attachment. */
function stickerOf(m: Record<string, unknown>): string | undefined {
  const ids = [m.sticker_id, ...(Array.isArray(m.attachments) ? m.attachments : [])].map((v) =>
    isRecord(v) ? (isRecord(v.payload) ? v.payload.sticker_id : undefined) : v,
  );
  const id = ids.find((v) => (typeof v === 'number' && Number.isSafeInteger(v)) || (typeof v === 'string' && v));
  return id === undefined ? undefined : String(id);
}

/**
 * The like a message is, when it is one, as its emoji: Messenger's like button (a thumbs-up sticker) is 👍, Instagram's
 * heart sticker (an attachment of type `like_heart`, with or without a picture) ❤️.
 */
function likeOf(m: Record<string, unknown>, sticker: string | undefined): string | undefined {
  if (sticker && LIKE_STICKERS.has(sticker)) return '👍';
  const heart = Array.isArray(m.attachments) && m.attachments.some((a) => isRecord(a) && a.type === 'like_heart');
  return heart ? '❤️' : undefined;
}

/**
 * A contact's message: its text (a quick reply's is the option's text; a shared link's, without one, its title and
 * address), each file as Meta's address of it, and the story a reply or a mention is about. A sticker asks nothing, as
 * an emoji reaction asks nothing: it is kept as a reaction, Messenger's like button as 👍, Instagram's heart as ❤️ and
 * any other as its picture. Those with nothing the gateway can show (stickers Instagram does not support) are skipped.
 */
function message(channel: MetaChannel, event: Record<string, unknown>, where: string): InboundMessage | undefined {
  const m = record(event.message, `${where}.message`);
  const mid = str(m.mid);
  if (!mid) throw badRequest(`${where}.message.mid is missing`);
  const from = contactOf(event, where, PLATFORMS[channel]);
  const text = textOf(m, where);
  const quickReply = isRecord(m.quick_reply) ? str(m.quick_reply.payload) : undefined;
  const media = filesOf(m, where);
  const body = text || (quickReply ?? '') || linksOf(m);
  const story = isRecord(m.reply_to) && isRecord(m.reply_to.story) ? httpUrl(m.reply_to.story.url) : undefined;
  if (story) media.push({ url: story, contentType: UNKNOWN_TYPE });
  const sticker = body ? undefined : stickerOf(m);
  const like = body ? undefined : likeOf(m, sticker);
  const at = sentAt(event.timestamp);
  const asReaction = (emoji: string, files: InboundMessage['media']): InboundMessage => ({
    channel,
    providerMessageId: mid,
    from,
    messageType: 'reaction',
    body: emoji,
    media: files,
    profileName: null,
    sentAt: at,
  });
  if (like) return asReaction(like, []);
  if (!body && !media.length) return undefined;
  if (sticker) return asReaction(body, media);
  return { channel, providerMessageId: mid, from, body, media, profileName: null, sentAt: at };
}

/**
 * A contact's reaction to a message, as a message of its own whose body is the emoji. Its id is made from the
 * reacted message, the contact and the emoji, so a webhook delivered again is the same message. Taking a reaction
 * back is skipped: the reaction stays in the conversation's history.
 */
function reaction(channel: MetaChannel, event: Record<string, unknown>, where: string): InboundMessage | undefined {
  const r = record(event.reaction, `${where}.reaction`);
  if (r.action !== 'react') return undefined;
  const mid = str(r.mid);
  if (!mid) throw badRequest(`${where}.reaction.mid is missing`);
  const from = contactOf(event, where, PLATFORMS[channel]);
  const emoji = str(r.emoji) ?? str(r.reaction);
  if (!emoji) return undefined;
  return {
    channel,
    providerMessageId: `${mid}:react:${from}:${emoji}`,
    from,
    messageType: 'reaction',
    body: emoji,
    media: [],
    profileName: null,
    sentAt: sentAt(event.timestamp),
  };
}

/** A tap on a button (Get Started, an ice breaker, a template's button): the contact "said" the button's title. */
function postback(channel: MetaChannel, event: Record<string, unknown>, where: string): InboundMessage | undefined {
  const p = record(event.postback, `${where}.postback`);
  const from = contactOf(event, where, PLATFORMS[channel]);
  const payload = str(p.payload);
  const body = str(p.title) ?? payload;
  if (!body) return undefined;
  // Older postbacks carry no mid: the tap is known by who tapped what, when.
  const providerMessageId =
    str(p.mid) ?? `postback:${from}:${typeof event.timestamp === 'number' ? event.timestamp : ''}:${payload ?? body}`;
  return { channel, providerMessageId, from, body, media: [], profileName: null, sentAt: sentAt(event.timestamp) };
}

/** Delivery and read receipts: by message id where Meta names them, and as a watermark where it gives one. */
function receipt(
  channel: MetaChannel,
  event: Record<string, unknown>,
  where: string,
  kind: 'delivery' | 'read',
  out: MetaMessagingWebhook,
): void {
  const r = record(event[kind], `${where}.${kind}`);
  const contact = contactOf(event, where, PLATFORMS[channel]);
  const status = kind === 'delivery' ? 'delivered' : 'read';
  const mids = kind === 'delivery' ? list(r.mids, `${where}.delivery.mids`) : [r.mid];
  for (const mid of mids) {
    const providerMessageId = str(mid);
    if (providerMessageId)
      out.statuses.push({ providerMessageId, status, providerStatus: status, errorCode: null, error: null });
  }
  const upTo = watermarkOf(r.watermark);
  if (upTo) out.watermarks.push({ channel, contact, status, upTo });
}

/**
 * What one event tells, into `out`: a contact's message (or reaction, or tap), a message of the business to a contact
 * (an echo), or receipts; nothing for other events.
 */
function readEvent(channel: MetaChannel, ev: unknown, where: string, out: MetaMessagingWebhook): void {
  const event = record(ev, where);
  let inbound: InboundMessage | undefined;
  const m = event.message;
  if (isRecord(m) && m.is_echo === true) {
    const sent = echo(channel, m, event, where);
    if (sent) (out.sent ??= []).push(sent);
  } else if (isRecord(m) && m.is_deleted === true) {
    const mid = str(m.mid);
    if (!mid) throw badRequest(`${where}.message.mid is missing`);
    (out.unsent ??= []).push({ channel, providerMessageId: mid, from: contactOf(event, where, PLATFORMS[channel]) });
  } else if (event.message !== undefined) inbound = message(channel, event, where);
  else if (event.reaction !== undefined) inbound = reaction(channel, event, where);
  else if (event.postback !== undefined) inbound = postback(channel, event, where);
  else if (event.delivery !== undefined) receipt(channel, event, where, 'delivery', out);
  else if (event.read !== undefined) receipt(channel, event, where, 'read', out);
  if (inbound) out.messages.push(inbound);
}

/** The events the gateway reads. */
const READ_EVENTS = ['message', 'reaction', 'postback', 'delivery', 'read'];
/** Events Meta sends to the same webhook that carry nothing for a conversation: skipped as not taken. */
const OTHER_EVENTS = [
  'optin',
  'referral',
  'account_linking',
  'pass_thread_control',
  'take_thread_control',
  'request_thread_control',
  'app_roles',
  'policy_enforcement',
  'messaging_feedback',
  'game_play',
  'message_edit',
  'response_feedback',
  'standby',
];

/**
 * Why an event that gave nothing to keep was skipped: a kind the gateway does not take (an opt-in, a reaction taken
 * back, a message with nothing it can show), or nothing it knows how to read, named by its fields. Deleted messages, and
 * echoes of the business's own messages with nothing to show, are left out by design, unnamed.
 */
function skipOf(ev: unknown, where: string): SkippedPart | undefined {
  const event = ev as Record<string, unknown>;
  const m = event.message;
  if (isRecord(m) && (m.is_echo === true || m.is_deleted === true)) return undefined;
  const read = READ_EVENTS.find((k) => event[k] !== undefined);
  if (read) return { where, reason: 'not_taken', detail: `${read} with nothing to keep` };
  const other = OTHER_EVENTS.find((k) => event[k] !== undefined);
  if (other) return { where, reason: 'not_taken', detail: `${other} event` };
  const fields = Object.keys(event).filter((k) => !['sender', 'recipient', 'timestamp'].includes(k));
  return { where, reason: 'unreadable', detail: `fields: ${fields.slice(0, 5).map(kindName).join(', ') || 'none'}` };
}

/**
 * Each event of the webhook with where it is: those of another Page or account (one Meta app may serve several, all
 * to one callback URL) are skipped when `ownId` is given, as they are not this account's. A webhook of another
 * platform, or one whose entries are not where Meta puts them, is a 400.
 */
function eventsOf(
  channel: MetaChannel,
  body: unknown,
  ownId: string | undefined,
): Array<{ ev: unknown; where: string }> {
  const platform = PLATFORMS[channel];
  if (!isRecord(body) || body.object !== platform.object) {
    throw badRequest(`object: not ${platform.webhook} (expected "object": "${platform.object}")`);
  }
  if (!Array.isArray(body.entry)) throw badRequest('entry: expected a list');
  const events: Array<{ ev: unknown; where: string }> = [];
  body.entry.forEach((entry, e) => {
    const r = record(entry, `entry[${e}]`);
    if (ownId !== undefined && String(r.id) !== ownId) return;
    list(r.messaging, `entry[${e}].messaging`).forEach((ev, i) =>
      events.push({ ev, where: `entry[${e}].messaging[${i}]` }),
    );
  });
  return events;
}

/**
 * The contacts' messages, reactions, button taps and receipts, and the business's own messages to them (echoes), in
 * one webhook of a Facebook Page (Messenger, object "page") or an Instagram professional account (object
 * "instagram"). Other events (opt-ins, referrals, hand-over between apps, standby) carry nothing for the conversation
 * and are skipped; a shape Meta does not send is a 400 naming where it is wrong. An event whose text cannot be stored (NUL, a lone surrogate) is refused alone, in
 * `refused`. With `ownId`, the entries of another Page or account are skipped.
 */
export function parseMetaMessagingWebhook(channel: MetaChannel, body: unknown, ownId?: string): MetaMessagingWebhook {
  const out: MetaMessagingWebhook = { messages: [], statuses: [], watermarks: [] };
  const refused: RefusedPart[] = [];
  for (const { ev, where } of eventsOf(channel, body, ownId)) {
    // Text is judged before shape, as on /v1, and one event at a time: the others of the batch are still taken.
    const fault = textFault(ev);
    if (fault) refused.push({ where, fault });
    else readEvent(channel, ev, where, out);
  }
  return refused.length ? { ...out, refused } : out;
}

/**
 * The webhook's events as entries, one each: a contact's message known by its id and its sender, whose messages
 * are processed in order; receipts; an event of a shape Meta does not send, kept as it is (its job cannot process
 * it and says why). A message of the business to a contact (an echo) is an entry in that contact's turn. Events that
 * carry nothing for the conversation are skipped, each named in `skipped` (opt-ins, events with no field the gateway
 * knows); one whose text cannot be stored is refused alone.
 */
export function metaMessagingEntries(channel: MetaChannel, body: unknown, ownId: string): WebhookEntries {
  const entries: InboundEntry[] = [];
  const refused: RefusedPart[] = [];
  const skipped: SkippedPart[] = [];
  for (const { ev, where } of eventsOf(channel, body, ownId)) {
    const fault = textFault(ev);
    if (fault) {
      refused.push({ where, fault });
      continue;
    }
    const raw = ev as InboundEntry['raw'];
    const out: MetaMessagingWebhook = { messages: [], statuses: [], watermarks: [] };
    try {
      readEvent(channel, ev, where, out);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      entries.push({ kind: 'message', where, key: null, sender: null, raw });
      continue;
    }
    const [inbound] = out.messages;
    // The business's message takes the contact's turn: it is read in order with what the contact wrote around it.
    const [sent] = out.sent ?? [];
    // The deletion comes after its message, in the contact's turn; its key is its own, or it would be taken for the
    // message, delivered again.
    const [unsent] = out.unsent ?? [];
    if (inbound) entries.push({ kind: 'message', where, key: inbound.providerMessageId, sender: inbound.from, raw });
    else if (sent) entries.push({ kind: 'message', where, key: sent.providerMessageId, sender: sent.to, raw });
    else if (unsent)
      entries.push({ kind: 'message', where, key: `${unsent.providerMessageId}:deleted`, sender: unsent.from, raw });
    else if (out.statuses.length || out.watermarks.length)
      entries.push({ kind: 'status', where, key: null, sender: null, raw });
    else {
      const skip = skipOf(ev, where);
      if (skip) skipped.push(skip);
    }
  }
  return { entries, refused, skipped };
}

/** What one event tells (see metaMessagingEntries); a 400 ApiError for a shape Meta does not send. */
export function parseMetaMessagingEntry(channel: MetaChannel, entry: InboundEntry): Inbound {
  const out: MetaMessagingWebhook = { messages: [], statuses: [], watermarks: [] };
  readEvent(channel, entry.raw, entry.where, out);
  return {
    messages: out.messages,
    statuses: out.statuses,
    readMarks: out.watermarks,
    sent: out.sent ?? [],
    unsent: out.unsent ?? [],
  };
}
