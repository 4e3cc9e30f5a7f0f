import type { Doc, Page, Reader, Scalar } from '../store.js';
import type { Catalog } from './catalog.js';
import { field, hasNul, limitClause, type Query } from './sql.js';

/**
 * Reads of documents on one connection. In a transaction (`lock`) every read locks the rows it returns
 * (FOR UPDATE), so that a read-then-write waits for any other transaction that read the same rows to end.
 */
export class DocumentReads implements Reader {
  constructor(
    private readonly query: Query,
    private readonly catalog: Catalog,
    private readonly lock: boolean,
  ) {}

  async get<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    const table = this.catalog.table(collection);
    if (hasNul(id)) return undefined;
    const { rows } = await this.query(`SELECT doc FROM ${table} WHERE id = $1${this.locking()}`, [id]);
    return rows[0]?.doc as T | undefined;
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
    const sql = `SELECT doc FROM ${table}${filter}${order}${limitClause(params, page?.limit)}${this.locking()}`;
    const { rows } = await this.query(sql, params);
    return rows.map((row) => row.doc as T);
  }

  private locking(): string {
    return this.lock ? ' FOR UPDATE' : '';
  }
}
