import pg from 'pg';
import type { EmbeddedPostgresOptions } from './embedded-postgres.js';

/**
 * The PostgreSQL server the benchmarks measure on: LEADCHAT_BENCH_DATABASE_URL (the user needs CREATE on it), else a
 * server started from the embedded-postgres devDependency, else undefined. Each measurement works in a schema of
 * its own (`inSchema`), created and dropped with `sql`.
 */
export async function benchDatabase(
  embeddedOptions: EmbeddedPostgresOptions = {},
): Promise<{ url: string; stop: () => Promise<void>; origin: string } | undefined> {
  const given = process.env.LEADCHAT_BENCH_DATABASE_URL;
  if (given) return { url: given, stop: async () => undefined, origin: 'LEADCHAT_BENCH_DATABASE_URL' };
  const { startEmbeddedPostgres } = await import('./embedded-postgres.js');
  const embedded = await startEmbeddedPostgres(embeddedOptions);
  return embedded && { ...embedded, origin: 'embedded' };
}

/** Says that the benchmark `what` (its line's start, with its own separator) found no server to measure on. */
export function noDatabase(what: string): void {
  process.stdout.write(
    `${what}skipped (install the embedded-postgres devDependency or set LEADCHAT_BENCH_DATABASE_URL)\n`,
  );
}

/** The database URL with `schema` first on the search path: the gateway creates and finds its tables there. */
export function inSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', [u.searchParams.get('options'), `-c search_path=${schema}`].filter(Boolean).join(' '));
  return u.toString();
}

/** One statement on a connection of its own. */
export async function sql(url: string, text: string): Promise<pg.QueryResult> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return await db.query(text);
  } finally {
    await db.end();
  }
}
