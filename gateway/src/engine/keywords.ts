import { baseLanguage } from '../language.js';
import { normalForm } from '../normal-form.js';

/**
 * What an incoming message asks for, before the bot sees it: an opt-out, an opt-in, help, or a person.
 *
 * Rules:
 * - Messages are compared in a normal form: accents removed, lower case, every run of characters other than
 *   letters and digits (spaces, punctuation, emoji, apostrophes, hyphens) turned into one space, trimmed.
 *   "  Stop. ", "STOP!", "opt-out" and "Opt Out" all read "stop" / "opt out".
 * - A keyword counts when it is the whole message once courtesy is set aside: words such as "please", "now",
 *   "thanks", "me", "it" (COURTESY, in every language known), and the keyword said again, however often. "stop",
 *   "Stop please", "STOP STOP STOP" and "unsubscribe me" opt out; "I can't stop smiling" and "we want to cancel our
 *   old provider" do not.
 * - Opt-out: the FCC's 2025 revocation words, in English whatever the campaign's language as carriers treat them,
 *   and each language's own (LOCAL_OPT_OUT_WORDS: "baja", "abmelden"); or a phrase of OPT_OUT_PHRASES as whole
 *   words in a short message ("please stop texting me", "remove me from your list", "no me escriban más"). Every
 *   language is read for an opt-out, whatever the campaign's: missing one costs more than a lead.
 * - Opt-in and help words: as keywords.
 * - Hand-off: a phrase of HANDOFF_PHRASES anywhere in the message, as whole words ("I'd like to talk to a human,
 *   please"), or a word of HANDOFF_WORDS as a keyword, also after an article ("agent", "a human please", but not
 *   "the agenda" or "I am an agent"). The languages compared are the ones asked for plus English (leads often write
 *   English to any business); with none asked for, all of them.
 * - Precedence when several could apply: opt-out, opt-in, help, hand-off.
 */

export type Intent = 'opt_out' | 'opt_in' | 'help' | 'handoff';

export const OPT_OUT_WORDS = ['stop', 'stopall', 'quit', 'end', 'revoke', 'opt out', 'cancel', 'unsubscribe'] as const;
export const OPT_IN_WORDS = ['start', 'unstop'] as const;
export const HELP_WORDS = ['help'] as const;

/** Opt-out words of each language besides the FCC's English ones, as keywords. */
export const LOCAL_OPT_OUT_WORDS: Record<string, readonly string[]> = {
  es: ['baja', 'darme de baja', 'dar de baja', 'desuscribir', 'desuscribirme', 'cancelar', 'parar'],
  pt: ['descadastrar', 'descadastre', 'cancelar', 'parar', 'sair da lista'],
  fr: ['arret', 'arreter', 'desabonner', 'desinscrire', 'desinscription', 'desabonnement'],
  de: ['stopp', 'abmelden', 'abbestellen', 'austragen', 'abmeldung'],
  it: ['basta', 'disiscrivimi', 'cancellami', 'disiscrivere', 'fermare'],
};

/** Phrases that ask to hear no more, anywhere in a short message, in normal form. */
export const OPT_OUT_PHRASES: Record<string, readonly string[]> = {
  en: [
    'stop texting',
    'stop messaging',
    'stop sending',
    'stop contacting',
    'stop writing',
    'stop calling',
    'stop the messages',
    'unsubscribe me',
    'remove me',
    'take me off',
    'opt me out',
    'no more messages',
    'no more texts',
    'dont text me',
    'don t text me',
    'do not text me',
    'dont message me',
    'don t message me',
    'do not message me',
    'dont contact me',
    'don t contact me',
    'do not contact me',
  ],
  es: [
    'no me escriban',
    'no me escribas',
    'no me envien',
    'no me manden',
    'no quiero recibir',
    'dejen de escribir',
    'deja de escribir',
    'dejen de enviar',
    'eliminame',
    'borrame de',
  ],
  pt: [
    'parem de enviar',
    'pare de enviar',
    'parem de mandar',
    'nao quero receber',
    'nao me mande',
    'nao me mandem',
    'me remova',
    'me tire da lista',
  ],
  fr: [
    'arretez de m envoyer',
    'arretez les messages',
    'ne plus recevoir',
    'retirez moi',
    'desinscrivez moi',
    'ne m envoyez plus',
  ],
  de: ['keine nachrichten mehr', 'nicht mehr schreiben', 'nicht mehr kontaktieren', 'horen sie auf', 'hort auf'],
  it: [
    'non scrivermi piu',
    'non scrivetemi piu',
    'smettete di scrivermi',
    'non voglio ricevere',
    'rimuovimi',
    'toglietemi',
  ],
};

/** Words that leave a keyword a keyword: courtesy and the person it is about. */
export const COURTESY: Record<string, readonly string[]> = {
  en: [
    'please',
    'pls',
    'plz',
    'now',
    'thanks',
    'thank you',
    'thx',
    'ok',
    'okay',
    'asap',
    'me',
    'it',
    'all',
    'right now',
    'already',
  ],
  es: ['por favor', 'porfa', 'ya', 'gracias', 'ahora', 'me', 'todo'],
  pt: ['por favor', 'pf', 'ja', 'obrigado', 'obrigada', 'agora', 'me'],
  fr: ['s il vous plait', 'svp', 'stp', 'merci', 'maintenant', 'moi'],
  de: ['bitte', 'danke', 'jetzt', 'sofort', 'mich'],
  it: ['per favore', 'grazie', 'ora', 'adesso', 'subito', 'mi'],
};

/** Articles a hand-off word may come after ("a human", "un agente"). */
const ARTICLES = ['a', 'an', 'the', 'un', 'una', 'uno', 'um', 'uma', 'une', 'ein', 'einen', 'einem'];

/** A message longer than this (in words) asks for more than to stop: its phrases are not read as an opt-out. */
const SHORT_MESSAGE_WORDS = 10;

/** Phrases that ask for a person anywhere in a message, in normal form (no accents, no punctuation). */
export const HANDOFF_PHRASES: Record<string, readonly string[]> = {
  en: [
    'talk to a human',
    'talk to a person',
    'talk to someone',
    'talk to an agent',
    'talk to a representative',
    'speak to a human',
    'speak to a person',
    'speak to someone',
    'speak to an agent',
    'speak to a representative',
    'speak with a human',
    'speak with a person',
    'speak with someone',
    'talk with a human',
    'talk with a person',
    'real person',
    'real human',
    'human agent',
    'live agent',
    'live person',
  ],
  es: [
    'hablar con una persona',
    'hablar con un humano',
    'hablar con alguien',
    'hablar con un agente',
    'hablar con un asesor',
    'hablar con un operador',
    'persona real',
    'agente humano',
    'atencion humana',
  ],
  pt: [
    'falar com um atendente',
    'falar com uma pessoa',
    'falar com um humano',
    'falar com alguem',
    'falar com um agente',
    'falar com um consultor',
    'pessoa real',
    'atendente humano',
    'atendimento humano',
  ],
  fr: [
    'parler a un humain',
    'parler a une personne',
    'parler a quelqu un',
    'parler a un agent',
    'parler a un conseiller',
    'parler avec un humain',
    'parler avec une personne',
    'vraie personne',
    'personne reelle',
    'agent humain',
  ],
  de: [
    'mit einem menschen sprechen',
    'mit einer person sprechen',
    'mit jemandem sprechen',
    'mit einem mitarbeiter sprechen',
    'mit einem berater sprechen',
    'mit einem menschen reden',
    'mit einer person reden',
    'mit jemandem reden',
    'echte person',
    'echter mensch',
    'echten menschen',
  ],
  it: [
    'parlare con una persona',
    'parlare con un umano',
    'parlare con qualcuno',
    'parlare con un operatore',
    'parlare con un agente',
    'parlare con un consulente',
    'persona reale',
    'persona vera',
    'operatore umano',
  ],
};

/** Words that ask for a person when they are the whole message. */
export const HANDOFF_WORDS: Record<string, readonly string[]> = {
  en: ['agent', 'human', 'person', 'operator', 'representative'],
  es: ['agente', 'humano', 'persona', 'asesor', 'operador'],
  pt: ['atendente', 'humano', 'pessoa', 'agente', 'operador'],
  fr: ['agent', 'humain', 'conseiller', 'operateur'],
  de: ['mensch', 'mitarbeiter', 'berater'],
  it: ['operatore', 'umano', 'persona', 'agente'],
};

export const HANDOFF_LANGUAGES = Object.keys(HANDOFF_PHRASES);

/** The normal form described above (normal-form.ts, which FAQ questions are compared in too). */
export const normalize = normalForm;

const has = (words: readonly string[], text: string) => words.includes(text);

const escape = (phrase: string) => phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const everyLanguage = (lists: Record<string, readonly string[]>) => Object.values(lists).flat();
/** Any of `words` as whole words in a padded message, the longest first. */
const padded = (words: readonly string[], flags = '') =>
  new RegExp(
    ` (?:${[...words]
      .sort((a, b) => b.length - a.length)
      .map(escape)
      .join('|')}) `,
    flags,
  );

const COURTESY_WORDS = padded(everyLanguage(COURTESY), 'g');
const WITH_ARTICLES = padded([...everyLanguage(COURTESY), ...ARTICLES], 'g');
const OPT_OUT_KEYWORDS: readonly string[] = [...OPT_OUT_WORDS, ...everyLanguage(LOCAL_OPT_OUT_WORDS)];
const OPT_OUT_PHRASE = padded(everyLanguage(OPT_OUT_PHRASES));

/**
 * The message with courtesy set aside, and a keyword said over and over once: "stop please", "STOP STOP" and
 * "STOP STOP STOP" read "stop". The same text when nothing is set aside.
 */
function core(text: string, aside: RegExp): string {
  // Each match eats its spaces: run twice, so that neighbours ("please now") both go.
  const bare = ` ${text} `.replace(aside, '  ').replace(aside, '  ').replace(/ +/g, ' ').trim();
  return once(bare);
}

/** Words said several times in a row ("stop stop stop", "opt out opt out"), said once; other text as it is. */
function once(text: string): string {
  if (!text.includes(' ')) return text;
  const words = text.split(' ');
  for (let size = 1; size <= words.length >> 1; size++) {
    if (words.length % size !== 0) continue;
    if (words.every((word, i) => word === words[i % size])) return words.slice(0, size).join(' ');
  }
  return text;
}

/**
 * For a set of languages, the hand-off words and one expression finding any of their phrases as whole words in a
 * padded message: built once per set, so a message is scanned once rather than once per phrase.
 */
const matchers = new Map<string, { words: ReadonlySet<string>; phrases: RegExp }>();
function handoffMatcher(languages: readonly string[]) {
  const key = languages.join(',');
  let matcher = matchers.get(key);
  if (!matcher) {
    const phrases = languages.flatMap((l) => HANDOFF_PHRASES[l] ?? []).map(escape);
    matcher = {
      words: new Set(languages.flatMap((l) => HANDOFF_WORDS[l] ?? [])),
      phrases: new RegExp(` (?:${phrases.join('|')}) `),
    };
    matchers.set(key, matcher);
  }
  return matcher;
}

/** With no language asked for, every language: the matcher most messages use, found without building its key. */
const EVERY_LANGUAGE = handoffMatcher(HANDOFF_LANGUAGES);

function matcherFor(asked: readonly string[] | undefined) {
  if (!asked?.length) return EVERY_LANGUAGE;
  const wanted = new Set(asked.map(baseLanguage).filter((l) => l in HANDOFF_PHRASES));
  return handoffMatcher([...new Set(['en', ...wanted])]);
}

/** The intent of an incoming message body, or undefined for an ordinary message. */
export function classify(body: string, options: { languages?: readonly string[] } = {}): Intent | undefined {
  const text = normalize(body);
  if (!text) return undefined;
  const keyword = core(text, COURTESY_WORDS);
  if (has(OPT_OUT_KEYWORDS, keyword)) return 'opt_out';
  if (text.split(' ').length <= SHORT_MESSAGE_WORDS && OPT_OUT_PHRASE.test(` ${text} `)) return 'opt_out';
  if (has(OPT_IN_WORDS, keyword)) return 'opt_in';
  if (has(HELP_WORDS, keyword)) return 'help';
  const { words, phrases } = matcherFor(options.languages);
  return words.has(core(text, WITH_ARTICLES)) || phrases.test(` ${text} `) ? 'handoff' : undefined;
}

/**
 * The intent of a contact's message on a conversation: hand-off words are read in its campaign's language (and
 * English), in every language where no campaign has it.
 */
export const intentOf = (body: string, campaign: { language: string } | undefined): Intent | undefined =>
  classify(body, campaign ? { languages: [campaign.language] } : {});
