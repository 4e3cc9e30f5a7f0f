import type { Doc, Page, Placed, Reader, Scalar } from '../store.js';
import type { Catalog } from './catalog.js';
import { afterClause, field, hasNul, limitClause, type Query } from './sql.js';

/** Told each document a transaction reads, with its row version (xmin): a later write checks it is unchanged. */
export type Seen = (collection: string, doc: Doc, version: string) => void;

/**
 * The row version of each document a read outside a transaction answered by id, so that a transaction may take that
 * read as its own (see Tx.readBefore); forgotten with the document.
 */
const versionsRead = new WeakMap<Doc, string>();

/** The row version `doc` had when a read outside a transaction answered it; undefined for any other document. */
export const versionRead = (doc: Doc): string | undefined => versionsRead.get(doc);

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
    // In a transaction, reads may be answered by one statement together (see Pipeline), whose rows keep no order
    // between its parts: each read sorts its own by seq.
    this.columns = seen ? 'doc, xmin::text AS v, seq' : 'doc';
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
    const columns = this.seen ? this.columns : 'doc, xmin::text AS v';
    const { rows } = await this.query(`SELECT ${columns} FROM ${table} WHERE id = $1${locking}`, [id], !locking);
    const [row] = rows as Array<Row<T>>;
    if (row && !this.seen) versionsRead.set(row.doc, row.v!);
    return this.docs<T>(collection, rows)[0];
  }

  async find<T extends Doc>(collection: string, index: string, values: Scalar[], page?: Page): Promise<T[]> {
    return (await this.findRows<T>(collection, index, values, page, '')).map((row) => row.doc);
  }

  /** As find, with each document's place (its seq) read in the same statement. */
  async findPlaced<T extends Doc>(
    collection: string,
    index: string,
    values: Scalar[],
    page?: Page,
  ): Promise<Array<Placed<T>>> {
    return (await this.findRows<T>(collection, index, values, page, ', seq')).map((row) => ({
      doc: row.doc,
      place: Number(row.seq),
    }));
  }

  async scan<T extends Doc>(collection: string, page?: Page): Promise<T[]> {
    return (await this.select<T>(collection, [], [], page, '')).map((row) => row.doc);
  }

  private findRows<T extends Doc>(
    collection: string,
    index: string,
    values: Scalar[],
    page: Page | undefined,
    extra: string,
  ): Promise<Array<Row<T>>> {
    const spec = this.catalog.index(collection, index);
    if (values.length !== spec.fields.length) {
      throw new Error(`store: index "${index}" of "${collection}" takes ${spec.fields.length} values`);
    }
    const texts = values.map(String);
    if (texts.some(hasNul)) return Promise.resolve([]);
    // `field = $n` also proves the partial index's `field IS NOT NULL`, so the planner reads the index.
    return this.select<T>(
      collection,
      spec.fields.map((f, i) => `${field(f)} = $${i + 1}`),
      texts,
      page,
      extra,
    );
  }

  private async select<T extends Doc>(
    collection: string,
    where: string[],
    params: unknown[],
    page: Page | undefined,
    extra: string,
  ): Promise<Array<Row<T>>> {
    const table = this.catalog.table(collection);
    const desc = page?.order === 'desc';
    if (page?.after !== undefined) {
      const after = afterClause(table, page, params);
      if (!after) return [];
      where.push(after);
    }
    const filter = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const order = ` ORDER BY seq${desc ? ' DESC' : ''}`;
    const sql = `SELECT ${this.columns}${extra} FROM ${table}${filter}${order}${limitClause(params, page?.limit)}`;
    // Outside a transaction, reads by id answer other columns: this one goes alone.
    const { rows } = await this.query(sql, params, this.seen !== undefined);
    if (this.seen) (rows as Array<Row<T>>).sort((a, b) => (Number(a.seq) - Number(b.seq)) * (desc ? -1 : 1));
    return this.heard<T>(collection, rows as Array<Row<T>>);
  }

  private docs<T extends Doc>(collection: string, rows: Array<Row<T>>): T[] {
    return this.heard(collection, rows).map((row) => row.doc);
  }

  /** The rows, once `seen` has heard of each document read. */
  private heard<T extends Doc>(collection: string, rows: Array<Row<T>>): Array<Row<T>> {
    if (this.seen) for (const row of rows) this.seen(collection, row.doc, row.v!);
    return rows;
  }
}

/** A row read: the document, its version in a transaction, its seq when asked for. */
interface Row<T extends Doc> {
  doc: T;
  v?: string;
  seq?: string;
}
