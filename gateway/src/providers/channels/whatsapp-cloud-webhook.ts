import { normalizePhone } from '../../domain/phone.js';
import { textFault, type RefusedPart, excerpt } from '../../domain/storable-text.js';
import type { InboundEntry } from '../../domain/inbound-entries.js';
import { ApiError, badRequest } from '../../errors.js';
import type { Inbound, SkippedPart, WebhookEntries } from '../../engine/ports/channel-adapter.js';
import type { InboundMessage, StatusUpdate } from '../../engine/ports/channel-provider.js';
import { describeGraphError, isRecord, kindName, list, record, str } from './meta-graph.js';

/** Media ids need a Graph fetch with the access token before they are a file, so they travel under their own scheme. */
export const MEDIA_SCHEME = 'whatsapp-media:';
/**
 * Graph's ids are digits. Anything else is refused before any call: the id becomes a segment of a Graph URL sent
 * with the account's access token, and one such as `..` would name another path than a media's.
 */
export const MEDIA_ID = /^\d{1,30}$/;
const MEDIA_TYPES = ['image', 'audio', 'video', 'document', 'sticker'];
/** The kinds of message WhatsApp sends that the gateway does not take: skipped, and counted (see whatsAppEntries). */
const NOT_TAKEN = new Set([
  'reaction',
  'location',
  'contacts',
  'order',
  'system',
  'unknown',
  'unsupported',
  'request_welcome',
  'ephemeral',
]);

/**
 * The text and media of a contact's message, or undefined for kinds the gateway does not take (reactions, …). A
 * message of a kind WhatsApp does not send, or a text without its text, is a 400 naming where.
 */
function content(
  m: Record<string, unknown>,
  where: string,
): { body: string; media: InboundMessage['media'] } | undefined {
  const type = str(m.type);
  if (!type) throw badRequest(`${where}.type is missing`);
  const part = isRecord(m[type]) ? (m[type] as Record<string, unknown>) : undefined;
  if (type === 'text') {
    if (typeof part?.body !== 'string') throw badRequest(`${where}.text.body: expected the message's text, a string`);
    return { body: part.body, media: [] };
  }
  if (type === 'button') return { body: str(part?.text) ?? str(part?.payload) ?? '', media: [] };
  if (type === 'interactive') {
    const reply =
      part &&
      (isRecord(part.button_reply) ? part.button_reply : isRecord(part.list_reply) ? part.list_reply : undefined);
    return reply ? { body: str(reply.title) ?? '', media: [] } : undefined;
  }
  if (type && MEDIA_TYPES.includes(type)) {
    const id = str(part?.id);
    if (!id) throw badRequest(`${where}.${type}.id is missing`);
    if (!MEDIA_ID.test(id))
      throw badRequest(`${where}.${type}.id: "${excerpt(id, 40)}" is not a WhatsApp media id (its digits)`);
    const contentType = str(part?.mime_type) ?? 'application/octet-stream';
    return {
      body: typeof part?.caption === 'string' ? part.caption : '',
      media: [{ url: `${MEDIA_SCHEME}${id}`, contentType }],
    };
  }
  if (NOT_TAKEN.has(type)) return undefined;
  throw badRequest(`${where}.type: "${excerpt(type, 40)}" is not a kind of message WhatsApp sends`);
}

/** The sender's profile name: by WhatsApp id, or the one contact of the change when Meta wrote the id differently. */
function profileName(from: string, names: Map<string, string>): string | null {
  return names.get(from) ?? (names.size === 1 ? [...names.values()][0]! : null);
}

function inbound(m: unknown, where: string, names: Map<string, string>): InboundMessage | undefined {
  const msg = record(m, where);
  const id = str(msg.id);
  if (!id) throw badRequest(`${where}.id is missing`);
  const from = typeof msg.from === 'string' ? msg.from : '';
  if (!/^\d{6,15}$/.test(from))
    throw badRequest(`${where}.from: "${excerpt(String(msg.from), 40)}" is not a WhatsApp number (its digits)`);
  const parts = content(msg, where);
  if (!parts) return undefined;
  // Seconds since 1970, as a string: when the contact sent it, which starts WhatsApp's 24-hour window.
  const seconds = Number(msg.timestamp);
  const sentAt =
    typeof msg.timestamp === 'string' && Number.isSafeInteger(seconds) && seconds > 0
      ? new Date(seconds * 1000).toISOString()
      : null;
  return {
    channel: 'whatsapp',
    providerMessageId: id,
    from: normalizePhone(`+${from}`, `${where}.from`),
    ...parts,
    profileName: profileName(from, names),
    sentAt,
  };
}

const STATUSES: Record<string, StatusUpdate['status']> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  failed: 'failed',
};

function statusUpdate(s: unknown, where: string): StatusUpdate | undefined {
  const st = record(s, where);
  const providerMessageId = str(st.id);
  if (!providerMessageId) throw badRequest(`${where}.id is missing`);
  const providerStatus = str(st.status) ?? '';
  const status = Object.hasOwn(STATUSES, providerStatus) ? STATUSES[providerStatus] : undefined;
  if (!status) return undefined;
  const first = list(st.errors, `${where}.errors`)[0];
  const e = isRecord(first) ? first : undefined;
  const errorCode = typeof e?.code === 'number' || str(e?.code) ? String(e!.code) : null;
  const details = isRecord(e?.error_data) ? str(e.error_data.details) : undefined;
  const error = e ? describeGraphError('WhatsApp', errorCode, str(e.title) ?? str(e.message), details) : null;
  return { providerMessageId, status, providerStatus, errorCode, error };
}

/** What one webhook of a WhatsApp Business Account tells: contacts' messages and the status of messages sent. */
export interface WhatsAppWebhook {
  messages: InboundMessage[];
  statuses: StatusUpdate[];
  /** The messages and statuses refused for their text, when there were any. */
  refused?: RefusedPart[];
}

/**
 * Each change of the webhook that carries messages, with where it is and its senders' profile names. One Meta app
 * may serve several business numbers, all to one callback URL: with `ownNumber` (the connected phone number ID), the
 * changes of another number are skipped, as they are not this account's.
 */
function changesOf(
  body: unknown,
  ownNumber?: string,
): Array<{ where: string; value: Record<string, unknown>; names: Map<string, string> }> {
  if (!isRecord(body) || body.object !== 'whatsapp_business_account') {
    throw badRequest(
      'object: not a WhatsApp Business Account webhook (expected "object": "whatsapp_business_account")',
    );
  }
  if (!Array.isArray(body.entry)) throw badRequest('entry: expected a list');
  const changes: Array<{ where: string; value: Record<string, unknown>; names: Map<string, string> }> = [];
  body.entry.forEach((entry, e) => {
    list(record(entry, `entry[${e}]`).changes, `entry[${e}].changes`).forEach((change, c) => {
      const where = `entry[${e}].changes[${c}]`;
      const ch = record(change, where);
      // Meta sends other fields (template reviews, account updates) to the same URL: they carry no messages.
      if (ch.field !== 'messages') return;
      const value = record(ch.value, `${where}.value`);
      const number = isRecord(value.metadata) ? value.metadata.phone_number_id : undefined;
      if (ownNumber !== undefined && number !== undefined && String(number) !== ownNumber) return;
      const names = new Map<string, string>();
      for (const contact of list(value.contacts, `${where}.value.contacts`)) {
        const name = isRecord(contact) && isRecord(contact.profile) ? str(contact.profile.name) : undefined;
        if (isRecord(contact) && typeof contact.wa_id === 'string' && name) names.set(contact.wa_id, name);
      }
      changes.push({ where, value, names });
    });
  });
  return changes;
}

/**
 * The contacts' messages and the status updates in one webhook of a WhatsApp Business Account. A message or a status
 * whose text cannot be stored (NUL, a lone surrogate; for a message, in its sender's profile name too) is refused
 * alone, in `refused`.
 */
export function parseWhatsAppWebhook(body: unknown): WhatsAppWebhook {
  const messages: InboundMessage[] = [];
  const statuses: StatusUpdate[] = [];
  const refused: RefusedPart[] = [];
  for (const { where, value, names } of changesOf(body)) {
    // Text is judged before shape, as on /v1, and one message or status at a time: the others are still taken.
    list(value.messages, `${where}.value.messages`).forEach((m, i) => {
      const at = `${where}.value.messages[${i}]`;
      const fault = textFault(m);
      const message = fault ? undefined : inbound(m, at, names);
      // The sender's name comes from the change's contacts, and is stored with the message.
      const refusal = fault ?? textFault(message?.profileName);
      if (refusal) refused.push({ where: at, fault: refusal });
      else if (message) messages.push(message);
    });
    list(value.statuses, `${where}.value.statuses`).forEach((s, i) => {
      const at = `${where}.value.statuses[${i}]`;
      const fault = textFault(s);
      const update = fault ? undefined : statusUpdate(s, at);
      if (fault) refused.push({ where: at, fault });
      else if (update) statuses.push(update);
    });
  }
  return refused.length ? { messages, statuses, refused } : { messages, statuses };
}

/** What an entry holds of a contact's message: the message as Meta wrote it, and its sender's profile name. */
type MessageEntry = { message: InboundEntry['raw']; profileName: string | null };

/** Runs `read`; a shape WhatsApp does not send gives undefined rather than a 400, its entry kept as it is. */
function shapeOf<T>(read: () => T): { value: T } | undefined {
  try {
    return { value: read() };
  } catch (err) {
    if (err instanceof ApiError) return undefined;
    throw err;
  }
}

/**
 * The webhook's messages and statuses as entries, one each: a contact's message known by its id and its sender,
 * whose messages are processed in order, with the sender's profile name; a status; one of a shape WhatsApp does not
 * send, kept as it is (its job cannot process it and says why). Kinds the gateway does not take (a location, a
 * status it has no use for) are skipped, each named in `skipped`; a message or status whose text cannot be stored
 * (its sender's name included) is refused alone. With `ownNumber`, the changes of another business number are skipped.
 */
export function whatsAppEntries(body: unknown, ownNumber?: string): WebhookEntries {
  const entries: InboundEntry[] = [];
  const refused: RefusedPart[] = [];
  const skipped: SkippedPart[] = [];
  for (const { where, value, names } of changesOf(body, ownNumber)) {
    list(value.messages, `${where}.value.messages`).forEach((m, i) => {
      const at = `${where}.value.messages[${i}]`;
      const from = isRecord(m) && typeof m.from === 'string' ? m.from : '';
      const profile = profileName(from, names);
      const fault = textFault(m) ?? textFault(profile);
      if (fault) return void refused.push({ where: at, fault });
      const raw: MessageEntry = { message: m as InboundEntry['raw'], profileName: profile };
      const read = shapeOf(() => inbound(m, at, names));
      if (!read) entries.push({ kind: 'message', where: at, key: null, sender: null, raw });
      else if (read.value)
        entries.push({ kind: 'message', where: at, key: read.value.providerMessageId, sender: from, raw });
      else
        skipped.push({
          where: at,
          reason: 'not_taken',
          detail: `message of type ${kindName((m as { type: unknown }).type)}`,
        });
    });
    list(value.statuses, `${where}.value.statuses`).forEach((s, i) => {
      const at = `${where}.value.statuses[${i}]`;
      const fault = textFault(s);
      if (fault) return void refused.push({ where: at, fault });
      const read = shapeOf(() => statusUpdate(s, at));
      if (!read || read.value)
        entries.push({ kind: 'status', where: at, key: null, sender: null, raw: s as InboundEntry['raw'] });
      else
        skipped.push({
          where: at,
          reason: 'not_taken',
          detail: `status ${kindName((s as { status: unknown }).status)}`,
        });
    });
  }
  return { entries, refused, skipped };
}

/** What one entry tells (see whatsAppEntries); a 400 ApiError for a shape WhatsApp does not send. */
export function parseWhatsAppEntry(entry: InboundEntry): Inbound {
  if (entry.kind === 'status') {
    const update = statusUpdate(entry.raw, entry.where);
    return { messages: [], statuses: update ? [update] : [], readMarks: [] };
  }
  const { message, profileName: name } = record(entry.raw, entry.where) as MessageEntry;
  const from = isRecord(message) && typeof message.from === 'string' ? message.from : '';
  const read = inbound(message, entry.where, name ? new Map([[from, name]]) : new Map());
  return { messages: read ? [read] : [], statuses: [], readMarks: [] };
}
