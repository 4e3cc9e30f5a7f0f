import type { Config } from '../../config.js';
import type { Gateway } from '../../context.js';
import type { Account } from '../../domain/accounts.js';
import type { Campaign } from '../../domain/campaigns.js';
import type { BotAnswer, BotConversation } from './bot-provider.js';
import type { WebhookProvider } from '../../domain/inbound-entries.js';
import type { CustomChannelAdapter, LogChannel, LogChannelAdapter } from './api-channels.js';
import type { ChannelAdapter } from './channel-adapter.js';
import type { BuiltInChannel, ChannelProvider } from './channel-provider.js';

/** The adapters through which the engine reaches the outside world, chosen per account; wired where the gateway starts. */
export interface Providers {
  /** The provider that sends on a built-in channel for this account. */
  channel(config: Config, account: Account, channel: BuiltInChannel): ChannelProvider;
  /** The adapter of the account's provider, both ways; undefined when the account has not connected it. */
  adapter(config: Config, account: Account, provider: WebhookProvider): ChannelAdapter | undefined;
  /** The account's custom channel, whose messages come through the API (every account has it). */
  customChannel(config: Config, account: Account): CustomChannelAdapter;
  /** SMS or WhatsApp on the offline log provider; undefined when the account sends that channel through a provider. */
  logChannel(config: Config, account: Account, channel: LogChannel): LogChannelAdapter | undefined;
  /** The answer of the account's bot (its provider, else the offline FAQ bot) to a contact of the campaign. */
  answer(gw: Gateway, account: Account, campaign: Campaign, conversation: BotConversation): Promise<BotAnswer>;
}

/** The running gateway as the engine and the jobs see it: the shared context and the providers. */
export interface Engine extends Gateway {
  providers: Providers;
}
