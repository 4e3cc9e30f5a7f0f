/**
 * Measures the FAQ bot on bursts asking two things, made of the evaluation set's own questions (gateway/eval/faq-bot):
 * in each business, consecutive answerable questions expecting different FAQs are paired, and each off-topic question
 * is paired with an answerable one (first or second in turn). Each pair is sent as two messages, and as one message
 * ("…? …", or "… . …" after a question that has its "?" inside). The bursts are read as the bot reads them now (burst.ts) and as it read them before, whole (the
 * messages together, else the latest alone), which answered one question at most.
 *
 * Per question: answered right (an answer given is one of its FAQs), asked which (a "Do you mean …?" offers one of
 * its FAQs), handed off (a person takes the conversation, and reads it all), or left without a word (none of these:
 * the bot answered the other question only, or said nothing). An answer that answers neither question of its burst
 * is a wrong answer. Single questions are read as before: `severalOfOne` counts the set's questions, each sent alone,
 * that the bot now reads as several.
 */
import { readBurst, readWhole } from './burst.js';
import { labelledQuestions, type EvalSet, type LabelledQuestion } from './evaluation.js';
import { createFaqBot, type FaqBot } from './faq-bot.js';
import { analyzerFor, type Analyzer } from './text.js';

export interface BurstTally {
  questions: number;
  answerable: number;
  right: number;
  asked: number;
  handedOff: number;
  /** Questions that got no answer, no question back and no person. */
  leftWithoutWord: number;
  /** Answers that answer neither question of their burst. */
  wrongAnswers: number;
}

export interface BurstReport {
  pairs: number;
  /** The pairs as two messages, and as one: read whole as before, and as now. */
  twoMessages: { before: BurstTally; now: BurstTally };
  oneMessage: { before: BurstTally; now: BurstTally };
  /** The set's questions, each sent alone, that are now read as several questions, and how many questions there are. */
  severalOfOne: { count: number; of: number; examples: string[] };
}

const emptyTally = (): BurstTally => ({
  questions: 0,
  answerable: 0,
  right: 0,
  asked: 0,
  handedOff: 0,
  leftWithoutWord: 0,
  wrongAnswers: 0,
});

/** The set's bursts of two questions (header). */
export function burstPairs(set: EvalSet): Array<[LabelledQuestion, LabelledQuestion]> {
  const questions = labelledQuestions(set);
  const answerable = questions.filter((q) => q.expected.length);
  const offTopic = questions.filter((q) => !q.expected.length);
  const pairs: Array<[LabelledQuestion, LabelledQuestion]> = [];
  for (let i = 0; i + 1 < answerable.length; i += 2) {
    const [a, b] = [answerable[i]!, answerable[i + 1]!];
    if (!a.expected.some((id) => b.expected.includes(id))) pairs.push([a, b]);
  }
  if (!answerable.length) return pairs;
  offTopic.forEach((off, i) => {
    const other = answerable[(i * 3) % answerable.length]!;
    pairs.push(i % 2 ? [off, other] : [other, off]);
  });
  return pairs;
}

/** Two questions written in one message: the second after the first's question mark, or a full stop when it has one. */
const oneMessage = (a: string, b: string) =>
  `${a.trim()}${/[?.!]$/.test(a.trim()) ? '' : a.includes('?') ? '.' : '?'} ${b.trim()}`;

type Outcome = { answers: number[]; asked: number[] | null; handedOff: boolean };

/** What the bot does with a burst: the FAQs it answers with, the ones it asks about, and whether a person takes over. */
function outcomeOf(bot: FaqBot, faqs: EvalSet['faqs'], analyzer: Analyzer, messages: string[], now: boolean): Outcome {
  const reading = now
    ? readBurst(bot, faqs, analyzer, messages)
    : { kind: 'one' as const, reply: readWhole(bot, messages) };
  if (reading.kind === 'picked') return { answers: [reading.faqIndex], asked: null, handedOff: false };
  if (reading.kind === 'several') {
    return {
      answers: reading.answered.map((a) => a.faqIndex),
      asked: reading.clarify?.options.map((o) => o.faqIndex) ?? null,
      handedOff: reading.handedOff.length > 0,
    };
  }
  const { reply } = reading;
  if (reply.kind === 'answer') return { answers: [reply.faqIndex], asked: null, handedOff: false };
  if (reply.kind === 'clarify') return { answers: [], asked: reply.options.map((o) => o.faqIndex), handedOff: false };
  return { answers: [], asked: null, handedOff: reply.kind === 'handoff' };
}

function tally(into: BurstTally, outcome: Outcome, pair: readonly LabelledQuestion[], ids: readonly string[]): void {
  const expects = (q: LabelledQuestion, faqIndex: number) => q.expected.includes(ids[faqIndex]!);
  into.wrongAnswers += outcome.answers.filter((f) => !pair.some((q) => expects(q, f))).length;
  // A question back that offers no FAQ of either question is about one of them all the same.
  const askedAbout = (q: LabelledQuestion) =>
    outcome.asked !== null &&
    (outcome.asked.some((f) => expects(q, f)) || !pair.some((p) => outcome.asked!.some((f) => expects(p, f))));
  for (const q of pair) {
    into.questions += 1;
    if (q.expected.length) into.answerable += 1;
    if (outcome.answers.some((f) => expects(q, f))) into.right += 1;
    else if (outcome.handedOff) into.handedOff += 1;
    else if (askedAbout(q)) into.asked += 1;
    else into.leftWithoutWord += 1;
  }
}

export function evaluateBursts(sets: readonly EvalSet[]): BurstReport {
  const report: BurstReport = {
    pairs: 0,
    twoMessages: { before: emptyTally(), now: emptyTally() },
    oneMessage: { before: emptyTally(), now: emptyTally() },
    severalOfOne: { count: 0, of: 0, examples: [] },
  };
  for (const set of sets) {
    const bot = createFaqBot({ faqs: set.faqs, resources: set.resources, language: set.language });
    const analyzer = analyzerFor(set.language);
    const ids = set.faqs.map((f) => f.id);
    for (const pair of burstPairs(set)) {
      report.pairs += 1;
      const [a, b] = pair;
      for (const [form, messages] of [
        ['twoMessages', [a.text, b.text]],
        ['oneMessage', [oneMessage(a.text, b.text)]],
      ] as const) {
        tally(report[form].before, outcomeOf(bot, set.faqs, analyzer, [...messages], false), pair, ids);
        tally(report[form].now, outcomeOf(bot, set.faqs, analyzer, [...messages], true), pair, ids);
      }
    }
    for (const q of labelledQuestions(set)) {
      report.severalOfOne.of += 1;
      if (readBurst(bot, set.faqs, analyzer, [q.text]).kind === 'several') {
        report.severalOfOne.count += 1;
        report.severalOfOne.examples.push(`${set.business.split(' (')[0]}: "${q.text}"`);
      }
    }
  }
  return report;
}
