import { z } from 'zod';
import { timestamp } from './shared.js';

/** A reply the team saved to insert in a conversation's reply box: the account's whole team reads and uses it. */
export const savedReply = z
  .object({
    id: z.string(),
    name: z.string().describe('What the team finds it by in the reply box; unique in the account, case aside'),
    text: z
      .string()
      .describe('The reply as saved, its placeholders ({{first_name}}, {{custom.plan|your plan}}…) unfilled'),
    authorId: z
      .string()
      .nullable()
      .describe("The member who saved it (the owner's member id for the owner's sign-in); null: the API key"),
    authorName: z
      .string()
      .nullable()
      .describe('Their name as it was when they saved it; null: the API key (a workflow)'),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: 'SavedReply',
    description:
      "A reply the team saved (Intercom's macros, Front's templates): put in a conversation's reply box, never sent by itself",
  });

/** GET /v1/saved-replies/{id}?conversationId=: the saved reply with its text filled in for the conversation's contact. */
export const renderedSavedReply = savedReply
  .extend({
    conversationId: z.string(),
    renderedText: z
      .string()
      .describe("The text with its placeholders filled in for the conversation's contact: what the contact would get"),
  })
  .meta({ id: 'RenderedSavedReply' });
