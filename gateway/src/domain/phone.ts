import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { fieldError } from '../errors.js';

const PHONE_CHARS = /^\+[\d\s().-]{2,30}$/;

/**
 * Spec §1/§7: a phone number must carry a leading plus and a valid country code. Returns its E.164 form, so
 * "+1 (555) 010-0199" and "+15550100199" are the same contact. Possible-length is checked, not carrier validity,
 * which would refuse reserved test ranges.
 */
export function normalizePhone(input: string, field = 'phone'): string {
  const parsed = PHONE_CHARS.test(input.trim()) ? parsePhoneNumberFromString(input.trim()) : undefined;
  if (!parsed || !parsed.isPossible() || parsed.ext) {
    throw fieldError(field, `"${input.slice(0, 40)}" is not a phone number with a country code, such as +14155550123`, 'INVALID_PHONE');
  }
  return parsed.number;
}
