import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { stringify } from 'csv-stringify/sync';
import type { Placed, Reader, Store } from '../store/store.js';
import type { Account } from './accounts.js';
import type { Contact } from './contacts.js';
import { membersOf, type List, type Membership } from './lists.js';
import { looseHeader } from './imports.js';
import { spreadsheetCell } from './spreadsheet-text.js';
import { EXPORT_COLUMNS, EXPORT_READ_ONLY_COLUMNS, externalIdColumn } from '../api-contract.js';

/** Memberships read per page: as the list's contacts are paged, never the whole list at once. */
export const EXPORT_PAGE = 500;

type Member = Placed<Membership> & { contact: Contact };

/** Whether the one asking for the file went away: the pages still unread are not read. */
export type Stopped = () => boolean;

/**
 * The list's members page by page, in the order they joined; contacts gone meanwhile (erased) are passed over. Each
 * page waits a turn of the event loop first: the embedded store answers without one, and a list of 100,000 contacts
 * would otherwise hold every other request, and the news that the client went away, until it was read through.
 *
 * The account deleted meanwhile (by the operator, or by its agency), the reading fails: its data is nobody's to read
 * from then on, and its deletion removes the list's members before the list, so reading on would end the file short
 * of them as though it were whole.
 */
async function* pagesOf(
  store: Reader & Pick<Store, 'findPlaced'>,
  accountId: string,
  listId: string,
  stopped: Stopped,
): AsyncGenerator<Member[]> {
  for (let after: number | undefined; ; ) {
    await yieldToRequests();
    if (stopped()) return;
    if (!(await store.get<Account>('accounts', accountId)))
      throw new Error(`account ${accountId} was deleted while list ${listId} was exported`);
    const page = await membersOf(store, accountId, listId, {
      limit: EXPORT_PAGE,
      ...(after === undefined ? {} : { after }),
    });
    if (page.length === 0) return;
    yield page.filter((m) => m.contact);
    if (page.length < EXPORT_PAGE) return;
    after = page.at(-1)!.place;
  }
}

/** The file's columns: the contact's, one per external ID label and custom field of the list's contacts, then facts. */
interface Columns {
  labels: string[];
  fields: string[];
  header: string[];
}

/**
 * The external ID labels and custom field names the list's contacts hold, each a column of its own, by name. A custom
 * field named as another column ("phone", "Contact ID") is headed `<name> (custom field)`, numbered (`<name> (custom
 * field 2)`) when a field of that name is there too, so that no two columns of the file are one to the import.
 */
async function columnsOf(pages: AsyncIterable<Member[]>): Promise<Columns> {
  const labels = new Set<string>();
  const fields = new Set<string>();
  for await (const page of pages)
    for (const { contact } of page) {
      for (const label of Object.keys(contact.externalIds ?? {})) labels.add(label);
      for (const [name, value] of Object.entries(contact.customFields))
        if (value !== null && name.trim() !== '') fields.add(name);
    }
  const byName = (a: string, b: string) => a.localeCompare(b);
  const sortedLabels = [...labels].sort(byName);
  const sortedFields = [...fields].sort(byName);
  const others = new Set(
    [...EXPORT_COLUMNS, ...EXPORT_READ_ONLY_COLUMNS, ...sortedLabels.map(externalIdColumn)].map(looseHeader),
  );
  return {
    labels: sortedLabels,
    fields: sortedFields,
    header: [
      ...EXPORT_COLUMNS,
      ...sortedLabels.map(externalIdColumn),
      ...fieldHeaders(sortedFields, others),
      ...EXPORT_READ_ONLY_COLUMNS,
    ],
  };
}

/** Each custom field's header: its name, or when another column is headed so, a name no other column has. */
function fieldHeaders(fields: string[], others: Set<string>): string[] {
  const clashes = (name: string) => others.has(looseHeader(name));
  const taken = new Set([...others, ...fields.filter((name) => !clashes(name)).map(looseHeader)]);
  return fields.map((name) => {
    if (!clashes(name)) return name;
    let header = `${name} (custom field)`;
    for (let n = 2; taken.has(looseHeader(header)); n++) header = `${name} (custom field ${n})`;
    taken.add(looseHeader(header));
    return header;
  });
}

const text = (value: string | number | boolean | null | undefined) =>
  value === null || value === undefined ? '' : spreadsheetCell(String(value));

/**
 * A member as a row. Its phone is written as stored, E.164 (`+14155550123`), without the apostrophe: the gateway
 * takes no phone that is not digits after the plus, so it cannot hold a formula, and the plus is what every import
 * (this one, another CRM's) reads a phone's country by. Every other text a contact or a lead gave is neutralised.
 */
const rowOf = (columns: Columns, { contact, doc }: Member): string[] => [
  contact.phone ?? '',
  text(contact.firstName),
  text(contact.lastName),
  text(contact.email),
  ...columns.labels.map((label) => text(contact.externalIds?.[label])),
  ...columns.fields.map((name) => text(contact.customFields[name])),
  contact.id,
  doc.addedAt,
  contact.optOut ? 'yes' : 'no',
];

/** CRLF line ends (RFC 4180), which Excel and every spreadsheet read; a field is quoted only when it needs it. */
const csv = (rows: string[][]) => stringify(rows, { record_delimiter: 'windows' });

/**
 * The list's contacts as CSV, in chunks of one page each: first the UTF-8 BOM (Excel reads a CSV as UTF-8 only with
 * it, and the import reads it), then, once the list was read through for its columns, the header and the rows page
 * by page. The list is read twice, a page at a time, so a list of 100,000 contacts is never held at once; a contact
 * given a new custom field between the two reads is written without it. `stopped` is asked before each page.
 */
export async function* listCsv(store: Store, list: List, stopped: Stopped): AsyncGenerator<string> {
  yield '\ufeff';
  const columns = await columnsOf(pagesOf(store, list.accountId, list.id, stopped));
  if (stopped()) return;
  yield csv([columns.header]);
  for await (const page of pagesOf(store, list.accountId, list.id, stopped))
    if (page.length) yield csv(page.map((m) => rowOf(columns, m)));
}

/**
 * The file's name in Content-Disposition: the list's name, as an ASCII fallback (`filename`, quotes, backslashes and
 * what a file system refuses made `_`, anything not ASCII `_`) and in full as RFC 6266's `filename*` in UTF-8, which
 * browsers prefer.
 */
export function attachment(listName: string): string {
  const name = `${listName.trim().replace(/[\\/:*?"<>|\p{Cc}]+/gu, '_') || 'list'}.csv`;
  const ascii = name.replace(/[^\x20-\x7e]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return ascii === name
    ? `attachment; filename="${ascii}"`
    : `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
