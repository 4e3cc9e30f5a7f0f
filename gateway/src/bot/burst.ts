/**
 * The FAQ bot on a burst: the messages a contact sent before the bot answered, which may ask several things
 * (questions.ts cuts them into questions).
 *
 * Each question is read as `answer` reads a message: with its context sentences, else its own sentence alone. A
 * question that leans on the one before (it points back at it, "is that extra?", or names nothing of its own and
 * gets no answer alone, "how much?") is read once more together with it: when that gives the answer of the one
 * before, it is a follow-up which that answer answers too; when the one before had no answer, the two are one
 * question. Questions that get the same answer (asked twice, in two wordings) share it.
 *
 * The burst is read as several questions only when that gives more than reading it whole: at least two different
 * answers, or an answer and a question the bot cannot answer. Otherwise it is read whole, as it always was (the
 * messages together, else the latest alone), so a burst of one question is answered exactly as before. When no
 * question is answered alone but the burst read whole is, that answer goes to the question that came closest to its
 * FAQ (offered it, or handed off with it as the closest), and the others are read as they were.
 *
 * Several questions: the answers, in the order asked; then, when a question cannot be answered, a person takes it
 * (the whole conversation, as any hand-off: the bot then stays silent, so a question the bot would ask back goes to
 * the person too); else, when exactly one question matches two FAQs alike, the bot asks which one (a second such
 * question could not be asked in the same breath, so then a person takes both).
 */
import type { FaqBot, FaqBotReply, FaqCandidate } from './faq-bot.js';
import { questionsOf, refersBack, type BurstQuestion } from './questions.js';
import { answerKey, type FaqEntry } from './retrieval.js';
import { CONCEPT_MARK, type Analyzer } from './text.js';

type Answer = Extract<FaqBotReply, { kind: 'answer' }>;
type Clarify = Extract<FaqBotReply, { kind: 'clarify' }>;
type Handoff = Extract<FaqBotReply, { kind: 'handoff' }>;

export interface AnsweredQuestion {
  question: BurstQuestion;
  faqIndex: number;
  /** 1 for an FAQ the contact picked; else the bot's confidence. */
  confidence: number;
}

export interface HandedOffQuestion {
  question: BurstQuestion;
  /** The FAQ that came closest, or the first the bot would have offered. */
  best?: FaqCandidate;
  resourceIndex?: number;
}

export type BurstReading =
  /** The contact picked one of the FAQs the bot offered (`clarifying`), and asked nothing else. */
  | { kind: 'picked'; faqIndex: number }
  /** Read whole, as one message. */
  | { kind: 'one'; reply: FaqBotReply }
  | {
      kind: 'several';
      /** In the order asked. */
      answered: AnsweredQuestion[];
      /** The one question the bot asks "Do you mean …?" about; null when there is none, or a person takes over. */
      clarify: { question: BurstQuestion; options: Clarify['options'] } | null;
      /** What a person takes, in the order asked; empty when the bot answers all. */
      handedOff: HandedOffQuestion[];
    };

type Read = { question: BurstQuestion; reply: Answer | Clarify | Handoff };

/**
 * What the bot makes of a burst, from the campaign's `faqs`. `clarifying`: the FAQs the bot offered in its last
 * reply ("Do you mean: 1. … 2. …?"), while that question stands; a message of the burst may pick one.
 */
export function readBurst(
  bot: FaqBot,
  faqs: readonly FaqEntry[],
  analyzer: Analyzer,
  messages: readonly string[],
  clarifying: readonly number[] | null = null,
): BurstReading {
  // The latest message that picks an offered FAQ ("2", "the first"); the rest of the burst is read beside it.
  // An FAQ removed since it was offered is no pick.
  const pickOf = (message: string) => {
    const index = clarifying ? bot.choose(message, clarifying) : undefined;
    return index !== undefined && faqs[index] ? index : undefined;
  };
  let pickAt = messages.length - 1;
  while (pickAt >= 0 && pickOf(messages[pickAt]!) === undefined) pickAt -= 1;
  if (pickAt >= 0) {
    const faqIndex = pickOf(messages[pickAt]!)!;
    const rest = messages.filter((_, i) => i !== pickAt);
    const others = readQuestions(bot, analyzer, rest) ?? wholeOrNothing(bot, analyzer, rest);
    const pick: Read = {
      question: { text: messages[pickAt]!, asked: messages[pickAt]! },
      reply: { kind: 'answer', answer: faqs[faqIndex]!.answer, faqIndex, score: 0, confidence: 1 },
    };
    const read = distinct([pick, ...others]);
    return read.length > 1 ? plan(read) : { kind: 'picked', faqIndex };
  }
  const questions = readQuestions(bot, analyzer, messages);
  const whole = () => readWhole(bot, messages);
  if (!questions) return { kind: 'one', reply: whole() };
  let read = distinct(questions);
  if (!read.some((r) => r.reply.kind === 'answer')) {
    // No question answered alone, but the burst read whole is: the answer goes to the question that came closest to it.
    const reply = whole();
    const at = reply.kind === 'answer' ? read.findIndex((r) => offered(r.reply).includes(reply.faqIndex)) : -1;
    if (at < 0) return { kind: 'one', reply };
    read = read.map((r, i) => (i === at ? { ...r, reply: reply as Answer } : r));
  }
  return read.length > 1 ? plan(read) : { kind: 'one', reply: whole() };
}

/** The FAQs a reply that is no answer came closest to: those it would offer, or the closest it handed off with. */
const offered = (reply: Read['reply']): number[] =>
  reply.kind === 'clarify'
    ? reply.options.map((o) => o.faqIndex)
    : reply.kind === 'handoff' && reply.best
      ? [reply.best.faqIndex]
      : [];

/** The burst read whole: the messages together, else, when that is no answer, the latest alone (as "Try the bot" reads it). */
export function readWhole(bot: FaqBot, messages: readonly string[]): FaqBotReply {
  const together = bot.answer(messages.join('\n'));
  const latest = messages.at(-1);
  if (together.kind === 'answer' || messages.length < 2 || latest === undefined) return together;
  const alone = bot.answer(latest);
  return alone.kind === 'answer' ? alone : together;
}

/** Beside a pick, the rest read whole: a question in it is answered or handed off; statements and small talk go. */
function wholeOrNothing(bot: FaqBot, analyzer: Analyzer, messages: readonly string[]): Read[] {
  const questions = questionsOf(messages, analyzer);
  if (!questions.length) return [];
  const reply = readWhole(bot, messages);
  if (reply.kind === 'smalltalk') return [];
  return [{ question: { text: messages.join(' '), asked: questions.map((q) => q.asked).join(' ') }, reply }];
}

/**
 * The burst's questions, each with the bot's reply to it (a follow-up merged into the question it follows); undefined
 * when the burst holds fewer than two questions.
 */
function readQuestions(bot: FaqBot, analyzer: Analyzer, messages: readonly string[]): Read[] | undefined {
  const questions = questionsOf(messages, analyzer, (statement) =>
    ['answer', 'clarify'].includes(bot.answer(statement).kind),
  );
  if (questions.length < 2) return undefined;
  const read: Read[] = [];
  for (const question of questions) {
    let reply = bot.answer(question.text);
    if (reply.kind !== 'answer' && question.asked !== question.text) {
      const alone = bot.answer(question.asked);
      if (alone.kind === 'answer') reply = alone;
    }
    const before = read.at(-1);
    if (
      before &&
      (leansBack(question.asked, analyzer) || (reply.kind !== 'answer' && isElliptical(question.asked, analyzer)))
    ) {
      const together = bot.answer(`${before.question.text} ${question.text}`);
      if (together.kind === 'answer') {
        // The answer to the question before answers this one as well.
        if (keyOf(together) === keyOf(before.reply)) continue;
        // Read together, the two are one question ("Can they carry the sofa upstairs? Is that extra?").
        if (before.reply.kind !== 'answer') {
          read[read.length - 1] = { question: joined(before.question, question), reply: together };
          continue;
        }
        if (reply.kind !== 'answer') reply = together;
      }
    }
    // A question of small talk alone ("hi?") asks nothing.
    if (reply.kind !== 'smalltalk') read.push({ question, reply });
  }
  return read;
}

const keyOf = (reply: FaqBotReply): string | undefined =>
  reply.kind === 'answer' ? answerKey(reply.answer) : undefined;

/** Questions sharing an answer once, where first asked. */
function distinct(read: readonly Read[]): Read[] {
  const seen = new Set<string>();
  return read.filter(({ reply }) => {
    const key = keyOf(reply);
    if (key === undefined) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The reading of several questions (header, last paragraph). */
function plan(read: readonly Read[]): BurstReading {
  const answered: AnsweredQuestion[] = [];
  const unsure: Array<{ question: BurstQuestion; reply: Clarify }> = [];
  const handedOff: HandedOffQuestion[] = [];
  for (const { question, reply } of read) {
    if (reply.kind === 'answer') answered.push({ question, faqIndex: reply.faqIndex, confidence: reply.confidence });
    else if (reply.kind === 'clarify') unsure.push({ question, reply });
    else
      handedOff.push({
        question,
        ...(reply.best ? { best: reply.best } : {}),
        ...(reply.resourceIndex !== undefined ? { resourceIndex: reply.resourceIndex } : {}),
      });
  }
  if (!handedOff.length && unsure.length === 1)
    return {
      kind: 'several',
      answered,
      clarify: { question: unsure[0]!.question, options: unsure[0]!.reply.options },
      handedOff,
    };
  // A person takes what the bot would ask back: questions in the order asked.
  const asked = (q: BurstQuestion) => read.findIndex((r) => r.question === q);
  const all = [...handedOff, ...unsure.map(({ question, reply }) => ({ question, best: reply.options[0] }))].sort(
    (a, b) => asked(a.question) - asked(b.question),
  );
  return { kind: 'several', answered, clarify: null, handedOff: all };
}

/** A short question pointing back at the one before: "is that extra?", "how much extra?", "y eso cuánto cuesta?". */
const leansBack = (question: string, analyzer: Analyzer) =>
  refersBack(question, analyzer) && analyzer.units(question).length <= 2;

/**
 * A question that names nothing of its own: no meaningful word ("and when?"), or one that only a synonym group knows
 * ("how much?", "the price?"). When the bot cannot answer it alone, it is read with the question before it.
 */
function isElliptical(question: string, analyzer: Analyzer): boolean {
  const units = analyzer.units(question);
  return units.length <= 1 && units.every((unit) => unit.terms.some((t) => t.startsWith(CONCEPT_MARK)));
}

const joined = (a: BurstQuestion, b: BurstQuestion): BurstQuestion => ({
  text: `${a.text} ${b.text}`,
  asked: `${a.asked} ${b.asked}`,
});
