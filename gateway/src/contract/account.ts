import { z } from 'zod';
import { AVAILABILITIES, HANDOFF_ASSIGNMENTS, MEMBER_ROLES } from '../api-contract.js';
import { nullableTimestamp, timestamp, weeklyHours } from './shared.js';

/** GET and PUT /v1/settings (the secret is shown: the endpoint is the account's own). */
export const settings = z.object({
  customChannelWebhookUrl: z.string().nullable(),
  webhookSecret: z.string().describe('Signs every webhook the gateway posts (Standard Webhooks)'),
  previousSecretExpiresAt: nullableTimestamp.describe(
    'After a rotation: until when the replaced secret still signs every webhook beside the new one (24 hours); null when none does',
  ),
  helpText: z.string().describe('The answer to a contact who writes HELP'),
  handoffAssignment: z.enum(HANDOFF_ASSIGNMENTS),
  handoffReminderAfter: z
    .string()
    .nullable()
    .describe(
      'How long a contact handed to the team may wait for a reply before the team is reminded (a duration, "15m" unless changed); null: no reminder',
    ),
  botReplyLimit: z
    .number()
    .int()
    .nullable()
    .describe(
      'The most answers the bot gives one conversation within a rolling hour (30 unless changed): the one past it hands the conversation to the team instead (bot_reply_limit); null: no limit',
    ),
  defaultCountry: z
    .string()
    .nullable()
    .describe('ISO 3166-1 alpha-2: the country of phone numbers written without a country code'),
  handoffMessage: z
    .string()
    .nullable()
    .describe(
      'What a contact is told at a hand-off when the campaign sets no text of its own; null: defaultHandoffMessage',
    ),
  defaultHandoffMessage: z.string().describe("The built-in hand-off notice, in the account's language"),
  language: z.string().describe("BCP 47: the language of the gateway's own words to a contact no campaign has"),
  businessHours: weeklyHours(
    "The days of the week, in the hours' time zone, the team works, Monday first; null: every day",
  )
    .nullable()
    .describe(
      "When the team works, as a campaign's sendingWindow: out of them a hand-off tells the contact the away notice, and the wait before a reminder counts only time within them; null: always open",
    ),
  awayMessage: z
    .string()
    .nullable()
    .describe('What a contact is told at a hand-off out of business hours; null: defaultAwayMessage'),
  defaultAwayMessage: z.string().describe("The built-in away notice, in the account's language"),
});

/** POST /v1/settings/webhook-test: what the receiver did; nothing is stored. */
export const webhookTestResult = z.object({
  url: z.string(),
  status: z.number().int().nullable(),
  ok: z.boolean(),
  error: z.string().nullable(),
  durationMs: z.number(),
  webhookId: z.string(),
});
export type WebhookTestAnswer = z.output<typeof webhookTestResult>;

export const apiKey = z.object({ apiKey: z.string().describe('Shown this once: only its digest is kept') });

const metaWebhook = z.object({ webhook: z.string() });
const masked = z.string().describe('Masked: its last characters only');

/** GET /v1/channels, and the answer of every change of a channel. */
export const channels = z
  .object({
    publicUrlConfigured: z
      .boolean()
      .describe('Whether LEADCHAT_PUBLIC_URL is set; else the webhook addresses are the one the gateway listens on'),
    twilio: z
      .object({
        accountSid: z.string(),
        authToken: masked,
        from: z.string().nullable(),
        messagingServiceSid: z.string().nullable(),
        whatsappFrom: z.string().nullable(),
        webhooks: z.object({ incoming: z.string(), status: z.string() }),
      })
      .nullable(),
    whatsapp: z
      .object({
        phoneNumberId: z.string(),
        accessToken: masked,
        appSecret: masked,
        verifyToken: z.string(),
        webhooks: metaWebhook,
      })
      .nullable(),
    messenger: z
      .object({
        pageId: z.string(),
        pageAccessToken: masked,
        appSecret: masked,
        verifyToken: z.string(),
        webhooks: metaWebhook,
      })
      .nullable(),
    instagram: z
      .object({
        instagramAccountId: z.string(),
        accessToken: masked,
        appSecret: masked,
        verifyToken: z.string(),
        webhooks: metaWebhook,
      })
      .nullable(),
  })
  .meta({ id: 'Channels' });
export type ChannelsAnswer = z.output<typeof channels>;

export const member = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(['owner', ...MEMBER_ROLES]),
    status: z.enum(['invited', 'active']),
    availability: z
      .enum(AVAILABILITIES)
      .describe('away: round robin passes them by (PUT /members/{id}/availability); available unless they said so'),
    inviteExpiresAt: nullableTimestamp.describe('While an invitation link is open'),
    createdAt: nullableTimestamp.describe("null for the account's owner"),
  })
  .meta({ id: 'Member' });
export type MemberAnswer = z.output<typeof member>;

/** A new member, or a new link for one: the link is shown this once. */
export const invitation = member
  .extend({ role: z.enum(MEMBER_ROLES), inviteUrl: z.string(), inviteExpiresAt: timestamp })
  .meta({ id: 'Invitation' });

/** Why deliveries to a subscription stopped: its receiver answered 410 Gone, or every attempt failed for 5 days. */
export const WEBHOOK_DISABLED_REASONS = ['gone', 'failing'] as const;

export const webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    createdAt: timestamp,
    status: z
      .enum(['enabled', 'disabled'])
      .describe('disabled: no event is posted to it, nor any retry, until POST /v1/webhooks/{id}/enable'),
    disabledAt: nullableTimestamp.describe('When it was disabled; null while enabled'),
    disabledReason: z
      .enum(WEBHOOK_DISABLED_REASONS)
      .nullable()
      .describe(
        'gone: its receiver answered 410 Gone; failing: every attempt failed for 5 days (see failingSince); null while enabled',
      ),
    lastSuccessAt: nullableTimestamp.describe(
      'When the last delivery it took was posted (to the minute: a success within a minute of the one told is not written down)',
    ),
    lastFailure: z
      .object({
        at: timestamp,
        status: z.number().int().nullable().describe("The receiver's HTTP status; null when it gave none"),
        error: z.string(),
      })
      .nullable()
      .describe('Its last failed attempt; null when none failed'),
    consecutiveFailures: z.number().int().describe('Attempts failed since the last success'),
    failingSince: nullableTimestamp.describe('When the first of those failed; null when the last attempt succeeded'),
  })
  .meta({ id: 'Webhook' });
export const webhookWithSecret = webhook.extend({
  secret: z.string().describe('Shown this once: signs what the subscription receives'),
});
