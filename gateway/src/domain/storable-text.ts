// The tests compile this module too, against an older standard library: String#isWellFormed is ES2024.
/// <reference lib="es2024.string" />
import { isUtf8 } from 'node:buffer';
import { firstFault, type Found } from './body-walk.js';

/**
 * The one rule for text coming in at any door (/v1 bodies, providers' webhooks). NUL and unpaired surrogates are no
 * characters of any message, name or URL, and PostgreSQL cannot store them; bytes that are not UTF-8 would be decoded
 * to U+FFFD and stored as if the sender had written it. Such text is refused, never mended, so that both backends
 * keep the same thing.
 */

/** Why text was refused: the `reason` of a log line and of a metric, never the text itself. */
export type TextFault = 'nul' | 'lone_surrogate' | 'not_utf8';

/** A part of a body refused for its text, named by where it was (`entry[0].messaging[1]`). */
export interface RefusedPart {
  where: string;
  fault: TextFault;
}

function stringFault(text: string): TextFault | undefined {
  if (text.includes('\u0000')) return 'nul';
  return text.isWellFormed() ? undefined : 'lone_surrogate';
}

/**
 * Where the first string of a parsed value that may not be stored is (`customData.body`, `tags.2`), whether it is a
 * key there, and why.
 */
export const textFaultAt = (value: unknown): Found<TextFault> | undefined => firstFault(value, stringFault);

/** A fault of a parsed value's strings, keys included, or undefined when all of it may be stored. */
export const textFault = (value: unknown): TextFault | undefined => textFaultAt(value)?.fault;

/** Whether every string of a parsed value, keys included, may be stored. */
export const storableText = (value: unknown): boolean => textFault(value) === undefined;

/** Whether bytes are UTF-8: asked of a body as it came, since decoding turns what is not into U+FFFD. */
export const utf8 = (bytes: Uint8Array): boolean => isUtf8(bytes);

/**
 * Whether a UTF-8 form's names and values, percent-decoded, are UTF-8. The form parser leaves an escape it cannot
 * decode as written ("%FF") and turns a raw byte it cannot into U+FFFD: either would be stored as if the contact had
 * written it, so the bytes are judged as they came. Decoding the whole body at once judges every field: `&` and `=`
 * are ASCII, which never continues nor completes a UTF-8 sequence.
 */
export function formIsUtf8(body: Buffer): boolean {
  return utf8(
    Buffer.from(
      body.toString('latin1').replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ),
  );
}

/**
 * At most `max` UTF-16 units of `text`, as an error quotes what it was sent, never half of a character: an emoji the
 * cut falls in goes whole. Cut in two, the answer would hold the very text the gateway refuses to take.
 */
export function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
