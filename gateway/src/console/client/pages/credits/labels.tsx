import type { CreditEntry } from '../../answers.js';

/** Credits as the console writes them: up to two decimal places. */
export const credits = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

const MESSAGE_KIND: Record<NonNullable<CreditEntry['messageKind']>, string> = {
  campaign: 'Opening message',
  follow_up: 'Follow-up',
  bot: 'Bot reply',
  team: 'Team reply',
  api: 'Message sent through the API',
};

const CHANNEL: Record<string, string> = {
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  messenger: 'Messenger',
  instagram: 'Instagram',
};

/** "custom:chat" → "custom channel chat". */
const channelText = (key: string) =>
  CHANNEL[key] ?? (key.startsWith('custom:') ? `custom channel ${key.slice('custom:'.length)}` : key);

/**
 * What an entry of the history is, in words: "Grant", "Recharge", "Bot reply on SMS", "Refund: Team reply on SMS",
 * "Granted to Acme Dental", "Unspent, returned by deleted sub-account acc_…".
 */
export function entryText(e: CreditEntry): string {
  if (e.kind === 'grant') return 'Grant';
  if (e.kind === 'granted') return `Granted to ${e.subAccount?.name ?? e.subAccount?.id ?? 'a sub-account'}`;
  if (e.kind === 'returned') return `Unspent, returned by deleted sub-account ${e.subAccount?.id ?? ''}`.trim();
  if (e.kind === 'recharge') return 'Recharge';
  const what = e.messageKind ? MESSAGE_KIND[e.messageKind] : 'Usage';
  const message = e.channel ? `${what} on ${channelText(e.channel)}` : what;
  return e.kind === 'refund' ? `Refund: ${message}` : message;
}
