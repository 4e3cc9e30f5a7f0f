import { existsSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_URL_VARIABLE } from './postgres';

type EmbeddedPostgresModule = typeof import('../../gateway/src/bench/embedded-postgres.js', {
  with: { 'resolution-mode': 'import' }
});

/** The gateway's own throwaway-server helper, as the build left it (tests run the built gateway anyway). */
export const EMBEDDED_POSTGRES = path.resolve(__dirname, '../../gateway/dist/bench/embedded-postgres.js');

/**
 * Starts one PostgreSQL server for the whole test run (about 1.5 s) and publishes its admin URL in
 * LEADCHAT_TEST_PG_URL, which the test workers inherit; each test file makes its own databases on it.
 */
export default async function setup(): Promise<void> {
  if (!existsSync(EMBEDDED_POSTGRES))
    throw new Error(`${EMBEDDED_POSTGRES} is missing: build the gateway first (npm run build)`);
  const { startEmbeddedPostgres } = (await import(EMBEDDED_POSTGRES)) as EmbeddedPostgresModule;
  const server = await startEmbeddedPostgres({
    // Tests crash gateways, never the server: flushing to disk buys them nothing but time.
    flags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'listen_addresses=127.0.0.1'],
  }).catch((err: Error) => {
    throw new Error(`PostgreSQL for the tests did not start: ${err.message}`);
  });
  if (!server)
    throw new Error(
      'PostgreSQL for the tests comes from the embedded-postgres devDependency, which is not installed: run `npm ci`',
    );
  process.env[ADMIN_URL_VARIABLE] = server.url;
  (globalThis as { leadchatPostgres?: unknown }).leadchatPostgres = server;
}
