import type { Config } from '../../config.js';
import type { Account } from '../../domain/accounts.js';
import { senderOf } from '../../domain/channel-credentials.js';
import { webhookUrls } from '../../domain/channels.js';
import type { ChannelProvider } from '../../engine/ports/channel-provider.js';
import { logProvider } from './log.js';
import { createTwilioProvider } from './twilio.js';
import { createWhatsAppCloudProvider } from './whatsapp-cloud.js';

/** Time allowed to a provider's API to take a message. */
const SEND_TIMEOUT_MS = 15_000;

/** The provider that sends on a built-in channel for this account (see senderOf). */
export function channelProvider(config: Config, account: Account, channel: 'sms' | 'whatsapp'): ChannelProvider {
  const sender = senderOf(account.channels, channel);
  if (sender === 'whatsapp') return createWhatsAppCloudProvider(account.channels!.whatsapp!, { apiUrl: config.whatsappApiUrl, timeoutMs: SEND_TIMEOUT_MS });
  if (sender === 'twilio') {
    const statusCallbackUrl = config.publicUrl ? webhookUrls(config.publicUrl, account.id).twilio.status : null;
    return createTwilioProvider(account.channels!.twilio!, { apiUrl: config.twilioApiUrl, timeoutMs: SEND_TIMEOUT_MS, statusCallbackUrl });
  }
  return logProvider;
}
