/** What a built-in channel (SMS, WhatsApp) is asked to send: one message to one phone number. */
export interface OutgoingMessage {
  messageId: string;
  channel: 'sms' | 'whatsapp';
  /** E.164 phone number. */
  to: string;
  body: string;
  /** The approved WhatsApp template of an opening message, else null. */
  template: string | null;
}

/** A send the provider refused or could not make; `retryable` when trying again later may succeed. */
export class ChannelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
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
  /** Why a campaign with these settings cannot send on this provider, or undefined when it can. */
  refuse(campaign: { channel: 'sms' | 'whatsapp'; openingTemplate: string | null }): string | undefined;
  send(message: OutgoingMessage): Promise<{ providerMessageId: string }>;
}
