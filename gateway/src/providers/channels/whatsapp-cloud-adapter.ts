import type { WhatsAppCloudCredentials } from '../../domain/channel-credentials.js';
import type { ChannelAdapter } from '../../engine/ports/channel-adapter.js';
import type { AdapterOptions } from './adapter-options.js';
import { metaEntries, verifyMetaRequest } from './meta-webhook.js';
import { createWhatsAppCloudProvider, readWhatsAppMedia, verifyWhatsAppSubscription } from './whatsapp-cloud.js';
import { parseWhatsAppEntry, whatsAppEntries } from './whatsapp-cloud-webhook.js';

/**
 * The WhatsApp Cloud API both ways: Meta's signed webhooks (messages, with their senders' profile names, and
 * statuses), the Graph API to send, and contacts' files read through their media ids with the access token.
 */
export function createWhatsAppCloudAdapter(c: WhatsAppCloudCredentials, options: AdapterOptions): ChannelAdapter {
  const media = {
    apiUrl: options.apiUrl,
    maxBytes: options.maxBytes,
    timeoutMs: options.readTimeoutMs,
    targets: options.targets,
  };
  return {
    ...createWhatsAppCloudProvider(c, { apiUrl: options.apiUrl, timeoutMs: options.sendTimeoutMs }),
    verify: (request) => verifyMetaRequest(c.appSecret, request),
    subscribe: (query) => verifyWhatsAppSubscription(c, query),
    entries: (request) => metaEntries(request, (json) => whatsAppEntries(json, c.phoneNumberId)),
    parse: parseWhatsAppEntry,
    profile: async () => undefined,
    readFile: (url) => readWhatsAppMedia(c, url, media),
  };
}
