import { IMPORT_MAX_BYTES, MAX_CUSTOM_FIELDS, SEPARATOR_LINE } from '../../../../api-contract.js';

/**
 * What the browser reads of a CSV before it is sent: its text, in the encoding it was saved in, and only its header
 * row, to offer its columns for mapping. The rows themselves are read, checked and normalized by the API
 * (POST /v1/lists/{id}/imports), never here.
 */
export const DELIMITERS: Array<[string, string]> = [
  [',', 'Comma ( , )'],
  [';', 'Semicolon ( ; )'],
  ['\t', 'Tab'],
  ['|', 'Pipe ( | )'],
];

/**
 * The encodings a file is offered as read in: what spreadsheets save. Excel's "CSV UTF-8" is UTF-8, its "Unicode
 * Text" UTF-16; its plain "CSV (Comma delimited)" is the computer's code page, Windows-1252 across Western Europe and
 * the Americas.
 */
export const ENCODINGS: Array<[string, string]> = [
  ['utf-8', 'UTF-8'],
  ['windows-1252', 'Western European (Windows-1252)'],
  ['utf-16le', 'UTF-16 (Unicode Text)'],
  ['utf-16be', 'UTF-16 big-endian'],
  ['windows-1250', 'Central European (Windows-1250)'],
  ['windows-1251', 'Cyrillic (Windows-1251)'],
  ['macintosh', 'Mac Roman'],
];

/**
 * The encoding offered first: the one a BOM names; else UTF-8 when the bytes are UTF-8 (plain ASCII is); else
 * Windows-1252, which reads every byte, so that "Renée" of an Excel file is not sent as "Ren\ufffde". The user can
 * change it when the names shown read wrong.
 */
export function guessEncoding(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return 'utf-8';
  } catch {
    return 'windows-1252';
  }
}

const startsWith = (bytes: Uint8Array, signature: number[]) => signature.every((b, i) => bytes[i] === b);

/**
 * Why a file chosen as a CSV is none, if it is not: a workbook (an .xlsx is a zip archive, an .xls an OLE compound
 * file), often what a user picks when the spreadsheet is open, or other bytes no text holds (a NUL). Read as text, its
 * bytes would be offered as columns of garbage, and the API would refuse the whole of it for a NUL. An empty file
 * would be offered as a form with no column to map.
 */
export function notText(name: string, bytes: Uint8Array, text: string): string | undefined {
  if (
    startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) ||
    startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
  )
    return `${name} is an Excel workbook, not a CSV file: open it in Excel, save it as “CSV UTF-8 (Comma delimited)” and choose that file.`;
  if (text.includes('\u0000'))
    return `${name} is not a text file: save the contacts as CSV from your spreadsheet or CRM and choose that file.`;
  // Nothing but a BOM and line ends, as Excel saves an empty sheet: no header to offer as columns.
  if (text.replace(/^\ufeff/, '').trim() === '')
    return `${name} is empty: save the contacts into it from your spreadsheet or CRM, with a first row naming the columns, and choose it again.`;
  return undefined;
}

/**
 * The largest file worth reading: the API holds a file to IMPORT_MAX_BYTES of text in UTF-8, which a UTF-16 file
 * ("Unicode Text") takes twice as many bytes to hold.
 */
export const MAX_FILE_BYTES = 2 * IMPORT_MAX_BYTES;

/** A file refused for its size (`holds`: "is 41.2 MB", "holds 21.0 MB of text"), and what to do instead. */
export const tooLargeToImport = (name: string, holds: string) =>
  `${name} ${holds}: an import takes at most ${IMPORT_MAX_BYTES / 2 ** 20} MB. Split the file and import each part.`;

/** Megabytes as the refusals say them: one decimal. */
export const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/**
 * Why a file is too large to import, if it is: the size of its text in UTF-8, as the API measures a file, is what
 * counts; Windows-1252 takes more bytes there for each accent, UTF-16 half as many.
 */
export function tooLarge(name: string, text: string): string | undefined {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes <= IMPORT_MAX_BYTES) return undefined;
  return tooLargeToImport(name, `holds ${megabytes(bytes)} of text`);
}

/** The file's text in an encoding; a BOM of that encoding is dropped. */
export const decodeFile = (bytes: Uint8Array, encoding: string): string => new TextDecoder(encoding).decode(bytes);

/**
 * The header: the first record of the file holding something (quoted fields, with "" for a quote and line breaks inside,
 * as the API reads them); empty rows above it, as Excel saves a sheet whose first rows were cleared, are skipped as the
 * API skips them.
 */
export function headerRow(csv: string, delimiter: string): string[] {
  let at = csv.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    const { fields, next } = recordAt(csv, at, delimiter);
    if (fields.some(Boolean) || next >= csv.length) return fields;
    at = next;
  }
}

/** The record starting at `start`, its fields trimmed, and where the next one starts. */
function recordAt(csv: string, start: number, delimiter: string): { fields: string[]; next: number } {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  let startOfField = true;
  let i = start;
  for (; i < csv.length; i++) {
    const ch = csv[i]!;
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (csv[i + 1] === '"') {
        field += '"';
        i += 1;
      } else quoted = false;
      continue;
    }
    if (ch === '"' && startOfField) {
      quoted = true;
      startOfField = false;
    } else if (ch === delimiter) {
      fields.push(field);
      field = '';
      startOfField = true;
    } else if (ch === '\n' || ch === '\r') break;
    else {
      field += ch;
      startOfField = false;
    }
  }
  fields.push(field);
  const next = csv[i] === '\r' && csv[i + 1] === '\n' ? i + 2 : i + 1;
  return { fields: fields.map((f) => f.trim()), next };
}

/**
 * Excel's first line naming the file's separator (`sep=;`), which Excel reads as such and does not show: the separator
 * and the text after the line, whose first row is the header; none when the file starts otherwise. The API reads the
 * line the same way.
 */
export function separatorLine(text: string): { delimiter: string; text: string } | undefined {
  const line = SEPARATOR_LINE.exec(text);
  return line ? { delimiter: line[1]!, text: text.slice(line[0].length) } : undefined;
}

/** Why a file naming a separator the import does not take (`sep=:`) is not read. */
export function otherSeparator(name: string, delimiter: string): string | undefined {
  if (DELIMITERS.some(([d]) => d === delimiter)) return undefined;
  return `${name} names “${delimiter}” as its separator on its first line: save it with commas, semicolons, tabs or pipes and choose it again.`;
}

/**
 * The delimiter the header row holds most of: the choice offered first, which the user can change. The header is the
 * first line holding more than delimiters and spaces, as headerRow finds it.
 */
export function guessDelimiter(csv: string): string {
  const firstLine =
    csv
      .slice(0, 100_000)
      .split(/\r\n|\r|\n/)
      .find((line) => /[^,;\t|\s]/.test(line)) ?? '';
  let best = ',';
  let most = 0;
  for (const [d] of DELIMITERS) {
    const count = firstLine.split(d).length - 1;
    if (count > most) [best, most] = [d, count];
  }
  return best;
}

export type ContactField = 'phone' | 'firstName' | 'lastName' | 'email';
export const CONTACT_FIELDS: Array<[ContactField, string]> = [
  ['phone', 'Phone'],
  ['firstName', 'First name'],
  ['lastName', 'Last name'],
  ['email', 'Email'],
];

/**
 * What a column holding each field is called, best first: a header that is the field's name ("Phone", "Mobile Phone
 * Number", "E-mail Address") before one only naming it ("Phone 1 - Value" of Google Contacts), a given name before a
 * bare "Name" (which may be the whole name). Sheets kept in Spanish, French, German, Italian and Portuguese name
 * them in their words ("Prénom" and "Nom", "Vorname" and "Handy").
 */
const LIKELY: Record<ContactField, RegExp[]> = {
  phone: [
    /^(phone|mobile|cell|telephone|tel|whatsapp|teléfono|telefono|móvil|movil|celular|téléphone|portable|telefon|handy|mobil|cellulare)([\s_-]*(phone|number|no\.?))*$/i,
    /phone|mobil|cell|tel|whatsapp|número|numero|telefono|teléfono|portable|handy/i,
  ],
  firstName: [/^(first|given|fore)[\s_-]*name$|^first$|^(nombre|prénom|prenom|vorname|nome)$/i, /^name$/i],
  lastName: [
    /^(last|family|sur)[\s_-]*name$|^last$|^surname$|^apellidos?$|^(nom|nom de famille|nachname|familienname|cognome|sobrenome)$/i,
  ],
  email: [/^e-?mail([\s_-]*address)?$/i, /e-?mail|correo/i],
};

/**
 * Columns about a field rather than holding it, never guessed as it: Google Contacts' "Phone 1 - Label" ("Mobile")
 * and "Phonetic First Name", Outlook's "E-mail Type" and "Given Yomi", a fax, a consent to marketing.
 */
const ABOUT_A_FIELD = /\b(label|type|phonetic|yomi|fax|pager|opt|consent|marketing|status)\b/i;

/** A first guess of which column holds each contact field, from the header names; the user confirms or changes it. */
export function guessColumns(headers: string[]): Record<ContactField, string> {
  const taken = new Set<string>();
  const guess = {} as Record<ContactField, string>;
  const free = headers.filter((h) => h && !ABOUT_A_FIELD.test(h));
  for (const [field] of CONTACT_FIELDS) {
    let found = '';
    for (const likely of LIKELY[field]) {
      found = free.find((h) => !taken.has(h) && likely.test(h)) ?? '';
      if (found) break;
    }
    if (found) taken.add(found);
    guess[field] = found;
  }
  return guess;
}

/**
 * The custom fields offered for the columns mapped to no contact field: each column's name as the user left it, else
 * its header's; past the MAX_CUSTOM_FIELDS a contact holds, a column is left out (an empty name), so that a wide
 * export (Outlook's has 92 columns) imports as offered rather than being refused whole.
 */
export function offerCustomFields(others: string[], kept: Record<string, string> = {}): Record<string, string> {
  let named = 0;
  return Object.fromEntries(
    others.map((header) => {
      const name = kept[header] ?? (named < MAX_CUSTOM_FIELDS ? fieldNameOf(header) : '');
      if (name.trim()) named += 1;
      return [header, name];
    }),
  );
}

/** A custom field's name offered for a column: its header in lower case, words joined by "_" ("Zip code" → "zip_code"). */
export const fieldNameOf = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100);
