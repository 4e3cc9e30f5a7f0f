import type { InboundEntry } from '../../domain/inbound-entries.js';
import type { RefusedPart } from '../../domain/storable-text.js';
import type {
  BusinessMessage,
  ChannelProvider,
  InboundMessage,
  MetaProfile,
  StatusUpdate,
  UnsentMessage,
  Watermark,
} from './channel-provider.js';

/** A provider's POST to one of its webhooks, as the route read it: what the provider's signature covers. */
export interface WebhookRequest {
  /** Which webhook: Twilio's `incoming` (messages) or `status` (callbacks), Meta's one `webhook`. */
  hook: 'incoming' | 'status' | 'webhook';
  /** The address the provider posted to, under the gateway's public address (Twilio signs it). */
  url: string;
  header(name: string): string | undefined;
  /** The body's bytes as they came. */
  body: Buffer;
  /** The body read as a form, when it is one (Twilio), and whether its bytes were UTF-8. */
  form?: { params: Record<string, string>; utf8: boolean };
}

/**
 * An entry the gateway takes nothing from, as it carries nothing to keep: a kind it does not take (a location, an
 * opt-in), or one it cannot read at all. Logged and counted, never stored; `detail` names the kind (never the text).
 */
export interface SkippedPart {
  where: string;
  reason: 'not_taken' | 'unreadable';
  detail: string;
}

/**
 * A verified request's entries, each to be stored as a job of its own; those refused for their text and those
 * skipped (both logged and counted, never stored), each alone.
 */
export interface WebhookEntries {
  entries: InboundEntry[];
  refused: RefusedPart[];
  skipped?: SkippedPart[];
}

/** What one entry tells, in the gateway's words: contacts' messages, statuses of messages sent, read marks. */
export interface Inbound<Message = InboundMessage> {
  messages: Message[];
  statuses: StatusUpdate[];
  readMarks: Watermark[];
  /** Messages the business sent the contact, as the provider tells of them (Meta's echoes); none when absent. */
  sent?: BusinessMessage[];
  /** Messages the contact deleted (Meta's "unsend"); none when absent. */
  unsent?: UnsentMessage[];
}

/** A file a provider hosts for a contact's message (a photo, a voice note, a document). */
export interface ProviderFile {
  bytes: Buffer;
  contentType: string;
}

/**
 * What a channel takes in, for one account with its credentials: what its provider posts is verified and parsed
 * here, and a contact's files and names are read here. The webhook route verifies and splits a request while the
 * provider waits; everything else runs in a job.
 *
 * `Request` and `Message` are a provider's webhook and the engine's InboundMessage; the channels whose messages come
 * through the gateway's own API (the custom channel, the log provider's entry) have their own (api-channels.ts).
 */
export interface ChannelReceiver<Request = WebhookRequest, Message = InboundMessage> {
  readonly name: string;
  /** Whether the request is the provider's: its signature over the body, made with the account's secret. */
  verify(request: Request): Promise<boolean>;
  /** The challenge of the provider's subscription handshake, when it proves it knows the verify token; else undefined. */
  subscribe(query: Record<string, unknown>): string | undefined;
  /**
   * A verified request's entries, without reading anything beyond it. A request that is not this provider's
   * webhook at all throws a 400 ApiError; an entry whose text cannot be stored is refused alone.
   */
  entries(request: Request): WebhookEntries;
  /** What an entry tells; a 400 ApiError when its shape is not one the provider sends (it can never be processed). */
  parse(entry: InboundEntry): Inbound<Message>;
  /** The contact's name as the provider tells it, for a sender the gateway does not know; undefined when it does not. */
  profile(contact: string): Promise<MetaProfile | undefined>;
  /**
   * A contact's file, read from where the provider hosts it, for the gateway to keep; undefined when the channel
   * keeps the provider's address instead. Rejects when the file cannot be read. `declared` is the file's type as its
   * sender named it, for a channel that holds the file to it (the custom channel); the providers name their own.
   */
  readFile(url: string, declared?: string): Promise<ProviderFile | undefined>;
}

/**
 * A provider's channel both ways: what it posts comes in through its receiver, and what the engine sends goes out
 * through its API, one call per message (`send`, run by the `send` job).
 */
export interface ChannelAdapter<Request = WebhookRequest, Message = InboundMessage>
  extends ChannelReceiver<Request, Message>,
    ChannelProvider {}
