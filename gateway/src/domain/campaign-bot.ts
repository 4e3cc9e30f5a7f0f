import { createFaqBot, type FaqBot } from '../bot/faq-bot.js';
import type { Campaign } from './campaigns.js';

/** Built indexes by campaign, rebuilt when the campaign changes; the oldest go first past CACHE_SIZE. */
const CACHE_SIZE = 200;
const bots = new Map<string, { updatedAt: string; bot: FaqBot }>();

/** The campaign's FAQ bot, its index built once per version of the campaign. */
export function faqBotOf(campaign: Campaign): FaqBot {
  const cached = bots.get(campaign.id);
  if (cached?.updatedAt === campaign.updatedAt) return cached.bot;
  const bot = createFaqBot({ faqs: campaign.bot.faqs, resources: campaign.bot.resources, language: campaign.language });
  bots.delete(campaign.id);
  bots.set(campaign.id, { updatedAt: campaign.updatedAt, bot });
  if (bots.size > CACHE_SIZE) bots.delete(bots.keys().next().value!);
  return bot;
}
