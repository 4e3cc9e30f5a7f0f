/**
 * Small talk: a message made only of greetings, thanks, goodbyes or acknowledgements ("hi", "thanks!", "ok great",
 * "👍"). It asks nothing, so the FAQ bot neither answers it nor hands it off: a "thanks" that paged a person would
 * be noise. The bot reports the act and the engine decides (stay silent after thanks, greet back, ...).
 *
 * A message counts as small talk when every word is a small-talk word or phrase of the campaign's language or of
 * English (leads often write English to any business), a stop word, or chat filler, and at least one small-talk
 * word is there; or when it has no letters or digits but has an emoji, none of which complains or asks ("😡", "🤔").
 * "Hi, how much is a cleaning?" is not small
 * talk: the question is answered as usual. When several acts appear, the first of thanks, goodbye, greeting,
 * acknowledgement wins ("ok thanks, bye" is thanks).
 */
import type { Analyzer } from './text.js';

export type SmallTalkAct = 'thanks' | 'goodbye' | 'greeting' | 'acknowledgement';

const ACTS: readonly SmallTalkAct[] = ['thanks', 'goodbye', 'greeting', 'acknowledgement'];

type Lexicon = Record<SmallTalkAct, readonly string[]>;

const LEXICON: Record<string, Lexicon> = {
  en: {
    thanks: [
      'thanks',
      'thank you',
      'thank u',
      'thankyou',
      'thx',
      'thnx',
      'thanx',
      'ty',
      'tysm',
      'cheers',
      'appreciate it',
      'appreciated',
      'much appreciated',
      'many thanks',
    ],
    goodbye: [
      'bye',
      'goodbye',
      'bye bye',
      'see you',
      'see ya',
      'cya',
      'later',
      'have a good day',
      'have a nice day',
      'have a great day',
      'take care',
      'good night',
    ],
    greeting: [
      'hi',
      'hello',
      'hey',
      'heya',
      'hiya',
      'yo',
      'howdy',
      'good morning',
      'good afternoon',
      'good evening',
      'morning',
      'hi there',
      'hello there',
      // Messenger's Get Started button, whose title the tap sends in the contact's language: they open the chat.
      'get started',
    ],
    acknowledgement: [
      'ok',
      'okay',
      'k',
      'kk',
      'okey',
      'cool',
      'great',
      'perfect',
      'awesome',
      'nice',
      'good',
      'fine',
      'alright',
      'all right',
      'sure',
      'yes',
      'yeah',
      'yep',
      'yup',
      'got it',
      'sounds good',
      'noted',
      'understood',
      'no problem',
      'no worries',
      'lol',
      'haha',
      'wow',
      'will do',
      'excellent',
      'amazing',
    ],
  },
  es: {
    thanks: ['gracias', 'muchas gracias', 'mil gracias', 'te agradezco', 'se agradece', 'agradecido', 'agradecida'],
    goodbye: ['adios', 'chao', 'chau', 'hasta luego', 'hasta pronto', 'nos vemos', 'hasta manana'],
    greeting: [
      'hola',
      'buenas',
      'buenos dias',
      'buenas tardes',
      'buenas noches',
      'saludos',
      'que tal',
      'empezar',
      'comenzar',
    ],
    acknowledgement: [
      'ok',
      'vale',
      'perfecto',
      'genial',
      'listo',
      'entendido',
      'dale',
      'bueno',
      'de acuerdo',
      'si',
      'claro',
      'excelente',
      'super',
      'jaja',
      'okey',
    ],
  },
  pt: {
    thanks: ['obrigado', 'obrigada', 'muito obrigado', 'muito obrigada', 'valeu', 'agradeco'],
    goodbye: ['tchau', 'ate logo', 'ate mais', 'ate breve'],
    greeting: ['ola', 'oi', 'bom dia', 'boa tarde', 'boa noite', 'e ai', 'comecar'],
    acknowledgement: [
      'ok',
      'certo',
      'beleza',
      'perfeito',
      'otimo',
      'legal',
      'sim',
      'combinado',
      'entendi',
      'show',
      'blz',
    ],
  },
  fr: {
    thanks: ['merci', 'merci beaucoup', 'mille mercis', 'je vous remercie'],
    goodbye: ['au revoir', 'a bientot', 'bonne journee', 'bonne soiree', 'a plus'],
    greeting: ['bonjour', 'salut', 'bonsoir', 'coucou', 'commencer', 'demarrer'],
    acknowledgement: ['ok', 'parfait', 'd accord', 'daccord', 'super', 'genial', 'oui', 'entendu', 'top', 'tres bien'],
  },
  de: {
    thanks: ['danke', 'vielen dank', 'danke schon', 'dankeschon', 'besten dank'],
    goodbye: ['tschuss', 'auf wiedersehen', 'bis bald', 'bis dann', 'schonen tag'],
    greeting: ['hallo', 'guten morgen', 'guten tag', 'guten abend', 'moin', 'servus', 'gruss gott', "los geht's"],
    acknowledgement: ['ok', 'okay', 'super', 'perfekt', 'gut', 'alles klar', 'ja', 'prima', 'toll', 'verstanden'],
  },
  it: {
    thanks: ['grazie', 'grazie mille', 'ti ringrazio', 'la ringrazio'],
    goodbye: ['arrivederci', 'a presto', 'buona giornata', 'buona serata'],
    greeting: ['ciao', 'salve', 'buongiorno', 'buonasera', 'inizia', 'iniziare'],
    acknowledgement: ['ok', 'perfetto', 'va bene', 'ottimo', 'si', 'certo', 'benissimo', 'capito'],
  },
};

interface Entry {
  words: string[];
  act: SmallTalkAct;
}

const entriesCache = new Map<string, Entry[]>();

function entriesFor(analyzer: Analyzer): Entry[] {
  const language = analyzer.language;
  const cached = entriesCache.get(language);
  if (cached) return cached;
  const entries: Entry[] = [];
  for (const lang of new Set([language, 'en'])) {
    const lexicon = LEXICON[lang];
    if (!lexicon) continue;
    for (const act of ACTS) for (const phrase of lexicon[act]) entries.push({ words: analyzer.words(phrase), act });
  }
  entries.sort((a, b) => b.words.length - a.words.length);
  entriesCache.set(language, entries);
  return entries;
}

const EMOJI = /\p{Extended_Pictographic}/u;

/**
 * Emoji that complain, worry or ask ("😡", "👎", "😢", "🤔", "❓"): a message of them says something a person should
 * read, not "ok". It goes on as any message the FAQs do not answer: to the team.
 */
const TELLING = /[😠😡🤬😤👎😞😟😢😭😩😫😕🙁☹😒🙄💔🤔❓❔⁉😱😰🆘]/u;

/** The small-talk act of a whole message, or undefined when the message says or asks something else. */
export function smallTalkAct(message: string, analyzer: Analyzer): SmallTalkAct | undefined {
  const words = analyzer.words(message);
  if (!words.length) return EMOJI.test(message) && !TELLING.test(message) ? 'acknowledgement' : undefined;
  const entries = entriesFor(analyzer);
  const found = new Set<SmallTalkAct>();
  for (let i = 0; i < words.length; ) {
    const entry = entries.find((e) => e.words.every((w, k) => words[i + k] === w));
    if (entry) {
      found.add(entry.act);
      i += entry.words.length;
    } else if (analyzer.isStopWord(words[i]!) || /^\p{N}+$/u.test(words[i]!)) {
      i += 1;
    } else {
      return undefined;
    }
  }
  return ACTS.find((act) => found.has(act));
}
