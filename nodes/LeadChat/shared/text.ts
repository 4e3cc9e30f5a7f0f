/**
 * The text of a string parameter. An expression gives what it evaluates to, not text: a phone number or an ID mapped
 * from a spreadsheet, a form or another API often comes as a number, a flag as a boolean. Each is read as it is
 * written, so that it is neither dropped nor a crash on `.trim()`; nothing (undefined, null) is empty.
 */
export function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : String(value);
}
