import { z } from 'zod';
import { contact } from './contacts.js';
import { importAnswer } from './lists.js';
import { conversation, delivery, message } from './messages.js';
import { note } from './notes.js';
import { FUNNEL_STEPS } from '../api-contract.js';
import { UNREACHABLE_REASONS } from './campaigns.js';
import { timestamp } from './shared.js';

/** GET /v1/contacts/{id}/export: everything the account holds about one contact (GDPR access, Art. 15 and 20). */
export const contactExport = z
  .object({
    exportedAt: timestamp,
    contact,
    identifiers: z
      .array(
        z.object({
          kind: z.enum(['phone', 'email', 'externalId']),
          value: z.string(),
          label: z
            .string()
            .nullable()
            .describe(
              "The custom channel's label the contact shows the ID under; null for a phone, an email, and an ID that finds the contact without being shown (a duplicate's, merged into it)",
            ),
        }),
      )
      .describe('Every phone, email and external ID the gateway finds the contact by'),
    conversations: z.array(conversation).describe('One per channel the contact was talked to on'),
    messages: z.array(message).describe('Every message in and out, oldest first'),
    notes: z
      .array(note)
      .describe("The team's private notes on its conversations, oldest first: never shown to the contact"),
    files: z
      .array(
        z.object({
          id: z.string().nullable().describe('The file the gateway keeps; null for a file left at its provider'),
          messageId: z.string(),
          url: z.string().describe("/v1/media/{id}, read with the account's key; or the provider's address"),
          contentType: z.string(),
          size: z.number().int().nullable(),
          createdAt: timestamp,
        }),
      )
      .describe("The messages' files, as links"),
    lists: z
      .array(
        z.object({ id: z.string(), name: z.string(), addedAt: timestamp, source: z.enum(['api', 'import', 'manual']) }),
      )
      .describe('The lists the contact is on'),
    imports: z
      .array(
        z.object({
          id: z.string(),
          listId: z.string(),
          createdAt: timestamp,
          rowWarnings: z
            .array(importAnswer.shape.rowWarnings.element)
            .describe(
              'The rows imported into the contact with something of them left out, the text left out with them',
            ),
          rowDuplicates: z
            .array(importAnswer.shape.rowDuplicates.element)
            .describe('The rows repeating an earlier row that went to the contact'),
        }),
      )
      .describe('The import reports whose rows name the contact, oldest first: each with those rows only'),
    campaigns: z
      .array(
        z.object({
          id: z.string(),
          opening: conversation.shape.opening
            .unwrap()
            .omit({ campaignId: true })
            .nullable()
            .describe('Its opening message to the contact; null when it had none for it'),
          steps: z
            .array(z.object({ step: z.enum(FUNNEL_STEPS), at: timestamp }))
            .describe('The steps of its funnel the contact reached, in the order of the funnel'),
          unreachable: z
            .array(z.enum(UNREACHABLE_REASONS))
            .describe('Why it could not reach the contact, if it could not'),
        }),
      )
      .describe('The campaigns the contact was part of, with what each recorded about them'),
    unanswered: z
      .array(z.object({ campaignId: z.string(), messageId: z.string(), question: z.string(), at: timestamp }))
      .describe("The contact's messages a campaign's bot could not answer, kept for the business to add FAQs"),
    consent: z
      .array(
        z.object({ change: z.enum(['opt_out', 'opt_in']), at: timestamp, channel: z.string(), keyword: z.string() }),
      )
      .describe('The opt-out and the opt-in after it that the contact holds, oldest first'),
    deliveries: z
      .array(
        delivery.extend({
          event: z.string(),
          messageId: z.string().nullable(),
          url: z.string(),
          payload: z.record(z.string(), z.unknown()),
          createdAt: timestamp,
        }),
      )
      .describe(
        'The webhook deliveries of events about the contact, oldest first: what was sent about them, where, and how it went',
      ),
  })
  .meta({ id: 'ContactExport' });
