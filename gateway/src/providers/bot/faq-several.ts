import type { BurstReading, HandedOffQuestion } from '../../bot/burst.js';
import type { Campaign } from '../../domain/campaigns.js';
import type { BotBasis, BotReply, BotSource } from '../../engine/ports/bot-provider.js';
import { baseLanguage } from '../../language.js';
import { textsFor } from './faq-texts.js';

type Several = Extract<BurstReading, { kind: 'several' }>;

/** A question is quoted up to this length: enough to tell which one is meant. */
const QUOTE_LENGTH = 80;

/**
 * The FAQ bot's one reply to a burst of several questions (bot/burst.ts): the answers, a paragraph each, in the order
 * asked; then a line naming the questions a person will follow up on ("About "…": a member of our team will get back
 * to you shortly.", or the campaign's own hand-off text after the quote), or else the "Do you mean …?" of the one
 * question the bot asks about. The reply stays within `limit` characters: the answers that would not fit are left to
 * the person too, named in that line, except the first: a reply too long even so goes to the team whole, as a lone
 * answer does (engine/bot-reply.ts).
 */
export function severalAnswer(
  campaign: Campaign,
  reading: Several,
  limit: number,
): { reply: BotReply; basis: BotBasis } {
  const texts = textsFor(campaign.language);
  const faqs = campaign.bot.faqs;
  const answered = [...reading.answered];
  let { clarify } = reading;
  const handedOff: HandedOffQuestion[] = [...reading.handedOff];

  const compose = () => {
    const paragraphs = answered.map((a) => faqs[a.faqIndex]!.answer.trim());
    if (handedOff.length)
      paragraphs.push(
        `${texts.about(quoted(handedOff, campaign.language))} ${campaign.bot.handoffMessage?.trim() || texts.followUp}`,
      );
    else if (clarify) paragraphs.push(texts.clarify(clarify.options.map((o) => o.question)));
    return paragraphs.join('\n\n');
  };
  let body = compose();
  while (answered.length > 1 && [...body].length > limit) {
    handedOff.push({ question: answered.pop()!.question });
    // A person now takes over: the question the bot would have asked back is theirs as well.
    if (clarify) handedOff.push({ question: clarify.question, best: clarify.options[0] });
    clarify = null;
    body = compose();
  }

  const faq = (index: number, use: 'answer' | 'closest' | 'option'): BotSource => ({
    kind: 'faq',
    index,
    question: faqs[index]!.question,
    use,
  });
  const sources: BotSource[] = answered.map((a) => faq(a.faqIndex, 'answer'));
  for (const q of handedOff) {
    if (q.best) sources.push(faq(q.best.faqIndex, 'closest'));
    if (q.resourceIndex !== undefined)
      sources.push({
        kind: 'resource',
        index: q.resourceIndex,
        text: campaign.bot.resources[q.resourceIndex]!,
        use: 'covers',
      });
  }
  for (const o of clarify?.options ?? []) sources.push(faq(o.faqIndex, 'option'));
  // The reply is as sure as its least sure answer.
  const basis = { confidence: Math.round(Math.min(...answered.map((a) => a.confidence)) * 100) / 100, sources };

  if (handedOff.length)
    return {
      reply: { kind: 'handoff', reason: 'bot_not_confident', body, questions: handedOff.map((q) => q.question.asked) },
      basis,
    };
  if (clarify) return { reply: { kind: 'clarify', body, options: clarify.options.map((o) => o.faqIndex) }, basis };
  return { reply: { kind: 'reply', body, goalReached: false }, basis };
}

/** The questions as the contact wrote them, each in quotes, as a list of the campaign's language ("a", "b" and "c"). */
function quoted(questions: readonly HandedOffQuestion[], language: string): string {
  const quote = (text: string) => {
    const one = text.replace(/\s+/g, ' ').trim();
    return `"${
      [...one].length > QUOTE_LENGTH
        ? `${[...one]
            .slice(0, QUOTE_LENGTH - 3)
            .join('')
            .trimEnd()}...`
        : one
    }"`;
  };
  const list = questions.map((q) => quote(q.question.asked));
  try {
    return new Intl.ListFormat(baseLanguage(language), { type: 'conjunction' }).format(list);
  } catch {
    return list.join(', ');
  }
}
