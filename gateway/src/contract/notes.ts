import { z } from 'zod';
import { timestamp } from './shared.js';

/** A note the team left on a conversation: seen by the team only, never by the contact nor the bot. */
export const note = z
  .object({
    id: z.string(),
    conversationId: z.string(),
    contactId: z.string(),
    text: z.string(),
    authorId: z
      .string()
      .nullable()
      .describe("The member who wrote it (the owner's member id for the owner's sign-in); null: the API key"),
    authorName: z
      .string()
      .nullable()
      .describe('Their name as it was when they wrote it; null: the API key (a workflow)'),
    createdAt: timestamp,
  })
  .meta({
    id: 'Note',
    description:
      'A private note on a conversation: never sent to the contact, never part of the bot, the events or the messages',
  });
