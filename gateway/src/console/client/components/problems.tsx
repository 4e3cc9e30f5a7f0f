import type { FieldProblem } from '../../../api-contract.js';
import type { ApiResult } from '../api.js';

/**
 * What the API refused, in the words of the form on screen: each field the API names ("bot.faqs.4.answer") is
 * called by its input's label ("FAQ 5: answer"), and every problem is told at once.
 *
 * A form gives its labels by API field path. In a path, "#" stands for a row's index and "*" for any one key (a
 * custom channel's label); a "#" in the label becomes the row's number as the form shows it, counted from 1:
 * { 'bot.faqs.#.answer': 'FAQ #: answer' }.
 */
export type FieldLabels = Readonly<Record<string, string>>;

/** The label of a row's input: "FAQ #: answer" for FAQ 5 is "FAQ 5: answer". */
export const numbered = (label: string, n: number) => label.replace(/#/g, String(n));

export function labelOf(labels: FieldLabels, field: string): string | undefined {
  const keys = field.split('.');
  for (const [path, label] of Object.entries(labels)) {
    const parts = path.split('.');
    if (parts.length !== keys.length) continue;
    if (!parts.every((part, i) => part === keys[i] || part === '*' || (part === '#' && /^\d+$/.test(keys[i]!))))
      continue;
    const rows = parts.flatMap((part, i) => (part === '#' ? [Number(keys[i]) + 1] : []));
    return rows.reduce((text, n) => text.replace('#', String(n)), label);
  }
  return undefined;
}

const count = (n: number | undefined) => (n ?? 0).toLocaleString('en-US');

/** A message that reads on from the field's name ("must be …", "uses …") follows it; any other comes after a colon. */
const READS_ON = /^(must|is|are|has|uses|cannot) /;

/** One problem as a sentence: "Opening message is required", "FAQ 5: answer is longer than 5,000 characters". */
export function sentenceOf(problem: FieldProblem, label = problem.field): string {
  switch (problem.code) {
    case 'REQUIRED':
      return `${label} is required`;
    case 'TOO_LONG':
      return `${label} is longer than ${count(problem.limit)} characters`;
    case 'TOO_SHORT':
      return `${label} is shorter than ${count(problem.limit)} characters`;
    case 'TOO_MANY':
      return `${label}: at most ${count(problem.limit)}`;
    default:
      return READS_ON.test(problem.message) ? `${label} ${problem.message}` : `${label}: ${problem.message}`;
  }
}

/**
 * The text a form shows for a refused request: every problem the API listed, by the form's labels, joined by "; "
 * (and how many more the API did not list); without a list, the API's message as it came.
 */
export function errorText(
  res: Pick<ApiResult<unknown>, 'error' | 'problems'>,
  labels?: FieldLabels,
): string | undefined {
  if (!labels || !res.problems?.length) return res.error;
  const more = /; and \d+ more problems?$/.exec(res.error ?? '')?.[0] ?? '';
  return res.problems.map((p) => sentenceOf(p, labelOf(labels, p.field))).join('; ') + more;
}
