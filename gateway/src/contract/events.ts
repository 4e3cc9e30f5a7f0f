import { z } from 'zod';
import { CAMPAIGN_CHANNELS, HANDOFF_REASONS } from '../api-contract.js';
import { timestamp } from './shared.js';

/**
 * What the gateway posts, signed, to webhook receivers: each event's payload. The code that builds a payload is
 * typed by its schema here, and the OpenAPI document's `webhooks` are generated from these schemas, so what is sent
 * and what is described cannot part. `title` is the event's summary in the document.
 */

/** The two fields every engine event starts with. */
const named = <T extends string>(type: T) => ({
  type: z.literal(type).describe("The event's name, as the webhook-event header gives it"),
  occurredAt: timestamp.describe('When it happened'),
});

const channel = z.enum(CAMPAIGN_CHANNELS).describe("The conversation's channel");
const customChannel = z.string().nullable().describe('The custom channel\'s label, with channel "custom"; else null');
const channelKey = z
  .string()
  .describe("The conversation's channel: sms, whatsapp, messenger, instagram or custom:<label>");
const credits = (description: string) => z.number().describe(`${description}, in credits with at most two decimals`);

/** Spec §2.6: a reply on a custom channel, as the Custom Channel Webhook URL and `reply` subscribers get it. */
export const replyEvent = z
  .object({
    contactId: z.string().describe("The service's contact ID"),
    messageId: z.string().describe("The message's ID in the service"),
    userId: z.string().describe("The account owner's user ID"),
    body: z.string().describe('The reply text'),
    toId: z.string().describe("The contact's ID on the external platform: the fromId of its incoming messages"),
    channel: z.string().describe('The custom channel label'),
    authorId: z.string().optional().describe("A team member's reply: who of the team wrote it"),
    authorName: z.string().nullable().optional().describe("A team member's reply: their name"),
  })
  .meta({
    id: 'ReplyEvent',
    title: 'A reply to deliver on a custom channel',
    description:
      'An outgoing custom-channel message, written by the bot or a team member, for the receiver to deliver (spec §2.6). ' +
      'Posted to the Custom Channel Webhook URL and to every subscription to `reply`; it carries no `type`: the webhook-event header names it. ' +
      "A 2xx answer makes the message sent; the receivers' failure after every retry makes it failed. " +
      'A receiver gets the replies of one conversation one at a time, in the order they were made: each after the one before is sent or has failed for good.',
  });

/** Spec §6.2: an agency's sub-account fell below its auto-recharge threshold. */
export const autoRechargeEvent = z
  .object({
    type: z.literal('auto_recharge').describe("The event's name, as the webhook-event header gives it"),
    idempotency_key: z
      .string()
      .describe(
        'Grant with this as Idempotency-Key, so a twice-delivered event grants once; a request asked again has a new one',
      ),
    sub_account_id: z.string(),
    sub_account_email: z.string().describe('The email to grant credits to (POST /subaccounts/credits)'),
    balance: credits('The balance now'),
    threshold: credits('The threshold it fell below'),
    amount: credits('The amount the rule grants'),
  })
  .meta({
    id: 'AutoRechargeEvent',
    title: "A sub-account's balance fell below its auto-recharge threshold",
    description:
      "Sent to the agency's `auto_recharge` subscribers once each time the balance crosses below the threshold (spec §6.2), " +
      'and again, under a new idempotency_key, when no receiver took that request (after the delivery retry schedule) or the rule is saved while the balance is below it.',
  });

export const messageReceivedEvent = z
  .object({
    ...named('message_received'),
    contactId: z.string(),
    conversationId: z.string(),
    messageId: z.string(),
    channel,
    customChannel,
    body: z.string().describe('What the contact wrote (an emoji for a reaction)'),
    fromId: z
      .string()
      .nullable()
      .describe(
        'Who wrote, as the channel names them: the ID on a custom channel, the phone number on SMS and WhatsApp, the Messenger or Instagram ID Meta gives them',
      ),
    mediaUrl: z.string().nullable().describe("The attachment's URL; null for none"),
  })
  .meta({
    id: 'MessageReceivedEvent',
    title: 'A contact wrote',
    description: 'A message from a contact, on any channel.',
  });

export const handoffEvent = z
  .object({
    ...named('handoff'),
    contactId: z.string(),
    conversationId: z.string(),
    channel,
    customChannel,
    reason: z
      .enum(HANDOFF_REASONS)
      .describe(
        "contact_asked: the contact asked for a person; team: a team member took over; no_campaign: no campaign's bot answers the contact; " +
          "bot_not_confident, bot_no_knowledge (a campaign without FAQs), bot_handoff (an LLM's call): the bot could not answer; " +
          "no_credits: the account had no credits to pay for the bot's answer; " +
          "answer_too_long: the bot's answer was longer than the channel takes in a message; " +
          'file_only: the contact sent a file (a photo, a voice note) with no text, which the bot cannot read; ' +
          "reply_failed: the bot's answer failed for good (no receiver, the provider or every receiver gave up): it never reached the contact; " +
          "bot_reply_limit: the bot had answered the conversation as many times within an hour as botReplyLimit of /settings allows (a conversation that ran away, such as a bridge posting the bot's replies back as the contact's)",
      ),
    body: z
      .string()
      .nullable()
      .describe('What the contact wrote that was handed off; null when a team member took over or they wrote no text'),
    assignee: z
      .object({ id: z.string(), name: z.string(), email: z.string() })
      .nullable()
      .describe('Who of the team has the conversation; null for nobody'),
  })
  .meta({
    id: 'HandoffEvent',
    title: 'A conversation passed to a person',
    description:
      'The contact asked for a person, the bot could not answer, or a team member took over; again, with the ' +
      "hand-off's reason and body, when the member who had the conversation is removed.",
  });

export const handoffWaitingEvent = z
  .object({
    ...named('handoff_waiting'),
    contactId: z.string(),
    conversationId: z.string(),
    channel,
    customChannel,
    waitingSince: timestamp.describe(
      "Since when the contact waits for a person: the hand-off, or their first message since the team's last reply",
    ),
    reason: z
      .enum(HANDOFF_REASONS)
      .nullable()
      .describe("Why the conversation went to the team, as the hand-off's event said it; null if it is not known"),
    body: z
      .string()
      .nullable()
      .describe("The contact's latest message; null when it holds no text (a file alone) or there is none"),
    assignee: z
      .object({ id: z.string(), name: z.string(), email: z.string() })
      .nullable()
      .describe('Who of the team has the conversation and has not answered; null for nobody'),
  })
  .meta({
    id: 'HandoffWaitingEvent',
    title: 'A contact still waits for a person',
    description:
      "A conversation handed to the team has waited for a person's reply as long as the account's reminder says " +
      '(handoffReminderAfter of /settings, 15 minutes unless changed): once per wait. A reply of the team ends the wait; the ' +
      'contact writing again does not start a new one.',
  });

export const snoozeEndedEvent = z
  .object({
    ...named('snooze_ended'),
    conversationId: z.string(),
    contactId: z.string(),
    assignee: z
      .object({ id: z.string(), name: z.string(), email: z.string() })
      .nullable()
      .describe('Who of the team has the conversation; null for nobody'),
    reason: z
      .enum(['time', 'contact_wrote'])
      .describe('time: the time it was snoozed until came; contact_wrote: the contact wrote before then'),
  })
  .meta({
    id: 'SnoozeEndedEvent',
    title: 'A snoozed conversation is back',
    description:
      'A conversation snoozed (POST /conversations/{id}/snooze) is back in the inbox: its time came, or the contact wrote first. ' +
      'Not sent when a member wakes it by hand (DELETE /conversations/{id}/snooze).',
  });

export const conversationLabeledEvent = z
  .object({
    ...named('conversation_labeled'),
    conversationId: z.string(),
    contactId: z.string(),
    added: z.array(z.string()).describe('The labels it was given, as spelled on it; [] when one was removed'),
    removed: z.array(z.string()).describe('The labels taken off it; [] when some were added'),
    labels: z.array(z.string()).describe('Every label it carries now'),
  })
  .meta({
    id: 'ConversationLabeledEvent',
    title: "A conversation's labels changed",
    description:
      'A member or a workflow added labels to a conversation (POST /conversations/{id}/labels) or removed one ' +
      '(DELETE /conversations/{id}/labels/{label}). Not sent when nothing changed (a label it had already), nor when a ' +
      "contacts' merge folds two conversations' labels into one.",
  });

export const optOutEvent = z
  .object({
    ...named('opt_out'),
    contactId: z.string(),
    channel: channelKey.describe('Where the contact wrote it: sms, whatsapp, messenger, instagram or custom:<label>'),
    source: z.enum(['contact']).describe('Who opted the contact out: the contact, in writing'),
    body: z.string().describe('What the contact wrote (STOP, UNSUBSCRIBE …)'),
  })
  .meta({
    id: 'OptOutEvent',
    title: 'A contact opted out',
    description:
      'A contact opted out of every channel of the account (STOP and its kin): nothing more is sent to them.',
  });

export const deliveryFailedEvent = z
  .object({
    ...named('delivery_failed'),
    contactId: z.string(),
    conversationId: z.string().nullable(),
    messageId: z.string(),
    channel: z.string().nullable().describe("Where the message was going: its channel, or a custom channel's label"),
    customChannel: z
      .string()
      .nullable()
      .describe("The custom channel's label when the message was going to one (channel holds it too); else null"),
    error: z.string().nullable().describe('Why it failed, as GET /messages/{id} shows it'),
    errorCode: z
      .string()
      .nullable()
      .describe("Why, for a program: INSUFFICIENT_CREDITS, OUTSIDE_24H_WINDOW, NO_RECEIVER or the provider's own code"),
  })
  .meta({
    id: 'DeliveryFailedEvent',
    title: 'An outgoing message could not be delivered',
    description: 'An outgoing message that will not reach the contact: its channel failed for good, after every retry.',
  });

export const goalReachedEvent = z
  .object({
    ...named('goal_reached'),
    contactId: z.string(),
    conversationId: z.string(),
    campaignId: z.string(),
    goal: z.string().describe("The campaign's goal, as its bot settings say it"),
    messageId: z.string().describe("The bot's reply that reached it"),
  })
  .meta({
    id: 'GoalReachedEvent',
    title: "The campaign's goal was reached",
    description:
      "The bot reported the campaign's goal reached in a conversation (the contact booked, bought, agreed …); once per conversation.",
  });

/** POST /v1/settings/webhook-test: not subscribed to, posted once to the Custom Channel Webhook URL on demand. */
export const testEvent = z
  .object({
    ...named('test'),
    accountId: z.string(),
    message: z.string(),
  })
  .meta({
    id: 'TestEvent',
    title: 'A test of the Custom Channel Webhook URL',
    description:
      'Sent once by POST /settings/webhook-test to the Custom Channel Webhook URL, signed as replies are; nothing is stored or retried.',
  });

/** Every payload the gateway posts, by the name its webhook-event header gives. */
export const WEBHOOK_PAYLOADS = {
  reply: replyEvent,
  auto_recharge: autoRechargeEvent,
  message_received: messageReceivedEvent,
  handoff: handoffEvent,
  handoff_waiting: handoffWaitingEvent,
  snooze_ended: snoozeEndedEvent,
  conversation_labeled: conversationLabeledEvent,
  opt_out: optOutEvent,
  delivery_failed: deliveryFailedEvent,
  goal_reached: goalReachedEvent,
  test: testEvent,
} as const;

export type WebhookName = keyof typeof WEBHOOK_PAYLOADS;
export type WebhookPayload<E extends WebhookName> = z.output<(typeof WEBHOOK_PAYLOADS)[E]>;
