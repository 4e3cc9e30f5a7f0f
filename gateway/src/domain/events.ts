import type { WebhookPayload } from '../contract/events.js';

/**
 * Every webhook event the gateway delivers: the one list the request schema, the OpenAPI document and the delivery
 * code take their names from. Each is signed and retried the same way; each payload is typed by its schema in
 * contract/events.ts, which the document's `webhooks` describe.
 */
export const EVENTS = [
  /** An outgoing custom-channel message, bot- or team-written (spec §6.1): the Custom Channel Webhook URL gets it too. */
  'reply',
  /** An agency's sub-account fell below its threshold (spec §6.2). */
  'auto_recharge',
  /** A message from a contact, on any channel. */
  'message_received',
  /** A conversation passed to a person: the contact asked for one, the bot could not answer, or a team member took over. */
  'handoff',
  /** A contact has waited for a person longer than the account's reminder allows: once per wait. */
  'handoff_waiting',
  /** A snoozed conversation is back: its time came, or the contact wrote first. */
  'snooze_ended',
  /** The team or a workflow added labels to a conversation, or removed one. */
  'conversation_labeled',
  /** A contact opted out of every channel of the account (STOP and its kin). */
  'opt_out',
  /** An outgoing message that could not be delivered, after every retry. */
  'delivery_failed',
  /** The bot reported the campaign's goal reached in a conversation (the contact booked, bought, agreed …). */
  'goal_reached',
] as const;

export type EventType = (typeof EVENTS)[number];

/** What an event posts: an event without a schema in contract/events.ts does not compile. */
export type EventPayload<E extends EventType> = WebhookPayload<E>;
