import type { Gateway } from '../../context.js';
import type { Account } from '../../domain/accounts.js';
import { botSettingsOf } from '../../domain/bot-settings.js';
import type { Campaign } from '../../domain/campaigns.js';
import type { BotAnswer, BotContext, BotConversation } from '../../engine/ports/bot-provider.js';
import { faqBotOf, faqProvider } from './faq.js';
import { createOpenAiBot } from './openai.js';

/** How many FAQs and resources, the most relevant to the message, an LLM is given as the business's facts. */
const KNOWLEDGE = 5;

function contextFor(campaign: Campaign, conversation: BotConversation): BotContext {
  const found = faqBotOf(campaign).relevant(conversation.message, KNOWLEDGE);
  return {
    ...conversation,
    campaign: { name: campaign.name, language: campaign.language, instructions: campaign.bot.instructions, companyInfo: campaign.bot.companyInfo, goal: campaign.bot.goal },
    knowledge: { faqs: found.faqs.map((i) => campaign.bot.faqs[i]!), resources: found.resources.map((i) => campaign.bot.resources[i]!) },
  };
}

/**
 * The answer of the account's bot provider to the campaign's contact; the FAQ bot answers when that provider fails
 * (down, slow, unusable answer), so a contact is never left without a reply because of it.
 */
export async function answerAs(gw: Gateway, account: Account, campaign: Campaign, conversation: BotConversation): Promise<BotAnswer> {
  const context = contextFor(campaign, conversation);
  const faq = faqProvider(campaign);
  const { provider, openai } = botSettingsOf(account);
  if (provider !== 'openai' || !openai) return { reply: await faq.reply(context), provider: faq.name, fallbackReason: null };
  const llm = createOpenAiBot({ ...openai, timeoutMs: gw.config.botTimeoutMs, targets: gw.config.targetPolicy });
  try {
    return { reply: await llm.reply(context), provider: llm.name, fallbackReason: null };
  } catch (err) {
    const reason = (err as Error).message;
    gw.log.warn({ account: account.id, campaign: campaign.id, provider: llm.name, error: reason }, 'bot provider failed; the FAQ bot answers');
    return { reply: await faq.reply(context), provider: faq.name, fallbackReason: reason };
  }
}
