import { getCountries, getCountryCallingCode, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { fieldError } from '../errors.js';
import { excerpt } from './storable-text.js';

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

/**
 * A contact's phone given without a plus, as normalizePhone reads it: refused when it is as much a number of another
 * country with its plus lost as one of the default country. A spreadsheet takes "+4915112345678" for a figure and
 * saves 4915112345678, and "015112345678" for 15112345678; a national number as people write it starts with its 0, so
 * digits that start otherwise and are a valid number with a plus were most likely that number. Read as one of the
 * default country instead, they would be a number nobody has (+494915112345678), and every message to it lost; taken
 * as the number with the plus, a number with its 0 lost could be someone else's. Under a default country of the North
 * American plan, numbers are written without their trunk 1, so digits starting otherwise are no sign of either.
 */
export function normalizeContactPhone(input: string, field = 'phone', defaultCountry?: string | null): string {
  const read = normalizePhone(input, field, defaultCountry);
  const text = plainSeparators(input).trim();
  if (!defaultCountry || text.startsWith('+') || getCountryCallingCode(defaultCountry as CountryCode) === '1')
    return read;
  const digits = text.replace(/\D/g, '');
  if (digits.startsWith('0')) return read;
  const withPlus = parsePhoneNumberFromString(`+${digits}`);
  if (!withPlus?.isValid() || withPlus.number === read) return read;
  throw fieldError(
    field,
    `"${excerpt(input, 40)}" has neither a plus nor a leading 0, as a spreadsheet saves a phone it took for a figure: ` +
      `it may be ${withPlus.number} with its plus lost, or a number of the default country (${defaultCountry}) with ` +
      'its 0 lost. Write it with its plus (or its 0), and save the column as Text so that it keeps them',
    'INVALID_PHONE',
  );
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
  const shown = `"${excerpt(input, 40)}"`;
  if (SCIENTIFIC.test(text))
    return (
      `${shown} is a number a spreadsheet shortened to scientific notation, without its last digits: format the ` +
      'column as Number with no decimals (or as Text) so that every digit shows, and save the file again'
    );
  // The international prefix of most of the world: the country code follows it.
  if (/^00[1-9]/.test(text) && looksNational(text))
    return `${shown} writes its country code after 00: write a plus instead, as "+${excerpt(text.slice(2), 38)}"`;
  if (country)
    return `${shown} is not a phone number of the default country (${country}) nor one with a country code, such as +14155550123`;
  if (!text.startsWith('+') && looksNational(text)) {
    return `${shown} has no country code: write it with one, such as +14155550123, or set defaultCountry in the settings to read numbers written without one`;
  }
  return `${shown} is not a phone number with a country code, such as +14155550123`;
}
