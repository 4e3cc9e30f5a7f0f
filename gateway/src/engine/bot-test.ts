import type { Engine } from './ports/providers.js';
import { getAccount } from '../domain/accounts.js';
import { getCampaign } from '../domain/campaigns.js';
import { handoffNotice } from '../domain/texts.js';

/**
 * POST /v1/campaigns/{id}/bot/test: what the campaign's bot would answer, with the account's provider, to a
 * question and an optional conversation so far. Nothing is sent, stored or charged.
 */
export async function testBot(
  gw: Engine,
  accountId: string,
  campaignId: string,
  question: {
    message: string;
    history: Array<{ from: 'contact' | 'bot' | 'team'; body: string }>;
    firstName: string | null;
  },
) {
  const [account, campaign] = await Promise.all([
    getAccount(gw.store, accountId),
    getCampaign(gw.store, accountId, campaignId),
  ]);
  const answer = await gw.providers.answer(gw, account, campaign, {
    contact: { firstName: question.firstName, lastName: null },
    history: question.history,
    message: question.message,
    messages: [question.message],
    clarifying: null,
  });
  // As a real conversation would be told: a hand-off without the bot's own words carries the campaign's notice.
  const reply =
    answer.reply.kind === 'handoff'
      ? { ...answer.reply, body: answer.reply.body ?? handoffNotice(campaign, account) }
      : answer.reply;
  return { campaignId, active: campaign.bot.active, ...answer, reply };
}
