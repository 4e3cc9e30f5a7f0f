/**
 * A team reply as an FAQ's answer: what it says, without what was said to one contact. The greeting that opens it
 * ("Hi Frank," "Hello Frank!") and the signature that closes it ("— Anna", "Best, Anna", "Thanks,\nAnna") go; the
 * person still reads the draft and edits it before saving.
 */
const GREETING = /^\s*(?:hi|hello|hey|dear|hiya|greetings|good\s+(?:morning|afternoon|evening)|hola|bonjour|hallo)\b(?:[ \t]+[^\s,!.:;]+){0,3}[ \t]*(?:[,!:.]+|$)/i;
/** Closing words of a signature, alone or before a name. */
const CLOSING = /^(?:best(?:\s+(?:wishes|regards))?|kind\s+regards|warm(?:est)?\s+regards|warmly|regards|cheers|thanks(?:\s+again)?|thank\s+you|many\s+thanks|sincerely|take\s+care|all\s+the\s+best|see\s+you\s+soon)[,!.]*/i;
/** A name that signs: one to three capitalized words. */
const NAME = /^\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){0,2}$/u;
const DASHED = /^[-–—~]+\s*(.+)$/u;

/** What a line is to a signature: a closing alone ("Thanks,"), a whole signature ("— Anna", "Best, Anna"), or neither. */
function signatureLine(line: string): 'closing' | 'signed' | undefined {
  const text = line.trim();
  const dashed = DASHED.exec(text);
  if (dashed && NAME.test(dashed[1]!.trim())) return 'signed';
  const closing = CLOSING.exec(text);
  if (!closing) return undefined;
  const rest = text.slice(closing[0].length).trim();
  return rest === '' ? 'closing' : NAME.test(rest) ? 'signed' : undefined;
}

/** The last line without a signature after its last sentence ("… $90. — Anna", "… $90. Thanks, Anna"). */
function unsigned(line: string): string {
  const dashed = /\s[-–—~]+\s*([^-–—~]+)$/u.exec(line);
  if (dashed && NAME.test(dashed[1]!.trim())) return line.slice(0, dashed.index).trimEnd();
  const sentences = [...line.matchAll(/[.!?]\s+/g)];
  const last = sentences.at(-1);
  if (last && signatureLine(line.slice(last.index! + last[0].length))) return line.slice(0, last.index! + 1);
  return line;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const dropBlank = (lines: string[]) => {
  while (lines.length && !lines[0]!.trim()) lines.shift();
  while (lines.length && !lines.at(-1)!.trim()) lines.pop();
};

export function faqAnswerOf(reply: string): string {
  const lines = reply.trim().split('\n');
  const greeted = GREETING.exec(lines[0]!);
  if (greeted) {
    const rest = lines[0]!.slice(greeted[0].length).trim();
    if (rest) lines[0] = capitalized(rest);
    else if (lines.length > 1) lines.shift();
    dropBlank(lines);
  }
  // Signature lines from the end, as long as something is left: "Thanks!", then "— Anna" before it.
  for (;;) {
    const last = lines.at(-1)!;
    const kind = signatureLine(last);
    if (lines.length > 1 && kind) lines.pop();
    else if (lines.length > 2 && NAME.test(last.trim()) && signatureLine(lines.at(-2)!) === 'closing') lines.splice(-2);
    else break;
    dropBlank(lines);
  }
  lines[lines.length - 1] = unsigned(lines.at(-1)!);
  return lines.join('\n').trim();
}
