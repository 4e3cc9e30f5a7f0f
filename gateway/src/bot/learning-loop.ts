/**
 * Measures the learning loop: how much a business's coverage grows when its owner turns the bot's unanswered
 * questions into FAQs, as the console offers ("Questions the bot could not answer", Save as FAQ).
 *
 * For each business of the evaluation set, its questions (answerable ones, then off-topic ones, in file order) are
 * split by position: even positions (1st, 3rd, 5th...) are the first half, the weeks before the owner acts; odd ones
 * the second half, the weeks after. Alternating keeps both halves alike in topics and in the share of off-topic
 * questions, and it is fixed, so the figures can be compared from one run to the next.
 *
 * 1. The bot, built from the business's FAQs, answers the first half. The questions it hands off are the unanswered
 *    list, grouped as the product groups it (grouping.ts). Wrong answers and clarifying questions are not on that
 *    list, as in the product: the owner never sees them there.
 * 2. The owner adds one FAQ per group: the group's wording (the latest question) as the FAQ's question, and as its
 *    answer the answer the owner would write, which is the answer of the FAQ that wording expects. A group whose
 *    wording is off-topic gets no FAQ: the owner would write a new answer ("no, we do not repair motorcycles") that no
 *    labelled question expects, so its effect could not be scored; leaving it out changes no figure for the worse.
 * 3. The second half is asked of the bot before (the business's FAQs) and after (plus the owner's FAQs).
 *
 * An answer with an owner's FAQ counts as right when that FAQ carries the answer the question expects. The figures
 * are reported beside the targets and do not decide the exit code of `npm run eval:bot`: they show whether the loop
 * helps, not whether the bot is good enough.
 */
import { createFaqBot, type FaqBotSettings } from './faq-bot.js';
import { groupQuestions } from './grouping.js';
import {
  labelledQuestions,
  rates,
  tallyReplies,
  type EvalSet,
  type LabelledQuestion,
  type Rates,
  type Tally,
} from './evaluation.js';

export interface LearningLoopResult {
  business: string;
  split: EvalSet['split'];
  /** Groups on the unanswered list after the first half, and how many of them became an FAQ. */
  groups: number;
  faqsAdded: number;
  before: { tally: Tally; rates: Rates };
  after: { tally: Tally; rates: Rates };
}

/** The fixed split: even positions first, odd positions second. */
export function halves<T>(items: readonly T[]): [T[], T[]] {
  return [items.filter((_, i) => i % 2 === 0), items.filter((_, i) => i % 2 === 1)];
}

/** One minute apart, oldest first, as the store would time them. */
const timeOf = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString();

export function learningLoop(set: EvalSet, settings: Partial<FaqBotSettings> = {}): LearningLoopResult {
  const knowledge = { faqs: set.faqs, resources: set.resources, language: set.language };
  const faqIds = set.faqs.map((f) => f.id);
  const [first, second] = halves(labelledQuestions(set));

  const bot = createFaqBot(knowledge, settings);
  const unanswered = first.filter((q) => bot.answer(q.text).kind === 'handoff');
  // The unanswered list is newest first.
  const listed = unanswered.map((q, i) => ({ question: q.text, at: timeOf(i) })).reverse();
  const groups = groupQuestions(listed, set.language);

  const byText = new Map<string, LabelledQuestion>(unanswered.map((q) => [q.text, q]));
  const added: Array<{ id: string; question: string; answer: string }> = [];
  for (const group of groups) {
    const expected = byText.get(group.question)?.expected[0];
    const faq = expected === undefined ? undefined : set.faqs.find((f) => f.id === expected);
    if (faq) added.push({ id: faq.id, question: group.question, answer: faq.answer });
  }
  const grown = createFaqBot({ ...knowledge, faqs: [...set.faqs, ...added] }, settings);

  const before = tallyReplies(bot, faqIds, second, set.business);
  const after = tallyReplies(grown, [...faqIds, ...added.map((f) => f.id)], second, set.business);
  return {
    business: set.business,
    split: set.split,
    groups: groups.length,
    faqsAdded: added.length,
    before: { tally: before, rates: rates(before) },
    after: { tally: after, rates: rates(after) },
  };
}
