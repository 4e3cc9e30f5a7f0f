/**
 * Spec §1: a phone number must carry the country code with a leading plus. Builders paste numbers from forms in
 * every shape, so separators are dropped, a leading 00 becomes +, and a number without either can take a
 * default country code (its national trunk 0 removed). Without one, a national number goes to the gateway as it is,
 * which reads it under the account's default country or refuses it, saying how to write it. Anything that cannot be
 * a phone number at all is refused here, before the API is called.
 */
export function normalizePhone(raw: string, defaultCountryCode = ''): string | undefined {
  let phone = raw.trim().replace(/^tel:/i, '');
  if (!phone) return undefined;
  // Every dash too, as the API takes them: a word processor's en dash or no-break hyphen, a minus sign.
  phone = phone.replace(/[\s()./\p{Pd}\u2212]/gu, '');
  if (phone.startsWith('00')) phone = `+${phone.slice(2)}`;
  if (!phone.startsWith('+')) {
    const countryCode = defaultCountryCode.replace(/\D/g, '');
    if (!countryCode) return /^\d{4,15}$/.test(phone) ? phone : undefined;
    phone = `+${countryCode}${phone.replace(/^0+/, '')}`;
  }
  return /^\+[1-9]\d{6,14}$/.test(phone) ? phone : undefined;
}

export const PHONE_FORMAT_HINT =
  'Write it in international format with a leading + and the country code, e.g. +14155550123, or set "Default Country Code" (or the account\'s default country on the gateway) for national numbers.';
