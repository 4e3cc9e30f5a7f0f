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

/** What the campaign's bot would answer. */
const botReply = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('reply'), body: z.string(), goalReached: z.boolean() }),
  z.object({
    kind: z.literal('handoff'),
    reason: z
      .string()
      .describe(
        "Why a person takes over: the bot's reason (bot_not_confident, bot_no_knowledge, bot_handoff), or contact_asked: the message asks for a person, and the gateway hands off before the bot reads it",
      ),
    body: z.string().nullable().describe('What the contact is told meanwhile'),
    questions: z.array(z.string()).optional(),
  }),
  z.object({ kind: z.literal('silent') }),
  z.object({ kind: z.literal('clarify'), body: z.string(), options: z.array(z.number().int()) }),
]);

/**
 * What the gateway itself answers a contact's message before any bot reads it (engine/keywords.ts), and a campaign
 * whose bot answers nothing.
 */
const gatewayReply = [
  z
    .object({
      kind: z.literal('opt_out'),
      body: z.string().describe('The opt-out confirmation the contact is sent'),
    })
    .describe('An opt-out (STOP, or its words in another language): the contact is opted out and told so, once'),
  z
    .object({
      kind: z.literal('help'),
      body: z.string().describe("The account's helpText (PUT /v1/settings), else the built-in one"),
    })
    .describe('HELP: the contact is sent the help text'),
  z
    .object({
      kind: z.literal('unanswered'),
      reason: z
        .enum(['bot_off', 'campaign_paused', 'campaign_archived'])
        .describe(
          "bot_off: the campaign's bot is turned off; campaign_paused: the campaign is paused; campaign_archived: it is archived",
        ),
      botReply: botReply.describe("What the bot would answer once it answers again; the basis is this answer's"),
    })
    .describe('Nothing is sent: the message waits for a person (the conversation says botLeft)'),
] as const;

const reply = z
  .discriminatedUnion('kind', [...botReply.options, ...gatewayReply])
  .describe(
    "What a contact writing this message would get, in the words they would get: the gateway's own answer to an opt-out, HELP or a request for a person (provider `gateway`), nothing while the bot is off or the campaign paused or archived (`unanswered`), else the bot's answer; START among them, as for a contact who never opted out",
  );

/** POST /v1/campaigns/{id}/bot/test: what the bot would answer, and what it rests on. */
export const botTest = z.object({
  campaignId: z.string(),
  active: z.boolean().describe("Whether the campaign's bot answers contacts"),
  reply,
  provider: z
    .string()
    .describe("The provider whose reply this is: faq, openai, or gateway for the gateway's own answer"),
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
