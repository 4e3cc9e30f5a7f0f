import type { ChannelProvider } from '../../engine/ports/channel-provider.js';

/**
 * The offline provider, and the default: a message is recorded as sent and nothing leaves the machine, so a funnel
 * can be built and tried end to end before any SMS or WhatsApp account exists.
 */
export const logProvider: ChannelProvider = {
  name: 'log',
  async send(message) {
    return { providerMessageId: `log_${message.messageId}` };
  },
};
