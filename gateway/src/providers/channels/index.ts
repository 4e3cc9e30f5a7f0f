import type { Config } from '../../config.js';
import type { Account } from '../../domain/accounts.js';
import { senderOf } from '../../domain/channel-credentials.js';
import { webhookUrls } from '../../domain/channels.js';
import { ChannelError, type BuiltInChannel, type ChannelProvider, type MetaChannel } from '../../engine/ports/channel-provider.js';
import { createMetaMessagingProvider } from './meta-messaging.js';
import { logProvider } from './log.js';
import { createTwilioProvider } from './twilio.js';
import { createWhatsAppCloudProvider } from './whatsapp-cloud.js';

/** Time allowed to a provider's API to take a message. */
const SEND_TIMEOUT_MS = 15_000;

/** Sends nothing: the account has not connected the channel (a message can only come to be there while it was). */
const notConnected = (channel: MetaChannel): ChannelProvider => ({
  name: channel,
  send: () => Promise.reject(new ChannelError(`The ${channel} channel is not connected: PUT /v1/channels/${channel}`, false, 'CHANNEL_NOT_CONNECTED')),
});

/** The provider that sends on a built-in channel for this account (see senderOf). */
export function channelProvider(config: Config, account: Account, channel: BuiltInChannel): ChannelProvider {
  if (channel === 'messenger' || channel === 'instagram') {
    const credentials = account.channels?.[channel];
    const apiUrl = channel === 'messenger' ? config.messengerApiUrl : config.instagramApiUrl;
    return credentials ? createMetaMessagingProvider(channel, credentials, { apiUrl, timeoutMs: SEND_TIMEOUT_MS }) : notConnected(channel);
  }
  const sender = senderOf(account.channels, channel);
  if (sender === 'whatsapp') return createWhatsAppCloudProvider(account.channels!.whatsapp!, { apiUrl: config.whatsappApiUrl, timeoutMs: SEND_TIMEOUT_MS });
  if (sender === 'twilio') {
    const statusCallbackUrl = config.publicUrl ? webhookUrls(config.publicUrl, account.id).twilio.status : null;
    return createTwilioProvider(account.channels!.twilio!, { apiUrl: config.twilioApiUrl, timeoutMs: SEND_TIMEOUT_MS, statusCallbackUrl });
  }
  return logProvider;
}
