import type { Gateway } from '../../context.js';
import type { Account } from '../../domain/accounts.js';
import { botSettingsOf } from '../../domain/bot-settings.js';
import type { Campaign } from '../../domain/campaigns.js';
import type { BotAnswer, BotBasis, BotContext, BotConversation, BotSource } from '../../engine/ports/bot-provider.js';
import { faqBotOf } from '../../domain/campaign-bot.js';
import { faqAnswer } from './faq.js';
import { createOpenAiBot } from './openai.js';

/** How many FAQs and resources, the most relevant to the message, an LLM is given as the business's facts. */
const KNOWLEDGE = 5;

/** The context of a reply, and which FAQs and resources retrieval found (indices, best first). */
function contextFor(campaign: Campaign, conversation: BotConversation): { context: BotContext; found: { faqs: number[]; resources: number[] } } {
  const found = faqBotOf(campaign).relevant(conversation.message, KNOWLEDGE);
  const context = {
    ...conversation,
    campaign: { name: campaign.name, language: campaign.language, instructions: campaign.bot.instructions, companyInfo: campaign.bot.companyInfo, goal: campaign.bot.goal },
    knowledge: { faqs: found.faqs.map((i) => campaign.bot.faqs[i]!), resources: found.resources.map((i) => campaign.bot.resources[i]!) },
  };
  return { context, found };
}

/** What an LLM was given to answer from: the FAQs and resources of its context. It tells no confidence. */
const givenTo = (campaign: Campaign, found: { faqs: number[]; resources: number[] }): BotBasis => ({
  confidence: null,
  sources: [
    ...found.faqs.map((index): BotSource => ({ kind: 'faq', index, question: campaign.bot.faqs[index]!.question, use: 'given' })),
    ...found.resources.map((index): BotSource => ({ kind: 'resource', index, text: campaign.bot.resources[index]!, use: 'given' })),
  ],
});

/**
 * The answer of the account's bot provider to the campaign's contact; the FAQ bot answers when that provider fails
 * (down, slow, unusable answer), so a contact is never left without a reply because of it.
 */
export async function answerAs(gw: Gateway, account: Account, campaign: Campaign, conversation: BotConversation): Promise<BotAnswer> {
  const { context, found } = contextFor(campaign, conversation);
  const { provider, openai } = botSettingsOf(account);
  if (provider !== 'openai' || !openai) return { ...faqAnswer(campaign, context), provider: 'faq', fallbackReason: null };
  const llm = createOpenAiBot({ ...openai, timeoutMs: gw.config.botTimeoutMs, targets: gw.config.targetPolicy });
  try {
    return { reply: await llm.reply(context), provider: llm.name, fallbackReason: null, basis: givenTo(campaign, found) };
  } catch (err) {
    const reason = (err as Error).message;
    gw.log.warn({ account: account.id, campaign: campaign.id, provider: llm.name, error: reason }, 'bot provider failed; the FAQ bot answers');
    return { ...faqAnswer(campaign, context), provider: 'faq', fallbackReason: reason };
  }
}
