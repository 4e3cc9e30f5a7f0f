import type pg from 'pg';
import type { Page } from '../store.js';

/**
 * One statement on a connection (a pooled one, or the one a transaction holds). `shared`: a read that takes no lock,
 * which may go out in one statement with the other such reads asked for in the same turn (see Pipeline).
 */
export type Query = (text: string, values?: unknown[], shared?: boolean) => Promise<pg.QueryResult>;

const names = new Map<string, string>();

/**
 * A statement the server parses and plans once per connection, then runs by name: the gateway sends the same few
 * dozen statements over and over, and their planning is a good part of their cost. Statements with no values
 * (BEGIN, COMMIT) gain nothing and go as they are.
 */
export function prepared(text: string, values?: unknown[]): pg.QueryConfig | string {
  if (!values?.length) return text;
  let name = names.get(text);
  if (name === undefined) {
    name = `leadchat_${names.size}`;
    names.set(text, name);
  }
  return { name, text, values };
}

const PARAMETER = /\$(\d+)/g;

/** A statement's text with its parameters moved up by `offset` ($1 becomes $(1 + offset)), to join it to others. */
export const renumbered = (text: string, offset: number): string =>
  offset ? text.replace(PARAMETER, (_, n: string) => `$${Number(n) + offset}`) : text;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** PostgreSQL cuts longer names silently, and two cut names could then meet. */
const MAX_NAME = 63;

/** A table, column or index name, quoted (so mixed case and reserved words are kept as they are). */
export function ident(name: string): string {
  if (!NAME.test(name) || name.length > MAX_NAME) throw new Error(`store: "${name}" is not a valid database name`);
  return `"${name}"`;
}

/** A collection's table bears its name. */
export const tableOf = (collection: string): string => ident(collection);

/** The name the migrations give the index `index` of `collection`. */
export const indexNameOf = (collection: string, index: string): string => `${collection}_by_${index}`;

/** A document field as text: the form in which the indexes hold it and `find` compares it. */
export function field(name: string): string {
  if (!NAME.test(name)) throw new Error(`store: "${name}" is not a valid field name`);
  return `(doc->>'${name}')`;
}

/** ` LIMIT $n` with its value appended to `params`, or nothing. */
export function limitClause(params: unknown[], limit: number | undefined): string {
  if (limit === undefined) return '';
  params.push(Math.max(0, Math.floor(limit)));
  return ` LIMIT $${params.length}`;
}

/**
 * The condition of a page's `after` on `table`'s order, its value appended to `params`: after a place (a number a
 * read gave), or after where the document of an id is now. Undefined for an id that cannot name a document (the
 * page is empty).
 */
export function afterClause(table: string, page: Page, params: unknown[]): string | undefined {
  const { after, order } = page;
  if (typeof after === 'string' && hasNul(after)) return undefined;
  params.push(after);
  const than = order === 'desc' ? '<' : '>';
  // An id naming no document compares with NULL: an empty page, as on lowdb.
  return typeof after === 'number'
    ? `seq ${than} $${params.length}`
    : `seq ${than} (SELECT seq FROM ${table} WHERE id = $${params.length})`;
}

/** Text in PostgreSQL cannot hold NUL: a value with one matches nothing and must not reach the server. */
export const hasNul = (text: string): boolean => text.includes('\u0000');
