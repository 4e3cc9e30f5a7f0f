import type { WhatsAppTemplate } from '../../domain/whatsapp.js';

export type { WhatsAppTemplate };

/** What a built-in channel (SMS, WhatsApp) is asked to send: one message to one phone number. */
export interface OutgoingMessage {
  messageId: string;
  channel: 'sms' | 'whatsapp';
  /** E.164 phone number. */
  to: string;
  body: string;
  /** An approved WhatsApp template to send instead of free text, else null. */
  template: WhatsAppTemplate | null;
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
  channel: 'sms' | 'whatsapp';
  /** The provider's id of the message: repeated deliveries of one webhook carry the same one. */
  providerMessageId: string;
  /** E.164 phone number of the contact. */
  from: string;
  body: string;
  /** Media the provider hosts (fetching it may need the provider's credentials). */
  media: Array<{ url: string; contentType: string }>;
  /** The contact's profile name, when the provider tells it (WhatsApp). */
  profileName: string | null;
  /** When the contact sent it, when the provider tells (WhatsApp); a late webhook does not move the 24-hour window. */
  sentAt: string | null;
}
