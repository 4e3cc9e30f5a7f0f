import type { ChannelProvider } from './channel-provider.js';

/**
 * The offline provider, and the default: a message is recorded as sent and nothing leaves the machine, so a funnel
 * can be built and tried end to end before any SMS or WhatsApp account exists. It holds WhatsApp to the same rule
 * as the real one: an opening message needs an approved template.
 */
export const logProvider: ChannelProvider = {
  name: 'log',
  refuse(campaign) {
    if (campaign.channel === 'whatsapp' && !campaign.openingTemplate?.trim()) {
      return 'WhatsApp sends the first message of a conversation only with an approved template: set openingTemplate';
    }
    return undefined;
  },
  async send(message) {
    return { providerMessageId: `log_${message.messageId}` };
  },
};
