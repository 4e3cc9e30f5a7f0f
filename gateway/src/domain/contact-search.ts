import { createHash } from 'node:crypto';
import { CONTACT_SEARCH, phoneDigitsOf } from '../api-contract.js';
import { batchesOf } from '../store/batches.js';
import type { Page, Placed, Reader, Store, Tx } from '../store/store.js';
import { readPhone } from './phone.js';
import { normalizeSearch } from '../normal-form.js';

/**
 * Finding contacts by what a person types (`GET /v1/contacts?q=`): the start of a name's word, an email or its local
 * part, the last digits of a phone, an external ID. The store's indexes match whole values, one per document, so
 * each contact holds search keys in `contact_search`, one document per key, found by the index on account and key:
 * - a name's words (each word as written, and the parts of one such as "Ann-Marie") and the email: their first 2 to 8
 *   characters, so "fra" finds Frank and "frank.m" frank.miller@example.com;
 * - each external ID (and fromId): its first 8 characters, the ID being found whole;
 * - the phone's digits: their last 4 and their last 8, so "0123", "555-0123" and "+1 415 555 0123" find
 *   +14155550123. A key of 5 to 7 digits is kept as its last 4 (`lookupKey`), whatever made it: a query of 5 to 7
 *   digits looks up its last 4, and the contacts found are checked against all of them. A phone then costs two
 *   documents where it cost five, and an ID or a name's word made of digits is found by them as before.
 * - an external ID that is the contact's phone written another way ("+14155550123" for a contact of that phone, as a
 *   custom channel's sender often is) is found by the phone's keys, and keeps none of its own.
 * A query is one index lookup (its longest word's first 8 characters, or a phone's last 8 digits), and each contact
 * found is checked against the whole query, so a key shared by others, or left by a contact's earlier name, never
 * shows a contact that does not match. Keys are lower-cased with accents folded ("José" is found as "jose").
 *
 * Punctuation does not matter either: each word and ID is also keyed without it, its letters folded further ("ø" as
 * "o", "ß" as "ss"), and a query is looked up so, so "oneil" finds O'Neil, "annmarie" Ann-Marie and "lukasz" Łukasz.
 * Those keys came in a later release than the written ones, which are still made: a process of the earlier release
 * finds what it always did while an upgrade runs, and the contacts stored before get the new keys from the
 * contact-search-index job (its mark names the keys' version).
 *
 * Keys follow the contact in the transaction that writes it (indexContactIn). A key's document id is made from the
 * contact and the key, so two writers of one key meet on the store's unique id instead of holding it twice.
 */
export interface SearchKey {
  id: string;
  accountId: string;
  contactId: string;
  key: string;
}

/** What of a contact (domain/contacts.ts, which keeps its keys through this module) it is found by. */
export interface SearchableContact {
  id: string;
  accountId: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  email: string | null;
  /**
   * The spec's fromId: the contact's ID from its first custom-channel message, and its latest on messages without a
   * label. Where the contact has no ID of a channel's own label, it is reached there by this one.
   */
  fromId: string | null;
  /** The contact's ID on each labelled custom channel, e.g. {"livechat": "visitor-42", "crm": "123"}. */
  externalIds?: Record<string, string>;
}

const PREFIX_MIN = CONTACT_SEARCH.wordMin;
const KEY_LENGTH = 8;
const SUFFIX_MIN = CONTACT_SEARCH.phoneDigitsMin;
/** Enough words of a name for any real one; a name of 300 words costs no more. */
const MAX_WORDS = 12;

/** Letters that keep no accent to fold in Unicode's decomposition, as a reader of Latin script takes them. */
const FOLDED: Record<string, string> = {
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  ħ: 'h',
  ı: 'i',
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  þ: 'th',
};

/**
 * A normalized word or ID without its punctuation, spaces and signs (emoji and other pictures stay: they may be all
 * a name has), its letters folded: "o'neil" is "oneil", "łukasz" "lukasz".
 */
const compact = (text: string): string =>
  text.replace(/[øłđðħıßæœþ]/g, (c) => FOLDED[c]!).replace(/[\p{P}\p{Z}\p{Sm}\p{Sc}\p{Sk}\s]+/gu, '');

/** The first `n` characters of a text, whole: a cut through a surrogate pair would leave text no store can keep. */
const head = (text: string, n: number): string => Array.from(text).slice(0, n).join('');
const lengthOf = (text: string): number => Array.from(text).length;
const digitsOf = (text: string) => text.replace(/\D/g, '');

/** What a contact is found by. */
interface Terms {
  /** Found by their start: a name's words, the email; as written and compact. */
  words: string[];
  /** Found whole: external IDs; as written and compact. */
  exact: string[];
  /** Found by their end: the phone's digits. */
  digits: string | null;
}

function termsOf(c: Omit<SearchableContact, 'id' | 'accountId'>): Terms {
  const written = normalizeSearch(`${c.firstName ?? ''} ${c.lastName ?? ''}`)
    .split(' ')
    .filter(Boolean)
    .slice(0, MAX_WORDS);
  // "ann-marie" is found as "ann-m…" and as "marie".
  const parts = written.flatMap((word) => word.split(/[^\p{L}\p{N}]+/u).filter((part) => part && part !== word));
  const email = c.email ? [normalizeSearch(c.email)] : [];
  const exact = [c.fromId, ...Object.values(c.externalIds ?? {})]
    .filter((t): t is string => Boolean(t))
    .map(normalizeSearch);
  const words = [...written, ...parts, ...email];
  const withCompact = (terms: string[]) => [...new Set([...terms, ...terms.map(compact).filter(Boolean)])];
  return { words: withCompact(words), exact: withCompact(exact), digits: c.phone ? digitsOf(c.phone) : null };
}

/** A key as stored and looked up: one of 5 to 7 digits is its last 4 (see above). */
function lookupKey(key: string): string {
  return key.length > SUFFIX_MIN && key.length < KEY_LENGTH && /^\d+$/.test(key) ? key.slice(-SUFFIX_MIN) : key;
}

/**
 * The search keys of a contact: its own (`earlier` false), or those an earlier version made for it, which kept
 * every length of a phone's last 4 to 8 digits as it was and keyed an ID that is the phone.
 */
function keysOf(c: Parameters<typeof termsOf>[0], earlier: boolean): Set<string> {
  const { words, exact, digits } = termsOf(c);
  const stored = earlier ? (key: string) => key : lookupKey;
  const keys = new Set<string>();
  for (const word of words)
    for (let n = PREFIX_MIN; n <= Math.min(lengthOf(word), KEY_LENGTH); n++) keys.add(stored(head(word, n)));
  for (const term of exact)
    if (lengthOf(term) >= PREFIX_MIN && (earlier || digits === null || phoneDigitsOf(term) !== digits))
      keys.add(stored(head(term, KEY_LENGTH)));
  if (digits)
    for (let n = SUFFIX_MIN; n <= Math.min(digits.length, KEY_LENGTH); n++) keys.add(stored(digits.slice(-n)));
  return keys;
}

/** Every search key of a contact. */
export const searchKeysOf = (c: Parameters<typeof termsOf>[0]): Set<string> => keysOf(c, false);

/** Every key a contact may hold: its own (`own`, when worked out already), and those an earlier version made for it. */
const heldKeysOf = (c: SearchableContact, own = searchKeysOf(c)): Set<string> => new Set([...own, ...keysOf(c, true)]);

const keyId = (contactId: string, key: string) =>
  `csk_${createHash('sha256').update(`${contactId}\n${key}`).digest('hex').slice(0, 32)}`;

/**
 * Keeps a contact's search keys as the contact is written: `before` is the contact as it was stored (undefined for a
 * new one). Only the keys that change are written. A key that should be there is looked for before it is added, as
 * one may be (written by an earlier version's run, or by a writer that lost a race and runs again).
 */
export async function indexContactIn(
  tx: Tx,
  before: SearchableContact | undefined,
  after: SearchableContact,
): Promise<void> {
  const wanted = searchKeysOf(after);
  const had = before ? searchKeysOf(before) : new Set<string>();
  const added = [...wanted].filter((key) => !had.has(key));
  // What `before` may hold and `after` may not goes, an earlier version's keys included; a key either may hold stays.
  if (before) {
    const kept = heldKeysOf(after, wanted);
    for (const key of heldKeysOf(before, had))
      if (!kept.has(key)) await tx.remove('contact_search', keyId(after.id, key));
  }
  // A new contact's keys cannot be there yet: its id is new.
  const present = before ? await Promise.all(added.map((key) => tx.get('contact_search', keyId(after.id, key)))) : [];
  for (const [i, key] of added.entries()) {
    if (!present[i])
      await tx.insert<SearchKey>('contact_search', {
        id: keyId(after.id, key),
        accountId: after.accountId,
        contactId: after.id,
        key,
      });
  }
}

/**
 * Gives each of these stored contacts the keys it lacks, in one transaction: the contacts stored before search keys
 * existed (contact-search-index job). Each is read again inside, so one written meanwhile is keyed as it is now; a key
 * a concurrent writer added is found and left alone.
 */
export async function indexStoredContactsIn(tx: Tx, ids: string[]): Promise<void> {
  const contacts = await Promise.all(ids.map((id) => tx.get<SearchableContact>('contacts', id)));
  const wanted = contacts.flatMap((c) =>
    c ? [...searchKeysOf(c)].map((key) => ({ c, key, id: keyId(c.id, key) })) : [],
  );
  const present = await Promise.all(wanted.map((w) => tx.get('contact_search', w.id)));
  for (const [i, { c, key, id }] of wanted.entries()) {
    if (!present[i]) await tx.insert<SearchKey>('contact_search', { id, accountId: c.accountId, contactId: c.id, key });
  }
}

/** What a query asks: the key to look up, and the test each contact found must pass. */
export interface SearchQuery {
  key: string;
  matches: (c: SearchableContact) => boolean;
}

/**
 * The digits a phone typed whole may end a stored number with, beside its own: the number as the account reads phones
 * (its default country: "07700 900123" under GB, "011 44 …" under US), and, whatever the country, without the 00 that
 * most of the world dials for the plus, or without the trunk 0 most countries write national numbers with ("07700
 * 900123" is +44 7700 900123 said in the UK, "06 12 34 56 78" +33 6 12 34 56 78 in France). Only those that end with
 * the query's own last 8 digits, the key looked up: a few digits typed with a leading 0 are the last digits, 0
 * included.
 */
function wholeNumberDigits(q: string, digits: string, defaultCountry: string | null | undefined): string[] {
  const key = digits.slice(-KEY_LENGTH);
  const read = readPhone(q, defaultCountry)?.slice(1);
  const dialled = digits.startsWith('00') ? digits.slice(2) : digits.startsWith('0') ? digits.slice(1) : undefined;
  return [read, dialled].filter(
    (d): d is string => d !== undefined && d !== digits && d.length >= KEY_LENGTH && d.endsWith(key),
  );
}

/**
 * The query as typed, or undefined when it holds nothing to look for (no word of 2 letters or digits, no 4 digits of
 * a phone). A phone typed whole is read as the account reads phones (`defaultCountry`), and as dialled (above).
 */
export function searchQuery(q: string, defaultCountry?: string | null): SearchQuery | undefined {
  const text = normalizeSearch(q);
  const digits = phoneDigitsOf(text);
  if (digits !== null && digits.length >= SUFFIX_MIN) {
    const whole = wholeNumberDigits(q, digits, defaultCountry);
    return {
      key: lookupKey(digits.slice(-KEY_LENGTH)),
      // An ID or a name made of digits ("9001") is found by them too: its key is the same when they are 8 or fewer.
      matches: (c) => {
        const terms = termsOf(c);
        return (
          [digits, ...whole].some((d) => Boolean(terms.digits?.endsWith(d))) ||
          terms.exact.includes(digits) ||
          (text === digits && terms.words.some((word) => word.startsWith(text)))
        );
      },
    };
  }
  // Looked up without punctuation: "o'neil", "O’Neil" and "oneil" are one word.
  const words = text.split(' ').map(compact).filter(Boolean);
  const longest = words.reduce((a, b) => (lengthOf(b) > lengthOf(a) ? b : a), '');
  if (lengthOf(longest) < PREFIX_MIN) return undefined;
  const whole = compact(text);
  return {
    key: lookupKey(head(longest, KEY_LENGTH)),
    // Every word typed starts a word of the name (or the email), or the whole text is an external ID.
    matches: (c) => {
      const terms = termsOf(c);
      return terms.exact.includes(whole) || words.every((w) => terms.words.some((word) => word.startsWith(w)));
    },
  };
}

/**
 * The account's contacts that match the query, newest keys first, `page.limit` after `page.after`: each with the key
 * it was found by, at its place, which a page's cursor holds (a key document's id in an earlier version's), so that
 * a contact renamed or erased between two pages, its key gone, does not end the walk there.
 */
export async function searchContacts<C extends SearchableContact>(
  r: Reader & Pick<Store, 'findPlaced'>,
  accountId: string,
  query: SearchQuery,
  page: { limit: number; after?: Page['after'] },
): Promise<Array<Placed<SearchKey> & { contact: C }>> {
  const found: Array<Placed<SearchKey> & { contact: C }> = [];
  const batches = batchesOf<SearchKey>(r, 'contact_search', 'key', [accountId, query.key], {
    size: page.limit,
    order: 'desc',
    after: page.after,
  });
  for await (const batch of batches) {
    const contacts = await Promise.all(batch.map((k) => r.get<C>('contacts', k.doc.contactId)));
    for (const [i, k] of batch.entries()) {
      const contact = contacts[i];
      if (contact && contact.accountId === accountId && query.matches(contact)) found.push({ ...k, contact });
    }
    if (found.length >= page.limit) break;
  }
  return found.slice(0, page.limit);
}

/** Removes every search key of a contact that is gone (erased, or merged into another), an earlier version's too. */
export async function unindexContactIn(tx: Tx, contact: SearchableContact): Promise<void> {
  for (const key of heldKeysOf(contact)) await tx.remove('contact_search', keyId(contact.id, key));
}
