import type { z } from 'zod';
import type { FieldProblem } from '../api-contract.js';

/**
 * zod's issues as the API's field problems (api-contract.ts): zod's own codes stay inside the gateway, a client
 * sees the few the contract names. `input` is the value that was checked, to tell a missing or blank field.
 */
export function problemOf(issue: z.core.$ZodIssue, input: unknown, where: string): FieldProblem {
  const field = issue.path.length ? issue.path.join('.') : where;
  return { field, ...kindOf(issue, valueAt(input, issue.path)), message: issue.message };
}

/** The problems once each: a value two checks of one schema refused for the same reason is one problem. */
export const distinct = (problems: FieldProblem[]): FieldProblem[] => [
  ...new Map(problems.map((p) => [`${p.field}\n${p.message}`, p])).values(),
];

const LONG: Record<string, string> = {
  string: 'TOO_LONG',
  array: 'TOO_MANY',
  set: 'TOO_MANY',
  map: 'TOO_MANY',
  record: 'TOO_MANY',
};
const SHORT: Record<string, string> = { string: 'TOO_SHORT', array: 'TOO_FEW', set: 'TOO_FEW', map: 'TOO_FEW' };

function kindOf(issue: z.core.$ZodIssue, value: unknown): { code: string; limit?: number } {
  // Left out, null, or a text with nothing but whitespace (a form's empty input) where a value was needed.
  const blank = typeof value === 'string' && value.trim() === '';
  if (issue.code === 'too_big') return { code: LONG[issue.origin] ?? 'TOO_BIG', limit: Number(issue.maximum) };
  if (blank || (issue.code === 'invalid_type' && (value === undefined || value === null))) return { code: 'REQUIRED' };
  if (issue.code === 'too_small') return { code: SHORT[issue.origin] ?? 'TOO_SMALL', limit: Number(issue.minimum) };
  return { code: 'INVALID' };
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
