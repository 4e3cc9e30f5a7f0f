import type { WhatsAppCloudCredentials } from '../../domain/channel-credentials.js';
import { normalizePhone } from '../../domain/phone.js';
import { textFault, type RefusedPart } from '../../domain/storable-text.js';
import { badRequest } from '../../errors.js';
import { ChannelError, type ChannelProvider, type InboundMessage, type OutgoingMessage, type StatusUpdate } from '../../engine/ports/channel-provider.js';
import { describeGraphError, graphError, isRecord, list, record, str, verifyMetaSignature, verifyMetaSubscription } from './meta-graph.js';
import { readProviderFile, readProviderJson, type MediaOptions, type ProviderFile } from './provider-file.js';
import { postToProvider } from './provider-request.js';

/** Media ids need a Graph fetch with the access token before they are a file, so they travel under their own scheme. */
const MEDIA_SCHEME = 'whatsapp-media:';
const MEDIA_TYPES = ['image', 'audio', 'video', 'document', 'sticker'];

/**
 * WhatsApp's own codes that mean "not now" rather than "never", beside the Graph API's shared ones: rate limits
 * (80007, 130429, 131048, 131056) and the service's temporary unavailability (131016).
 */
const RETRYABLE_CODES: ReadonlySet<number> = new Set([80007, 130429, 131016, 131048, 131056]);

function messagePayload(message: OutgoingMessage): Record<string, unknown> {
  const to = message.to.replace(/^\+/, '');
  if (message.channel !== 'whatsapp') throw new ChannelError('The WhatsApp Cloud API sends WhatsApp only, not SMS', false);
  if (!/^\d{6,15}$/.test(to)) throw new ChannelError(`"${message.to.slice(0, 40)}" is not a phone number in E.164 form`, false);
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  if (!message.template) return { ...base, type: 'text', text: { body: message.body, preview_url: false } };
  const { name, language, params } = message.template;
  const components = params.length ? [{ type: 'body', parameters: params.map((text) => ({ type: 'text', text })) }] : undefined;
  return { ...base, type: 'template', template: { name, language: { code: language }, ...(components && { components }) } };
}

/** How a request to Graph carries the account's access token, and the secret its errors must not show. */
const graphAuth = (c: WhatsAppCloudCredentials) => ({ authorization: `Bearer ${c.accessToken}`, secret: c.accessToken });

export function createWhatsAppCloudProvider(c: WhatsAppCloudCredentials, options: { apiUrl: string; timeoutMs: number }): ChannelProvider {
  const endpoint = `${options.apiUrl.replace(/\/+$/, '')}/${c.phoneNumberId}/messages`;
  return {
    name: 'whatsapp-cloud',
    async send(message) {
      const json = messagePayload(message);
      const { status, answer } = await postToProvider('WhatsApp', endpoint, { json }, { ...graphAuth(c), timeoutMs: options.timeoutMs });
      if (status < 200 || status >= 300) throw graphError('WhatsApp', status, answer, c.accessToken, RETRYABLE_CODES);
      const sent = Array.isArray(answer?.messages) && isRecord(answer.messages[0]) ? str(answer.messages[0].id) : undefined;
      // The message may have gone: trying again could write to the contact twice.
      if (!sent) throw new ChannelError(`WhatsApp answered HTTP ${status} without a message id`, false);
      return { providerMessageId: sent };
    },
  };
}

/** Whether X-Hub-Signature-256 is Meta's HMAC of exactly these bytes under the app secret (see verifyMetaSignature). */
export const verifyWhatsAppSignature = verifyMetaSignature;

/** Meta's subscription handshake with the WhatsApp channel's verify token (see verifyMetaSubscription). */
export function verifyWhatsAppSubscription(c: WhatsAppCloudCredentials, query: Record<string, unknown>): string | undefined {
  return verifyMetaSubscription(c.verifyToken, query);
}

/** The text and media of a contact's message, or undefined for kinds the gateway does not take (reactions, …). */
function content(m: Record<string, unknown>, where: string): { body: string; media: InboundMessage['media'] } | undefined {
  const type = str(m.type);
  const part = type && isRecord(m[type]) ? (m[type] as Record<string, unknown>) : undefined;
  if (type === 'text') return { body: typeof part?.body === 'string' ? part.body : '', media: [] };
  if (type === 'button') return { body: str(part?.text) ?? str(part?.payload) ?? '', media: [] };
  if (type === 'interactive') {
    const reply = part && (isRecord(part.button_reply) ? part.button_reply : isRecord(part.list_reply) ? part.list_reply : undefined);
    return reply ? { body: str(reply.title) ?? '', media: [] } : undefined;
  }
  if (type && MEDIA_TYPES.includes(type)) {
    const id = str(part?.id);
    if (!id) throw badRequest(`${where}.${type}.id is missing`);
    const contentType = str(part?.mime_type) ?? 'application/octet-stream';
    return { body: typeof part?.caption === 'string' ? part.caption : '', media: [{ url: `${MEDIA_SCHEME}${id}`, contentType }] };
  }
  return undefined;
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
  if (!/^\d{6,15}$/.test(from)) throw badRequest(`${where}.from: "${String(msg.from).slice(0, 40)}" is not a WhatsApp number (its digits)`);
  const parts = content(msg, where);
  if (!parts) return undefined;
  // Seconds since 1970, as a string: when the contact sent it, which starts WhatsApp's 24-hour window.
  const seconds = Number(msg.timestamp);
  const sentAt = typeof msg.timestamp === 'string' && Number.isSafeInteger(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : null;
  return { channel: 'whatsapp', providerMessageId: id, from: normalizePhone(`+${from}`, `${where}.from`), ...parts, profileName: profileName(from, names), sentAt };
}

const STATUSES: Record<string, StatusUpdate['status']> = { sent: 'sent', delivered: 'delivered', read: 'read', failed: 'failed' };

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
 * The contacts' messages and the status updates in one webhook of a WhatsApp Business Account. A message or a status
 * whose text cannot be stored (NUL, a lone surrogate; for a message, in its sender's profile name too) is refused
 * alone, in `refused`.
 */
export function parseWhatsAppWebhook(body: unknown): WhatsAppWebhook {
  if (!isRecord(body) || body.object !== 'whatsapp_business_account') {
    throw badRequest('object: not a WhatsApp Business Account webhook (expected "object": "whatsapp_business_account")');
  }
  if (!Array.isArray(body.entry)) throw badRequest('entry: expected a list');
  const messages: InboundMessage[] = [];
  const statuses: StatusUpdate[] = [];
  const refused: RefusedPart[] = [];
  body.entry.forEach((entry, e) => {
    list(record(entry, `entry[${e}]`).changes, `entry[${e}].changes`).forEach((change, c) => {
      const where = `entry[${e}].changes[${c}]`;
      const ch = record(change, where);
      // Meta sends other fields (template reviews, account updates) to the same URL: they carry no messages.
      if (ch.field !== 'messages') return;
      const value = record(ch.value, `${where}.value`);
      const names = new Map<string, string>();
      for (const contact of list(value.contacts, `${where}.value.contacts`)) {
        const name = isRecord(contact) && isRecord(contact.profile) ? str(contact.profile.name) : undefined;
        if (isRecord(contact) && typeof contact.wa_id === 'string' && name) names.set(contact.wa_id, name);
      }
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
    });
  });
  return refused.length ? { messages, statuses, refused } : { messages, statuses };
}

/**
 * A file of a contact's message: Graph gives the media id's short-lived address, which is then read with the same
 * access token. A file larger than `maxBytes` by Graph's own count is not fetched at all.
 */
export async function readWhatsAppMedia(c: WhatsAppCloudCredentials, url: string, options: MediaOptions): Promise<ProviderFile> {
  if (!url.startsWith(MEDIA_SCHEME)) throw new Error('not a WhatsApp media id');
  const auth = { ...graphAuth(c), timeoutMs: options.timeoutMs };
  const media = await readProviderJson(`${options.apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(url.slice(MEDIA_SCHEME.length))}`, auth);
  const address = str(media.url);
  if (!address || !/^https?:\/\//.test(address)) throw new Error('Graph gave no address for the media id');
  if (typeof media.file_size === 'number' && media.file_size > options.maxBytes) throw new Error(`the file is larger than ${options.maxBytes} bytes`);
  const file = await readProviderFile(address, { ...auth, maxBytes: options.maxBytes, targets: options.targets });
  return { bytes: file.bytes, contentType: str(media.mime_type) ?? file.contentType };
}
