import type { TwilioCredentials } from '../../domain/channel-credentials.js';
import type { ChannelAdapter } from '../../engine/ports/channel-adapter.js';
import type { AdapterOptions } from './adapter-options.js';
import {
  createTwilioProvider,
  parseTwilioEntry,
  readTwilioMedia,
  twilioEntries,
  verifyTwilioSignature,
} from './twilio.js';

/**
 * Twilio, SMS and WhatsApp both ways: signed form webhooks for contacts' messages and status callbacks, the
 * Messages API to send, and contacts' files read from Twilio's API with the account's credentials.
 */
export function createTwilioAdapter(
  c: TwilioCredentials,
  options: AdapterOptions & { statusCallbackUrl: string | null },
): ChannelAdapter {
  const media = {
    apiUrl: options.apiUrl,
    maxBytes: options.maxBytes,
    timeoutMs: options.readTimeoutMs,
    targets: options.targets,
  };
  return {
    ...createTwilioProvider(c, {
      apiUrl: options.apiUrl,
      timeoutMs: options.sendTimeoutMs,
      statusCallbackUrl: options.statusCallbackUrl,
    }),
    verify: (request) =>
      verifyTwilioSignature(c.authToken, request.url, request.form?.params ?? {}, request.header('x-twilio-signature')),
    subscribe: () => undefined,
    entries: twilioEntries,
    parse: parseTwilioEntry,
    profile: async () => undefined,
    readFile: (url) => readTwilioMedia(c, url, media),
  };
}
