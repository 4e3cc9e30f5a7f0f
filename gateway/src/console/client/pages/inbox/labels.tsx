import type { Contact, Conversation } from './types.js';

/** Words the inbox shows for the API's values. */
export const CONVERSATION_STATUS: Record<Conversation['status'], string> = {
  active: 'Active',
  handed_off: 'Handed off',
  opted_out: 'Opted out',
  closed: 'Closed',
};

export const MESSAGE_STATUS: Record<string, string> = {
  received: 'Received',
  pending: 'Sending',
  queued: 'Queued',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  failed: 'Failed',
  skipped: 'Not sent',
};

export const AUTHOR: Record<string, string> = {
  campaign: 'Campaign',
  follow_up: 'Follow-up',
  bot: 'Bot',
  team: 'Team',
  api: 'API',
  system: 'Automatic answer',
};

export const channelName = (c: Pick<Conversation, 'channel' | 'customChannel'>) =>
  c.channel === 'sms' ? 'SMS' : c.channel === 'whatsapp' ? 'WhatsApp' : c.customChannel ? `Custom: ${c.customChannel}` : 'Custom channel';

/** The contact as a person would name them: their name, else how they are reached. */
export function contactName(contact: Contact | null): string {
  if (!contact) return 'Unknown contact';
  const name = `${contact.firstName} ${contact.lastName}`.trim();
  return name || contact.phone || contact.fromId || contact.email || contact.id;
}

/** A time as the reader's locale writes it: the time alone today, with the date otherwise. */
export function when(iso: string): string {
  const at = new Date(iso);
  const today = at.toDateString() === new Date().toDateString();
  return today ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
