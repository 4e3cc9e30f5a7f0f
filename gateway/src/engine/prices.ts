import { SegmentedMessage } from 'sms-segments-calculator';
import type { Config } from '../config.js';
import type { Account } from '../domain/accounts.js';
import type { Channel } from '../domain/campaigns.js';
import type { Message } from '../domain/messages.js';

/**
 * What an outgoing message costs its account, in hundredths of a credit. Only sub-accounts pay (their agency grants
 * the credits); the gateway's own answers to STOP, START and HELP are free, as the law wants them sent. A bot reply
 * costs the bot's price on every channel, plus the channel's: per segment on SMS, per message on WhatsApp.
 */
export function priceOf(prices: Config['prices'], account: Account, channel: Channel, message: Pick<Message, 'author' | 'body'>): number {
  if (!account.parentId || message.author === 'system') return 0;
  const bot = message.author === 'bot' ? prices.botReply : 0;
  if (channel === 'sms') return bot + prices.smsSegment * smsSegments(message.body);
  if (channel === 'whatsapp') return bot + prices.whatsapp;
  return bot;
}

/** The segments an SMS is sent in: 160 GSM-7 or 70 UCS-2 characters alone, 153 or 67 each when split. */
export const smsSegments = (body: string) => Math.max(1, new SegmentedMessage(body).segmentsCount);
