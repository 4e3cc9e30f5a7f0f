import { z } from 'zod';
import { timestamp } from './shared.js';

const consentChange = z.object({
  at: timestamp,
  channel: z.string().describe("The conversation's channel: sms, whatsapp, messenger, instagram or custom:<label>"),
  keyword: z.string().describe('The word the contact wrote (STOP, START …)'),
});

export const contact = z
  .object({
    id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    phone: z.string().describe('E.164, or "" when the contact has none'),
    email: z.string(),
    fromId: z.string().optional().describe("A custom channel's id of the contact, when it wrote there first"),
    externalIds: z
      .record(z.string(), z.string())
      .optional()
      .describe("The contact's id on each custom channel and on Messenger and Instagram"),
    customFields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
    optOut: consentChange.optional().describe('The last opt-out (STOP …), while it holds'),
    optIn: consentChange.optional().describe('The last opt-in (START, UNSTOP) after an opt-out'),
    createdAt: timestamp,
  })
  .meta({ id: 'Contact' });
export type ContactAnswer = z.output<typeof contact>;

/** A list's contact, with when it joined the list. */
export const listContact = contact.extend({ addedAt: timestamp }).meta({ id: 'ListContact' });
