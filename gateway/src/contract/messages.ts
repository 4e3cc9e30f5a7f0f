import { z } from 'zod';
import { CAMPAIGN_CHANNELS } from '../api-contract.js';
import { contact } from './contacts.js';
import { nullableTimestamp, success, timestamp } from './shared.js';

const direction = z.enum(['incoming', 'outgoing']);
const author = z.enum(['campaign', 'follow_up', 'bot', 'team', 'api', 'system']).nullable();

export const message = z
  .object({
    id: z.string(),
    contactId: z.string(),
    direction,
    body: z.string(),
    status: z
      .string()
      .describe('Incoming: as given (default "received"). Outgoing: pending, then sent (delivered, read) or failed'),
    error: z.string().nullable(),
    errorCode: z
      .string()
      .nullable()
      .describe("With error: INSUFFICIENT_CREDITS, OUTSIDE_24H_WINDOW, or the provider's own code"),
    messageType: z.enum(['text', 'reaction']),
    messageSid: z.string().nullable(),
    fromId: z.string().nullable(),
    toId: z.string().nullable(),
    channel: z.string().nullable(),
    customChannel: z.string().nullable().optional(),
    campaignId: z.string().nullable(),
    conversationId: z.string().nullable(),
    author: author.describe(
      'Who wrote an outgoing message: the campaign, a follow-up, the bot, a team member, the API, or the gateway itself',
    ),
    authorId: z.string().nullable(),
    authorName: z.string().nullable(),
    template: z.object({ name: z.string(), language: z.string(), params: z.array(z.string()) }).nullable(),
    messageTag: z.literal('HUMAN_AGENT').nullable().optional(),
    provider: z.string().nullable(),
    providerMessageId: z.string().nullable(),
    media: z.object({ url: z.string(), contentType: z.string(), mediaId: z.string().nullable() }).nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Message' });
export type MessageAnswer = z.output<typeof message>;

export const delivery = z.object({
  id: z.string(),
  target: z.string().describe('customChannelWebhook, or the id of a webhook subscription'),
  status: z.string(),
  attempts: z.array(
    z.object({
      at: timestamp,
      status: z.number().int().nullable().describe("The receiver's HTTP status; null when it could not be reached"),
      latencyMs: z.number(),
      error: z.string().nullable(),
      responseExcerpt: z
        .string()
        .nullable()
        .describe(
          "The first 500 characters of the receiver's answer, when it came from a public internet address (judged by " +
            'the address connected to) or from a host LEADCHAT_WEBHOOK_TARGETS allows by name; null from loopback, a ' +
            'private or link-local network and the like, or when the receiver could not be reached',
        ),
    }),
  ),
  nextAttemptAt: nullableTimestamp,
});

export const messageWithDeliveries = message
  .extend({ deliveries: z.array(delivery) })
  .meta({ id: 'MessageWithDeliveries' });

export const conversation = z
  .object({
    id: z.string(),
    contactId: z.string(),
    channel: z.enum(CAMPAIGN_CHANNELS),
    customChannel: z.string().nullable(),
    campaignId: z.string().nullable(),
    status: z.enum(['active', 'handed_off', 'opted_out', 'closed']),
    bot: z.object({
      active: z.boolean(),
      since: timestamp.optional(),
      answers: z
        .boolean()
        .describe(
          "Whether the bot answers the contact's next message here: on (not handed off), the contact not opted out, and its campaign's bot on and the campaign not paused. A message it will not answer waits for a person",
        ),
    }),
    opening: z
      .object({
        campaignId: z.string(),
        status: z
          .enum(['queued', 'held', 'sent', 'failed', 'skipped', 'cancelled'])
          .describe(
            'failed: it went and is failed now (no credits, no receiver, the channel refused it), until a retry sends it',
          ),
        reason: z.string().nullable(),
        at: timestamp,
      })
      .nullable(),
    next: z
      .object({ kind: z.enum(['opening', 'follow_up', 'close']), at: timestamp, step: z.number().int().optional() })
      .nullable(),
    lastMessage: z
      .object({
        id: z.string(),
        direction,
        body: z.string(),
        status: z.string(),
        createdAt: timestamp,
        author: author.optional(),
        authorName: z.string().nullable().optional(),
      })
      .nullable(),
    lastIncomingAt: nullableTimestamp,
    goalReachedAt: nullableTimestamp,
    assigneeId: z.string().nullable(),
    handoff: z.object({ reason: z.string(), message: z.string().nullable(), at: timestamp }).nullable(),
    unread: z.number().int().min(0),
    lastReadAt: nullableTimestamp,
    failed: z.number().int().min(0),
    botLeft: z
      .boolean()
      .describe(
        "Whether the contact's message waiting is one no bot answers: it came, or its answer was due, while its campaign's bot was off or the campaign paused (or the account's default campaign's, for a conversation of none). A person answers it; the bot, on again, answers what the contact writes next, with it",
      ),
    needsReply: z
      .boolean()
      .describe(
        'Whether the contact waits for a reply from the team: a team reply that failed (or was stored unsent) is none',
      ),
    waitingSince: nullableTimestamp.describe(
      "Handed to the team and needing a reply: since when the contact waits for a person (the hand-off, or their first message since the team's last reply that reached them: one that failed answers nothing); null while nobody must act",
    ),
    remindedAt: nullableTimestamp.describe(
      'When the team was reminded that the contact still waits (handoffReminderAfter of /settings): once per wait; null until then, and once the wait ends',
    ),
    snoozedUntil: nullableTimestamp.describe(
      'Snoozed (POST /conversations/{id}/snooze): hidden from the inbox until then, when it comes back to the front and its assignee (or the whole team) is told; the contact writing wakes it at once. null when not snoozed',
    ),
    labels: z
      .array(z.string())
      .describe(
        "The team's labels on it (POST /conversations/{id}/labels), as first spelled here, in the order they were added; [] when none. GET /conversations?label= filters by one, case aside",
      ),
    contact: contact.nullable(),
    lastActivityAt: timestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Conversation' });
export type ConversationAnswer = z.output<typeof conversation>;

/** POST /v1/contacts/{id}/bot. */
export const botState = z.object({
  success,
  contactId: z.string(),
  active: z.boolean(),
  conversations: z.array(conversation),
});

/** Retry all failed. */
export const retryReport = z.object({
  retried: z
    .array(z.string())
    .describe("The messages retried, oldest first: sent again, or a campaign's opening put back in its queue"),
  queued: z
    .array(z.string())
    .describe(
      "Of `retried`, the campaign's openings put back in its queue: they go at its pace, inside its sending window",
    ),
  refused: z.array(z.object({ messageId: z.string(), code: z.string(), message: z.string() })),
  more: z.boolean().describe('Whether conversations with failed messages were left for another call'),
});

/**
 * POST /v1/send_custom_channel_message: the message stored, and whether it is on its way. One that cannot go at once
 * (no receiver, no credits) is stored failed, `success` false and `message` saying why; a retry sends it later.
 */
export const sent = z.object({
  success: z.boolean().describe('false when the message was stored failed at once: `message` says why'),
  messageId: z.string(),
  contactId: z.string(),
  message: z.string(),
  errorCode: z
    .string()
    .nullable()
    .describe('Why a message stored failed at once could not go (NO_RECEIVER, INSUFFICIENT_CREDITS…), else null'),
});

/** POST /v1/incoming_custom_channel_message: the message's id, at once. */
export const incomingReceived = z.object({ success, messageId: z.string() });

/** A log channel's incoming message (POST /v1/channels/{channel}/incoming). */
export const received = incomingReceived.extend({ contactId: z.string(), conversationId: z.string().nullable() });

/** GET /v1/labels: the account's labels in use, for a picker. */
export const labelList = z
  .object({
    data: z.array(
      z.object({
        name: z.string().describe('The label as most of its conversations spell it'),
        conversations: z.number().int().describe("How many of the account's conversations carry it, case aside"),
      }),
    ),
  })
  .meta({ id: 'LabelList' });
