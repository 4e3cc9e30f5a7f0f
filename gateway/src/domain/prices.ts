import type { Config } from '../config.js';
import type { Account } from './accounts.js';
import type { Channel } from './campaigns.js';
import type { Message } from './messages.js';

/**
 * What an outgoing message costs its account, in hundredths of a credit. Only sub-accounts pay (their agency grants
 * the credits); the gateway's own answers to STOP, START and HELP are free, as the law wants them sent. A bot reply
 * costs the bot's price on every channel, plus the channel's: per segment on SMS, per message on WhatsApp, Messenger
 * and Instagram.
 */
export async function priceOf(
  prices: Config['prices'],
  account: Account,
  channel: Channel,
  message: Pick<Message, 'author' | 'body'>,
): Promise<number> {
  if (!account.parentId || message.author === 'system') return 0;
  const bot = message.author === 'bot' ? prices.botReply : 0;
  if (channel === 'sms') return bot + prices.smsSegment * (await smsSegments(message.body));
  if (channel === 'whatsapp') return bot + prices.whatsapp;
  if (channel === 'messenger') return bot + prices.messenger;
  if (channel === 'instagram') return bot + prices.instagram;
  return bot;
}

/** Twilio's segment calculator, loaded with the first SMS a sub-account pays for (it weighs ~7 MB of memory). */
let calculator: typeof import('sms-segments-calculator') | undefined;

/** The segments an SMS is sent in: 160 GSM-7 or 70 UCS-2 characters alone, 153 or 67 each when split. */
export async function smsSegments(body: string): Promise<number> {
  calculator ??= await import('sms-segments-calculator');
  return Math.max(1, new calculator.SegmentedMessage(body).segmentsCount);
}
