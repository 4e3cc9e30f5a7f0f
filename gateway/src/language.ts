/** The language a code names, without its script or region ("es-MX", "es_MX" → "es"); English when none is given. */
export function baseLanguage(language: string | undefined | null): string {
  return (language ?? 'en').trim().toLowerCase().split(/[-_]/)[0] || 'en';
}
