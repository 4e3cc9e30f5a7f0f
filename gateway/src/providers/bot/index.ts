import type { Gateway } from '../../context.js';
import type { Account } from '../../domain/accounts.js';
import { botSettingsOf } from '../../domain/bot-settings.js';
import type { Campaign } from '../../domain/campaigns.js';
import type { BotAnswer, BotBasis, BotContext, BotConversation, BotSource } from '../../engine/ports/bot-provider.js';
import { faqBotOf } from '../../domain/campaign-bot.js';
import { questionsOf } from '../../bot/questions.js';
import { analyzerFor } from '../../bot/text.js';
import { faqAnswer } from './faq.js';
import { createOpenAiBot } from './openai.js';

/** How many FAQs and resources, the most relevant to the message, an LLM is given as the business's facts. */
const KNOWLEDGE = 5;

/**
 * The FAQs and resources relevant to the message: to each of its questions when it asks several (questions.ts), the
 * best of each question first, so that one question's FAQs never crowd out another's; KNOWLEDGE per question.
 */
function relevantTo(campaign: Campaign, conversation: BotConversation): { faqs: number[]; resources: number[] } {
  const bot = faqBotOf(campaign);
  const messages = conversation.messages.length ? conversation.messages : [conversation.message];
  const questions = questionsOf(messages, analyzerFor(campaign.language));
  if (questions.length < 2) return bot.relevant(conversation.message, KNOWLEDGE);
  const each = questions.map((q) => bot.relevant(q.text, KNOWLEDGE));
  // The first of each question, then the second of each, and so on, each once.
  const byRank = (lists: number[][]) => [
    ...new Set(Array.from({ length: KNOWLEDGE }, (_, rank) => lists.flatMap((l) => l.slice(rank, rank + 1))).flat()),
  ];
  return { faqs: byRank(each.map((f) => f.faqs)), resources: byRank(each.map((f) => f.resources)) };
}

/** The context of a reply, and which FAQs and resources retrieval found (indices, best first). */
function contextFor(
  campaign: Campaign,
  conversation: BotConversation,
): { context: BotContext; found: { faqs: number[]; resources: number[] } } {
  const found = relevantTo(campaign, conversation);
  const context = {
    ...conversation,
    campaign: {
      name: campaign.name,
      language: campaign.language,
      instructions: campaign.bot.instructions,
      companyInfo: campaign.bot.companyInfo,
      goal: campaign.bot.goal,
    },
    knowledge: {
      faqs: found.faqs.map((i) => campaign.bot.faqs[i]!),
      resources: found.resources.map((i) => campaign.bot.resources[i]!),
    },
  };
  return { context, found };
}

/** What an LLM was given to answer from: the FAQs and resources of its context. It tells no confidence. */
const givenTo = (campaign: Campaign, found: { faqs: number[]; resources: number[] }): BotBasis => ({
  confidence: null,
  sources: [
    ...found.faqs.map(
      (index): BotSource => ({ kind: 'faq', index, question: campaign.bot.faqs[index]!.question, use: 'given' }),
    ),
    ...found.resources.map(
      (index): BotSource => ({ kind: 'resource', index, text: campaign.bot.resources[index]!, use: 'given' }),
    ),
  ],
});

/**
 * The answer of the account's bot provider to the campaign's contact; the FAQ bot answers when that provider fails
 * (down, slow, unusable answer), so a contact is never left without a reply because of it.
 */
export async function answerAs(
  gw: Gateway,
  account: Account,
  campaign: Campaign,
  conversation: BotConversation,
): Promise<BotAnswer> {
  const { context, found } = contextFor(campaign, conversation);
  const { provider, openai } = botSettingsOf(account);
  if (provider !== 'openai' || !openai)
    return { ...faqAnswer(campaign, context), provider: 'faq', fallbackReason: null };
  const llm = createOpenAiBot({ ...openai, timeoutMs: gw.config.botTimeoutMs, targets: gw.config.targetPolicy });
  try {
    return {
      reply: await llm.reply(context),
      provider: llm.name,
      fallbackReason: null,
      basis: givenTo(campaign, found),
    };
  } catch (err) {
    const reason = (err as Error).message;
    gw.log.warn(
      { account: account.id, campaign: campaign.id, provider: llm.name, error: reason },
      'bot provider failed; the FAQ bot answers',
    );
    return { ...faqAnswer(campaign, context), provider: 'faq', fallbackReason: reason };
  }
}
