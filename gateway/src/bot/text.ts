/**
 * Language-aware text analysis for the FAQ bot: the same steps turn an FAQ and a customer's message into the terms
 * the search index compares.
 *
 * 1. Lower case; words are runs of letters and digits. English apostrophes join ("don't" → "dont"); in the other
 *    languages they split elisions ("l'adresse" → "l", "adresse"). Numbers alone are dropped: "$300" or "my son
 *    is 4" would otherwise meet unrelated prices and durations in the answers.
 * 2. Synonym phrases (synonyms.ts) are found as whole words in the accent-free word sequence, before stop words go,
 *    and each adds one unit carrying the concept term (`how much` → `~price`). Their words stay and go through the
 *    next steps too: "free of charge" still says "charge".
 * 3. Stop words (the language's list from @orama/stopwords, minus a few that carry meaning in customer questions,
 *    plus chat fillers such as "pls", "guys", "wondering") and one-letter words are dropped.
 * 4. Each remaining word becomes a unit with its stems (@orama/stemmers, the Snowball stemmers): the stem of the
 *    accented word with accents then removed, and the stem of the accent-free word. Customers often drop accents
 *    ("vacunacion"); Snowball stems the two spellings differently, so both stems are kept and either can match.
 *    English irregular plurals and British spellings are read first as their regular/American form ("teeth" →
 *    "tooth", "colour" → "color"). A word of a synonym group also carries the group's concept term.
 *
 * Languages: en, es, pt, fr, de, it (the engine's). Any other language gets steps 1-2 without stemming or stop
 * words, and fuzzy matching still absorbs plural and typo differences.
 */
import { stemmer as stemEn } from '@orama/stemmers/english';
import { stemmer as stemEs } from '@orama/stemmers/spanish';
import { stemmer as stemPt } from '@orama/stemmers/portuguese';
import { stemmer as stemFr } from '@orama/stemmers/french';
import { stemmer as stemDe } from '@orama/stemmers/german';
import { stemmer as stemIt } from '@orama/stemmers/italian';
import { stopwords as stopEn } from '@orama/stopwords/english';
import { stopwords as stopEs } from '@orama/stopwords/spanish';
import { stopwords as stopPt } from '@orama/stopwords/portuguese';
import { stopwords as stopFr } from '@orama/stopwords/french';
import { stopwords as stopDe } from '@orama/stopwords/german';
import { stopwords as stopIt } from '@orama/stopwords/italian';
import { SYNONYMS } from './synonyms.js';
import { baseLanguage } from '../language.js';

/** One meaningful word (or synonym phrase) of a text and the index terms that stand for it. */
export interface Unit {
  word: string;
  terms: string[];
  /** Terms of words related in meaning (meaning.ts) that the FAQs use, when the word itself is unknown to them. */
  related?: string[];
}

export interface Analyzer {
  readonly language: string;
  /** The text's units, in order; the same word twice gives two units. */
  units(text: string): Unit[];
  /** The accent-free words of the text, stop words included: what small-talk detection reads. */
  words(text: string): string[];
  /** Whether a word (accent-free, lower case) is a stop word or chat filler in this language. */
  isStopWord(word: string): boolean;
}

/** Marks concept terms so that they never collide with a real word's stem and are never matched fuzzily. */
export const CONCEPT_MARK = '~';

const STEMMERS: Record<string, (word: string) => string> = {
  en: stemEn,
  es: stemEs,
  pt: stemPt,
  fr: stemFr,
  de: stemDe,
  it: stemIt,
};
const STOPWORDS: Record<string, readonly string[]> = {
  en: stopEn,
  es: stopEs,
  pt: stopPt,
  fr: stopFr,
  de: stopDe,
  it: stopIt,
};

/** Words of the stop lists that customers use to ask about hours, days, time and prices: they stay. */
const KEEP: Record<string, readonly string[]> = {
  en: [],
  es: ['dia', 'dias', 'horas', 'tarde', 'temprano', 'valor', 'tiempo', 'lugar', 'trabajo'],
  pt: ['dia', 'dias', 'horas'],
  fr: [],
  de: [],
  it: [],
};

/** Chat fillers: words that say nothing about what is asked ("hey guys, quick question, pls"). */
const FILLERS: Record<string, readonly string[]> = {
  en: [
    'hi',
    'hey',
    'hello',
    'pls',
    'plz',
    'please',
    'u',
    'ur',
    'r',
    'ya',
    'ye',
    'guys',
    'folks',
    'wondering',
    'wonder',
    'question',
    'quick',
    'ask',
    'asking',
    'know',
    'tell',
    'want',
    'wanna',
    'like',
    'would',
    'could',
    'get',
    'got',
    'also',
    'just',
    'really',
    'thanks',
    'thank',
    'thx',
    'ok',
    'okay',
    'hmm',
    'um',
    'uh',
    'yes',
    'yeah',
    'im',
    'id',
    'ive',
    'dont',
    'cant',
    'doesnt',
    'isnt',
    'wont',
    'lol',
    'btw',
    'tbh',
    'actually',
    'maybe',
    'anyone',
    'someone',
    'something',
    'anything',
    'thing',
    'things',
    'much',
    'many',
    'sure',
    'possible',
    'able',
    'go',
    'going',
    'currently',
    'still',
    'kind',
    'sort',
    'way',
    'let',
    'need',
    'needs',
    'wanted',
    'hoping',
    'curious',
    'mind',
    'somewhere',
    'anywhere',
    'everything',
    'everyone',
    'everybody',
    'somebody',
    'anybody',
    'nothing',
    // light verbs: they carry the sentence, not its topic ("how long does it take", "does it work with")
    'take',
    'takes',
    'taking',
    'took',
    'make',
    'makes',
    'making',
    'use',
    'uses',
    'using',
    'work',
    'works',
    'working',
    'come',
    'comes',
    'coming',
    'see',
    'seeing',
    'happen',
    'happens',
    'happened',
    'give',
    'gives',
    'send',
    'sends',
    'offer',
    'offers',
    'provide',
    'provides',
  ],
  es: [
    'hola',
    'oye',
    'porfa',
    'favor',
    'gracias',
    'quisiera',
    'quiero',
    'queria',
    'pregunta',
    'duda',
    'necesito',
    'ok',
    'vale',
    'xq',
    'pq',
    'tb',
    'tmb',
    'saludos',
    'info',
    'informacion',
    'chicos',
    'hacer',
    'hago',
    'haga',
    'venir',
    'vengo',
    'pasa',
    'gustaria',
    // indefinites, as "someone" and "something" in English: they name nothing a question could be about
    'alguien',
    'algun',
    'cosa',
  ],
  pt: ['ola', 'oi', 'obrigado', 'obrigada', 'quero', 'queria', 'pergunta', 'duvida', 'ok', 'vcs', 'vc', 'pf'],
  fr: [
    'bonjour',
    'salut',
    'merci',
    'svp',
    'stp',
    'question',
    'voudrais',
    'veux',
    'ok',
    'quelqu',
    'quelque',
    'chose',
    'choses',
    'rien',
    'tout',
    // modal and light verbs, as "can", "could", "need", "make" in English ("je peux", "vous faites", "il faut")
    'peux',
    'peut',
    'pouvez',
    'pouvons',
    'peuvent',
    'pourrais',
    'pourriez',
    'pourrait',
    'puis',
    'pouvoir',
    'voulez',
    'voudrait',
    'aimerais',
    'souhaite',
    'souhaiterais',
    'fais',
    'fait',
    'faites',
    'faire',
    'font',
    'faut',
    'avoir',
    'besoin',
    'possible',
    'savoir',
    'sais',
    'tres',
    'ca',
    'aussi',
    'bien',
    'alors',
    'donc',
  ],
  de: ['hallo', 'bitte', 'danke', 'frage', 'mochte', 'ok', 'mal'],
  it: ['ciao', 'salve', 'grazie', 'vorrei', 'voglio', 'domanda', 'ok'],
};

/** Irregular plurals the stemmers leave apart ("teeth" and "tooth"), and British spellings read as American. */
const IRREGULAR: Record<string, Record<string, string>> = {
  en: {
    teeth: 'tooth',
    feet: 'foot',
    children: 'child',
    men: 'man',
    women: 'woman',
    people: 'person',
    mice: 'mouse',
    knives: 'knife',
    shelves: 'shelf',
    leaves: 'leaf',
    lives: 'life',
    wives: 'wife',
    halves: 'half',
    colour: 'color',
    colours: 'colors',
    favourite: 'favorite',
    labour: 'labor',
    tyre: 'tire',
    tyres: 'tires',
    centre: 'center',
    metre: 'meter',
    metres: 'meters',
    personalised: 'personalized',
    personalise: 'personalize',
    organise: 'organize',
    cheque: 'check',
    licence: 'license',
    programme: 'program',
    grey: 'gray',
    jewellery: 'jewelry',
    catalogue: 'catalog',
    travelling: 'traveling',
    enrol: 'enroll',
    aluminium: 'aluminum',
    mould: 'mold',
  },
};

export function stripAccents(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '');
}

/** Lower-case words of a text, apostrophes handled as step 1 says; accents kept. */
function rawWords(text: string, language: string): string[] {
  const lower = text.toLowerCase().replace(/[’`´]/g, "'");
  const joined = language === 'en' ? lower.replace(/(\p{L})'(\p{L})/gu, '$1$2') : lower;
  return joined.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

interface PhraseEntry {
  words: string[];
  concept: string;
}

interface LanguageData {
  stem?: (word: string) => string;
  stop: Set<string>;
  /** accent-free word or stem → concept term */
  concepts: Map<string, string>;
  /** longest first, so "how much" wins over a shorter phrase starting the same */
  phrases: PhraseEntry[];
}

const cache = new Map<string, LanguageData>();

function languageData(language: string): LanguageData {
  const cached = cache.get(language);
  if (cached) return cached;
  const stem = STEMMERS[language];
  const keep = new Set(KEEP[language] ?? []);
  const stop = new Set<string>();
  for (const word of [...(STOPWORDS[language] ?? []), ...(FILLERS[language] ?? [])]) {
    for (const w of rawWords(stripAccents(word), language)) if (!keep.has(w)) stop.add(w);
  }
  const concepts = new Map<string, string>();
  const phrases: PhraseEntry[] = [];
  for (const group of SYNONYMS[language] ?? []) {
    const concept = CONCEPT_MARK + group.concept;
    for (const word of group.words) {
      const plain = stripAccents(word.toLowerCase());
      concepts.set(plain, concept);
      if (stem) {
        concepts.set(stem(plain), concept);
        concepts.set(stripAccents(stem(word.toLowerCase())), concept);
      }
    }
    for (const phrase of group.phrases ?? [])
      phrases.push({ words: stripAccents(phrase.toLowerCase()).split(/\s+/), concept });
  }
  phrases.sort((a, b) => b.words.length - a.words.length);
  const data = { stem, stop, concepts, phrases };
  cache.set(language, data);
  return data;
}

const GAP = '*';
const MAX_GAP = 2;

/** Number of words the phrase covers when it starts at `at`, or 0. */
function phraseLength(phrase: readonly string[], words: readonly string[], at: number, k = 0): number {
  if (k === phrase.length) return 0;
  if (phrase[k] === GAP) {
    for (let skip = 0; skip <= MAX_GAP; skip++) {
      const rest = k + 1 === phrase.length ? 0 : phraseLength(phrase, words, at + skip, k + 1);
      if (k + 1 === phrase.length || rest > 0) return skip + rest;
    }
    return 0;
  }
  if (words[at] !== phrase[k]) return 0;
  if (k + 1 === phrase.length) return 1;
  const rest = phraseLength(phrase, words, at + 1, k + 1);
  return rest > 0 ? 1 + rest : 0;
}

function phraseAt(
  words: readonly string[],
  at: number,
  phrases: readonly PhraseEntry[],
): { phrase: PhraseEntry; length: number } | undefined {
  for (const phrase of phrases) {
    const length = phraseLength(phrase.words, words, at);
    if (length) return { phrase, length };
  }
  return undefined;
}

export function analyzerFor(languageCode: string | undefined): Analyzer {
  const language = baseLanguage(languageCode);
  const data = languageData(language);
  const isStopWord = (word: string) => data.stop.has(word);
  const irregular = IRREGULAR[language] ?? {};

  const words = (text: string) => rawWords(stripAccents(text), language);

  const units = (text: string): Unit[] => {
    const accented = rawWords(text, language);
    const plain = accented.map(stripAccents);
    const out: Unit[] = [];
    for (let i = 0; i < plain.length; i++) {
      const found = phraseAt(plain, i, data.phrases);
      if (found) out.push({ word: plain.slice(i, i + found.length).join(' '), terms: [found.phrase.concept] });
      const word = plain[i]!;
      if (word.length < 2 || /^\p{N}+$/u.test(word) || data.stop.has(word)) continue;
      const terms = new Set<string>();
      const singular = irregular[word];
      if (data.stem) {
        terms.add(stripAccents(data.stem(singular ?? accented[i]!)));
        terms.add(data.stem(singular ?? word));
      } else {
        terms.add(word);
      }
      const concept = data.concepts.get(word) ?? [...terms].map((t) => data.concepts.get(t)).find(Boolean);
      if (concept) terms.add(concept);
      out.push({ word, terms: [...terms] });
    }
    return out;
  };

  return { language, units, words, isStopWord };
}
