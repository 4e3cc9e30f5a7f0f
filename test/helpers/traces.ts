import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { BACKEND, type TestGateway } from './gateway';
import { dumpDatabase } from './postgres';

/**
 * What must leave no trace once erased (a contact's, a deleted account's): texts, found case-insensitively, and a
 * file's bytes. Named for the failure message: "chat text in /tmp/…/journal".
 */
export type Traces = Record<string, string | Buffer>;

/** A place a trace may hide: a file of the data dir, or on PostgreSQL a row of a table. */
export interface Place {
  where: string;
  content: Buffer;
}

/** Every file of the data dir, and on PostgreSQL every row of every table, with where it was. */
export async function everything(gw: TestGateway): Promise<Place[]> {
  const files = (readdirSync(gw.dataDir, { recursive: true, encoding: 'utf8' }) as string[])
    .map((f) => path.join(gw.dataDir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => ({ where: f, content: readFileSync(f) }));
  if (BACKEND !== 'postgres') return files;
  const rows = await dumpDatabase(gw.env.LEADCHAT_DATABASE_URL!);
  return [...files, ...rows.map((r) => ({ where: r.where, content: Buffer.from(r.content) }))];
}

/** Which traces are found where: text case-insensitively, a file by its bytes (or their hex, in a bytea column). */
export function found(places: Place[], traces: Traces): string[] {
  const hits: string[] = [];
  for (const [what, trace] of Object.entries(traces)) {
    for (const { where, content } of places) {
      const hit =
        typeof trace === 'string'
          ? content.toString('latin1').toLowerCase().includes(trace.toLowerCase())
          : content.includes(trace) || content.toString('latin1').includes(trace.toString('hex'));
      if (hit) hits.push(`${what} in ${where}`);
    }
  }
  return hits;
}
