import type { Contact, Conversation } from '../transport/answers';

/** A contact as a person reads it: the name, else the email, the phone or the ID. */
export function contactLabel(contact: Partial<Contact> & { id?: string | number }): string {
  const name = [contact.firstName, contact.lastName]
    .filter((part) => typeof part === 'string' && part.trim())
    .join(' ');
  return name.trim() || contact.email || contact.phone || String(contact.id ?? '');
}

/** What tells two contacts of the same name apart: their phone and email. */
export function contactDetails(contact: Partial<Contact>): string | undefined {
  const parts = [contact.phone, contact.email].filter(
    (part): part is string => typeof part === 'string' && part !== '',
  );
  return parts.length ? parts.join(' · ') : undefined;
}

const CHANNELS: Record<string, string> = {
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  messenger: 'Messenger',
  instagram: 'Instagram',
};

/** A conversation as the inbox names it: its contact and its channel. */
export function conversationLabel(conversation: Partial<Conversation>): string {
  const who = conversation.contact ? contactLabel(conversation.contact) : String(conversation.contactId ?? '');
  const channel =
    conversation.channel === 'custom'
      ? conversation.customChannel || 'custom'
      : (CHANNELS[String(conversation.channel)] ?? String(conversation.channel ?? ''));
  return channel ? `${who} · ${channel}` : who;
}

/** The conversation's status and the start of its last message. */
export function conversationDetails(conversation: Partial<Conversation>): string | undefined {
  const last = conversation.lastMessage?.body;
  const snippet = typeof last === 'string' && last ? `"${last.length > 60 ? `${last.slice(0, 59)}…` : last}"` : '';
  const parts = [conversation.status?.replace('_', ' '), snippet].filter(Boolean);
  return parts.length ? parts.join(', ') : undefined;
}
