import type { WhatsAppTemplate } from '../../domain/whatsapp.js';

export type { WhatsAppTemplate };

import type { BuiltInChannel, MetaChannel } from '../../api-contract.js';

export type { BuiltInChannel, MetaChannel };

/** What a built-in channel is asked to send: one message to one contact. */
export interface OutgoingMessage {
  messageId: string;
  channel: BuiltInChannel;
  /** E.164 phone number (SMS, WhatsApp), or the contact's id on Meta's platform (Messenger PSID, Instagram IGSID). */
  to: string;
  body: string;
  /** An approved WhatsApp template to send instead of free text, else null. */
  template: WhatsAppTemplate | null;
  /**
   * Messenger and Instagram: a person's reply after the 24-hour window, sent with Meta's HUMAN_AGENT tag (allowed up
   * to 7 days after the contact wrote). Otherwise the message answers the contact inside the window (RESPONSE).
   */
  humanAgent?: boolean;
}

/** A send the provider refused or could not make; `retryable` when trying again later may succeed. */
export class ChannelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The provider's own error code (Twilio's 21211, WhatsApp's 131047 …), when it gave one. */
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'ChannelError';
  }
}

/**
 * One small interface for every provider of the built-in channels: the engine decides what goes out and when,
 * a provider only sends. `send` throws a ChannelError when the message did not go.
 */
export interface ChannelProvider {
  readonly name: string;
  send(message: OutgoingMessage): Promise<{ providerMessageId: string }>;
}

/** A message status a provider reports later (a status callback or webhook), in the gateway's words. */
export interface StatusUpdate {
  providerMessageId: string;
  status: 'queued' | 'sent' | 'delivered' | 'read' | 'failed';
  /** The provider's own name for the status when it says more than ours ("undelivered"). */
  providerStatus: string;
  errorCode: string | null;
  error: string | null;
}

/** A contact's message as a provider's inbound webhook gives it. */
export interface InboundMessage {
  channel: BuiltInChannel;
  /** The provider's id of the message: repeated deliveries of one webhook carry the same one. */
  providerMessageId: string;
  /** E.164 phone number of the contact (SMS, WhatsApp), or their id on Meta's platform (Messenger, Instagram). */
  from: string;
  /** A reaction to an earlier message (its emoji in `body`) rather than a message of its own; text when absent. */
  messageType?: 'text' | 'reaction';
  body: string;
  /** Media the provider hosts (fetching it may need the provider's credentials). */
  media: Array<{ url: string; contentType: string }>;
  /** The contact's profile name, when the provider tells it (WhatsApp). */
  profileName: string | null;
  /** When the contact sent it, when the provider tells (WhatsApp); a late webhook does not move the 24-hour window. */
  sentAt: string | null;
}

/**
 * Messenger's receipts name no message: every message the business sent the contact up to `upTo` (epoch ms) was
 * delivered, or read.
 */
export interface Watermark {
  channel: MetaChannel;
  /** The contact's id on the platform (PSID). */
  contact: string;
  status: 'delivered' | 'read';
  upTo: number;
}

/**
 * A message the business sent a contact on Messenger or Instagram, as Meta echoes it: one the gateway sent, or one a
 * person of the Page typed in Meta's own inbox (Business Suite, the Instagram app).
 */
export interface BusinessMessage {
  channel: MetaChannel;
  /** Meta's id of the message, as the Send API answered it for one the gateway sent. */
  providerMessageId: string;
  /** The contact's id on the platform, whom it went to. */
  to: string;
  body: string;
  media: Array<{ url: string; contentType: string }>;
}

/** A message the contact deleted ("unsent") on Messenger or Instagram, as Meta tells of it. */
export interface UnsentMessage {
  channel: MetaChannel;
  /** Meta's id of the message deleted. */
  providerMessageId: string;
  /** The contact's id on the platform, who sent and deleted it. */
  from: string;
}

/** A contact's profile as Meta's profile API gives it, when it does. */
export interface MetaProfile {
  firstName: string | null;
  lastName: string | null;
}
