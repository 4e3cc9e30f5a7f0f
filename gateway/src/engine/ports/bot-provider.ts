import type { FaqEntry } from '../../bot/faq-bot.js';

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
  /** The contact's unanswered message (several sent in a burst are joined by newlines). */
  message: string;
  /** The same unanswered messages one by one, oldest first. */
  messages: string[];
  /** The FAQs (indices) the bot last asked the contact to choose between, while that question stands; else null. */
  clarifying: number[] | null;
  /** The campaign's FAQs and resources that retrieval found relevant to `message`, best first. */
  knowledge: { faqs: FaqEntry[]; resources: string[] };
}

export type BotReply =
  /** Send `body`; `goalReached` when the conversation just reached the campaign's goal. */
  | { kind: 'reply'; body: string; goalReached: boolean }
  /** A person should take over; `body` is what the contact is told meanwhile, null for nothing. */
  | { kind: 'handoff'; reason: string; body: string | null }
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
export type BotConversation = Pick<BotContext, 'contact' | 'history' | 'message' | 'messages' | 'clarifying'>;

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
