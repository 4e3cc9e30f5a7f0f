import type { Providers } from '../engine/ports/providers.js';
import { answerAs } from './bot/index.js';
import { channelAdapter, channelProvider, customChannelAdapter, logChannelAdapter } from './channels/index.js';

/**
 * The gateway's providers: the built-in channels' (Twilio, WhatsApp Cloud API, Messenger, Instagram, the offline
 * log), the custom channel's, and the bots.
 */
export const providers: Providers = {
  channel: channelProvider,
  adapter: channelAdapter,
  customChannel: customChannelAdapter,
  logChannel: logChannelAdapter,
  answer: answerAs,
};
