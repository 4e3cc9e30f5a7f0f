import { CAMPAIGN_CHANNELS, type CampaignChannel, type HandoffReason } from '../../api-contract.js';
import type { FaqEntry } from '../../bot/faq-bot.js';
import { charactersPerMessage } from '../../domain/text-limits.js';

/** What a bot is given to answer a contact: the campaign's bot settings, the conversation so far and what retrieval found. */
export interface BotContext {
  campaign: {
    name: string;
    /** The campaign's language ("en", "es-MX" …): the bot answers in it unless the contact writes another. */
    language: string;
    instructions: string;
    companyInfo: string;
    goal: string;
  };
  contact: { firstName: string | null; lastName: string | null };
  /** The conversation's earlier messages, oldest first, at most the last 20; the unanswered ones are in `message`. */
  history: Array<{ from: 'contact' | 'bot' | 'team'; body: string }>;
  /**
   * The contact's unanswered message (several sent in a burst are joined by newlines). A burst may ask several
   * questions, in one message or several: the bot answers each, and hands off the ones it cannot answer.
   */
  message: string;
  /** The same unanswered messages one by one, oldest first. */
  messages: string[];
  /**
   * The longest reply the conversation's channel takes, in characters (REPLY_LIMITS); when absent, the campaign's
   * channel's. A reply answering several questions is kept within it.
   */
  replyLimit?: number;
  /**
   * The FAQs (indices) the bot last asked the contact to choose between, while that question stands; else null. -1 in
   * the place of one removed (or reworded) since: its number picks nothing.
   */
  clarifying: number[] | null;
  /** The campaign's FAQs and resources that retrieval found relevant to `message` (to each of its questions), best first. */
  knowledge: { faqs: FaqEntry[]; resources: string[] };
}

export type BotReply =
  /** Send `body`; `goalReached` when the conversation just reached the campaign's goal. */
  | { kind: 'reply'; body: string; goalReached: boolean }
  /**
   * A person should take over; `body` is what the contact is told meanwhile, null for nothing. `questions`: when the
   * reply answers some questions of a burst and hands off the others, those others (what the team is told, and what
   * the campaign keeps as unanswered); absent when the whole message is handed off.
   */
  | { kind: 'handoff'; reason: Extract<HandoffReason, `bot_${string}`>; body: string | null; questions?: string[] }
  /** Nothing to say (a lone "ok" or "thanks"). */
  | { kind: 'silent' }
  /** Ask which of these FAQs (indices of the campaign's `bot.faqs`) the contact means; `body` offers them. */
  | { kind: 'clarify'; body: string; options: number[] };

/** One small interface for every bot: given the context, what to answer. Throws when it could not answer at all. */
export interface BotProvider {
  readonly name: string;
  reply(context: BotContext): Promise<BotReply>;
}

/** What the engine knows of a conversation for the bot; the campaign's settings and knowledge are added here. */
export type BotConversation = Pick<
  BotContext,
  'contact' | 'history' | 'message' | 'messages' | 'clarifying' | 'replyLimit'
>;

/** The longest reply each channel takes, in characters (domain/text-limits.ts: Instagram's 1,000 bytes are 500). */
export const REPLY_LIMITS = Object.fromEntries(
  CAMPAIGN_CHANNELS.map((channel) => [channel, charactersPerMessage(channel)]),
) as Readonly<Record<CampaignChannel, number>>;

/** A FAQ or resource of the campaign that an answer rests on (`index` into `bot.faqs` or `bot.resources`). */
export type BotSource =
  /**
   * answer: the FAQ whose answer the bot gave; closest: the one that came closest when it handed off; option: one it
   * asks the contact to choose; given: passed to an LLM.
   */
  | { kind: 'faq'; index: number; question: string; use: 'answer' | 'closest' | 'option' | 'given' }
  /** covers: it covers the message better than any FAQ (why the bot handed off); given: passed to an LLM. */
  | { kind: 'resource'; index: number; text: string; use: 'covers' | 'given' };

/** Why the bot said what it said: what it rested on and, for the FAQ bot, how sure it was (0 to 1; null for an LLM). */
export interface BotBasis {
  confidence: number | null;
  sources: BotSource[];
}

export interface BotAnswer {
  reply: BotReply;
  /** The provider whose reply this is. */
  provider: string;
  /** Why the account's provider did not answer, when the FAQ bot answered in its place. */
  fallbackReason: string | null;
  basis: BotBasis;
}
