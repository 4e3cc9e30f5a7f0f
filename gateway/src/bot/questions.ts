/**
 * The questions of a burst: a contact may ask several things at once, in several messages ("What are your opening
 * hours?" "And where are you located?") or in one ("What are your hours? And where are you?"), and each deserves
 * its answer. Pure text work, in the bot's languages (en, es, pt, fr, de, it); no FAQ is read here.
 *
 * 1. Each message is cut into sentences: after "?" "!" or "." (followed by a space, so "10.30" stays whole), at a
 *    line break or ";", and before a Spanish "¿"/"¡". Inside a sentence, before a conjunction that opens a new
 *    question ("… and where are you?", "… y dónde están?", "… et où êtes-vous ?"), never before a plain "and"
 *    ("do you do detailing and valeting?").
 * 2. A sentence is small talk ("hi", "thanks!"), a question, or a statement. A question has a "?", opens with "¿",
 *    or starts (after "and", "hi", "so" …) with a question word of the language; in English also with an auxiliary
 *    ("do you …", "can I …", "is there …"), or holds a question word, an auxiliary and a person ("…, what do I do"). "How
 *    much" asks anywhere in a sentence ("vous prenez combien pour …"). Spanish, Portuguese, French, German and Italian ask "tienen parking" with
 *    the voice alone, so there a sentence without "?" asks only with one of the question words that cannot start a
 *    statement ("dónde", "combien" …).
 * 3. Small talk goes. A statement is context of a question ("I saw your ad", "my son is 4", "for a cleaning"): it
 *    joins the next question of its message, else the question before it, else the next question of the burst, so
 *    a burst of one question reads as the whole burst, as it always did.
 *
 * Past MAX_QUESTIONS the rest joins the last question: read together, it is answered or handed off, never dropped.
 */
import { smallTalkAct } from './smalltalk.js';
import type { Analyzer } from './text.js';

/** One question of a burst. */
export interface BurstQuestion {
  /** The question with the statements that go with it ("My son is 4. Do you see kids?"): what the bot reads. */
  text: string;
  /** The question's own sentence(s), as the contact wrote them: what a reply quotes. */
  asked: string;
}

/** More questions than this in one burst are a list; the rest is read as one more. */
export const MAX_QUESTIONS = 6;

interface Words {
  /** Question words that start a question in any sentence of the language. */
  ask: readonly string[];
  /** Words that may come before the question word and say nothing ("and", "so", "hi", "btw"). */
  lead: readonly string[];
  /** Conjunctions that, followed by a question word, open a new question inside a sentence. */
  join: readonly string[];
}

/**
 * Accent-free, as analyzer.words gives them. English joins apostrophes ("what's" → "whats"), so its contractions
 * are listed whole. English auxiliaries count only when a person follows ("do you", "is there"): "do it" is no
 * question, and "… and take the boxes away" is no new one.
 */
const WORDS: Record<string, Words> = {
  en: {
    ask: [
      'what',
      'whats',
      'where',
      'wheres',
      'when',
      'whens',
      'how',
      'hows',
      'which',
      'who',
      'whos',
      'whom',
      'whose',
      'why',
    ],
    lead: [
      'and',
      'also',
      'plus',
      'so',
      'oh',
      'btw',
      'ok',
      'okay',
      'well',
      'then',
      'hi',
      'hello',
      'hey',
      'but',
      'one',
      'more',
      'another',
      'question',
      'last',
      'thing',
      'too',
    ],
    join: ['and', 'also', 'plus', 'but'],
  },
  es: {
    ask: [
      'donde',
      'adonde',
      'cuando',
      'cuanto',
      'cuanta',
      'cuantos',
      'cuantas',
      'cual',
      'cuales',
      'quien',
      'quienes',
      'hay',
      'que',
      'como',
    ],
    lead: [
      'y',
      'tambien',
      'ademas',
      'oye',
      'hola',
      'bueno',
      'pues',
      'entonces',
      'otra',
      'pregunta',
      'una',
      'mas',
      'e',
      'pero',
    ],
    join: ['y', 'tambien', 'ademas', 'e', 'pero'],
  },
  pt: {
    ask: ['onde', 'aonde', 'quando', 'quanto', 'quanta', 'quantos', 'quantas', 'qual', 'quais', 'quem', 'que', 'como'],
    lead: ['e', 'tambem', 'alem', 'disso', 'oi', 'ola', 'entao', 'outra', 'pergunta', 'mais', 'uma', 'mas'],
    join: ['e', 'tambem', 'mas'],
  },
  fr: {
    ask: ['ou', 'quand', 'combien', 'comment', 'quel', 'quelle', 'quels', 'quelles', 'qui', 'pourquoi', 'que', 'quoi'],
    lead: ['et', 'aussi', 'puis', 'alors', 'bonjour', 'salut', 'autre', 'question', 'une', 'derniere', 'mais'],
    join: ['et', 'aussi', 'puis', 'mais'],
  },
  de: {
    ask: [
      'wo',
      'wann',
      'wie',
      'welche',
      'welcher',
      'welches',
      'welchen',
      'wer',
      'warum',
      'wieso',
      'weshalb',
      'woher',
      'wohin',
      'was',
    ],
    lead: ['und', 'auch', 'noch', 'hallo', 'also', 'dann', 'eine', 'frage', 'aber'],
    join: ['und', 'auch', 'aber'],
  },
  it: {
    ask: ['dove', 'quando', 'quanto', 'quanta', 'quanti', 'quante', 'quale', 'quali', 'chi', 'come', 'cosa', 'che'],
    lead: ['e', 'ed', 'anche', 'poi', 'ciao', 'salve', 'allora', 'altra', 'domanda', 'una', 'ma'],
    join: ['e', 'ed', 'anche', 'poi', 'ma'],
  },
};

/** English auxiliaries that open a question when a person or "there" follows: "do you", "can I", "is there". */
const EN_AUXILIARIES = new Set([
  'do',
  'does',
  'did',
  'dont',
  'doesnt',
  'can',
  'cant',
  'could',
  'couldnt',
  'is',
  'isnt',
  'are',
  'arent',
  'was',
  'were',
  'will',
  'wont',
  'would',
  'should',
  'shall',
  'may',
  'might',
  'have',
  'has',
  'am',
  'must',
]);
const EN_SUBJECTS = new Set([
  'you',
  'u',
  'ya',
  'i',
  'we',
  'there',
  'it',
  'he',
  'she',
  'they',
  'my',
  'your',
  'the',
  'a',
  'an',
  'this',
  'that',
  'someone',
  'anyone',
  'somebody',
  'anybody',
]);

/**
 * Question words that also start statements ("que bien", "como te dije", "quando chego …", "hay un problema"): they make a question of
 * a sentence with a "?" anyway, but never open one inside a sentence, nor make a question of a sentence without "?".
 */
const WEAK = new Set(['que', 'como', 'cuando', 'quando', 'come', 'che', 'was', 'qui', 'quoi', 'ou', 'wie', 'hay']);

/** "How much" anywhere asks ("vous prenez combien pour un balayage", "I'd like to know how much it is"). */
const HOW_MUCH = new Set([
  'how much',
  'how many',
  'cuanto',
  'cuanta',
  'cuantos',
  'cuantas',
  'quanto',
  'quanta',
  'quantos',
  'quantas',
  'quanti',
  'quante',
  'combien',
]);

const wordsOf = (language: string): Words => WORDS[language] ?? WORDS.en!;

const strip = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '');
const LETTER = '[\\p{L}\\p{N}]';

/** Sentences of one message, as written, trimmed; step 1 of the header but for the conjunctions. */
function sentences(message: string): string[] {
  return message
    .replace(/([?？!！]+|[.。]+(?=\s))/gu, '$1\n')
    .replace(/(\S)\s*(?=[¿¡])/gu, '$1\n')
    .split(/[\n\r;]+/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

const splitters = new Map<string, RegExp>();

/**
 * Where a sentence opens a new question after a conjunction: before the conjunction, when a strong question word
 * (or, in English, an auxiliary and a person) follows it.
 */
function splitterFor(language: string): RegExp {
  const cached = splitters.get(language);
  if (cached) return cached;
  const { ask, join } = wordsOf(language);
  const strong = ask.filter((w) => !WEAK.has(w));
  const next =
    language === 'en'
      ? `(?:${strong.join('|')}|(?:${[...EN_AUXILIARIES].join('|')})\\s+(?:you|u|i|we|there))`
      : `(?:${strong.join('|')})`;
  // On the accent-free text, which has as many characters as the text when it was composed (NFC).
  const splitter = new RegExp(`(?<=${LETTER})[\\s,]+(?=(?:${join.join('|')})\\s+${next}(?!${LETTER}))`, 'giu');
  splitters.set(language, splitter);
  return splitter;
}

function clauses(sentence: string, language: string): string[] {
  const composed = sentence.normalize('NFC');
  const plain = strip(composed);
  // Accents stripped from composed text keep each character's place; where they would not, the sentence stays whole.
  if (plain.length !== composed.length) return [sentence];
  const out: string[] = [];
  let from = 0;
  for (const m of plain.matchAll(splitterFor(language))) {
    out.push(composed.slice(from, m.index));
    from = m.index + m[0].length;
  }
  out.push(composed.slice(from));
  return out.map((part) => part.trim()).filter(Boolean);
}

/** Whether a sentence asks something (step 2 of the header). */
export function isQuestion(sentence: string, analyzer: Analyzer): boolean {
  // A lone "?" or "??" nudges; it asks nothing new.
  if (!/[\p{L}\p{N}]/u.test(sentence)) return false;
  if (/[?？]/u.test(sentence) || /^\s*¿/u.test(sentence)) return true;
  const { ask, lead } = wordsOf(analyzer.language);
  const words = analyzer.words(sentence);
  let i = 0;
  while (i < words.length - 1 && lead.includes(words[i]!)) i += 1;
  const first = words[i];
  if (first === undefined) return false;
  if (ask.includes(first) && !WEAK.has(first)) return true;
  if (words.some((w, k) => HOW_MUCH.has(w) || (w === 'how' && HOW_MUCH.has(`how ${words[k + 1]}`)))) return true;
  if (analyzer.language !== 'en') return false;
  if (EN_AUXILIARIES.has(first) && EN_SUBJECTS.has(words[i + 1] ?? '')) return true;
  // A question word and an auxiliary anywhere: "my tooth broke, what do I do" (not "I know what you did").
  return words.some(
    (w, k) => ask.includes(w) && EN_AUXILIARIES.has(words[k + 1] ?? '') && EN_SUBJECTS.has(words[k + 2] ?? ''),
  );
}

type Sentence = { text: string; message: number; question: boolean };

/**
 * The burst's questions, in order (step 3 of the header); none when no sentence asks anything. In a burst of several
 * messages, a message that asks with no question sentence, naming what it is about ("my brakes squeak when I stop"),
 * is a question when `asks` says so (the bot: when it has an answer to it).
 */
export function questionsOf(
  messages: readonly string[],
  analyzer: Analyzer,
  asks: (statement: string) => boolean = () => false,
): BurstQuestion[] {
  const all: Sentence[] = [];
  messages.forEach((body, message) => {
    const own = sentences(body)
      .flatMap((sentence) => clauses(sentence, analyzer.language))
      .filter((text) => !smallTalkAct(text, analyzer))
      .map((text) => ({ text, message, question: isQuestion(text, analyzer) }));
    const whole = own.map((s) => s.text).join(' ');
    if (messages.length > 1 && own.length && !own.some((s) => s.question) && asks(whole))
      all.push({ text: whole, message, question: true });
    else all.push(...own);
  });
  const asked = all.filter((s) => s.question);
  if (!asked.length) return [];
  // Each statement goes with one question: the next of its message, else the one before it, else the next at all.
  const owner = (i: number): Sentence => {
    const s = all[i]!;
    const after = all.slice(i + 1).find((t) => t.question);
    if (after && after.message === s.message) return after;
    return (
      all
        .slice(0, i)
        .reverse()
        .find((t) => t.question) ?? after!
    );
  };
  const groups = new Map<Sentence, Sentence[]>(asked.map((q) => [q, []]));
  all.forEach((s, i) => groups.get(s.question ? s : owner(i))!.push(s));
  const questions = asked.map((q) => ({
    text: groups
      .get(q)!
      .map((s) => s.text)
      .join(' '),
    asked: q.text,
  }));
  if (questions.length <= MAX_QUESTIONS) return questions;
  const rest = questions.slice(MAX_QUESTIONS - 1);
  return [
    ...questions.slice(0, MAX_QUESTIONS - 1),
    { text: rest.map((q) => q.text).join(' '), asked: rest.map((q) => q.asked).join(' ') },
  ];
}

/**
 * Words that point back at what was asked just before ("is that extra?", "how much extra", "y eso cuánto cuesta?"):
 * a question holding one may be a follow-up of the one before rather than a question of its own. Not "it" nor "this":
 * "how much will it cost?", "is it open this weekend?" ask afresh as often as not.
 */
const BACK: Record<string, readonly string[]> = {
  en: ['that', 'those', 'these', 'them', 'extra', 'same'],
  es: ['eso', 'esto', 'ese', 'esa', 'esos', 'esas', 'ello', 'extra', 'mismo', 'misma'],
  pt: ['isso', 'isto', 'esse', 'essa', 'esses', 'essas', 'ele', 'ela', 'extra', 'mesmo', 'mesma'],
  fr: ['ca', 'cela', 'ceci', 'celui', 'celle', 'extra', 'supplement', 'meme'],
  de: ['das', 'dies', 'dieses', 'es', 'extra', 'aufpreis', 'gleiche'],
  it: ['questo', 'quello', 'questa', 'quella', 'cio', 'extra', 'stesso', 'stessa'],
};

/** Whether the question points back at the one before (BACK). */
export function refersBack(question: string, analyzer: Analyzer): boolean {
  const back = BACK[analyzer.language] ?? BACK.en!;
  return analyzer.words(question).some((w) => back.includes(w));
}
