import type { ChannelAdapter } from '../../engine/ports/channel-adapter.js';
import type { MetaChannel } from '../../engine/ports/channel-provider.js';
import type { AdapterOptions } from './adapter-options.js';
import { verifyMetaSubscription } from './meta-graph.js';
import { createMetaMessagingProvider, fetchMetaProfile } from './meta-messaging.js';
import { metaMessagingEntries, parseMetaMessagingEntry } from './meta-messaging-webhook.js';
import { sendingAccount, type MetaMessagingCredentials } from './meta-platforms.js';
import { metaEntries, verifyMetaRequest } from './meta-webhook.js';

/**
 * Messenger or Instagram both ways: the Page's or account's signed webhooks (messages, reactions, button taps,
 * receipts, the business's own messages), the Send API, and a new sender's name from Meta's profile API. Attachments stay at Meta's addresses.
 */
export function createMetaMessagingAdapter<C extends MetaChannel>(
  channel: C,
  c: MetaMessagingCredentials[C],
  options: AdapterOptions,
): ChannelAdapter {
  const own = sendingAccount(channel, c).accountId;
  return {
    ...createMetaMessagingProvider(channel, c, { apiUrl: options.apiUrl, timeoutMs: options.sendTimeoutMs }),
    verify: (request) => verifyMetaRequest(c.appSecret, request),
    subscribe: (query) => verifyMetaSubscription(c.verifyToken, query),
    entries: (request) => metaEntries(request, (json) => metaMessagingEntries(channel, json, own)),
    parse: (entry) => parseMetaMessagingEntry(channel, entry),
    profile: (contact) =>
      fetchMetaProfile(channel, c, contact, { apiUrl: options.apiUrl, timeoutMs: options.readTimeoutMs }),
    readFile: async () => undefined,
  };
}
