/**
 * What a message asks about, against what the campaign's FAQs cover. A question names its subject with a noun ("do
 * you repair motorcycles?", "is there a desktop app for linux?"); when that noun is one no FAQ uses, nor any of its
 * synonyms, the FAQ that shares another word with the message ("repair", "app") most likely answers a neighbouring
 * question, not this one. faq-bot.ts then asks whether the contact means that FAQ rather than answer with it.
 *
 * Subject words: in English, the words WordNet reads first as nouns (meaning.ts), less those that frame a question
 * (CONTEXT: people, quantities, proper names); in the other languages, which have
 * no such dictionary here, words of at least SUBJECT_LENGTH letters that are no stop word and no adverb in -mente.
 * Words a question is asked with ("moved", "invite", "exactamente") are left out, or every message with a word the
 * FAQs do not use would be doubted.
 */
import { nounOf, type NounKind } from './meaning.js';
import type { Hit } from './retrieval.js';
import type { Unit } from './text.js';

/** Shortest word that may name a subject where no dictionary says which words are nouns. */
const SUBJECT_LENGTH = 5;

/**
 * Nouns that say who a question is for or how much, or name a place or brand: "for my accountant", "half", "to
 * Canada". They frame a question more often than they are what it asks about. Times do not: "lunchtime sessions"
 * asks about the timetable, not the private sessions an FAQ mentions.
 */
const CONTEXT = new Set<NounKind>(['name', 'person', 'quantity']);

/** Adverbs by their ending, where the ending cannot be a noun's ("exactamente", "rapidamente"). */
const ADVERB_ENDING: Record<string, RegExp> = { es: /mente$/, pt: /mente$/, it: /mente$/ };

/** Whether the unit's word may be what the message asks about (a noun), rather than how it asks. */
export function isSubjectWord(unit: Unit, language: string): boolean {
  if (unit.word.includes(' ')) return false;
  if (language === 'en') {
    const kind = nounOf(unit.word);
    return kind !== undefined && !CONTEXT.has(kind);
  }
  return unit.word.length >= SUBJECT_LENGTH && !ADVERB_ENDING[language]?.test(unit.word);
}

/**
 * Positions of the message's subject words that no FAQ covers: none of their terms or related words is used by any
 * FAQ (`knows`), the hit did not meet them either (a typo of an FAQ's word is met fuzzily), and they are not part of a
 * synonym phrase the hit met.
 */
export function uncoveredSubjects(
  units: readonly Unit[],
  language: string,
  knows: (term: string) => boolean,
  hit: Hit,
): number[] {
  // The words of a synonym phrase the hit met belong to it ("life" in "in real life"): they name nothing of their own.
  const phraseWords = new Set(
    hit.matched.flatMap((i) => (units[i]!.word.includes(' ') ? units[i]!.word.split(' ') : [])),
  );
  const out: number[] = [];
  units.forEach((unit, i) => {
    if (
      hit.matched.includes(i) ||
      phraseWords.has(unit.word) ||
      unit.terms.some(knows) ||
      (unit.related ?? []).some(knows)
    )
      return;
    if (isSubjectWord(unit, language)) out.push(i);
  });
  return out;
}

/**
 * How many of the message's words the hit meets, among those `counts` keeps: a synonym phrase ("how much") and the
 * words of it that count on their own are one.
 */
export function matchedWords(units: readonly Unit[], hit: Hit, counts: (unit: Unit) => boolean = () => true): number {
  const matched = hit.matched.map((i) => units[i]!).filter(counts);
  const single = new Set(matched.filter((u) => !u.word.includes(' ')).map((u) => u.word));
  const phrases = matched.filter((u) => u.word.includes(' ') && !u.word.split(' ').some((w) => single.has(w)));
  return single.size + phrases.length;
}
