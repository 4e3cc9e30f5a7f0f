import type { Channel } from './campaigns.js';

/**
 * The longest text each built-in channel takes in one message, as its provider counts it: Twilio 1,600 characters of
 * SMS (sent in segments), WhatsApp 4,096, Messenger 2,000, Instagram 1,000 bytes of UTF-8 (accents and emoji weigh
 * more than one). Longer text is refused, not split: parts could arrive out of order or only in part, and the sender
 * should decide how to shorten their words.
 */
const LIMITS: Partial<Record<Channel, { name: string; max: number; unit: 'characters' | 'bytes' }>> = {
  sms: { name: 'SMS', max: 1600, unit: 'characters' },
  whatsapp: { name: 'WhatsApp', max: 4096, unit: 'characters' },
  messenger: { name: 'Messenger', max: 2000, unit: 'characters' },
  instagram: { name: 'Instagram', max: 1000, unit: 'bytes' },
};

/**
 * The longest text, in characters, that surely fits one message of the channel, for a reply composed to fit: the
 * channel's limit, a limit in bytes halved (an accented letter weighs two), a custom channel held to WhatsApp's, the
 * longest text the gateway sends.
 */
export function charactersPerMessage(channel: Channel): number {
  const limit = LIMITS[channel] ?? LIMITS.whatsapp!;
  return limit.unit === 'bytes' ? limit.max / 2 : limit.max;
}

/** Why `body` does not fit one message on the channel, in a sentence; undefined when it fits. */
export function textTooLong(channel: Channel, body: string): string | undefined {
  const limit = LIMITS[channel];
  if (!limit) return undefined;
  const size = limit.unit === 'bytes' ? Buffer.byteLength(body, 'utf8') : [...body].length;
  if (size <= limit.max) return undefined;
  const what = limit.unit === 'bytes' ? 'bytes of text' : 'characters';
  return `${limit.name} takes at most ${limit.max} ${what} in a message; this one has ${size}`;
}
