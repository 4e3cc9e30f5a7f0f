import type pg from 'pg';
import type { CollectionSpec } from '../store.js';
import { indexNameOf } from './sql.js';

/** Fields of `doc ->> 'name'` expressions, in order, as pg_get_indexdef prints them. */
const fieldsIn = (text: string): string[] => [...text.matchAll(/doc ->> '([^']+)'::text/g)].map((m) => m[1]!);

/**
 * Refuses a database that lacks a collection or an index that the code declares, or has one that differs
 * (other fields, uniqueness, not partial): the declaration changed without a migration.
 */
export async function checkSchema(pool: pg.Pool, collections: CollectionSpec[]): Promise<void> {
  const tables = new Set(
    (
      await pool.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`)
    ).rows.map((r) => r.name),
  );
  const defs = new Map(
    (
      await pool.query<{ name: string; table: string; def: string }>(
        `SELECT indexname AS name, tablename AS table, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema()`,
      )
    ).rows.map((r) => [r.name, r]),
  );
  const problems: string[] = [];
  for (const { name: collection, indexes } of collections) {
    if (!tables.has(collection)) {
      problems.push(`collection "${collection}" has no table`);
      continue;
    }
    for (const [index, spec] of Object.entries(indexes ?? {})) {
      const name = indexNameOf(collection, index);
      const found = defs.get(name);
      const want = `${spec.unique ? 'unique ' : ''}on ${spec.fields.join(', ')}`;
      if (!found || found.table !== collection) {
        problems.push(`index "${index}" of collection "${collection}" (${want}) has no database index "${name}"`);
        continue;
      }
      const [keys = '', predicate = ''] = found.def.split(' WHERE ');
      const matches =
        /^CREATE UNIQUE /.test(found.def) === Boolean(spec.unique) &&
        fieldsIn(keys).join() === spec.fields.join() &&
        (spec.unique || /\bseq\)$/.test(keys)) &&
        [...new Set(fieldsIn(predicate))].sort().join() === [...new Set(spec.fields)].sort().join();
      if (!matches)
        problems.push(
          `index "${index}" of collection "${collection}" is declared ${want}, but the database has: ${found.def}`,
        );
    }
  }
  if (problems.length) {
    throw new Error(
      `store: the database does not match the declared collections (a migration is missing): ${problems.join('; ')}`,
    );
  }
}
