import type pg from 'pg';
import { renumbered, type Query } from './sql.js';

/**
 * Reads sent as one statement at most: a function reading a page's documents one by one (Promise.all over a list)
 * asks for as many at once as the page holds, and each count would be a statement of its own for every connection to
 * parse, plan and keep. Past this many, a run of reads goes as several statements.
 */
export const MAX_PARTS = 16;

/** The column telling which of the reads sent together a row answers. */
const PART = 'leadchat_part';

interface Read {
  text: string;
  values?: unknown[];
}

/**
 * Reads asked for together, as one statement: each one's rows tagged with its place, its parameters renumbered. A
 * statement sees one snapshot, so they see the database as they would one by one (READ COMMITTED gives each
 * statement its own) or better. Each read keeps its ORDER BY and LIMIT in its own subquery, and sorts its rows
 * itself (see DocumentReads): the parts' rows come back in no promised order. The reads must answer the same
 * columns.
 */
export function together(reads: Read[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const parts = reads.map((read, i) => {
    const text = renumbered(read.text, values.length);
    values.push(...(read.values ?? []));
    return `SELECT ${i} AS ${PART}, r.* FROM (${text}) AS r`;
  });
  return { text: parts.join(' UNION ALL '), values };
}

/** The rows of a statement of reads sent together, as each read's own answer. */
export function parted(result: pg.QueryResult, count: number): pg.QueryResult[] {
  const rows: Array<Array<Record<string, unknown>>> = Array.from({ length: count }, () => []);
  for (const row of result.rows as Array<Record<string, unknown>>) {
    const { [PART]: part, ...rest } = row;
    rows[part as number]!.push(rest);
  }
  return rows.map((own) => ({ ...result, rows: own, rowCount: own.length }));
}

interface Asked extends Read {
  resolve: (result: pg.QueryResult) => void;
  reject: (err: unknown) => void;
}

/**
 * `query`, with the shared reads asked for in the same turn of the event loop (Promise.all over reads by id, outside a
 * transaction) sent as one statement, or a few (see together); any other statement goes as it is, at once.
 */
export function readsTogether(query: Query): Query {
  let asked: Asked[] = [];
  const send = () => {
    const batch = asked;
    asked = [];
    for (let at = 0; at < batch.length; at += MAX_PARTS) {
      const reads = batch.slice(at, at + MAX_PARTS);
      if (reads.length === 1) {
        const [read] = reads;
        query(read!.text, read!.values).then(read!.resolve, read!.reject);
        continue;
      }
      const joined = together(reads);
      query(joined.text, joined.values).then(
        (result) => parted(result, reads.length).forEach((own, i) => reads[i]!.resolve(own)),
        (err: unknown) => reads.forEach((read) => read.reject(err)),
      );
    }
  };
  return (text, values, shared) => {
    if (!shared) return query(text, values);
    return new Promise((resolve, reject) => {
      asked.push({ text, values, resolve, reject });
      if (asked.length === 1) queueMicrotask(send);
    });
  };
}
