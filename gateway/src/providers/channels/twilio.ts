import { WHATSAPP_PREFIX, type TwilioCredentials } from '../../domain/channel-credentials.js';
import { normalizePhone } from '../../domain/phone.js';
import { textFault, excerpt } from '../../domain/storable-text.js';
import type { InboundEntry } from '../../domain/inbound-entries.js';
import { badRequest } from '../../errors.js';
import type { Inbound, WebhookEntries, WebhookRequest } from '../../engine/ports/channel-adapter.js';
import {
  ChannelError,
  type ChannelProvider,
  type InboundMessage,
  type OutgoingMessage,
  type StatusUpdate,
} from '../../engine/ports/channel-provider.js';
import { redact } from '../../domain/mask.js';
import { readProviderFile, type MediaOptions, type ProviderFile } from './provider-file.js';
import { postToProvider } from './provider-request.js';

/** Twilio takes at most 10 media per message, so a larger count can only be a forged or broken request. */
const MAX_MEDIA = 10;

function messageForm(
  c: TwilioCredentials,
  message: OutgoingMessage,
  statusCallbackUrl: string | null,
): Record<string, string> {
  const form: Record<string, string> = {};
  if (message.channel === 'whatsapp') {
    if (!c.whatsappFrom)
      throw new ChannelError('Twilio has no WhatsApp sender: set whatsappFrom in the Twilio channel', false);
    form.To = `${WHATSAPP_PREFIX}${message.to}`;
    form.From = `${WHATSAPP_PREFIX}${c.whatsappFrom}`;
  } else {
    form.To = message.to;
    // A Messaging Service picks the sender and carries the US A2P registration, so it wins over a lone number.
    if (c.messagingServiceSid) form.MessagingServiceSid = c.messagingServiceSid;
    else if (c.from) form.From = c.from;
    else
      throw new ChannelError('Twilio has no SMS sender: set from or messagingServiceSid in the Twilio channel', false);
  }
  if (message.template) {
    form.ContentSid = message.template.name;
    form.ContentVariables = JSON.stringify(
      Object.fromEntries(message.template.params.map((p, i) => [String(i + 1), p])),
    );
  } else {
    form.Body = message.body;
  }
  if (statusCallbackUrl) form.StatusCallback = statusCallbackUrl;
  return form;
}

/** Twilio's error answer `{code, message, more_info, status}` as a ChannelError; only a rate limit or an outage may pass. */
function twilioError(status: number, answer: Record<string, unknown> | undefined, authToken: string): ChannelError {
  const code = typeof answer?.code === 'number' || typeof answer?.code === 'string' ? String(answer.code) : null;
  const text =
    typeof answer?.message === 'string' && answer.message.trim() ? answer.message.trim().slice(0, 500) : null;
  const message = code
    ? `Twilio ${code}: ${text ?? `HTTP ${status}`}`
    : `Twilio answered HTTP ${status}${text ? `: ${text}` : ''}`;
  return new ChannelError(redact(message, authToken), status === 429 || status >= 500, code);
}

/** How a request to Twilio carries the account's credentials, and the secret its errors must not show. */
const twilioAuth = (c: TwilioCredentials) => ({
  authorization: `Basic ${Buffer.from(`${c.accountSid}:${c.authToken}`).toString('base64')}`,
  secret: c.authToken,
});

export function createTwilioProvider(
  c: TwilioCredentials,
  options: { apiUrl: string; timeoutMs: number; statusCallbackUrl: string | null },
): ChannelProvider {
  const endpoint = `${options.apiUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${c.accountSid}/Messages.json`;
  const auth = twilioAuth(c);
  return {
    name: 'twilio',
    async send(message) {
      const form = messageForm(c, message, options.statusCallbackUrl);
      const { status, answer } = await postToProvider(
        'Twilio',
        endpoint,
        { form },
        { ...auth, timeoutMs: options.timeoutMs },
      );
      if (status < 200 || status >= 300) throw twilioError(status, answer, c.authToken);
      if (typeof answer?.sid !== 'string' || !answer.sid) {
        // The message may have gone: trying again could text the contact twice.
        throw new ChannelError(`Twilio answered HTTP ${status} without a message sid`, false);
      }
      return { providerMessageId: answer.sid };
    },
  };
}

/** Twilio's own signature check, loaded with the first Twilio request: the library weighs ~20 MB of memory. */
let validateRequest: (typeof import('twilio'))['validateRequest'] | undefined;

/** Whether a request carries Twilio's X-Twilio-Signature for this URL and these form parameters. */
export async function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: Record<string, string>,
  signature: string | undefined,
): Promise<boolean> {
  if (!signature || !authToken) return false;
  validateRequest ??= (await import('twilio')).default.validateRequest;
  try {
    return validateRequest(authToken, signature, url, params);
  } catch {
    // validateRequest parses the URL and throws on one it cannot: such a request cannot be Twilio's.
    return false;
  }
}

/** A phone number as Twilio writes it in a webhook ("+1415…" or "whatsapp:+1415…"), with its channel. */
function twilioAddress(value: string | undefined, field: string): { channel: 'sms' | 'whatsapp'; phone: string } {
  if (!value) throw badRequest(`${field} is missing: not a Twilio message webhook`);
  const whatsapp = value.startsWith(WHATSAPP_PREFIX);
  return {
    channel: whatsapp ? 'whatsapp' : 'sms',
    phone: normalizePhone(whatsapp ? value.slice(WHATSAPP_PREFIX.length) : value, field),
  };
}

/** A contact's SMS or WhatsApp message from Twilio's incoming-message webhook (form parameters). */
export function parseTwilioInbound(params: Record<string, string>): InboundMessage {
  const providerMessageId = params.MessageSid;
  if (!providerMessageId) throw badRequest('MessageSid is missing: not a Twilio message webhook');
  const { channel, phone } = twilioAddress(params.From, 'From');
  const count = params.NumMedia === undefined || params.NumMedia === '' ? 0 : Number(params.NumMedia);
  if (!Number.isInteger(count) || count < 0 || count > MAX_MEDIA) {
    throw badRequest(`NumMedia: "${excerpt(String(params.NumMedia), 20)}" is not a media count from 0 to ${MAX_MEDIA}`);
  }
  const media = Array.from({ length: count }, (_, i) => {
    const url = params[`MediaUrl${i}`];
    if (!url) throw badRequest(`MediaUrl${i} is missing although NumMedia is ${count}`);
    return { url, contentType: params[`MediaContentType${i}`] || 'application/octet-stream' };
  });
  return {
    channel,
    providerMessageId,
    from: phone,
    body: params.Body ?? '',
    media,
    profileName: params.ProfileName?.trim() || null,
    sentAt: null,
  };
}

/** Twilio's message statuses that change what the gateway knows; the others are steps on the way. */
const STATUSES: Record<string, StatusUpdate['status']> = {
  queued: 'queued',
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  failed: 'failed',
  undelivered: 'failed',
  canceled: 'failed',
};

/** A status callback's news about a sent message, or undefined when the status changes nothing. */
export function parseTwilioStatus(params: Record<string, string>): StatusUpdate | undefined {
  const providerMessageId = params.MessageSid;
  if (!providerMessageId) throw badRequest('MessageSid is missing: not a Twilio status callback');
  const providerStatus = params.MessageStatus ?? params.SmsStatus;
  if (!providerStatus) throw badRequest('MessageStatus is missing: not a Twilio status callback');
  const status = Object.hasOwn(STATUSES, providerStatus) ? STATUSES[providerStatus] : undefined;
  if (!status) return undefined;
  const errorCode = params.ErrorCode?.trim() || null;
  const errorMessage = params.ErrorMessage?.trim() || null;
  const error = errorCode ? `Twilio ${errorCode}${errorMessage ? `: ${errorMessage}` : ''}` : errorMessage;
  return { providerMessageId, status, providerStatus, errorCode, error };
}

/**
 * A Twilio request is one entry: a contact's message (its sender's messages are processed in order), or a status
 * callback. A form whose text cannot be stored, or whose bytes were not UTF-8, is refused whole.
 */
export function twilioEntries(request: WebhookRequest): WebhookEntries {
  const params = request.form?.params ?? {};
  const fault = request.form?.utf8 === false ? 'not_utf8' : textFault(params);
  if (fault) return { entries: [], refused: [{ where: 'form', fault }] };
  const message = request.hook === 'incoming';
  // A WhatsApp location comes as coordinates and no text: nothing to keep, as from WhatsApp's own API
  // (whatsapp-cloud-webhook.ts), rather than an empty message the bot or the team would answer.
  if (message && isLocation(params))
    return { entries: [], refused: [], skipped: [{ where: 'form', reason: 'not_taken', detail: 'location' }] };
  const entry: InboundEntry = {
    kind: message ? 'message' : 'status',
    where: 'form',
    key: params.MessageSid || null,
    sender: (message && params.From) || null,
    raw: params,
  };
  return { entries: [entry], refused: [] };
}

/** A contact's shared location: its coordinates, with no text nor file. */
const isLocation = (params: Record<string, string>) =>
  Boolean(params.Latitude && params.Longitude) && !params.Body?.trim() && (params.NumMedia ?? '0') === '0';

/** What a Twilio request tells (see twilioEntries); a 400 ApiError for a form Twilio does not send. */
export function parseTwilioEntry(entry: InboundEntry): Inbound {
  const params = entry.raw as Record<string, string>;
  if (entry.kind === 'message') return { messages: [parseTwilioInbound(params)], statuses: [], readMarks: [] };
  const update = parseTwilioStatus(params);
  return { messages: [], statuses: update ? [update] : [], readMarks: [] };
}

/**
 * A file of a contact's MMS or WhatsApp message, read with the account's credentials (accounts may require them for
 * media). Only from Twilio's own API host: the address came in a request, and the credentials go nowhere else.
 */
export async function readTwilioMedia(c: TwilioCredentials, url: string, options: MediaOptions): Promise<ProviderFile> {
  const address = new URL(url);
  const api = new URL(options.apiUrl).origin;
  if (address.origin !== api) throw new Error(`the file is not on Twilio's API (${address.host})`);
  return readProviderFile(url, {
    ...twilioAuth(c),
    maxBytes: options.maxBytes,
    timeoutMs: options.timeoutMs,
    targets: options.targets,
    trustedOrigin: api,
  });
}
