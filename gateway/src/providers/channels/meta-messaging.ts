import type { InstagramCredentials, MessengerCredentials } from '../../domain/channel-credentials.js';
import { storableText, textFault, type RefusedPart } from '../../domain/storable-text.js';
import { badRequest } from '../../errors.js';
import {
  ChannelError,
  type ChannelProvider,
  type InboundMessage,
  type MetaChannel,
  type MetaProfile,
  type StatusUpdate,
  type Watermark,
} from '../../engine/ports/channel-provider.js';
import { graphError, isRecord, list, record, str } from './meta-graph.js';
import { readProviderJson } from './provider-file.js';
import { postToProvider } from './provider-request.js';

/**
 * Messenger and Instagram Direct: one Send API and one webhook shape (`entry[].messaging[]`) for both, told apart by
 * the account that sends, its token, the webhook's `object` and a few codes and limits.
 */

/** The credentials each Meta messaging channel sends with. */
export interface MetaMessagingCredentials {
  messenger: MessengerCredentials;
  instagram: InstagramCredentials;
}

export interface MetaMessagingOptions {
  apiUrl: string;
  timeoutMs: number;
}

/** What one webhook of a Page or an Instagram account tells: contacts' messages, receipts by message, watermarks. */
export interface MetaMessagingWebhook {
  messages: InboundMessage[];
  statuses: StatusUpdate[];
  watermarks: Watermark[];
  /** The events refused for their text, when there were any. */
  refused?: RefusedPart[];
}

interface Platform {
  name: string;
  /** The webhook's `object` for this platform. */
  object: string;
  /** The name of a webhook of this platform, for the 400 of another one. */
  webhook: string;
  /** What Meta calls a contact's id here, for messages that name it. */
  userId: string;
  /** The token's name in the sentence of an expired one. */
  token: string;
  /** Meta's codes that mean "not now" here, beside the Graph API's shared ones: unknown errors (1), rate limits. */
  retryableCodes: ReadonlySet<number>;
  /** Whether `body` fits one message, else the sentence saying why not. */
  textProblem(body: string): string | undefined;
}

const MESSENGER_MAX_CHARACTERS = 2000;
const INSTAGRAM_MAX_BYTES = 1000;

const PLATFORMS: Record<MetaChannel, Platform> = {
  messenger: {
    name: 'Messenger',
    object: 'page',
    webhook: 'a Messenger webhook',
    userId: 'a Page-scoped id (PSID)',
    token: 'The Page access token',
    retryableCodes: new Set([1, 80006]),
    textProblem(body) {
      const length = [...body].length;
      return length > MESSENGER_MAX_CHARACTERS ? `Messenger takes at most ${MESSENGER_MAX_CHARACTERS} characters in a message; this one has ${length}` : undefined;
    },
  },
  instagram: {
    name: 'Instagram',
    object: 'instagram',
    webhook: 'an Instagram webhook',
    userId: 'an Instagram-scoped id (IGSID)',
    token: 'The Instagram access token',
    retryableCodes: new Set([1, 80002]),
    // Meta counts Instagram's limit in bytes of UTF-8, so accents and emoji weigh more than one.
    textProblem(body) {
      const bytes = Buffer.byteLength(body, 'utf8');
      return bytes > INSTAGRAM_MAX_BYTES ? `Instagram takes at most ${INSTAGRAM_MAX_BYTES} bytes of text in a message; this one has ${bytes}` : undefined;
    },
  },
};

/** The account that sends on the channel (a Page, an Instagram professional account) and its access token. */
function sendingAccount<C extends MetaChannel>(channel: C, c: MetaMessagingCredentials[C]): { accountId: string; token: string } {
  if (channel === 'messenger') {
    const m = c as MessengerCredentials;
    return { accountId: m.pageId, token: m.pageAccessToken };
  }
  const i = c as InstagramCredentials;
  return { accountId: i.instagramAccountId, token: i.accessToken };
}

/** Meta's user ids (PSID, IGSID) are digits; anything else cannot name a contact there. */
const USER_ID = /^\d{1,30}$/;

const apiBase = (apiUrl: string) => apiUrl.replace(/\/+$/, '');

/**
 * Sends text on Messenger or Instagram through the Send API: as an answer inside the 24-hour window (RESPONSE), or
 * with the HUMAN_AGENT tag when a person answers later. Text over the platform's limit is refused, not split: parts
 * could arrive out of order or only in part, and the sender should decide how to shorten their words.
 */
export function createMetaMessagingProvider<C extends MetaChannel>(channel: C, c: MetaMessagingCredentials[C], options: MetaMessagingOptions): ChannelProvider {
  const platform = PLATFORMS[channel];
  const { accountId, token } = sendingAccount(channel, c);
  const endpoint = `${apiBase(options.apiUrl)}/${accountId}/messages`;
  return {
    name: channel,
    async send(message) {
      if (message.channel !== channel) throw new ChannelError(`The ${platform.name} channel sends ${platform.name} messages only, not ${message.channel}`, false);
      if (message.template) throw new ChannelError(`${platform.name} has no message templates: send text`, false);
      if (!USER_ID.test(message.to)) throw new ChannelError(`"${message.to.slice(0, 40)}" is not ${platform.userId}`, false);
      const tooLong = platform.textProblem(message.body);
      if (tooLong) throw new ChannelError(tooLong, false, 'TEXT_TOO_LONG');
      const json = {
        recipient: { id: message.to },
        ...(message.humanAgent ? { messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT' } : { messaging_type: 'RESPONSE' }),
        message: { text: message.body },
      };
      const { status, answer } = await postToProvider(platform.name, endpoint, { json }, { authorization: `Bearer ${token}`, secret: token, timeoutMs: options.timeoutMs });
      if (status < 200 || status >= 300) {
        const error = graphError(platform.name, status, answer, token, platform.retryableCodes);
        // 190: the token expired or was revoked; only the account's owner can give a new one.
        if (error.code === '190') throw new ChannelError(`${platform.token} has expired or was revoked: ${error.message}`, false, error.code);
        throw error;
      }
      const sent = str(answer?.message_id);
      // The message may have gone: trying again could write to the contact twice.
      if (!sent) throw new ChannelError(`${platform.name} answered HTTP ${status} without a message id`, false);
      return { providerMessageId: sent };
    },
  };
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

/** The contact's id on the platform, who sent the event. */
function contactOf(event: Record<string, unknown>, where: string, platform: Platform): string {
  const id = isRecord(event.sender) ? event.sender.id : undefined;
  if (id === undefined || id === null || id === '') throw badRequest(`${where}.sender.id is missing`);
  if (typeof id !== 'string' || !USER_ID.test(id)) throw badRequest(`${where}.sender.id: "${String(id).slice(0, 40)}" is not ${platform.userId}`);
  return id;
}

/** The event's time (epoch milliseconds) as an ISO string; null when Meta gave none. */
function sentAt(timestamp: unknown): string | null {
  return typeof timestamp === 'number' && Number.isSafeInteger(timestamp) && timestamp > 0 ? new Date(timestamp).toISOString() : null;
}

/** A receipt's watermark: every message sent before it (epoch milliseconds) is delivered, or read. */
function watermarkOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * A contact's message: its text (a quick reply's is the option's text), each file as Meta's address of it, and the
 * story a reply or a mention is about. The business's own messages (echoes), deleted ones and those with nothing
 * the gateway can show (stickers Instagram does not support) are skipped.
 */
function message(channel: MetaChannel, event: Record<string, unknown>, where: string): InboundMessage | undefined {
  const m = record(event.message, `${where}.message`);
  if (m.is_echo === true || m.is_deleted === true) return undefined;
  const mid = str(m.mid);
  if (!mid) throw badRequest(`${where}.message.mid is missing`);
  const from = contactOf(event, where, PLATFORMS[channel]);
  const quickReply = isRecord(m.quick_reply) ? str(m.quick_reply.payload) : undefined;
  const body = typeof m.text === 'string' && m.text ? m.text : (quickReply ?? '');
  const media: InboundMessage['media'] = [];
  list(m.attachments, `${where}.message.attachments`).forEach((a, k) => {
    const attachment = record(a, `${where}.message.attachments[${k}]`);
    // Locations and templates have no file to point at.
    const url = isRecord(attachment.payload) ? httpUrl(attachment.payload.url) : undefined;
    const type = str(attachment.type) ?? '';
    if (url) media.push({ url, contentType: Object.hasOwn(ATTACHMENT_TYPES, type) ? ATTACHMENT_TYPES[type]! : UNKNOWN_TYPE });
  });
  const story = isRecord(m.reply_to) && isRecord(m.reply_to.story) ? httpUrl(m.reply_to.story.url) : undefined;
  if (story) media.push({ url: story, contentType: UNKNOWN_TYPE });
  if (!body && !media.length) return undefined;
  return { channel, providerMessageId: mid, from, body, media, profileName: null, sentAt: sentAt(event.timestamp) };
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
  const providerMessageId = str(p.mid) ?? `postback:${from}:${typeof event.timestamp === 'number' ? event.timestamp : ''}:${payload ?? body}`;
  return { channel, providerMessageId, from, body, media: [], profileName: null, sentAt: sentAt(event.timestamp) };
}

/** Delivery and read receipts: by message id where Meta names them, and as a watermark where it gives one. */
function receipt(channel: MetaChannel, event: Record<string, unknown>, where: string, kind: 'delivery' | 'read', out: MetaMessagingWebhook): void {
  const r = record(event[kind], `${where}.${kind}`);
  const contact = contactOf(event, where, PLATFORMS[channel]);
  const status = kind === 'delivery' ? 'delivered' : 'read';
  const mids = kind === 'delivery' ? list(r.mids, `${where}.delivery.mids`) : [r.mid];
  for (const mid of mids) {
    const providerMessageId = str(mid);
    if (providerMessageId) out.statuses.push({ providerMessageId, status, providerStatus: status, errorCode: null, error: null });
  }
  const upTo = watermarkOf(r.watermark);
  if (upTo) out.watermarks.push({ channel, contact, status, upTo });
}

/**
 * The contacts' messages, reactions, button taps and receipts in one webhook of a Facebook Page (Messenger, object
 * "page") or an Instagram professional account (object "instagram"). Other events (opt-ins, referrals, hand-over
 * between apps, standby) carry nothing for the conversation and are skipped; a shape Meta does not send is a 400
 * naming where it is wrong. An event whose text cannot be stored (NUL, a lone surrogate) is refused alone, in
 * `refused`. With `ownId`, the entries of another Page or account (one Meta app may serve several,
 * all to one callback URL) are skipped: they are not this account's.
 */
export function parseMetaMessagingWebhook(channel: MetaChannel, body: unknown, ownId?: string): MetaMessagingWebhook {
  const platform = PLATFORMS[channel];
  if (!isRecord(body) || body.object !== platform.object) {
    throw badRequest(`object: not ${platform.webhook} (expected "object": "${platform.object}")`);
  }
  if (!Array.isArray(body.entry)) throw badRequest('entry: expected a list');
  const out: MetaMessagingWebhook = { messages: [], statuses: [], watermarks: [] };
  const refused: RefusedPart[] = [];
  body.entry.forEach((entry, e) => {
    const r = record(entry, `entry[${e}]`);
    if (ownId !== undefined && String(r.id) !== ownId) return;
    list(r.messaging, `entry[${e}].messaging`).forEach((ev, i) => {
      const where = `entry[${e}].messaging[${i}]`;
      // Text is judged before shape, as on /v1, and one event at a time: the others of the batch are still taken.
      const fault = textFault(ev);
      if (fault) {
        refused.push({ where, fault });
        return;
      }
      const event = record(ev, where);
      let inbound: InboundMessage | undefined;
      if (event.message !== undefined) inbound = message(channel, event, where);
      else if (event.reaction !== undefined) inbound = reaction(channel, event, where);
      else if (event.postback !== undefined) inbound = postback(channel, event, where);
      else if (event.delivery !== undefined) receipt(channel, event, where, 'delivery', out);
      else if (event.read !== undefined) receipt(channel, event, where, 'read', out);
      if (inbound) out.messages.push(inbound);
    });
  });
  return refused.length ? { ...out, refused } : out;
}

/**
 * The contact's name as the platform tells it: Messenger's first and last name, Instagram's name (split at its first
 * space) or, without one, the username. Undefined when Meta tells nothing or cannot be asked (no permission, an
 * expired token, a timeout): a missing name never stops a message.
 */
export async function fetchMetaProfile<C extends MetaChannel>(
  channel: C,
  c: MetaMessagingCredentials[C],
  id: string,
  options: MetaMessagingOptions,
): Promise<MetaProfile | undefined> {
  if (!USER_ID.test(id)) return undefined;
  const { token } = sendingAccount(channel, c);
  const fields = channel === 'messenger' ? 'first_name,last_name' : 'name,username';
  let answer: Record<string, unknown>;
  try {
    answer = await readProviderJson(`${apiBase(options.apiUrl)}/${id}?fields=${fields}`, { authorization: `Bearer ${token}`, secret: token, timeoutMs: options.timeoutMs });
  } catch {
    return undefined;
  }
  let firstName: string | null;
  let lastName: string | null;
  if (channel === 'messenger') {
    firstName = str(answer.first_name) ?? null;
    lastName = str(answer.last_name) ?? null;
  } else {
    const name = str(answer.name);
    const space = name ? name.search(/\s/) : -1;
    firstName = name ? (space < 0 ? name : name.slice(0, space)) : (str(answer.username) ?? null);
    lastName = name && space >= 0 ? name.slice(space).trim() || null : null;
  }
  // A name that cannot be stored is no name: the message is still taken.
  return (firstName || lastName) && storableText([firstName, lastName]) ? { firstName, lastName } : undefined;
}
