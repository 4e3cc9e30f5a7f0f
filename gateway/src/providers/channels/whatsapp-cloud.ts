import type { WhatsAppCloudCredentials } from '../../domain/channel-credentials.js';
import { ChannelError, type ChannelProvider, type OutgoingMessage } from '../../engine/ports/channel-provider.js';
import { graphError, isRecord, str, verifyMetaSignature, verifyMetaSubscription } from './meta-graph.js';
import { readProviderFile, readProviderJson, type MediaOptions, type ProviderFile } from './provider-file.js';
import { postToProvider } from './provider-request.js';
import { MEDIA_ID, MEDIA_SCHEME } from './whatsapp-cloud-webhook.js';
import { excerpt } from '../../domain/storable-text.js';

export { parseWhatsAppWebhook, type WhatsAppWebhook } from './whatsapp-cloud-webhook.js';

/**
 * WhatsApp's own codes that mean "not now" rather than "never", beside the Graph API's shared ones: rate limits
 * (80007, 130429, 131048, 131056) and the service's temporary unavailability (131016).
 */
const RETRYABLE_CODES: ReadonlySet<number> = new Set([80007, 130429, 131016, 131048, 131056]);

function messagePayload(message: OutgoingMessage): Record<string, unknown> {
  const to = message.to.replace(/^\+/, '');
  if (message.channel !== 'whatsapp')
    throw new ChannelError('The WhatsApp Cloud API sends WhatsApp only, not SMS', false);
  if (!/^\d{6,15}$/.test(to))
    throw new ChannelError(`"${excerpt(message.to, 40)}" is not a phone number in E.164 form`, false);
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  if (!message.template) return { ...base, type: 'text', text: { body: message.body, preview_url: false } };
  const { name, language, params } = message.template;
  const components = params.length
    ? [{ type: 'body', parameters: params.map((text) => ({ type: 'text', text })) }]
    : undefined;
  return {
    ...base,
    type: 'template',
    template: { name, language: { code: language }, ...(components && { components }) },
  };
}

/** How a request to Graph carries the account's access token, and the secret its errors must not show. */
const graphAuth = (c: WhatsAppCloudCredentials) => ({
  authorization: `Bearer ${c.accessToken}`,
  secret: c.accessToken,
});

export function createWhatsAppCloudProvider(
  c: WhatsAppCloudCredentials,
  options: { apiUrl: string; timeoutMs: number },
): ChannelProvider {
  const endpoint = `${options.apiUrl.replace(/\/+$/, '')}/${c.phoneNumberId}/messages`;
  return {
    name: 'whatsapp-cloud',
    async send(message) {
      const json = messagePayload(message);
      const { status, answer } = await postToProvider(
        'WhatsApp',
        endpoint,
        { json },
        { ...graphAuth(c), timeoutMs: options.timeoutMs },
      );
      if (status < 200 || status >= 300) throw graphError('WhatsApp', status, answer, c.accessToken, RETRYABLE_CODES);
      const sent =
        Array.isArray(answer?.messages) && isRecord(answer.messages[0]) ? str(answer.messages[0].id) : undefined;
      // The message may have gone: trying again could write to the contact twice.
      if (!sent) throw new ChannelError(`WhatsApp answered HTTP ${status} without a message id`, false);
      return { providerMessageId: sent };
    },
  };
}

/** Whether X-Hub-Signature-256 is Meta's HMAC of exactly these bytes under the app secret (see verifyMetaSignature). */
export const verifyWhatsAppSignature = verifyMetaSignature;

/** Meta's subscription handshake with the WhatsApp channel's verify token (see verifyMetaSubscription). */
export function verifyWhatsAppSubscription(
  c: WhatsAppCloudCredentials,
  query: Record<string, unknown>,
): string | undefined {
  return verifyMetaSubscription(c.verifyToken, query);
}

/**
 * A file of a contact's message: Graph gives the media id's short-lived address, which is then read with the same
 * access token. A file larger than `maxBytes` by Graph's own count is not fetched at all.
 */
export async function readWhatsAppMedia(
  c: WhatsAppCloudCredentials,
  url: string,
  options: MediaOptions,
): Promise<ProviderFile> {
  const id = url.startsWith(MEDIA_SCHEME) ? url.slice(MEDIA_SCHEME.length) : '';
  if (!MEDIA_ID.test(id)) throw new Error(`"${excerpt(url, 60)}" is not a WhatsApp media id`);
  const auth = { ...graphAuth(c), timeoutMs: options.timeoutMs };
  const media = await readProviderJson(`${options.apiUrl.replace(/\/+$/, '')}/${id}`, auth);
  const address = str(media.url);
  if (!address || !/^https?:\/\//.test(address)) throw new Error('Graph gave no address for the media id');
  if (typeof media.file_size === 'number' && media.file_size > options.maxBytes)
    throw new Error(`the file is larger than ${options.maxBytes} bytes`);
  const file = await readProviderFile(address, { ...auth, maxBytes: options.maxBytes, targets: options.targets });
  return { bytes: file.bytes, contentType: str(media.mime_type) ?? file.contentType };
}
