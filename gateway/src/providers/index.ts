import type { Providers } from '../engine/ports/providers.js';
import { answerAs } from './bot/index.js';
import { channelAdapter, channelProvider } from './channels/index.js';

/** The gateway's providers: the built-in channels' (Twilio, WhatsApp Cloud API, the offline log) and the bots. */
export const providers: Providers = { channel: channelProvider, adapter: channelAdapter, answer: answerAs };
