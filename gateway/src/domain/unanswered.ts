import { groupQuestions, type QuestionGroup } from '../bot/grouping.js';
import { newId, now } from '../ids.js';
import type { Reader, Tx } from '../store/store.js';
import { faqBotOf } from './campaign-bot.js';
import { getCampaign, type Campaign } from './campaigns.js';
import type { unanswered } from '../contract/bot.js';
import type { Answer } from '../contract/shared.js';

/**
 * What a campaign's bot could not answer: each message it handed off for want of an answer (the FAQ bot unsure, or
 * without FAQs; an LLM that handed over), kept with the campaign, so that the business sees which FAQs to add.
 */
export interface Unanswered {
  id: string;
  accountId: string;
  campaignId: string;
  conversationId: string;
  messageId: string;
  question: string;
  at: string;
}

/** The hand-off reasons that mean the bot had no answer (not a contact asking for a person). */
const WITHOUT_ANSWER = new Set(['bot_not_confident', 'bot_no_knowledge', 'bot_handoff']);
/** A question is kept up to this length: enough to read what was asked. */
const MAX_QUESTION = 500;
/** The latest questions of a campaign that the list groups. */
const READ = 1000;

export const isUnanswered = (reason: string): boolean => WITHOUT_ANSWER.has(reason);

export async function recordUnanswered(
  tx: Tx,
  campaign: Campaign,
  message: { id: string; conversationId: string | null; body: string },
): Promise<void> {
  const question = message.body.trim().slice(0, MAX_QUESTION);
  if (!question || !message.conversationId) return;
  await tx.insert<Unanswered>('unanswered', {
    id: newId('unq'),
    accountId: campaign.accountId,
    campaignId: campaign.id,
    conversationId: message.conversationId,
    messageId: message.id,
    question,
    at: now(),
  });
}

export interface UnansweredGroup extends QuestionGroup {
  /** The campaign's FAQ that answers the question now, as the FAQ bot reads it (an FAQ added since), or null. */
  answeredBy: { faqIndex: number; question: string } | null;
}

/**
 * GET /v1/campaigns/{id}/unanswered: the campaign's latest unanswered questions (up to READ), grouped when they ask
 * the same thing, largest groups first; `limit` groups at most.
 */
export async function unansweredOf(
  r: Reader,
  accountId: string,
  campaignId: string,
  limit: number,
): Promise<Answer<typeof unanswered>> {
  const campaign = await getCampaign(r, accountId, campaignId);
  const latest = await r.find<Unanswered>('unanswered', 'campaign', [campaign.id], { order: 'desc', limit: READ });
  const groups = groupQuestions(latest, campaign.language);
  const bot = faqBotOf(campaign);
  const data = groups.slice(0, limit).map((group) => {
    const reply = bot.answer(group.question);
    return {
      ...group,
      answeredBy:
        reply.kind === 'answer'
          ? { faqIndex: reply.faqIndex, question: campaign.bot.faqs[reply.faqIndex]!.question }
          : null,
    };
  });
  return { data, total: groups.length, questions: latest.length };
}
