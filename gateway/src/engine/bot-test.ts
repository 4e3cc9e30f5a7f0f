import type { Engine } from './ports/providers.js';
import { getAccount } from '../domain/accounts.js';
import { answering, getCampaign } from '../domain/campaigns.js';
import { awayNotice, handoffNotice, helpTextOf, OPT_OUT_CONFIRMATION } from '../domain/texts.js';
import { outOfHours } from '../domain/business-time.js';
import { clockNow } from '../clock.js';
import { intentOf } from './keywords.js';

/** No bot was asked: the gateway answers the message itself, as it does a contact's (engine/incoming.ts). */
const byGateway = { provider: 'gateway', fallbackReason: null, basis: { confidence: null, sources: [] } };

/**
 * POST /v1/campaigns/{id}/bot/test: what a contact of the campaign writing this would get, a new contact of a
 * conversation the bot has. As onIncoming reads it, with its classifier and texts: an opt-out, HELP and a request for a
 * person get the gateway's own answer whatever the bot would say; an opt-in (START) opts in again only a contact who
 * had opted out, which this one never did, so it is read as any message; a campaign whose bot answers nothing (off,
 * paused, archived) sends nothing, and says what its bot would answer once on; else the bot answers, with the account's
 * provider, the question and an optional conversation so far. A hand-off out of the account's business hours carries
 * the away notice, as tellHandoff sends it (engine/handoff.ts). Nothing is sent, stored or charged.
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
  const active = campaign.bot.active;
  // Read once, as tellHandoff does: the words of every hand-off below agree.
  const away = outOfHours(account.businessHours, clockNow());
  const notice = away ? awayNotice(campaign, account) : handoffNotice(campaign, account);
  const archived = campaign.status === 'archived';
  switch (intentOf(question.message, campaign)) {
    case 'opt_out':
      return { campaignId, active, reply: { kind: 'opt_out', body: OPT_OUT_CONFIRMATION } as const, ...byGateway };
    case 'help':
      return { campaignId, active, reply: { kind: 'help', body: helpTextOf(account) } as const, ...byGateway };
    case 'handoff': {
      const reply = { kind: 'handoff', reason: 'contact_asked', body: notice } as const;
      return { campaignId, active, reply, ...byGateway };
    }
  }
  const answer = await gw.providers.answer(gw, account, campaign, {
    contact: { firstName: question.firstName, lastName: null },
    history: question.history,
    message: question.message,
    messages: [question.message],
    clarifying: null,
  });
  // As a real conversation would be told: a hand-off without the bot's own words carries the campaign's notice; out
  // of hours the away notice stands in for them too, unless they answer part of a burst.
  const botReply =
    answer.reply.kind === 'handoff'
      ? {
          ...answer.reply,
          body: away && answer.reply.questions === undefined ? notice : (answer.reply.body ?? notice),
        }
      : answer.reply;
  if (answering(campaign)) return { campaignId, active, ...answer, reply: botReply };
  const reason = !active ? 'bot_off' : archived ? 'campaign_archived' : 'campaign_paused';
  return { campaignId, active, ...answer, reply: { kind: 'unanswered', reason, botReply } as const };
}
