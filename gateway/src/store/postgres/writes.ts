import { indexKey, StoreConflictError, type Doc } from '../store.js';
import type { Catalog } from './catalog.js';
import { UNIQUE_VIOLATION } from './errors.js';
import type { Ahead } from './pipeline.js';

/** The conflict's index when a document changed since the transaction read it. */
export const VERSION = 'version';

/** What migration 11's leadchat_changed() raises: a serialization failure, a race lost. */
export const CHANGED = '40001';

/**
 * The statements of a transaction's writes, sent ahead of its next read or its commit (see Pipeline): each one's
 * outcome is known in advance, but for a race, which fails the statement and with it the transaction. A write of
 * a document the transaction read applies only if the row is still the version read; a key taken meanwhile is a
 * unique violation. Either becomes the StoreConflictError that the transaction fails with, and runs again.
 */
export class DocumentWrites {
  constructor(private readonly catalog: Catalog) {}

  insert(collection: string, doc: Doc): Ahead {
    const table = this.catalog.table(collection);
    if (typeof doc?.id !== 'string' || doc.id === '')
      throw new TypeError(`store: ${collection} document needs a string id`);
    const text = `INSERT INTO ${table} (id, doc) VALUES ($1, $2::jsonb)`;
    return {
      text,
      values: [doc.id, JSON.stringify(doc)],
      meaning: (err) => this.taken(collection, doc, err),
      part: { text, table },
    };
  }

  /**
   * Writes `doc` over the stored one; with `version`, only if the row is still that version (else the transaction
   * fails with a conflict). `renew` puts it last in insertion order, where a new document would go.
   */
  replace(collection: string, doc: Doc, version: string | undefined, renew: boolean): Ahead {
    const table = this.catalog.table(collection);
    const seq = renew ? ', seq = DEFAULT' : '';
    const write = `UPDATE ${table} SET doc = $2::jsonb${seq} WHERE id = $1`;
    const meaning = (err: unknown) => this.taken(collection, doc, err);
    if (version === undefined)
      return { text: write, values: [doc.id, JSON.stringify(doc)], meaning, part: { text: write, table } };
    const checked = `${write} AND xmin = $3::text::xid RETURNING 1`;
    return {
      text: `WITH written AS (${checked}) SELECT leadchat_changed() WHERE NOT EXISTS (SELECT 1 FROM written)`,
      values: [doc.id, JSON.stringify(doc), version],
      meaning,
      part: { text: checked, table, then: 'changed' },
    };
  }

  /** Removes the document; with `version`, only if the row is still that version. */
  remove(collection: string, id: string, version: string | undefined): Ahead {
    const table = this.catalog.table(collection);
    const remove = `DELETE FROM ${table} WHERE id = $1`;
    if (version === undefined) return { text: remove, values: [id], part: { text: remove, table } };
    const checked = `${remove} AND xmin = $2::text::xid RETURNING 1`;
    return {
      text: `WITH removed AS (${checked}) SELECT leadchat_changed() WHERE NOT EXISTS (SELECT 1 FROM removed)`,
      values: [id, version],
      meaning: (err) => (codeOf(err) === CHANGED ? new StoreConflictError(collection, VERSION, id) : err),
      part: { text: checked, table, then: 'changed' },
    };
  }

  /**
   * Merges `patch` into the document and answers the new one as the store keeps it (JSON: a field set to
   * undefined is dropped).
   */
  merge<T extends Doc>(collection: string, doc: T, patch: Partial<T>): T {
    if (patch.id !== undefined && patch.id !== doc.id)
      throw new TypeError(`store: cannot change the id of ${collection} "${doc.id}"`);
    return JSON.parse(JSON.stringify({ ...doc, ...patch })) as T;
  }

  /** The conflict a failed write of `doc` means: its row changed meanwhile, or a key of it is taken. */
  private taken(collection: string, doc: Doc, err: unknown): unknown {
    const code = codeOf(err);
    if (code === CHANGED) return new StoreConflictError(collection, VERSION, doc.id);
    if (code !== UNIQUE_VIOLATION) return err;
    const constraint = (err as { constraint?: string }).constraint;
    const unique = this.catalog.indexOfConstraint(collection, constraint);
    if (!unique) return new StoreConflictError(collection, 'id', doc.id);
    const [index, spec] = unique;
    return new StoreConflictError(collection, index, indexKey(spec, doc as unknown as Record<string, unknown>) ?? '');
  }
}

const codeOf = (err: unknown): string => String((err as { code?: unknown } | null)?.code ?? '');
