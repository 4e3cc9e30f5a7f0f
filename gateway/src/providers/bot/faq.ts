import type { FaqBot, FaqBotReply } from '../../bot/faq-bot.js';
import { faqBotOf } from '../../domain/campaign-bot.js';
import type { Campaign } from '../../domain/campaigns.js';
import type { BotBasis, BotContext, BotReply, BotSource } from '../../engine/ports/bot-provider.js';
import { baseLanguage } from '../../language.js';

/** Numbered choices: every channel takes text, not every one takes buttons. */
const choices = (questions: string[]) => questions.map((q, i) => `${i + 1}. ${q}`).join('\n');

/** What the FAQ bot says besides the FAQ answers, per language; English for the others. */
const TEXTS: Record<string, { greeting: (name: string | null) => string; thanks: string; clarify: (questions: string[]) => string }> = {
  en: {
    greeting: (name) => `Hi${name ? ` ${name}` : ''}! How can I help you?`,
    thanks: "You're welcome!",
    clarify: (q) => `Do you mean:\n${choices(q)}\nReply with the number.`,
  },
  es: {
    greeting: (name) => `¡Hola${name ? ` ${name}` : ''}! ¿En qué puedo ayudarte?`,
    thanks: '¡De nada!',
    clarify: (q) => `¿Te refieres a:\n${choices(q)}\nResponde con el número.`,
  },
  pt: {
    greeting: (name) => `Olá${name ? ` ${name}` : ''}! Como posso ajudar?`,
    thanks: 'De nada!',
    clarify: (q) => `Você quer dizer:\n${choices(q)}\nResponda com o número.`,
  },
  fr: {
    greeting: (name) => `Bonjour${name ? ` ${name}` : ''} ! Comment puis-je vous aider ?`,
    thanks: 'Avec plaisir !',
    clarify: (q) => `Vous voulez dire :\n${choices(q)}\nRépondez avec le numéro.`,
  },
  de: {
    greeting: (name) => `Hallo${name ? ` ${name}` : ''}! Wie kann ich helfen?`,
    thanks: 'Gern geschehen!',
    clarify: (q) => `Meinen Sie:\n${choices(q)}\nAntworten Sie mit der Nummer.`,
  },
  it: {
    greeting: (name) => `Ciao${name ? ` ${name}` : ''}! Come posso aiutarti?`,
    thanks: 'Prego!',
    clarify: (q) => `Intendi:\n${choices(q)}\nRispondi con il numero.`,
  },
};

export const textsFor = (language: string) => TEXTS[baseLanguage(language)] ?? TEXTS.en!;

/**
 * Messages sent in a burst are read together first; when together they are not answered, the latest is read alone,
 * as "Try the bot" reads it: an earlier message nobody answered ("I saw your ad") never turns a question the bot
 * knows into a hand-off.
 */
function answerOf(bot: FaqBot, context: BotContext): FaqBotReply {
  const together = bot.answer(context.message);
  const latest = context.messages.at(-1);
  if (together.kind === 'answer' || context.messages.length < 2 || latest === undefined) return together;
  const alone = bot.answer(latest);
  return alone.kind === 'answer' ? alone : together;
}

/**
 * The offline bot, and the default: answers with the FAQ that answers the message when it is confident, greets back
 * and says "you're welcome", stays silent after a lone "ok" or goodbye, and hands off otherwise (the engine tells the
 * contact). It speaks the business's own FAQ answers only, so it never makes anything up. The basis names the FAQ it
 * answered with, or the one that came closest and the resource that covered the message better, and its confidence.
 */
export function faqAnswer(campaign: Campaign, context: BotContext): { reply: BotReply; basis: BotBasis } {
  const texts = textsFor(campaign.language);
  const bot = faqBotOf(campaign);
  const faq = (index: number, use: 'answer' | 'closest'): BotSource => ({ kind: 'faq', index, question: campaign.bot.faqs[index]!.question, use });
  // The contact's answer to the bot's question "which one?": the FAQ they picked, whose answer they get.
  const picked = context.clarifying && context.messages.length ? bot.choose(context.messages.at(-1)!, context.clarifying) : undefined;
  const chosen = picked === undefined ? undefined : campaign.bot.faqs[picked];
  if (chosen) return { reply: { kind: 'reply', body: chosen.answer, goalReached: false }, basis: { confidence: 1, sources: [faq(picked!, 'answer')] } };
  const reply = answerOf(bot, context);
  if (reply.kind === 'answer') {
    return { reply: { kind: 'reply', body: reply.answer, goalReached: false }, basis: { confidence: round(reply.confidence), sources: [faq(reply.faqIndex, 'answer')] } };
  }
  if (reply.kind === 'handoff') {
    const sources: BotSource[] = reply.best ? [faq(reply.best.faqIndex, 'closest')] : [];
    if (reply.resourceIndex !== undefined) sources.push({ kind: 'resource', index: reply.resourceIndex, text: campaign.bot.resources[reply.resourceIndex]!, use: 'covers' });
    return { reply: { kind: 'handoff', reason: `bot_${reply.reason}`, body: null }, basis: { confidence: reply.best ? round(reply.best.confidence) : null, sources } };
  }
  if (reply.kind === 'clarify') {
    const options = reply.options.map((o) => o.faqIndex);
    const sources = reply.options.map((o): BotSource => ({ kind: 'faq', index: o.faqIndex, question: o.question, use: 'option' }));
    return { reply: { kind: 'clarify', body: texts.clarify(reply.options.map((o) => o.question)), options }, basis: { confidence: round(reply.options[0].confidence), sources } };
  }
  const none = { confidence: null, sources: [] };
  if (reply.act === 'greeting') return { reply: { kind: 'reply', body: texts.greeting(context.contact.firstName?.trim() || null), goalReached: false }, basis: none };
  if (reply.act === 'thanks') return { reply: { kind: 'reply', body: texts.thanks, goalReached: false }, basis: none };
  return { reply: { kind: 'silent' }, basis: none };
}

const round = (confidence: number) => Math.round(confidence * 100) / 100;
