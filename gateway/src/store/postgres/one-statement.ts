import { UNIQUE_VIOLATION } from './errors.js';
import { JOBS_CHANNEL } from './job-notifications.js';
import type { Ahead, Part } from './pipeline.js';
import { renumbered } from './sql.js';
import { CHANGED } from './writes.js';

/** How the one statement names its parts. */
const PART = 'leadchat_commit_';

/** How the one statement's text begins: a connection that breaks once it went out leaves its outcome unknown. */
export const ONE_STATEMENT = `WITH ${PART}`;

/**
 * A transaction's writes as one statement, which commits by itself: each write a data-modifying WITH query, the
 * checks and notifications of them all in its main query. It saves the statements around them (BEGIN, COMMIT), and
 * the parsing and round trips of each. Undefined when the writes cannot go so: one has no part, or two write the
 * same table. A statement's parts see one snapshot and run in no promised order, so two writes of one table (an
 * insert, then a removal of it; two inserts whose order in the table must be kept) go as statements of their own.
 *
 * It fails as the first of its parts that could have failed so: a document written meanwhile is a race lost on the
 * first write that checked a version, a key taken one on the write to that key's table.
 */
export function oneStatement(writes: readonly Ahead[]): Ahead | undefined {
  const parts = writes.map((write) => write.part);
  const tables = new Set(parts.map((part) => part?.table));
  if (parts.includes(undefined) || tables.size < parts.length) return undefined;
  const values: unknown[] = [];
  const queries: string[] = [];
  const changed: string[] = [];
  const main: string[] = [];
  (parts as Part[]).forEach((part, i) => {
    const name = `${PART}${i}`;
    queries.push(`${name} AS (${renumbered(part.text, values.length)})`);
    values.push(...(writes[i]!.values ?? []));
    if (part.then === 'changed') changed.push(`NOT EXISTS (SELECT 1 FROM ${name})`);
    if (part.then === 'notify') main.push(`SELECT pg_notify('${JOBS_CHANNEL}', queue) FROM ${name}`);
  });
  if (changed.length) main.unshift(`SELECT leadchat_changed() WHERE ${changed.join(' OR ')}`);
  if (!main.length) main.push('SELECT 1');
  return {
    text: `WITH ${queries.join(', ')} ${main.join(' UNION ALL ')}`,
    values,
    meaning: (err) => failedPart(writes, parts as Part[], err)?.meaning?.(err) ?? err,
  };
}

/** The write whose failure `err` is: the one to the table a key was taken in, or the first that checked a version. */
function failedPart(writes: readonly Ahead[], parts: Part[], err: unknown): Ahead | undefined {
  const { code, table } = (err ?? {}) as { code?: unknown; table?: unknown };
  const at =
    code === UNIQUE_VIOLATION
      ? parts.findIndex((part) => part.table === `"${String(table)}"` || part.table === table)
      : code === CHANGED
        ? parts.findIndex((part) => part.then === 'changed')
        : -1;
  return at < 0 ? undefined : writes[at];
}
