/**
 * The normal form in which the gateway compares what people write: accents removed, lower case, every run of
 * characters other than letters and digits (spaces, punctuation, emoji, apostrophes, hyphens) turned into one space,
 * trimmed. Keywords are read in it (engine/keywords.ts), and two FAQ questions the same in it are one question: the
 * API refuses the second (http/schemas.ts), and the console's Save as FAQ offers none its campaign asks already. In
 * one dependency-free module so that the two cannot drift: nothing here may import anything, the browser bundle
 * compiles it too.
 */
const ASCII = /^\p{ASCII}*$/u;

export function normalForm(text: string): string {
  // Plain ASCII, as most messages are, has no accents to strip: the same result without Unicode decomposition, and
  // with the spaces between words kept rather than each replaced by another.
  if (ASCII.test(text)) {
    const words = text.toLowerCase().replace(/[^a-z0-9 ]+/g, ' ');
    return (words.includes('  ') ? words.replace(/ {2,}/g, ' ') : words).trim();
  }
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Whether two FAQ questions ask the same, as the API judges a campaign's FAQs: "Opening hours?", "opening hours" and
 * "Opening hóurs" do. A question of no letter or digit asks nothing, and is the same as none.
 */
export function sameQuestion(a: string, b: string): boolean {
  const words = normalForm(a);
  return words !== '' && words === normalForm(b);
}

/**
 * The form in which a search compares a name or an address with what was typed: lower case, accents folded, spaces
 * collapsed, trimmed; punctuation kept ("o'brien", "ana@example.com"). The API's `?q=` reads it (contact-search.ts,
 * name-search.ts), and the console filters what it has already read by it, so both find the same.
 */
export const normalizeSearch = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
