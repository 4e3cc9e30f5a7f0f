import type { Config } from '../../config.js';
import type { Account } from '../../domain/accounts.js';
import { senderOf } from '../../domain/channel-credentials.js';
import { webhookUrls } from '../../domain/channels.js';
import type { WebhookProvider } from '../../domain/inbound-entries.js';
import type { ChannelAdapter } from '../../engine/ports/channel-adapter.js';
import {
  ChannelError,
  type BuiltInChannel,
  type ChannelProvider,
  type MetaChannel,
} from '../../engine/ports/channel-provider.js';
import type { AdapterOptions } from './adapter-options.js';
import type { CustomChannelAdapter, LogChannel, LogChannelAdapter } from '../../engine/ports/api-channels.js';
import { createCustomChannelAdapter } from './custom-adapter.js';
import { createMetaMessagingAdapter } from './meta-messaging-adapter.js';
import { logProvider } from './log.js';
import { createLogChannelAdapter } from './log-adapter.js';
import { createTwilioAdapter } from './twilio-adapter.js';
import { createWhatsAppCloudAdapter } from './whatsapp-cloud-adapter.js';

/** Time allowed to a provider's API to take a message. */
const SEND_TIMEOUT_MS = 15_000;
/**
 * Time allowed to read a contact's file or name. No provider waits for it (it is read in a job), but the job's
 * runner does: well within a job's lease.
 */
const READ_TIMEOUT_MS = 30_000;

const API_URLS = (config: Config): Record<WebhookProvider, string> => ({
  twilio: config.twilioApiUrl,
  whatsapp: config.whatsappApiUrl,
  messenger: config.messengerApiUrl,
  instagram: config.instagramApiUrl,
});

function optionsFor(config: Config, provider: WebhookProvider): AdapterOptions {
  return {
    apiUrl: API_URLS(config)[provider],
    sendTimeoutMs: SEND_TIMEOUT_MS,
    readTimeoutMs: READ_TIMEOUT_MS,
    maxBytes: config.maxMediaBytes,
    targets: config.targetPolicy,
  };
}

/** The adapter of the account's provider, with its credentials; undefined when the account has not connected it. */
export function channelAdapter(
  config: Config,
  account: Account,
  provider: WebhookProvider,
): ChannelAdapter | undefined {
  const c = account.channels ?? {};
  if (provider === 'twilio') {
    const statusCallbackUrl = config.publicUrl ? webhookUrls(config.publicUrl, account.id).twilio.status : null;
    return c.twilio && createTwilioAdapter(c.twilio, { ...optionsFor(config, provider), statusCallbackUrl });
  }
  if (provider === 'whatsapp')
    return c.whatsapp && createWhatsAppCloudAdapter(c.whatsapp, optionsFor(config, provider));
  if (provider === 'messenger')
    return c.messenger && createMetaMessagingAdapter('messenger', c.messenger, optionsFor(config, provider));
  return c.instagram && createMetaMessagingAdapter('instagram', c.instagram, optionsFor(config, provider));
}

/** Sends nothing: the account has not connected the channel (a message can only come to be there while it was). */
const notConnected = (channel: MetaChannel): ChannelProvider => ({
  name: channel,
  send: () =>
    Promise.reject(
      new ChannelError(
        `The ${channel} channel is not connected: PUT /v1/channels/${channel}`,
        false,
        'CHANNEL_NOT_CONNECTED',
      ),
    ),
});

/** The provider that sends on a built-in channel for this account (see senderOf). */
export function channelProvider(config: Config, account: Account, channel: BuiltInChannel): ChannelProvider {
  if (channel === 'messenger' || channel === 'instagram')
    return channelAdapter(config, account, channel) ?? notConnected(channel);
  const sender = senderOf(account.channels, channel);
  return sender === 'log' ? logProvider : channelAdapter(config, account, sender)!;
}

/** The account's custom channel: its messages come through the API; a file it carries is held to LEADCHAT_MAX_MEDIA_BYTES. */
export function customChannelAdapter(config: Config, _account: Account): CustomChannelAdapter {
  return createCustomChannelAdapter({ maxBytes: config.maxMediaBytes });
}

/** SMS or WhatsApp on the log provider, for the account that sends it there; undefined when a provider sends it. */
export function logChannelAdapter(
  _config: Config,
  account: Account,
  channel: LogChannel,
): LogChannelAdapter | undefined {
  return senderOf(account.channels, channel) === 'log' ? createLogChannelAdapter(channel) : undefined;
}
