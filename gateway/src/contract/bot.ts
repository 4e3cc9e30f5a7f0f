import { z } from 'zod';
import { timestamp } from './shared.js';

const source = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('faq'),
    index: z.number().int(),
    question: z.string(),
    use: z.enum(['answer', 'closest', 'option', 'given']),
  }),
  z.object({
    kind: z.literal('resource'),
    index: z.number().int(),
    text: z.string(),
    use: z.enum(['covers', 'given']),
  }),
]);

const reply = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('reply'), body: z.string(), goalReached: z.boolean() }),
  z.object({
    kind: z.literal('handoff'),
    reason: z.string(),
    body: z.string().nullable(),
    questions: z.array(z.string()).optional(),
  }),
  z.object({ kind: z.literal('silent') }),
  z.object({ kind: z.literal('clarify'), body: z.string(), options: z.array(z.number().int()) }),
]);

/** POST /v1/campaigns/{id}/bot/test: what the bot would answer, and what it rests on. */
export const botTest = z.object({
  campaignId: z.string(),
  active: z.boolean().describe("Whether the campaign's bot answers contacts"),
  reply,
  provider: z.string().describe('The provider whose reply this is'),
  fallbackReason: z
    .string()
    .nullable()
    .describe("Why the account's provider did not answer, when the FAQ bot answered in its place"),
  basis: z.object({
    confidence: z.number().nullable().describe("The FAQ bot's confidence, 0 to 1; null for an LLM"),
    sources: z.array(source),
  }),
});

/** GET /v1/campaigns/{id}/unanswered. */
export const unanswered = z.object({
  data: z.array(
    z.object({
      question: z.string(),
      wordings: z.array(z.string()),
      count: z.number().int(),
      latestAt: timestamp,
      answeredBy: z.object({ faqIndex: z.number().int(), question: z.string() }).nullable(),
    }),
  ),
  total: z.number().int().describe('Groups in all'),
  questions: z.number().int().describe('Questions read'),
});

/** GET and PUT /v1/settings/bot: the key masked. */
export const botSettings = z.object({
  provider: z.enum(['faq', 'openai']),
  openai: z.object({ baseUrl: z.string(), model: z.string(), apiKey: z.string().nullable() }).nullable(),
  defaultCampaignId: z.string().nullable(),
});
