/**
 * Measures the FAQ bot against a labelled evaluation set (gateway/eval/faq-bot/*.json): per business, customer
 * questions labelled with the FAQ that answers them, and off-topic questions that no FAQ answers.
 *
 * An answerable question is correct when the bot answers with (one of) the expected FAQ(s), wrong when it answers
 * with another FAQ, clarified when the bot asks which of two FAQs the contact means (counted apart: no answer is
 * given yet, and `clarifiedRight` counts those whose options hold an expected FAQ), handed off otherwise (small talk
 * counts as not answered). An off-topic question is wrongly answered when the bot answers it with any FAQ. The overall wrong-answer rate counts both kinds of wrong answer
 * over all questions, because either one puts a false statement in front of a customer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createFaqBot, type FaqBot, type FaqBotSettings } from './faq-bot.js';

export interface EvalSet {
  business: string;
  language: string;
  /** "tuning": the thresholds were chosen on it; "held-out": only measured. */
  split: 'tuning' | 'held-out';
  faqs: Array<{ id: string; question: string; answer: string }>;
  resources: string[];
  questions: Array<{ text: string; expect: string | string[] }>;
  offTopic: string[];
}

export interface Tally {
  answerable: number;
  correct: number;
  wrong: number;
  handedOff: number;
  clarified: number;
  clarifiedRight: number;
  offTopic: number;
  offTopicClarified: number;
  offTopicHandedOff: number;
  offTopicAnswered: number;
}

export interface Rates {
  correct: number;
  wrong: number;
  handedOff: number;
  clarified: number;
  offTopicHandedOff: number;
  offTopicAnswered: number;
  /** Wrong answers of both kinds over all questions. */
  wrongOverall: number;
}

export interface WrongAnswer {
  business: string;
  question: string;
  given: string;
  /** Expected FAQ ids; empty for an off-topic question. */
  expected: string[];
  confidence: number;
}

export interface EvalReport {
  businesses: Array<{ business: string; language: string; split: EvalSet['split']; tally: Tally; rates: Rates }>;
  overall: { tally: Tally; rates: Rates };
  tuning: { tally: Tally; rates: Rates };
  heldOut: { tally: Tally; rates: Rates };
  wrongAnswers: WrongAnswer[];
  meetsTargets: boolean;
}

/**
 * Precision first: at most 3 % of all questions answered wrongly, on the tuning businesses and on the held-out ones
 * alike (an off-topic question answered counts as wrong), and at least 75 % of the held-out answerable questions
 * answered right.
 */
export const TARGETS = { maxWrongOverall: 0.03, minHeldOutCorrect: 0.75 } as const;

/** Whether the figures of each group meet TARGETS. */
export const meetsTargets = (tuning: Rates, heldOut: Rates): boolean =>
  tuning.wrongOverall <= TARGETS.maxWrongOverall &&
  heldOut.wrongOverall <= TARGETS.maxWrongOverall &&
  heldOut.correct >= TARGETS.minHeldOutCorrect;

const emptyTally = (): Tally => ({
  answerable: 0,
  correct: 0,
  wrong: 0,
  handedOff: 0,
  clarified: 0,
  clarifiedRight: 0,
  offTopic: 0,
  offTopicClarified: 0,
  offTopicHandedOff: 0,
  offTopicAnswered: 0,
});

function add(into: Tally, t: Tally): void {
  for (const key of Object.keys(into) as Array<keyof Tally>) into[key] += t[key];
}

const share = (part: number, whole: number) => (whole ? part / whole : 0);

export function rates(t: Tally): Rates {
  return {
    correct: share(t.correct, t.answerable),
    wrong: share(t.wrong, t.answerable),
    handedOff: share(t.handedOff, t.answerable),
    clarified: share(t.clarified, t.answerable),
    offTopicHandedOff: share(t.offTopicHandedOff, t.offTopic),
    offTopicAnswered: share(t.offTopicAnswered, t.offTopic),
    wrongOverall: share(t.wrong + t.offTopicAnswered, t.answerable + t.offTopic),
  };
}

/** Throws when a question expects an FAQ id the set does not define. */
export function checkSet(set: EvalSet): void {
  const ids = new Set(set.faqs.map((f) => f.id));
  if (ids.size !== set.faqs.length) throw new Error(`${set.business}: duplicate FAQ ids`);
  for (const q of set.questions) {
    for (const id of [q.expect].flat())
      if (!ids.has(id)) throw new Error(`${set.business}: "${q.text}" expects unknown FAQ ${id}`);
  }
}

/** One customer question of a set, with the FAQ ids that answer it (none: off-topic). */
export interface LabelledQuestion {
  text: string;
  expected: string[];
}

/** A set's questions in file order: the answerable ones, then the off-topic ones. */
export const labelledQuestions = (set: EvalSet): LabelledQuestion[] => [
  ...set.questions.map((q) => ({ text: q.text, expected: [q.expect].flat() })),
  ...set.offTopic.map((text) => ({ text, expected: [] })),
];

/**
 * Asks the bot each question and tallies what it did. `faqIds[i]` is the id an answer with FAQ i counts as (an FAQ
 * the owner added may answer what an existing one answers). Wrong answers go to `wrongAnswers` when given.
 */
export function tallyReplies(
  bot: FaqBot,
  faqIds: readonly string[],
  questions: readonly LabelledQuestion[],
  business: string,
  wrongAnswers?: WrongAnswer[],
): Tally {
  const tally = emptyTally();
  for (const q of questions) {
    const reply = bot.answer(q.text);
    const offTopic = q.expected.length === 0;
    if (offTopic) tally.offTopic += 1;
    else tally.answerable += 1;
    if (reply.kind === 'clarify') {
      if (offTopic) tally.offTopicClarified += 1;
      else tally.clarified += 1;
      if (!offTopic && reply.options.some((o) => q.expected.includes(faqIds[o.faqIndex]!))) tally.clarifiedRight += 1;
    } else if (reply.kind !== 'answer') {
      if (offTopic) tally.offTopicHandedOff += 1;
      else tally.handedOff += 1;
    } else if (q.expected.includes(faqIds[reply.faqIndex]!)) {
      tally.correct += 1;
    } else {
      if (offTopic) tally.offTopicAnswered += 1;
      else tally.wrong += 1;
      wrongAnswers?.push({
        business,
        question: q.text,
        given: faqIds[reply.faqIndex]!,
        expected: q.expected,
        confidence: reply.confidence,
      });
    }
  }
  return tally;
}

/** Sums tallies, with their rates. */
export function totals(tallies: readonly Tally[]): { tally: Tally; rates: Rates } {
  const tally = emptyTally();
  for (const t of tallies) add(tally, t);
  return { tally, rates: rates(tally) };
}

export function evaluate(sets: readonly EvalSet[], settings: Partial<FaqBotSettings> = {}): EvalReport {
  const wrongAnswers: WrongAnswer[] = [];
  const businesses = sets.map((set) => {
    checkSet(set);
    const bot = createFaqBot({ faqs: set.faqs, resources: set.resources, language: set.language }, settings);
    const faqIds = set.faqs.map((f) => f.id);
    const tally = tallyReplies(bot, faqIds, labelledQuestions(set), set.business, wrongAnswers);
    return { business: set.business, language: set.language, split: set.split, tally, rates: rates(tally) };
  });
  const of = (split?: EvalSet['split']) =>
    totals(businesses.filter((b) => !split || b.split === split).map((b) => b.tally));
  const [tuning, heldOut] = [of('tuning'), of('held-out')];
  return {
    businesses,
    overall: of(),
    tuning,
    heldOut,
    wrongAnswers,
    meetsTargets: meetsTargets(tuning.rates, heldOut.rates),
  };
}

/** The evaluation sets of a directory: every .json file, in name order. */
export function loadEvalSets(dir: string): EvalSet[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as EvalSet);
}
