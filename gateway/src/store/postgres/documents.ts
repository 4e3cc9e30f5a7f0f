import type { Doc, Page, Reader, Scalar } from '../store.js';
import type { Catalog } from './catalog.js';
import { field, hasNul, limitClause, type Query } from './sql.js';

/** Told each document a transaction reads, with its row version (xmin): a later write checks it is unchanged. */
export type Seen = (collection: string, doc: Doc, version: string) => void;

/**
 * Reads of documents on one connection. They take no locks; in a transaction, `seen` hears the row version of each
 * document read, and `lock` reads one FOR UPDATE.
 */
export class DocumentReads implements Reader {
  private readonly columns: string;

  constructor(
    private readonly query: Query,
    private readonly catalog: Catalog,
    private readonly seen?: Seen,
  ) {
    this.columns = seen ? 'doc, xmin::text AS v' : 'doc';
  }

  get<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    return this.one<T>(collection, id, '');
  }

  /**
   * Reads the document FOR UPDATE. A lock that waited for a transaction that removed the row and wrote it anew
   * (a document written again under its id) finds the old row gone: a new statement then reads the new one.
   */
  async lock<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    return (await this.one<T>(collection, id, ' FOR UPDATE')) ?? this.one<T>(collection, id, ' FOR UPDATE');
  }

  private async one<T extends Doc>(collection: string, id: string, locking: string): Promise<T | undefined> {
    const table = this.catalog.table(collection);
    if (hasNul(id)) return undefined;
    const { rows } = await this.query(`SELECT ${this.columns} FROM ${table} WHERE id = $1${locking}`, [id]);
    return this.docs<T>(collection, rows)[0];
  }

  async find<T extends Doc>(collection: string, index: string, values: Scalar[], page?: Page): Promise<T[]> {
    const spec = this.catalog.index(collection, index);
    if (values.length !== spec.fields.length) {
      throw new Error(`store: index "${index}" of "${collection}" takes ${spec.fields.length} values`);
    }
    const texts = values.map(String);
    if (texts.some(hasNul)) return [];
    // `field = $n` also proves the partial index's `field IS NOT NULL`, so the planner reads the index.
    return this.select<T>(collection, spec.fields.map((f, i) => `${field(f)} = $${i + 1}`), texts, page);
  }

  scan<T extends Doc>(collection: string, page?: Page): Promise<T[]> {
    return this.select<T>(collection, [], [], page);
  }

  private async select<T extends Doc>(collection: string, where: string[], params: unknown[], page?: Page): Promise<T[]> {
    const table = this.catalog.table(collection);
    const desc = page?.order === 'desc';
    if (page?.after !== undefined) {
      if (hasNul(page.after)) return [];
      params.push(page.after);
      // An `after` naming no document compares with NULL: an empty page, as on lowdb.
      where.push(`seq ${desc ? '<' : '>'} (SELECT seq FROM ${table} WHERE id = $${params.length})`);
    }
    const filter = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const order = ` ORDER BY seq${desc ? ' DESC' : ''}`;
    const sql = `SELECT ${this.columns} FROM ${table}${filter}${order}${limitClause(params, page?.limit)}`;
    const { rows } = await this.query(sql, params);
    return this.docs<T>(collection, rows);
  }

  private docs<T extends Doc>(collection: string, rows: Array<{ doc: T; v?: string }>): T[] {
    if (this.seen) for (const row of rows) this.seen(collection, row.doc, row.v!);
    return rows.map((row) => row.doc);
  }
}
