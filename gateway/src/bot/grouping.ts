import { analyzerFor, CONCEPT_MARK, type Unit } from './text.js';

/** Questions asking the same thing: the latest wording, up to MAX_WORDINGS others, how many and when last. */
export interface QuestionGroup {
  question: string;
  wordings: string[];
  count: number;
  latestAt: string;
}

const MAX_WORDINGS = 3;
/** Share of their meaningful words two questions must have in common to ask the same thing. */
const SAME = 0.5;

/** What a word stands for: its synonym concept when it has one ("how much", "price", "cost" alike), else its stem. */
const keyOf = (unit: Unit): string => unit.terms.find((t) => t.startsWith(CONCEPT_MARK)) ?? unit.terms[0] ?? unit.word;

function similarity(a: Set<string>, b: Set<string>): number {
  if (!a.size || !b.size) return 0;
  let shared = 0;
  for (const key of a) if (b.has(key)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * Groups questions, newest first, by what they ask: words reduced to stems and synonym concepts in the campaign's
 * language, a question joining the group whose first question shares the most with it (at least half of their words
 * together). Questions without a meaningful word group by their text. Largest groups first, then the most recent.
 */
export function groupQuestions(
  questions: ReadonlyArray<{ question: string; at: string }>,
  language?: string,
): QuestionGroup[] {
  const analyzer = analyzerFor(language);
  const groups: Array<QuestionGroup & { keys: Set<string>; text: string }> = [];
  for (const { question, at } of questions) {
    const keys = new Set(analyzer.units(question).map(keyOf));
    const text = question.trim().toLowerCase();
    let best: (typeof groups)[number] | undefined;
    let closest = 0;
    for (const group of groups) {
      const score = keys.size ? similarity(keys, group.keys) : Number(group.text === text);
      if (score > closest) [best, closest] = [group, score];
    }
    if (best && closest >= (keys.size ? SAME : 1)) {
      best.count += 1;
      if (best.question !== question && !best.wordings.includes(question) && best.wordings.length < MAX_WORDINGS)
        best.wordings.push(question);
    } else {
      groups.push({ question, wordings: [], count: 1, latestAt: at, keys, text });
    }
  }
  return groups
    .sort((a, b) => b.count - a.count || b.latestAt.localeCompare(a.latestAt))
    .map(({ question, wordings, count, latestAt }) => ({ question, wordings, count, latestAt }));
}
