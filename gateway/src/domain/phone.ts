import { getCountries, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { fieldError } from '../errors.js';

const PHONE_CHARS = /^\+?[\d\s().-]{2,30}$/;
/** Digits, spaces, brackets, dots and dashes with 7 digits or more: a number written without its country code. */
const looksNational = (text: string) => /^[\d\s().-]+$/.test(text) && text.replace(/\D/g, '').length >= 7;
/**
 * A number a spreadsheet shows (and saves as CSV) in scientific notation, "4.47701E+11" or "4,47701E+11" where the
 * decimal mark is a comma: Excel and Google Sheets take "+447701234567" for a number and a column too narrow shows
 * six digits of it. The digits left out are not in the file, so no number can be read from it.
 */
const SCIENTIFIC = /^\d(?:[.,]\d+)?E\+?\d+$/i;

/**
 * A number with the separators people paste and spreadsheets write in plain spaces and hyphens: a no-break space, the
 * narrow one French number formats group digits with (Excel, Numbers), a word processor's en dash or no-break hyphen,
 * a minus sign. The parser takes only the plain ones.
 */
const plainSeparators = (text: string) => text.replace(/\p{Zs}/gu, ' ').replace(/[\p{Pd}\u2212]/gu, '-');

const COUNTRIES = new Set<string>(getCountries());

/** Whether national numbers of this ISO 3166-1 alpha-2 code (upper case) can be read: its numbering is known. */
export const isPhoneCountry = (code: string): boolean => COUNTRIES.has(code);

/**
 * Spec §1/§7: a phone number must carry a leading plus and a valid country code. Returns its E.164 form, so
 * "+1 (555) 010-0199" and "+15550100199" are the same contact. Possible-length is checked, not carrier validity,
 * which would refuse reserved test ranges.
 *
 * An account with a default country (defaultCountry of /v1/settings) writes numbers as people do there: under US,
 * "(415) 555-0100" and "+1 415 555 0100" are one number, +14155550100. A number with a plus is read the same
 * whatever the default country.
 */
export function normalizePhone(input: string, field = 'phone', defaultCountry?: string | null): string {
  const text = plainSeparators(input).trim();
  const country = text.startsWith('+') ? undefined : (defaultCountry ?? undefined);
  const readable = PHONE_CHARS.test(text) && (text.startsWith('+') || country !== undefined);
  const parsed = readable ? parsePhoneNumberFromString(text, country as CountryCode | undefined) : undefined;
  if (!parsed || !parsed.isPossible() || parsed.ext)
    throw fieldError(field, refusal(input, text, country), 'INVALID_PHONE');
  return parsed.number;
}

/** The number's E.164 form as normalizePhone reads it, or undefined where it reads none. */
export function readPhone(input: string, defaultCountry?: string | null): string | undefined {
  try {
    return normalizePhone(input, 'phone', defaultCountry);
  } catch {
    return undefined;
  }
}

/** Why a number was not read, and what would make it readable. */
function refusal(input: string, text: string, country: string | undefined): string {
  const shown = `"${input.slice(0, 40)}"`;
  if (SCIENTIFIC.test(text))
    return (
      `${shown} is a number a spreadsheet shortened to scientific notation, without its last digits: format the ` +
      'column as Number with no decimals (or as Text) so that every digit shows, and save the file again'
    );
  // The international prefix of most of the world: the country code follows it.
  if (/^00[1-9]/.test(text) && looksNational(text))
    return `${shown} writes its country code after 00: write a plus instead, as "+${text.slice(2, 40)}"`;
  if (country)
    return `${shown} is not a phone number of the default country (${country}) nor one with a country code, such as +14155550123`;
  if (!text.startsWith('+') && looksNational(text)) {
    return `${shown} has no country code: write it with one, such as +14155550123, or set defaultCountry in the settings to read numbers written without one`;
  }
  return `${shown} is not a phone number with a country code, such as +14155550123`;
}
