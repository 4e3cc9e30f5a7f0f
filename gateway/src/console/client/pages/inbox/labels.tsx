import { isBuiltIn, type BuiltInChannel } from '../../../../api-contract.js';
import type { Contact, Conversation } from '../../answers.js';

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

/** Why a conversation was handed off, as the thread tells it; the API's reason itself when it is new to the console. */
const HANDOFF_REASON: Record<string, string> = {
  contact_asked: 'The contact asked for a person',
  team: 'A team member took over',
  bot_not_confident: 'The bot found no FAQ that answers with confidence',
  bot_no_knowledge: 'The campaign has no FAQs for the bot to answer from',
  bot_handoff: 'The bot decided a person should answer',
  no_campaign: 'No campaign answers this contact: handed to the team',
};

export function handoffWhy(handoff: NonNullable<Conversation['handoff']>): string {
  const why = HANDOFF_REASON[handoff.reason] ?? handoff.reason;
  if (!handoff.message) return why;
  return handoff.reason === 'no_campaign' ? `${why}. They wrote: “${handoff.message}”` : `${why}: “${handoff.message}”`;
}

/** The built-in channels' names; a custom channel is named by its label. */
const BUILT_IN_CHANNEL: Record<BuiltInChannel, string> = {
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  messenger: 'Messenger',
  instagram: 'Instagram',
};

/** A conversation's channel by its name: a built-in one's, a custom one's label, or the API's word for one new to the console. */
export const channelName = (c: Pick<Conversation, 'channel' | 'customChannel'>) =>
  isBuiltIn(c.channel) ? BUILT_IN_CHANNEL[c.channel] : c.channel !== 'custom' ? c.channel : c.customChannel ? `Custom: ${c.customChannel}` : 'Custom channel';

/** What a contact's external ID is called: the built-in channel's name, else the custom channel's label as it is. */
export const externalIdLabel = (label: string) => (isBuiltIn(label) ? BUILT_IN_CHANNEL[label] : label);

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
