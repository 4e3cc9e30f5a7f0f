import { readBurst } from '../../bot/burst.js';
import { analyzerFor } from '../../bot/text.js';
import { faqBotOf } from '../../domain/campaign-bot.js';
import type { Campaign } from '../../domain/campaigns.js';
import {
  REPLY_LIMITS,
  type BotBasis,
  type BotContext,
  type BotReply,
  type BotSource,
} from '../../engine/ports/bot-provider.js';
import { severalAnswer } from './faq-several.js';
import { textsFor } from './faq-texts.js';

/**
 * The offline bot, and the default: answers with the FAQ that answers the message when it is confident, greets back
 * and says "you're welcome", stays silent after a lone "ok" or goodbye, and hands off otherwise (the engine tells the
 * contact). It speaks the business's own FAQ answers only, so it never makes anything up. The basis names the FAQ it
 * answered with, or the one that came closest and the resource that covered the message better, and its confidence.
 * A burst that asks several things gets one reply answering each and naming what a person takes (faq-several.ts).
 */
export function faqAnswer(campaign: Campaign, context: BotContext): { reply: BotReply; basis: BotBasis } {
  const texts = textsFor(campaign.language);
  const bot = faqBotOf(campaign);
  const faq = (index: number, use: 'answer' | 'closest'): BotSource => ({
    kind: 'faq',
    index,
    question: campaign.bot.faqs[index]!.question,
    use,
  });
  const messages = context.messages.length ? context.messages : [context.message];
  const reading = readBurst(bot, campaign.bot.faqs, analyzerFor(campaign.language), messages, context.clarifying);
  // The contact's answer to the bot's question "which one?": the FAQ they picked, whose answer they get.
  if (reading.kind === 'picked') {
    return {
      reply: { kind: 'reply', body: campaign.bot.faqs[reading.faqIndex]!.answer, goalReached: false },
      basis: { confidence: 1, sources: [faq(reading.faqIndex, 'answer')] },
    };
  }
  if (reading.kind === 'several')
    return severalAnswer(campaign, reading, context.replyLimit ?? REPLY_LIMITS[campaign.channel]);
  const { reply } = reading;
  if (reply.kind === 'answer') {
    return {
      reply: { kind: 'reply', body: reply.answer, goalReached: false },
      basis: { confidence: round(reply.confidence), sources: [faq(reply.faqIndex, 'answer')] },
    };
  }
  if (reply.kind === 'handoff') {
    const sources: BotSource[] = reply.best ? [faq(reply.best.faqIndex, 'closest')] : [];
    if (reply.resourceIndex !== undefined)
      sources.push({
        kind: 'resource',
        index: reply.resourceIndex,
        text: campaign.bot.resources[reply.resourceIndex]!,
        use: 'covers',
      });
    return {
      reply: { kind: 'handoff', reason: `bot_${reply.reason}`, body: null },
      basis: { confidence: reply.best ? round(reply.best.confidence) : null, sources },
    };
  }
  if (reply.kind === 'clarify') {
    const options = reply.options.map((o) => o.faqIndex);
    const sources = reply.options.map(
      (o): BotSource => ({ kind: 'faq', index: o.faqIndex, question: o.question, use: 'option' }),
    );
    return {
      reply: { kind: 'clarify', body: texts.clarify(reply.options.map((o) => o.question)), options },
      basis: { confidence: round(reply.options[0].confidence), sources },
    };
  }
  const none = { confidence: null, sources: [] };
  if (reply.act === 'greeting')
    return {
      reply: { kind: 'reply', body: texts.greeting(context.contact.firstName?.trim() || null), goalReached: false },
      basis: none,
    };
  if (reply.act === 'thanks') return { reply: { kind: 'reply', body: texts.thanks, goalReached: false }, basis: none };
  return { reply: { kind: 'silent' }, basis: none };
}

const round = (confidence: number) => Math.round(confidence * 100) / 100;
