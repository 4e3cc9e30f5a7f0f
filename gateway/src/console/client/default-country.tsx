import { useEffect, useState } from 'preact/hooks';

/**
 * The account's default country (defaultCountry of /v1/settings), as every page's phone hints read it: from the
 * session when it starts, then from the Account page when an admin changes it, so the hints follow without a reload.
 */
let current: string | null = null;
const listeners = new Set<(code: string | null) => void>();

export function setDefaultCountry(code: string | null): void {
  current = code;
  for (const listener of listeners) listener(code);
}

export function useDefaultCountry(): string | null {
  const [code, setCode] = useState(current);
  useEffect(() => {
    listeners.add(setCode);
    setCode(current);
    return () => void listeners.delete(setCode);
  }, []);
  return code;
}

/** Country names in the browser's language; the bare code where it knows no name (or no names at all). */
const regionNames =
  typeof Intl.DisplayNames === 'function'
    ? new Intl.DisplayNames(undefined, { type: 'region', fallback: 'code' })
    : undefined;
export const countryName = (code: string): string => regionNames?.of(code) ?? code;

/** Where the default country is set, as the hints name it. */
export const WHERE_SET = 'Settings › Account';

/** What a phone field says of how its numbers are read: national ones as the default country's, else all need +. */
export function phoneHint(code: string | null): string {
  return code
    ? `Numbers without a country code are read as ${countryName(code)} numbers; others start with + and their country code.`
    : `With the country code, such as +1 415 555 0123: no default country is set (an admin can set one in ${WHERE_SET}).`;
}

/** How an imported file's phones are read, as the import says before a file is chosen. */
export function importPhones(code: string | null): string {
  return code
    ? `Phones without a country code are read as ${countryName(code)} numbers (the default country, ${WHERE_SET}); others need + and their country code.`
    : `Phones need their country code (+1 415 555 0123): no default country is set (an admin can set one in ${WHERE_SET}).`;
}
