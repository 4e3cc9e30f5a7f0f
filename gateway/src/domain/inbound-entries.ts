import type { Json } from '../store/store.js';
import type { ChannelCredentials } from './channel-credentials.js';

/** The providers whose webhooks post to the gateway: Twilio, the WhatsApp Cloud API, Messenger and Instagram. */
export type WebhookProvider = keyof ChannelCredentials;

/**
 * One entry of a provider's webhook, as the provider wrote it: a Twilio request is one, a Meta webhook holds many
 * (each message, status or receipt). What it says is read where it is processed, in its job.
 */
export type InboundEntry = {
  /** A contact's message, or news of messages sent (a status, a receipt). */
  kind: 'message' | 'status';
  /** Where it was in the webhook ("form", "entry[0].messaging[1]"): logs and dead jobs name it. */
  where: string;
  /** The provider's id of the message: a webhook delivered again carries the same one. Null when it has none. */
  key: string | null;
  /** Who wrote it (a phone number, Meta's id of the contact); null for news of messages sent. */
  sender: string | null;
  raw: Json;
};

/** Job `inbound`: one entry of a verified webhook of an account's provider. */
export type InboundJob = {
  accountId: string;
  provider: WebhookProvider;
  entry: InboundEntry;
  /** The contact's turn the entry takes (domain/inbound-turns.ts); null for an entry that waits for nothing. */
  turn: string | null;
  /**
   * When the gateway took the entry: its sender erased since, it is dropped (domain/erasures.ts). Absent on entries
   * taken before it was kept, which their job's creation stands for.
   */
  takenAt?: string;
};

/**
 * Whether an entry names one of a contact's addresses (a phone, an email, an ID) anywhere in what its provider wrote,
 * a phone also as Meta writes it (digits alone) and as Twilio writes a WhatsApp sender ("whatsapp:+…"). Read as it
 * came, unparsed: an entry that could never be processed is kept so, for the operator.
 */
export function entryNames(entry: InboundEntry, addresses: Array<string | null | undefined>): boolean {
  const wanted = new Set<string>();
  for (const a of addresses) {
    if (!a) continue;
    wanted.add(a.toLowerCase());
    if (a.startsWith('+')) wanted.add(a.slice(1)).add(`whatsapp:${a}`);
  }
  const names = (value: Json): boolean =>
    typeof value === 'string'
      ? wanted.has(value.toLowerCase())
      : typeof value === 'object' && value !== null && Object.values(value).some(names);
  return names(entry.sender) || names(entry.raw);
}
