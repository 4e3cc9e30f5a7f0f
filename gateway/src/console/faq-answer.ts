/**
 * A team reply as an FAQ's answer: what it says, without what was said to one contact. The bot gives an FAQ's answer
 * to every contact who asks, so the greeting that opens the reply ("Hi Frank," "¡Hola Frank!"), the thanks that
 * opens or closes it ("Thanks for reaching out!") and the sign-off that ends it ("— Anna", "Best,\nAnna", "Thanks,
 * Dana at Smile Dental", "Un saludo, Dana") go, in the languages the bot knows (en, es, pt, fr, de, it). The names
 * of the team, of the business and of the contact help tell a signature from a last line that happens to be short.
 * The person still reads the draft and edits it before saving; `namesLeft` says which of those names it still holds.
 * Shared by nothing but the console's Save as FAQ: it lives outside the client so that tests can run it directly.
 */

/** Who a reply may name: the contact it was written to, the team member who wrote it and the others, the business. */
export interface ReplyNames {
  contact?: ReadonlyArray<string | null | undefined>;
  team?: ReadonlyArray<string | null | undefined>;
  business?: ReadonlyArray<string | null | undefined>;
}

const GREETING_WORDS = [
  // en
  'hi',
  'hello',
  'hey',
  'hiya',
  'dear',
  'greetings',
  'good morning',
  'good afternoon',
  'good evening',
  'morning',
  // es
  'hola',
  'buenos días',
  'buenos dias',
  'buenas tardes',
  'buenas noches',
  'buenas',
  'estimado',
  'estimada',
  'querido',
  'querida',
  // pt
  'olá',
  'ola',
  'oi',
  'bom dia',
  'boa tarde',
  'boa noite',
  'prezado',
  'prezada',
  'caro',
  'cara',
  // fr
  'bonjour',
  'bonsoir',
  'salut',
  'cher',
  'chère',
  'madame',
  'monsieur',
  // de
  'hallo',
  'guten morgen',
  'guten tag',
  'guten abend',
  'liebe',
  'lieber',
  'sehr geehrte',
  'sehr geehrter',
  'moin',
  'servus',
  // it
  'ciao',
  'salve',
  'buongiorno',
  'buonasera',
  'gentile',
  'gentilissima',
  'gentilissimo',
];

const CLOSING_WORDS = [
  // en
  'best',
  'best wishes',
  'best regards',
  'kind regards',
  'warm regards',
  'warmest regards',
  'regards',
  'warmly',
  'cheers',
  'thanks',
  'thanks again',
  'thanks so much',
  'thank you',
  'thank you again',
  'many thanks',
  'sincerely',
  'yours',
  'yours truly',
  'take care',
  'all the best',
  'see you soon',
  'talk soon',
  'speak soon',
  'have a great day',
  'have a nice day',
  'have a good day',
  // es
  'saludos',
  'un saludo',
  'saludos cordiales',
  'un abrazo',
  'atentamente',
  'cordialmente',
  'gracias',
  'muchas gracias',
  'hasta pronto',
  'nos vemos',
  'que tengas un buen día',
  'buen día',
  // pt
  'abraços',
  'abraço',
  'um abraço',
  'atenciosamente',
  'cumprimentos',
  'obrigado',
  'obrigada',
  'muito obrigado',
  'muito obrigada',
  'até breve',
  'até logo',
  'beijos',
  'att',
  // fr
  'cordialement',
  'bien cordialement',
  'bien à vous',
  'amicalement',
  'salutations',
  'merci',
  'merci beaucoup',
  'à bientôt',
  'bonne journée',
  'bonne soirée',
  // de
  'viele grüße',
  'viele grüsse',
  'liebe grüße',
  'liebe grüsse',
  'beste grüße',
  'beste grüsse',
  'freundliche grüße',
  'freundliche grüsse',
  'mit freundlichen grüßen',
  'mit freundlichen grüssen',
  'grüße',
  'grüsse',
  'gruß',
  'gruss',
  'danke',
  'vielen dank',
  'danke schön',
  'bis bald',
  'lg',
  'vg',
  'mfg',
  // it
  'cordiali saluti',
  'distinti saluti',
  'saluti',
  'un saluto',
  'grazie',
  'grazie mille',
  'a presto',
  'buona giornata',
];

/** Courtesies that open or close a reply to one person: "Thanks for reaching out!", "Hope this helps." */
const COURTESY = new RegExp(
  '^(?:' +
    [
      'thanks?(?: you)?(?: so much| very much)? for\\b',
      'many thanks for\\b',
      'great question',
      'good question',
      'hope (?:this|that) helps',
      'let (?:me|us) know if\\b',
      'feel free to\\b',
      "don't hesitate to\\b",
      'do not hesitate to\\b',
      'gracias por\\b',
      'muchas gracias por\\b',
      'espero que (?:te|le) (?:sirva|ayude)',
      'obrigad[oa] (?:pel[oa]|por)\\b',
      'espero ter ajudado',
      "merci (?:pour|de|d')",
      "j'espère que cela",
      'danke für\\b',
      'vielen dank für\\b',
      'grazie per\\b',
      'spero di esser(?:e|ti|le) stat[oa] utile',
    ].join('|') +
    ')',
  'iu',
);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alternatives = (words: readonly string[]) =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => escape(w).replace(/ /g, '\\s+'))
    .join('|');

/** A greeting and up to three words after it (a name, "there", "team"), to the punctuation that ends it or the line's end. */
const GREETING = new RegExp(
  `^\\s*[¡]?(?:${alternatives(GREETING_WORDS)})(?![\\p{L}])(?:[ \\t]+[^\\s,!.:;]+){0,3}[ \\t]*(?:[,!:.]+|$)`,
  'iu',
);
/** Closing words of a signature, alone or before a name. */
const CLOSING = new RegExp(`^[¡]?(?:${alternatives(CLOSING_WORDS)})(?![\\p{L}])[,!.]*`, 'iu');
/** A capitalized word of a name: "Dana", "O'Neil", "Dr.", "Anne-Marie". */
const NAME_WORD = "\\p{Lu}[\\p{L}'’.-]*";
/** A name that signs: one to three capitalized words. */
const NAME = new RegExp(`^${NAME_WORD}(?:\\s+${NAME_WORD}){0,2}$`, 'u');
/** A name, then where the person works or what they do: "Dana at Smile Dental", "Dana, front desk", "Dana | Smile Dental". */
const NAME_AND_PLACE = new RegExp(
  `^(${NAME_WORD}(?:\\s+${NAME_WORD}){0,2})(?:\\s*[,|·/–—-]\\s*|\\s+(?:at|from|of|with|@|de|del|da|do|du|des|von|bei|vom|di|della|dal|chez)\\s+)(.{1,60})$`,
  'u',
);
const DASHED = /^[-–—~]+\s*(.+)$/u;

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const dropBlank = (lines: string[]) => {
  while (lines.length && !lines[0]!.trim()) lines.shift();
  while (lines.length && !lines.at(-1)!.trim()) lines.pop();
};
const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);
const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/** The names as whole names and as first names ("Dana Lopez" is also "Dana"), longest first. */
function nameList(names: ReadonlyArray<string | null | undefined> | undefined): string[] {
  const out = new Set<string>();
  for (const name of names ?? []) {
    const whole = name?.trim();
    if (!whole || whole.length < 2) continue;
    out.add(whole);
    const first = words(whole)[0]!;
    if (first.length >= 2) out.add(first);
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** Whether the text holds one of the names as whole words, accents and case aside. */
function holdsName(text: string, names: readonly string[]): boolean {
  const folded = ` ${fold(text).replace(/[^\p{L}\p{N}']+/gu, ' ')} `;
  return names.some((name) => folded.includes(` ${fold(name).replace(/[^\p{L}\p{N}']+/gu, ' ')} `));
}

interface Known {
  people: string[];
  business: string[];
  /** Every word of those names, folded: what a signer's name may be made of when no closing comes before it. */
  words: Set<string>;
}

/** Words that name a role or the team beside a name: "Dana, front desk", "The Smile Dental team" (folded). */
const ROLE = new Set([
  'the',
  'team',
  'staff',
  'crew',
  'office',
  'front',
  'desk',
  'reception',
  'receptionist',
  'support',
  'customer',
  'service',
  'sales',
  'manager',
  'owner',
  'your',
  'friends',
  'folks',
  'all',
  'us',
  'at',
  'el',
  'la',
  'los',
  'equipo',
  'de',
  'del',
  'recepcion',
  'o',
  'a',
  'equipe',
  'da',
  'do',
  'atendimento',
  'l',
  'le',
  'accueil',
  'clients',
  'client',
  'das',
  'ihr',
  'der',
  'il',
  'lo',
  'di',
  'segreteria',
]);

const allWordsOf = (part: string) => words(fold(part).replace(/[^\p{L}\p{N}']+/gu, ' '));

/** Where a signer works or what they do: the business, a capitalized name, or role words. */
function isPlace(place: string, known: Known): boolean {
  const text = place.trim();
  if (!text || words(text).length > 5 || /[?:;]/.test(text)) return false;
  return holdsName(text, known.business) || /^\p{Lu}/u.test(text) || allWordsOf(text).every((w) => ROLE.has(w));
}

/** A line that only signs: a name (one of the team's or the contact's, or any after a closing), with the place or role beside it. */
function isSigner(text: string, known: Known, afterClosing: boolean): boolean {
  const line = text
    .trim()
    .replace(/[.!]+$/, '')
    .replace(/[()]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!line || words(line).length > 8) return false;
  const named = (part: string) =>
    NAME.test(part) && (afterClosing || allWordsOf(part).every((w) => known.words.has(w)));
  if (named(line)) return true;
  const placed = NAME_AND_PLACE.exec(line);
  if (placed && named(placed[1]!) && isPlace(placed[2]!, known)) return true;
  // "The Smile Dental team", "Smile Dental": the business signing, with nothing but role words beside its name.
  if (!known.business.length || !holdsName(line, known.business)) return false;
  const own = new Set(known.business.flatMap(allWordsOf));
  return allWordsOf(line).every((w) => own.has(w) || ROLE.has(w));
}

/** What a line is to a signature: a closing alone ("Thanks,"), a whole signature ("— Anna", "Best, Anna"), or neither. */
function signatureLine(line: string, known: Known): 'closing' | 'signed' | undefined {
  const text = line.trim();
  const dashed = DASHED.exec(text);
  if (dashed && isSigner(dashed[1]!, known, true)) return 'signed';
  const closing = CLOSING.exec(text);
  if (closing) {
    const rest = text.slice(closing[0].length).trim();
    if (rest === '') return 'closing';
    if (isSigner(rest, known, true)) return 'signed';
  }
  if (isSigner(text, known, false)) return 'signed';
  // "Thanks for your patience!", "Hope this helps." as the last line: meant for this contact.
  return COURTESY.test(text) && words(text).length <= 12 ? 'closing' : undefined;
}

/** The sentences of a line, each with what ends it. */
const sentencesOf = (line: string): string[] => [...(line.match(/[^.!?]+(?:[.!?]+|$)\s*/gu) ?? [line])];

/** The last line without a signature or courtesy after its last sentence ("… $90. — Anna", "… $90. Thanks, Dana at Smile Dental"). */
function unsigned(line: string, known: Known): string {
  const dashed = /\s[-–—~]+\s*([^-–—~]+)$/u.exec(line);
  if (dashed && isSigner(dashed[1]!, known, true)) return line.slice(0, dashed.index).trimEnd();
  let sentences = sentencesOf(line);
  // A closing that ends in a comma runs into its signer: "… desk. Thanks, Dana at Smile Dental".
  while (sentences.length > 1) {
    const tail = sentences.slice(-1)[0]!;
    const kind = signatureLine(tail, known);
    if (!kind) {
      // A closing alone before the name: "… desk. Best. Dana"
      if (sentences.length > 2 && isSigner(tail, known, false) && signatureLine(sentences.at(-2)!, known) === 'closing')
        sentences = sentences.slice(0, -2);
      else break;
    } else sentences = sentences.slice(0, -1);
  }
  return sentences.join('').trimEnd();
}

/** The opening line without its greeting and courtesies ("Hi Gina, thanks for asking! Yes, …" → "Yes, …"). */
function ungreeted(line: string, known: Known): string {
  let text = line;
  const greeted = GREETING.exec(text);
  if (greeted) text = text.slice(greeted[0].length).trim();
  else {
    // "Gina," alone or opening the line: the contact addressed by name.
    const addressed = /^([^\s,!.:;]+(?:\s+[^\s,!.:;]+)?)\s*[,!:]\s*/u.exec(text);
    if (addressed && NAME.test(addressed[1]!) && allWordsOf(addressed[1]!).every((w) => known.words.has(w)))
      text = text.slice(addressed[0].length);
  }
  for (;;) {
    const [first, ...rest] = sentencesOf(text);
    const courtesy = first !== undefined && (COURTESY.test(first.trim()) || signatureLine(first, known) === 'closing');
    if (!courtesy) break;
    text = rest.join('');
  }
  return capitalized(text.trim());
}

/** The contact named in passing ("Sure Gina, we do" → "Sure, we do"): the answer is for everyone. */
function unaddressed(text: string, contact: readonly string[]): string {
  let out = text;
  for (const name of contact) {
    const n = escape(name);
    out = out
      .replace(new RegExp(`,\\s*${n}(?=\\s*[,.!?])`, 'gu'), '')
      .replace(new RegExp(`(?<=\\p{L})\\s+${n}(?=\\s*,)`, 'gu'), '');
  }
  return out;
}

export function faqAnswerOf(reply: string, names: ReplyNames = {}): string {
  const contact = nameList(names.contact);
  const people = [...nameList(names.team), ...contact];
  const business = nameList(names.business);
  const known: Known = { people, business, words: new Set([...people, ...business].flatMap(allWordsOf)) };
  const lines = reply.trim().split('\n');
  const opened = ungreeted(lines[0]!, known);
  if (opened) lines[0] = opened;
  else if (lines.length > 1) lines.shift();
  dropBlank(lines);
  // Signature lines from the end, as long as something is left: "Thanks!", then "— Anna" before it.
  for (;;) {
    const last = lines.at(-1)!;
    const kind = signatureLine(last, known);
    if (lines.length > 1 && kind) lines.pop();
    else if (lines.length > 2 && isSigner(last, known, true) && signatureLine(lines.at(-2)!, known) === 'closing')
      lines.splice(-2);
    else break;
    dropBlank(lines);
  }
  if (lines.length) lines[lines.length - 1] = unsigned(lines.at(-1)!, known);
  return unaddressed(lines.join('\n').trim(), contact);
}

/** The names of the team and the contact that an answer still holds: every contact the bot answers would read them. */
export function namesLeft(answer: string, names: ReplyNames): string[] {
  const people = [...nameList(names.team), ...nameList(names.contact)];
  const found = people.filter((name) => holdsName(answer, [name]));
  // "Dana" is said by "Dana Lopez" already.
  return found.filter(
    (name) => !found.some((other) => other !== name && other.length > name.length && holdsName(other, [name])),
  );
}
