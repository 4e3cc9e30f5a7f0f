import type { Config } from '../../config.js';
import type { Account } from '../../domain/accounts.js';
import { webhookUrls } from '../../domain/channels.js';
import type { ChannelProvider } from './channel-provider.js';
import { logProvider } from './log.js';
import { createTwilioProvider } from './twilio.js';
import { createWhatsAppCloudProvider } from './whatsapp-cloud.js';

/** Time allowed to a provider's API to take a message. */
const SEND_TIMEOUT_MS = 15_000;

/**
 * The provider that sends on a built-in channel for this account: WhatsApp goes through the WhatsApp Cloud API when
 * it is set up, else through Twilio when Twilio has a WhatsApp sender; SMS through Twilio; anything else through
 * the offline log provider.
 */
export function channelProvider(config: Config, account: Account, channel: 'sms' | 'whatsapp'): ChannelProvider {
  const { twilio, whatsapp } = account.channels ?? {};
  if (channel === 'whatsapp' && whatsapp) return createWhatsAppCloudProvider(whatsapp, { apiUrl: config.whatsappApiUrl, timeoutMs: SEND_TIMEOUT_MS });
  if (twilio && (channel === 'sms' || twilio.whatsappFrom)) {
    const statusCallbackUrl = config.publicUrl ? webhookUrls(config.publicUrl, account.id).twilio.status : null;
    return createTwilioProvider(twilio, { apiUrl: config.twilioApiUrl, timeoutMs: SEND_TIMEOUT_MS, statusCallbackUrl });
  }
  return logProvider;
}
