import type { Gateway } from '../context.js';
import { notFound } from '../errors.js';
import type { Account } from './accounts.js';
import { audit, type AuditBy } from './audit-log.js';
import {
  publicInstagramCredentials,
  publicMessengerCredentials,
  publicTwilioCredentials,
  publicWhatsAppCloudCredentials,
  type ChannelCredentials,
} from './channel-credentials.js';
import type { ChannelsAnswer } from '../contract/account.js';

/**
 * An account's built-in channel providers: Twilio (SMS, and WhatsApp with a WhatsApp sender), the WhatsApp Cloud
 * API, a Facebook Page's Messenger and an Instagram professional account. Without them SMS and WhatsApp run on the
 * offline `log` provider; Messenger and Instagram need theirs. Secrets are stored to be used and shown back only
 * masked.
 */
export type { ChannelCredentials };

export type ProviderName = keyof ChannelCredentials;

/** The webhook addresses the owner pastes into Twilio's or Meta's console, under this gateway's public address. */
export function webhookUrls(base: string, accountId: string) {
  return {
    twilio: {
      incoming: `${base}/v1/channels/twilio/${accountId}/incoming`,
      status: `${base}/v1/channels/twilio/${accountId}/status`,
    },
    whatsapp: { webhook: `${base}/v1/channels/whatsapp/${accountId}/webhook` },
    messenger: { webhook: `${base}/v1/channels/messenger/${accountId}/webhook` },
    instagram: { webhook: `${base}/v1/channels/instagram/${accountId}/webhook` },
  };
}

/**
 * GET /v1/channels: each provider's credentials, masked, with its webhook addresses under `base`; and whether the
 * operator set the gateway's public address (LEADCHAT_PUBLIC_URL), without which `base` is the address it listens on,
 * which a provider on the internet may not reach.
 */
export function publicChannels(account: Account, base: string, publicUrlConfigured: boolean): ChannelsAnswer {
  const c = account.channels ?? {};
  const urls = webhookUrls(base, account.id);
  return {
    publicUrlConfigured,
    twilio: c.twilio ? { ...publicTwilioCredentials(c.twilio), webhooks: urls.twilio } : null,
    whatsapp: c.whatsapp ? { ...publicWhatsAppCloudCredentials(c.whatsapp), webhooks: urls.whatsapp } : null,
    messenger: c.messenger ? { ...publicMessengerCredentials(c.messenger), webhooks: urls.messenger } : null,
    instagram: c.instagram ? { ...publicInstagramCredentials(c.instagram), webhooks: urls.instagram } : null,
  };
}

/** A channel as the audit log names it: by its provider, never by a credential. */
const channelTarget = (provider: ProviderName) => ({ type: 'channel' as const, id: provider, name: provider });

export async function setChannel<P extends ProviderName>(
  gw: Gateway,
  accountId: string,
  provider: P,
  credentials: ChannelCredentials[P],
  by?: AuditBy,
): Promise<Account> {
  return gw.store.transact(async (tx) => {
    const account = (await tx.get<Account>('accounts', accountId))!;
    await audit(tx, by, 'channel.credentials_set', channelTarget(provider));
    return tx.update<Account>('accounts', accountId, { channels: { ...account.channels, [provider]: credentials } });
  });
}

export async function removeChannel(
  gw: Gateway,
  accountId: string,
  provider: ProviderName,
  by?: AuditBy,
): Promise<Account> {
  return gw.store.transact(async (tx) => {
    const account = (await tx.get<Account>('accounts', accountId))!;
    if (!account.channels?.[provider]) throw notFound('Channel', `The ${provider} channel not found`);
    await audit(tx, by, 'channel.credentials_removed', channelTarget(provider));
    const { [provider]: _removed, ...rest } = account.channels;
    return tx.update<Account>('accounts', accountId, { channels: rest });
  });
}
