import type { z } from 'zod';
import type { FieldProblem } from '../api-contract.js';

/**
 * zod's issues as the API's field problems (api-contract.ts): zod's own codes stay inside the gateway, a client
 * sees the few the contract names. `input` is the value that was checked, to tell a missing or blank field. Keys a
 * schema that names all it takes does not know are one problem each, named by their own path.
 */
export function problemsOf(issue: z.core.$ZodIssue, input: unknown, where: string): FieldProblem[] {
  if (issue.code === 'unrecognized_keys') {
    const message = where === 'query' ? 'is not a parameter of this endpoint' : 'is not a field of this request';
    return issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), code: 'INVALID', message }));
  }
  const field = issue.path.length ? issue.path.join('.') : where;
  if (issue.code === 'invalid_key' && issue.issues[0]) {
    // A key of a record (a custom field's name, a channel's label) refused: what is wrong with it is the inner issue's.
    const [inner] = issue.issues;
    const message = /^must /.test(inner.message) ? `its name ${inner.message}` : inner.message;
    return [{ field, ...kindOf(inner, issue.path.at(-1)), message }];
  }
  return [{ field, ...kindOf(issue, valueAt(input, issue.path)), message: issue.message }];
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
  // A rule of its own may say which problem it is (`params.field`: a field two spellings could give, left out), or
  // give the error a code of its own (`params.code`, INVALID_CURSOR), which is then the field's too.
  const own: unknown = issue.code === 'custom' ? (issue.params?.field ?? issue.params?.code) : undefined;
  if (typeof own === 'string') return { code: own };
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

/** How each type a field expects is named in a message. */
const A: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};
const SIZED: Record<string, string> = { string: 'characters', array: 'entries', set: 'entries', record: 'entries' };
const sized = (unit: string, bound: string, n: number | bigint) =>
  unit === 'characters' ? `must be ${bound} ${String(n)} characters` : `must have ${bound} ${String(n)} ${unit}`;

/**
 * The messages of the checks a schema states no message for, in the API's words ("must be at most 320 characters")
 * rather than zod's ("Too big: expected string to have <=320 characters"). A message the schema gives wins; an issue
 * not named here keeps zod's.
 */
export function apiWords(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${A[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_big': {
      const unit = SIZED[issue.origin];
      if (unit) return sized(unit, 'at most', issue.maximum);
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}`;
    }
    case 'too_small': {
      const unit = SIZED[issue.origin];
      if (unit === 'characters' && Number(issue.minimum) === 1) return 'must not be empty';
      if (unit) return sized(unit, 'at least', issue.minimum);
      return `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${String(issue.minimum)}`;
    }
    case 'invalid_union': {
      // Each branch refused the value for its type alone: the message names the types it may be.
      const expected = issue.errors.map((branch) =>
        branch.length === 1 && branch[0]!.code === 'invalid_type' ? branch[0]!.expected : undefined,
      );
      if (!expected.length || expected.some((e) => e === undefined)) return undefined;
      const names = expected.map((e) => A[e!] ?? e!);
      return `must be ${names.length > 2 ? `${names.slice(0, -1).join(', ')},` : names[0]} or ${names.at(-1)}`;
    }
    default:
      return undefined;
  }
}
