import { isBuiltIn, SERVICE_WINDOW_MS, type BuiltInChannel } from '../../../../api-contract.js';
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

/**
 * Why a conversation was handed off, as the thread tells it: in the past, since it says what was true when it
 * happened (a campaign without FAQs then may hold some now); the API's reason itself when it is new to the console.
 */
const HANDOFF_REASON: Record<string, string> = {
  contact_asked: 'The contact asked for a person',
  team: 'A team member took over',
  bot_not_confident: 'The bot found no FAQ that answered this with confidence',
  bot_no_knowledge: 'When this came in, the campaign had no FAQs for the bot to answer from',
  bot_handoff: 'The bot decided a person should answer',
  no_campaign: 'No campaign answered this contact: handed to the team',
  no_credits: 'The account had no credits for the bot to answer this',
  answer_too_long: 'The bot’s answer to this is longer than the channel takes in a message',
  file_only: 'The contact sent a file with no text, which the bot cannot read',
  reply_failed: 'The bot’s answer to this failed: it never reached the contact',
  bot_reply_limit: 'The bot had answered this conversation as many times in an hour as the settings allow',
};

export function handoffWhy(handoff: NonNullable<Conversation['handoff']>): string {
  const why = HANDOFF_REASON[handoff.reason] ?? handoff.reason;
  if (!handoff.message) return why;
  return handoff.reason === 'no_campaign' ? `${why}. They wrote: “${handoff.message}”` : `${why}: “${handoff.message}”`;
}

/**
 * How long the contact had waited for a person when the team was reminded ("No reply for 15 min"), for a
 * conversation the team was reminded of (remindedAt); undefined for any other.
 */
export function noReplyFor(c: Pick<Conversation, 'waitingSince' | 'remindedAt'>): string | undefined {
  if (!c.waitingSince || !c.remindedAt) return undefined;
  const minutes = Math.round((Date.parse(c.remindedAt) - Date.parse(c.waitingSince)) / 60_000);
  const [hours, rest] = [Math.floor(minutes / 60), minutes % 60];
  const waited = hours === 0 ? `${minutes} min` : rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
  return `No reply for ${waited}`;
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
  isBuiltIn(c.channel)
    ? BUILT_IN_CHANNEL[c.channel]
    : c.channel !== 'custom'
      ? c.channel
      : c.customChannel
        ? `Custom: ${c.customChannel}`
        : 'Custom channel';

/** What a contact's external ID is called: the built-in channel's name, else the custom channel's label as it is. */
export const externalIdLabel = (label: string) => (isBuiltIn(label) ? BUILT_IN_CHANNEL[label] : label);

/**
 * How a team reply leaves, as the contact will see it: SMS and WhatsApp from the business's number, Messenger and
 * Instagram from its Page or account, all as the text alone; only a custom channel's receiver is given the author's
 * name (`authorName`), to show if it wants. The team sees every reply under its author's name.
 */
export function sentAs(c: Pick<Conversation, 'channel' | 'customChannel'>): string {
  const mine = 'your team sees it under your name';
  switch (c.channel) {
    case 'sms':
      return `Sent by SMS from your business’s number: the contact gets the text alone, not your name (${mine}).`;
    case 'whatsapp':
      return `Sent on WhatsApp from your business’s number: the contact gets the text alone, not your name (${mine}).`;
    case 'messenger':
      return `Sent on Messenger from your Facebook Page: the contact gets the text alone, not your name (${mine}).`;
    case 'instagram':
      return `Sent on Instagram from your business’s account: the contact gets the text alone, not your name (${mine}).`;
    default:
      return `Sent on ${channelName(c)} to your Custom Channel Webhook, with your name beside the text (authorName) for your chat to show if it wants.`;
  }
}

/** The contact as a person would name them: their name, else how they are reached. */
export function contactName(contact: Contact | null): string {
  if (!contact) return 'Unknown contact';
  const name = `${contact.firstName} ${contact.lastName}`.trim();
  return name || contact.phone || contact.fromId || contact.email || contact.id;
}

/**
 * WhatsApp's 24-hour window as it stands for a reply written now: a reply goes within 24 hours of the contact's last
 * message, and after that none does until they write again (the API stores it, not sent).
 */
export function whatsAppWindow(c: Pick<Conversation, 'lastIncomingAt'>, now = Date.now()): string {
  const endsAt = c.lastIncomingAt ? Date.parse(c.lastIncomingAt) + SERVICE_WINDOW_MS : 0;
  if (endsAt > now)
    return `WhatsApp takes replies within 24 hours of the contact’s last message: until ${when(new Date(endsAt).toISOString())}.`;
  return c.lastIncomingAt
    ? 'The contact last wrote more than 24 hours ago: WhatsApp takes no reply until they write again, and nothing would go.'
    : 'The contact has not written yet: WhatsApp takes no reply until they do, and nothing would go.';
}

/** A time as the reader's locale writes it: the time alone today, with the date otherwise. */
export function when(iso: string): string {
  const at = new Date(iso);
  const today = at.toDateString() === new Date().toDateString();
  return today
    ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
