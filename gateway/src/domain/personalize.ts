import type { Contact } from './contacts.js';
import { fieldError } from '../errors.js';
import { CUSTOM_PREFIX } from '../api-contract.js';

/**
 * Message templates for opening messages and follow-ups: `{{field}}` or `{{field|fallback}}` replaced by the
 * contact's value. Plain text substitution (SMS and chat texts): nothing is evaluated, nothing is escaped.
 *
 * Rules:
 * - Fields: first_name, last_name, full_name, email, phone (also written firstName, lastName, fullName,
 *   phone_number), and a contact's custom fields as `custom.<key>` (the key as stored; if no key matches exactly,
 *   one that differs only in case). The prefix keeps custom keys apart from the built-in names and lets a typo
 *   such as {{frist_name}} be refused when the campaign is saved, before any contact has the field.
 * - Whitespace around the field and the fallback is ignored: `{{ first_name | there }}`. The fallback is the text
 *   after the first `|`, used when the value is missing or blank.
 * - An empty placeholder (no value, no fallback) renders as nothing and takes one space with it, so no double space
 *   is left: the spaces before it go when it is followed by a space, punctuation ,.;:!?…) or the end of the line;
 *   at the start of a line the spaces after it go. "Hi {{first_name}}, welcome" → "Hi, welcome".
 * - `{{` without a closing `}}` is plain text. Values are cut at MAX_VALUE_LENGTH characters, the message at
 *   MAX_MESSAGE_LENGTH (WhatsApp's text limit; an SMS of that length is sent in segments).
 */

export const MAX_VALUE_LENGTH = 500;
export const MAX_MESSAGE_LENGTH = 4096;

type Fields = Pick<Contact, 'firstName' | 'lastName' | 'email' | 'phone'> & { customFields?: Contact['customFields'] };

const BUILT_IN: Record<string, (c: Fields) => string | null | undefined> = {
  first_name: (c) => c.firstName,
  last_name: (c) => c.lastName,
  full_name: (c) => [c.firstName?.trim(), c.lastName?.trim()].filter(Boolean).join(' '),
  email: (c) => c.email,
  phone: (c) => c.phone,
};
const ALIASES: Record<string, string> = {
  firstName: 'first_name',
  lastName: 'last_name',
  fullName: 'full_name',
  phone_number: 'phone',
};

/** The field names a template may use, as an error message lists them. */
export const KNOWN_FIELDS = [...Object.keys(BUILT_IN), `${CUSTOM_PREFIX}<field>`];

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const FOLLOWS_EMPTY = /^(?:$|[\s,.;:!?…)\]])/u;

function parse(inner: string): { field: string; fallback: string | undefined } {
  const bar = inner.indexOf('|');
  return bar < 0
    ? { field: inner.trim(), fallback: undefined }
    : { field: inner.slice(0, bar).trim(), fallback: inner.slice(bar + 1).trim() };
}

const builtInName = (field: string) =>
  Object.hasOwn(ALIASES, field) ? ALIASES[field]! : Object.hasOwn(BUILT_IN, field) ? field : undefined;
const isKnown = (field: string) =>
  builtInName(field) !== undefined || (field.startsWith(CUSTOM_PREFIX) && field.length > CUSTOM_PREFIX.length);

/** The fields a template uses, each once, in order of first use. */
export function templateFields(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => parse(m[1]!).field))];
}

/** Refuses a template naming an unknown field, with a 400 ApiError that lists the known ones. */
export function checkTemplate(template: string, field = 'template'): void {
  const unknown = templateFields(template).filter((f) => !isKnown(f));
  if (unknown.length) {
    const names = unknown.map((f) => `{{${f}}}`).join(', ');
    throw fieldError(
      field,
      `uses unknown field${unknown.length > 1 ? 's' : ''} ${names}; known fields: ${KNOWN_FIELDS.join(', ')}`,
      'UNKNOWN_TEMPLATE_FIELD',
      ' ',
    );
  }
}

function valueOf(contact: Fields, field: string): string {
  let value: unknown;
  const builtIn = builtInName(field);
  if (builtIn) value = BUILT_IN[builtIn]!(contact);
  else if (field.startsWith(CUSTOM_PREFIX)) {
    const custom = contact.customFields ?? {};
    const key = field.slice(CUSTOM_PREFIX.length);
    const found = Object.hasOwn(custom, key)
      ? key
      : Object.keys(custom).find((k) => k.toLowerCase() === key.toLowerCase());
    value = found === undefined ? undefined : custom[found];
  }
  return value === null || value === undefined ? '' : String(value).trim().slice(0, MAX_VALUE_LENGTH);
}

/** Renders a template for a contact (see the rules above). */
export function personalize(template: string, contact: Fields): string {
  let out = '';
  let last = 0;
  let dropLeadingSpaces = false;
  const append = (text: string) => {
    out += dropLeadingSpaces ? text.replace(/^[^\S\n]+/, '') : text;
    dropLeadingSpaces = false;
  };
  for (const m of template.matchAll(PLACEHOLDER)) {
    append(template.slice(last, m.index));
    last = m.index + m[0].length;
    const { field, fallback } = parse(m[1]!);
    const value = valueOf(contact, field) || (fallback ?? '');
    if (value) {
      append(value);
      continue;
    }
    if (out === '' || out.endsWith('\n')) dropLeadingSpaces = true;
    else if (FOLLOWS_EMPTY.test(template.slice(last))) out = out.replace(/[^\S\n]+$/, '');
  }
  append(template.slice(last));
  return [...out].length > MAX_MESSAGE_LENGTH ? [...out].slice(0, MAX_MESSAGE_LENGTH).join('') : out;
}
