import { z } from 'zod';
import { TEXT_LIMITS } from '../api-contract.js';
import { fieldError } from '../errors.js';

/** What the gateway takes for an email address, wherever one comes from (a request, a CSV row, a lookup). */
const EMAIL = z.email();
export const isEmail = (value: string): boolean => value.length <= TEXT_LIMITS.email && EMAIL.safeParse(value).success;

/** The address as contacts are matched by it: trimmed and lower-cased; a 400 INVALID_EMAIL for anything else. */
export function normalizeEmail(input: string, field = 'email'): string {
  const email = input.trim().toLowerCase();
  if (!isEmail(email)) throw fieldError(field, `"${input.slice(0, 60)}" is not an email address`, 'INVALID_EMAIL');
  return email;
}
