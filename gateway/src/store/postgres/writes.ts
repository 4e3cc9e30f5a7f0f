import { indexKey, StoreConflictError, type Doc } from '../store.js';
import type { Catalog } from './catalog.js';
import { UNIQUE_VIOLATION } from './errors.js';
import { field, hasNul, type Query } from './sql.js';

/** Runs a statement so that its failure leaves the transaction usable (a savepoint). */
export type Undoable = <R>(work: () => Promise<R>) => Promise<R>;

/** The conflict's index when a document changed since the transaction read it. */
export const VERSION = 'version';

/** A document changed by another transaction since this one read it: this one lost the race and runs again. */
const changedMeanwhile = (collection: string, id: string) => new StoreConflictError(collection, VERSION, id);

/**
 * Writes of documents in a transaction. A write that meets a taken key throws StoreConflictError and leaves the
 * transaction usable, as on lowdb: the caller may catch it and go on.
 */
export class DocumentWrites {
  constructor(
    private readonly query: Query,
    private readonly catalog: Catalog,
    private readonly undoable: Undoable,
  ) {}

  async insert<T extends Doc>(collection: string, doc: T): Promise<T> {
    const table = this.catalog.table(collection);
    if (typeof doc?.id !== 'string' || doc.id === '') throw new TypeError(`store: ${collection} document needs a string id`);
    const json = JSON.stringify(doc);
    // DO NOTHING rather than an error: a unique violation would abort the whole transaction.
    const { rowCount } = await this.query(`INSERT INTO ${table} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT DO NOTHING`, [doc.id, json]);
    if (!rowCount) throw await this.conflictOf(collection, doc);
    return JSON.parse(json) as T;
  }

  /**
   * Merges `patch` into the document; with `version` (the row version the transaction read), only if the document
   * is still that version. Answers the new document and its version.
   */
  async update<T extends Doc>(collection: string, id: string, patch: Partial<T>, version?: string, renew = false): Promise<{ doc: T; version: string }> {
    const table = this.catalog.table(collection);
    if (patch.id !== undefined && patch.id !== id) throw new TypeError(`store: cannot change the id of ${collection} "${id}"`);
    if (hasNul(id)) throw new Error(`store: ${collection} has no document "${id}"`);
    // `{...old, ...patch}` drops a field set to undefined (JSON has no undefined); jsonb's `||` would keep it.
    const dropped = Object.keys(patch).filter((key) => key !== 'id' && (patch as Record<string, unknown>)[key] === undefined);
    const params: unknown[] = [id, JSON.stringify(patch), dropped];
    const unchanged = version === undefined ? '' : ` AND xmin = $${params.push(version)}::text::xid`;
    // A new seq puts the document last in insertion order, where a new one would go.
    const seq = renew ? ', seq = DEFAULT' : '';
    const run = () => this.query(`UPDATE ${table} SET doc = (doc || $2::jsonb) - $3::text[]${seq} WHERE id = $1${unchanged} RETURNING doc, xmin::text AS v`, params);
    const { rows } = this.catalog.touchesUnique(collection, patch) ? await this.guarded(collection, id, patch, run) : await run();
    if (!rows[0]) {
      if (version !== undefined && (await this.exists(collection, id))) throw changedMeanwhile(collection, id);
      throw new Error(`store: ${collection} has no document "${id}"`);
    }
    return { doc: rows[0].doc as T, version: rows[0].v as string };
  }

  /** Removes the document; with `version`, only if it is still as the transaction read it (a race lost otherwise). */
  async remove(collection: string, id: string, version?: string): Promise<void> {
    const table = this.catalog.table(collection);
    if (hasNul(id)) return;
    if (version === undefined) {
      await this.query(`DELETE FROM ${table} WHERE id = $1`, [id]);
      return;
    }
    const { rowCount } = await this.query(`DELETE FROM ${table} WHERE id = $1 AND xmin = $2::text::xid`, [id, version]);
    if (!rowCount && (await this.exists(collection, id))) throw changedMeanwhile(collection, id);
  }

  private async exists(collection: string, id: string): Promise<boolean> {
    return ((await this.query(`SELECT 1 FROM ${this.catalog.table(collection)} WHERE id = $1`, [id])).rowCount ?? 0) > 0;
  }

  /** An update that may violate a unique index runs under a savepoint, and its violation becomes a conflict. */
  private async guarded<R>(collection: string, id: string, patch: object, run: () => Promise<R>): Promise<R> {
    try {
      return await this.undoable(run);
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code !== UNIQUE_VIOLATION) throw err;
      const [index, spec] = this.catalog.indexOfConstraint(collection, e.constraint) ?? ['id', { fields: ['id'] }];
      const { rows } = await this.query(`SELECT doc FROM ${this.catalog.table(collection)} WHERE id = $1`, [id]);
      throw new StoreConflictError(collection, index, indexKey(spec, { ...rows[0]?.doc, ...patch }) ?? '');
    }
  }

  /** Which key of `doc` is taken: the id or a unique index (read after the fact, it names the committed holder). */
  private async conflictOf(collection: string, doc: Doc): Promise<StoreConflictError> {
    const table = this.catalog.table(collection);
    const taken = async (where: string, values: unknown[]) => ((await this.query(`SELECT 1 FROM ${table} WHERE ${where}`, values)).rowCount ?? 0) > 0;
    if (await taken('id = $1', [doc.id])) return new StoreConflictError(collection, 'id', doc.id);
    for (const [name, spec] of this.catalog.uniqueIndexes(collection)) {
      const key = indexKey(spec, doc as unknown as Record<string, unknown>);
      if (key === undefined) continue;
      const values = spec.fields.map((f) => String((doc as unknown as Record<string, unknown>)[f]));
      if (await taken(spec.fields.map((f, i) => `${field(f)} = $${i + 1}`).join(' AND '), values)) {
        return new StoreConflictError(collection, name, key);
      }
    }
    // The holder is gone already; the transaction runs again and meets whatever holds the key now.
    return new StoreConflictError(collection, 'id', doc.id);
  }
}
