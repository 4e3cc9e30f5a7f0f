import { Readable } from 'node:stream';
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { CsvError } from 'csv-parse';
import type { Gateway } from '../context.js';
import { parseDuration } from './durations.js';
import { excerpt } from './storable-text.js';
import { unmarkedCell } from './spreadsheet-text.js';
import { ApiError, badRequest, FieldChecks, fieldError, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Page, Reader, Tx } from '../store/store.js';
import { newJob } from './job-kinds.js';
import { normalizeContact, type Contact, type ContactInput, type ContactOwner } from './contacts.js';
import { getList, lockList } from './lists.js';
import type { ImportAnswer } from '../contract/lists.js';
import { IMPORT_DELIMITERS, SEPARATOR_LINE } from '../api-contract.js';

/**
 * A bulk import of contacts into a list (spec §3.2: imported contacts count as additions to the list). The
 * request is checked row by row and stored with its rows in chunks, in one commit; then a durable job applies
 * one chunk per transaction, so a restart resumes at the first chunk not yet applied.
 */
export interface Import {
  id: string;
  accountId: string;
  listId: string;
  status: 'queued' | 'running' | 'done';
  /** Data rows of the file (blank lines of a CSV not counted). */
  total: number;
  processed: number;
  added: number;
  alreadyInList: number;
  duplicates: number;
  rejected: number;
  /** Rows added that a Live campaign of the list cannot reach (no address on its channel, opted out). */
  unreachable?: number;
  /** The first MAX_ERRORS rejected rows; `rejected` counts them all. */
  errors: RowError[];
  /** Rows imported without their phone, which could not be read; none on imports from before warnings. */
  warnings?: number;
  /** The first MAX_ERRORS warnings of those rows (a row may have two: its phone and its email). */
  rowWarnings?: RowWarning[];
  /** The first MAX_ERRORS repeated rows; none on imports from before they were listed. */
  rowDuplicates?: RowDuplicate[];
  /** Hold of the opening messages of the campaigns of the list, as `delay` of POST /lists/{id}/contacts. */
  delayMs: number;
  /** How many chunks the rows were stored in. */
  chunks: number;
  createdAt: string;
  updatedAt: string;
}

/** Why a row is not imported; `row` is the row a user sees in a spreadsheet (the header is row 1). */
export interface RowError {
  row: number;
  code: string;
  message: string;
}

/**
 * Something of a row that was left out of its contact, which was imported without it: `field` names it, `value` is
 * the text left out (none on imports from before it was kept), `contactId` the contact it went to when known.
 */
export interface RowWarning extends RowError {
  field: string;
  value?: string;
  contactId?: string;
}

/** A row repeating an earlier row of the file: `of` is that row, `contactId` the contact both went to. */
export interface RowDuplicate {
  row: number;
  of: number | null;
  contactId: string | null;
}

/** A contact's fields as the contacts are stored: an E.164 phone, a lower-case email. */
export interface ContactFields {
  firstName?: string;
  lastName?: string;
  phone: string | null;
  email: string | null;
  customFields?: Contact['customFields'];
  externalIds?: Record<string, string>;
}

/**
 * One row of the file as the import job applies it: a contact to add (with what was left out of it), a repeat of an
 * earlier row, or refused.
 */
export type ImportRow =
  | { row: number; contact: ContactFields; warning?: RowWarning; warnings?: RowWarning[] }
  | { row: number; duplicate: true; of?: { row: number; contact: ContactFields } }
  | RowError;

export interface ImportChunk {
  id: string;
  accountId: string;
  importId: string;
  /** 0 for the first chunk: the job applies them in this order. */
  position: number;
  rows: ImportRow[];
}

/** A row as it came, with the contact fields named as POST /contacts names them; or one refused as it was read. */
export type RawRow = { row: number; fields: unknown } | RowError;

/** The import's two forms: CSV text with a header row and the header of each contact field, or contact objects. */
export type ImportSource = { csv: string; columns: CsvColumns; delimiter: string } | { contacts: unknown[] };

export interface CsvColumns {
  phone?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  customFields?: Record<string, string>;
  externalIds?: Record<string, string>;
}

/** Reads a row's fields as POST /contacts reads its body; throws the same 400 for a bad row. */
export type ReadContact = (fields: unknown) => ContactInput;

export const MAX_ROWS = 100_000;
export const CHUNK_ROWS = 500;
export { MAX_ERRORS } from '../api-contract.js';
/** Rows checked between two yields to the event loop, so that other requests are answered meanwhile. */
const ROWS_PER_TURN = 500;

export const publicImport = (i: Import): ImportAnswer => ({
  id: i.id,
  listId: i.listId,
  status: i.status,
  total: i.total,
  processed: i.processed,
  added: i.added,
  alreadyInList: i.alreadyInList,
  duplicates: i.duplicates,
  rejected: i.rejected,
  unreachable: i.unreachable ?? 0,
  errors: i.errors,
  warnings: i.warnings ?? 0,
  rowWarnings: i.rowWarnings ?? [],
  rowDuplicates: i.rowDuplicates ?? [],
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});

/** The job that applies the chunk at `position`; its key makes it one, whoever queues it. */
export const importJob = (i: Import, position: number) =>
  newJob('import', { importId: i.id, position }, { key: `import:${i.id}:${position}`, accountId: i.accountId });

export async function getImport(r: Reader, accountId: string, id: string): Promise<Import> {
  const found = await r.get<Import>('imports', id);
  if (!found || found.accountId !== accountId) throw notFound('Import');
  return found;
}

/** A list's imports, newest first. */
export async function importsOf(r: Reader, accountId: string, listId: string, page: Page): Promise<Import[]> {
  await getList(r, accountId, listId);
  return r.find<Import>('imports', 'list', [listId], { ...page, order: 'desc' });
}

/**
 * Checks every row and stores the import, its rows in chunks and the job for the first chunk, in one commit.
 * Anything wrong with the request as a whole (the list, the file, its size) is a 4xx before anything is stored.
 */
export async function createImport(
  gw: Gateway,
  account: ContactOwner,
  listId: string,
  source: ImportSource,
  readContact: ReadContact,
  delay?: string,
  remember?: (tx: Tx, created: Import) => Promise<void>,
): Promise<Import> {
  const accountId = account.id;
  const delayMs = delay === undefined ? 0 : parseDuration(delay, { field: 'delay' });
  await getList(gw.store, accountId, listId);
  const raw =
    'csv' in source
      ? await readCsv(source.csv, source.columns, source.delimiter)
      : source.contacts.map((fields, i) => ({ row: i + 1, fields }));
  if (raw.length === 0)
    throw badRequest(
      'csv' in source ? 'csv: the file has no rows under its header' : 'contacts: give at least one contact',
      'EMPTY_IMPORT',
    );
  if (raw.length > MAX_ROWS) throw tooManyRows();
  const rows = await checkRows(raw, readContact, account.defaultCountry);
  return gw.store.transact(async (tx) => {
    await lockList(tx, accountId, listId);
    const at = now();
    const chunks: ImportRow[][] = [];
    for (let i = 0; i < rows.length; i += CHUNK_ROWS) chunks.push(rows.slice(i, i + CHUNK_ROWS));
    const created = await tx.insert<Import>('imports', {
      id: newId('imp'),
      accountId,
      listId,
      status: 'queued',
      total: rows.length,
      processed: 0,
      added: 0,
      alreadyInList: 0,
      duplicates: 0,
      rejected: 0,
      errors: [],
      warnings: 0,
      rowWarnings: [],
      rowDuplicates: [],
      delayMs,
      chunks: chunks.length,
      createdAt: at,
      updatedAt: at,
    });
    for (const [position, chunk] of chunks.entries()) {
      await tx.insert<ImportChunk>('import_chunks', {
        id: newId('imc'),
        accountId,
        importId: created.id,
        position,
        rows: chunk,
      });
    }
    await tx.enqueue(importJob(created, 0));
    await remember?.(tx, created);
    return created;
  });
}

const tooManyRows = () => badRequest(`At most ${MAX_ROWS} rows per import; split the file`, 'TOO_MANY_ROWS');

/**
 * Each row read as the contact API reads a contact, its phone and email normalized the same way (a phone without
 * a country code as of the account's default country); a row whose phone (or, without a phone, its email, or
 * without either its first external ID) was on an earlier row is a duplicate.
 */
async function checkRows(
  raw: RawRow[],
  readContact: ReadContact,
  defaultCountry: string | null | undefined,
): Promise<ImportRow[]> {
  // By key: the row that first gave it and the contact fields that row is found by.
  const seen = new Map<string, { row: number; contact: ContactFields }>();
  const rows: ImportRow[] = [];
  for (const [i, read] of raw.entries()) {
    if (i > 0 && i % ROWS_PER_TURN === 0) await yieldToRequests();
    if ('code' in read) {
      rows.push(read);
      continue;
    }
    const { row, fields } = read;
    try {
      const { contact, warnings } = readRow(row, fields, readContact, defaultCountry);
      const { firstName, lastName, customFields, externalIds, phone, email } = contact;
      const ids = Object.values(externalIds ?? {});
      // The first is what finds the row's contact; the others make a later row found by them a repeat too.
      const keys = [
        ...(phone ? [`phone:${phone}`] : []),
        ...(email ? [`email:${email}`] : []),
        ...ids.map((id) => `id:${id}`),
      ];
      const earlier = seen.get(keys[0]!);
      if (earlier) {
        rows.push({ row, duplicate: true, of: earlier });
        continue;
      }
      const kept = {
        firstName,
        lastName,
        phone,
        email,
        ...(customFields && Object.keys(customFields).length ? { customFields } : {}),
        ...(ids.length ? { externalIds } : {}),
      };
      const first = { row, contact: { phone, email, ...(ids.length ? { externalIds } : {}) } };
      for (const key of keys) if (!seen.has(key)) seen.set(key, first);
      rows.push({ row, contact: kept, ...(warnings.length ? { warnings } : {}) });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      rows.push({ row, code: err.code, message: err.message });
    }
  }
  return rows;
}

/** The fields a row may be imported without, by the field a warning names, each with the names a row gives it by. */
const DROPPABLE: ReadonlyArray<readonly [string, readonly string[], string]> = [
  ['phone', ['phone', 'phone_number'], 'INVALID_PHONE'],
  ['email', ['email'], 'INVALID_EMAIL'],
];

/**
 * The droppable fields a refusal is about, each with its problem in the words of the refusal ("phone: …"); none
 * when it is about anything else too.
 */
function droppedBy(err: unknown): Array<{ about: (typeof DROPPABLE)[number]; message: string }> | undefined {
  if (!(err instanceof ApiError) || !err.fields?.length) return undefined;
  const dropped = err.fields.map((problem) => ({
    about: DROPPABLE.find(([, names]) => names.includes(problem.field)),
    message: `${problem.field}: ${problem.message}`,
  }));
  return dropped.every((d) => d.about)
    ? (dropped as Array<{ about: (typeof DROPPABLE)[number]; message: string }>)
    : undefined;
}

/** What a row held in a field, as text a report can show (cut to 200 characters). */
const shown = (value: unknown): string =>
  (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).slice(0, 200);

/**
 * A row read as POST /contacts reads a contact. A phone or an email that cannot be read (a national number with no
 * default country set, an extension, a typo) does not cost the row when something else of it still finds its
 * contact (the other of the two, an external ID): the row is read again without it and imported with a warning
 * naming the field and the text left out, so one column of a file does not turn a team's contacts away. A bad email
 * beside a good phone is the same as a bad phone beside a good email. Without anything else, the row is refused for
 * the field, as before.
 */
function readRow(
  row: number,
  fields: unknown,
  readContact: ReadContact,
  defaultCountry: string | null | undefined,
): { contact: ReturnType<typeof normalizeContact>; warnings: RowWarning[] } {
  let current = fields;
  const warnings: RowWarning[] = [];
  let first: unknown;
  // At most once per droppable field: a row with a bad phone and a bad email may still have an external ID.
  for (let attempt = 0; ; attempt++) {
    try {
      return { contact: normalizeContact(readContact(current), defaultCountry), warnings };
    } catch (err) {
      first ??= err;
      const dropped = droppedBy(err);
      if (
        !dropped ||
        attempt >= DROPPABLE.length ||
        typeof current !== 'object' ||
        current === null ||
        Array.isArray(current)
      )
        throw first;
      const given = current as Record<string, unknown>;
      // A bad phone and a bad email come refused together: both are left out at once, each with its own warning.
      for (const { about, message } of dropped) {
        const [field, names, code] = about;
        const value = names.map((name) => given[name]).find((v) => v !== undefined && v !== '');
        // Nothing of the field to leave out: the refusal is about something else of the row.
        if (value === undefined || warnings.some((w) => w.field === field)) throw first;
        warnings.push({ row, field, code, message, value: shown(value) });
      }
      const leftOut = dropped.flatMap(({ about }) => about[1]);
      current = Object.fromEntries(Object.entries(given).filter(([name]) => !leftOut.includes(name)));
    }
  }
}

/**
 * The data rows of a CSV file, each with the contact fields its mapped columns give (empty cells left out). A
 * BOM, quoted fields and CRLF are read; a blank line is no row to import but keeps its row number, as in a
 * spreadsheet, and the header is the first row that is not blank; a quote mark inside a field that does not start
 * with one is part of its text (Ann "Annie" Smith).
 * The text is fed to the parser in slices, yielding between them.
 *
 * A row's fields past the header's that are all empty are the cells a spreadsheet once held (Excel and Google
 * Sheets write `a,b,c,,` then, and Excel pads its rows unevenly), and fields missing at its end are empty cells an
 * exporter left out: the row is read as the header's fields. A row with text past the header's has gained a
 * delimiter (an unquoted comma in a name): its values no longer sit under their headers, so it is refused with its
 * row rather than imported into the wrong fields, and the rest of the file still imports.
 */
async function readCsv(file: string, columns: CsvColumns, given: string): Promise<RawRow[]> {
  const { CsvError, parse: csvParser } = await import('csv-parse');
  const { text, delimiter } = separatorLine(file, given);
  const parser = Readable.from(slices(text, 256 * 1024)).pipe(
    csvParser({ bom: true, delimiter, relax_column_count: true, relax_quotes: true }),
  );
  const rows: RawRow[] = [];
  let read: ((cells: string[]) => Record<string, unknown>) | undefined;
  let fieldCount = 0;
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      row += 1;
      if (row % ROWS_PER_TURN === 0) await yieldToRequests();
      if (!read) {
        // Empty rows above the header (a sheet whose first row was cleared, as Excel saves it from A1) are no header.
        if (!record.some(filled)) continue;
        read = fieldReader(record, columns, delimiter);
        fieldCount = record.length;
      } else if (record.some(filled)) {
        if (rows.length === MAX_ROWS) throw tooManyRows();
        if (record.slice(fieldCount).some(filled)) {
          rows.push({
            row,
            code: 'WRONG_FIELD_COUNT',
            message: `the row has ${record.length} field${record.length === 1 ? '' : 's'} where the header has ${fieldCount}`,
          });
        } else rows.push({ row, fields: read(record) });
      }
    }
  } catch (err) {
    if (err instanceof CsvError) throw badRequest(`csv: ${csvProblem(err)}`, 'INVALID_CSV');
    throw err;
  } finally {
    parser.destroy();
  }
  return rows;
}

/**
 * A first line `sep=;` (`sep=,`, `sep=` and a tab) names the file's separator, as Excel writes and reads it: the file
 * is read with it, whatever `delimiter` says, and the line is no row. Excel does not show it, so the header is still
 * row 1. A separator an import does not take is refused, rather than the line read as the file's header.
 */
function separatorLine(text: string, given: string): { text: string; delimiter: string } {
  const line = SEPARATOR_LINE.exec(text);
  if (!line) return { text, delimiter: given };
  const named = line[1]!;
  if (!(IMPORT_DELIMITERS as readonly string[]).includes(named))
    throw badRequest(
      `csv: the file's first line "${line[0].trim()}" names ${JSON.stringify(named)} as its separator; an import ` +
        'takes a comma, a semicolon, a tab or a pipe: save the file with one of them',
      'INVALID_CSV',
    );
  return { text: text.slice(line[0].length), delimiter: named };
}

/**
 * What is wrong with the file, in words a spreadsheet's user knows. A field whose quote mark is never closed runs to the
 * end of the file, where the parser finds it out: the row it opens on, the one after the records the parser read
 * (blank lines among them), is named as a spreadsheet numbers it; the parser's line is the file's last, and counts a
 * CRLF inside a quoted field twice.
 */
function csvProblem(err: CsvError): string {
  if (err.code !== 'CSV_QUOTE_NOT_CLOSED' || typeof err.records !== 'number') return err.message;
  return (
    `row ${String(err.records + 1)} opens a field with a quote mark that is never closed, so the rest of the file ` +
    'would be read as that one field: close it, and write a quote mark inside a quoted field as two ("")'
  );
}

const filled = (cell: string) => cell.trim() !== '';

function* slices(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/**
 * A header read as one column that holds another delimiter was most likely saved with it (Excel writes ";" where the
 * decimal mark is a comma): the hint names the delimiter to give.
 */
function delimiterHint(names: string[], delimiter: string): string {
  const other =
    names.length === 1 ? IMPORT_DELIMITERS.find((d) => d !== delimiter && names[0]!.includes(d)) : undefined;
  return other === undefined
    ? ''
    : `: its header is one column holding "${other}", so the file may be separated by it: give "delimiter":${JSON.stringify(other)}`;
}

/** A header as people tell it apart: its case and how many spaces (a no-break one among them) it has do not count. */
export const looseHeader = (name: string) => name.trim().replace(/\s+/g, ' ').toLocaleLowerCase('en-US');

/**
 * The columns a mapped header names: those written as it is mapped, else those written like it in another case or
 * spacing ("PHONE NUMBER" for "Phone number", as spreadsheets and CRMs vary). One is the column; none or several, a 400.
 */
function columnsNamed(names: string[], loose: string[], name: string): number[] {
  const exact = names.flatMap((n, i) => (n === name.trim() ? [i] : []));
  return exact.length ? exact : loose.flatMap((n, i) => (n === looseHeader(name) ? [i] : []));
}

/**
 * A cell written as Excel's text formula (`="+447700900123"`, `="00123"`), as exporters write a number Excel would
 * otherwise show without its plus, its leading zeros or its last digits: its text, as Excel shows it.
 */
const excelText = (cell: string) => /^="((?:[^"]|"")*)"$/s.exec(cell)?.[1]?.replace(/""/g, '"') ?? unmarkedCell(cell);

/** The most columns a refusal names: the header of a file of megabytes may hold millions. */
const COLUMNS_NAMED = 20;

/**
 * Columns as a refusal names them, the first COLUMNS_NAMED and how many more: naming each of a header of a million
 * columns, once for each mapping it lacks, made an answer of gigabytes that took the gateway down.
 */
function quotedColumns(names: string[], separator: string): string {
  const quoted = names.slice(0, COLUMNS_NAMED).map((n) => `"${excerpt(n, 60)}"`);
  const more = names.length - quoted.length;
  return more > 0 ? `${quoted.join(separator)}, and ${more} more` : quoted.join(separator);
}

/** From the header row: what turns a record into contact fields. A mapped header absent from it is a 400. */
function fieldReader(
  header: string[],
  columns: CsvColumns,
  delimiter: string,
): (cells: string[]) => Record<string, unknown> {
  const names = header.map((h) => h.trim());
  const loose = names.map(looseHeader);
  let found: string | undefined;
  const indexOf = (field: string, name: string): number => {
    const [at = -1, ...others] = columnsNamed(names, loose, name);
    if (others.length) {
      const written = [at, ...others].map((i) => names[i]!);
      const how = written.every((n) => n === name.trim()) ? '' : `: ${quotedColumns(written, ' and ')}`;
      throw fieldError(`columns.${field}`, `the file has two columns "${excerpt(name, 60)}"${how}`, 'DUPLICATE_COLUMN');
    }
    if (at < 0) {
      found ??= quotedColumns(names.filter(Boolean), ', ') || 'none';
      throw fieldError(
        `columns.${field}`,
        `the file has no column "${excerpt(name, 60)}"; its columns are ${found}${delimiterHint(names, delimiter)}`,
        'MISSING_COLUMN',
      );
    }
    return at;
  };
  // Every mapping the header cannot give is told at once: the file is sent again once, not once per column.
  const checks = new FieldChecks();
  const pairs = (prefix: string, entries: Array<[string, string | undefined]>) =>
    entries
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([field, name]) => [field, checks.run(() => indexOf(`${prefix}${field}`, name)) ?? -1] as const);
  const { customFields = {}, externalIds = {}, ...fields } = columns;
  const mapped = pairs('', Object.entries(fields));
  const custom = pairs('customFields.', Object.entries(customFields));
  const labelled = pairs('externalIds.', Object.entries(externalIds));
  checks.done();
  const cellsOf = (cells: string[], pairs: ReadonlyArray<readonly [string, number]>) =>
    Object.fromEntries(
      pairs.map(([field, at]) => [field, excelText(cells[at]?.trim() ?? '')]).filter(([, value]) => value !== ''),
    );
  const nested = (name: string, values: Record<string, unknown>) =>
    Object.keys(values).length ? { [name]: values } : {};
  return (cells) => ({
    ...cellsOf(cells, mapped),
    ...nested('customFields', cellsOf(cells, custom)),
    ...nested('externalIds', cellsOf(cells, labelled)),
  });
}

/** Whether an entry of an import report names the contact. */
const naming = (contactId: string) => (entry: { contactId?: string | null }) => entry.contactId === contactId;

/**
 * The account's import reports with a row naming the contact (a row imported into it with something left out, a row
 * repeating one that went to it): what its export shows, its merge moves and its erasure removes.
 */
export async function importsNaming(r: Reader, accountId: string, contactId: string): Promise<Import[]> {
  const named = naming(contactId);
  const found: Import[] = [];
  for (const list of await r.find<{ id: string }>('lists', 'account', [accountId]))
    for (const report of await r.find<Import>('imports', 'list', [list.id]))
      if (report.rowWarnings?.some(named) || report.rowDuplicates?.some(named)) found.push(report);
  return found;
}

/**
 * A contact's entries in the account's import reports follow it: merged, they name the contact it went into; erased
 * (`into` null), its rows kept with a warning (which hold the text left out) go from the lists and its duplicates
 * name no contact. The counts stay: they name nobody.
 */
export async function reassignInImports(
  tx: Tx,
  accountId: string,
  contactId: string,
  into: string | null,
): Promise<void> {
  const named = naming(contactId);
  for (const report of await importsNaming(tx, accountId, contactId)) {
    const warnings = report.rowWarnings?.flatMap((w) => (!named(w) ? [w] : into ? [{ ...w, contactId: into }] : []));
    const duplicates = report.rowDuplicates?.map((d) => (named(d) ? { ...d, contactId: into } : d));
    await tx.update<Import>('imports', report.id, {
      ...(warnings ? { rowWarnings: warnings } : {}),
      ...(duplicates ? { rowDuplicates: duplicates } : {}),
    });
  }
}

/** The rows of an import report that name the contact, as its export shows them. */
export const rowsNaming = (report: Import, contactId: string) => {
  const named = naming(contactId);
  return {
    id: report.id,
    listId: report.listId,
    createdAt: report.createdAt,
    rowWarnings: (report.rowWarnings ?? []).filter(named),
    rowDuplicates: (report.rowDuplicates ?? []).filter(named),
  };
};
