import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { collections } from '../domain/collections.js';
import type { Engine } from '../engine/ports/providers.js';
import { createLogger } from '../log.js';
import { providers } from '../providers/index.js';
import { openLowdbStore } from '../store/lowdb/lowdb-store.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import type { Store } from '../store/store.js';
import { benchDatabase } from './database.js';

/**
 * Runs `measure` on the embedded store, in a temporary directory removed afterwards, then on PostgreSQL when the
 * benchmarks have a server (benchDatabase). Each call of `open` opens the store anew on the same data: a restart.
 */
export async function onEachStore(
  name: string,
  measure: (backend: 'lowdb' | 'postgres', open: () => Promise<Store>) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `leadchat-bench-${name}-`));
  try {
    await measure('lowdb', () => openLowdbStore({ dir, collections }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pg = await benchDatabase();
  if (!pg) {
    process.stdout.write('postgres    skipped: set LEADCHAT_BENCH_DATABASE_URL to an empty database\n');
    return;
  }
  try {
    await measure('postgres', () => openPostgresStore({ url: pg.url, collections }));
  } finally {
    await pg.stop();
  }
}

/** What a job runner of the benchmarks runs with: the store, the default settings, no log. */
export const benchEngine = (store: Store): Engine => ({
  config: loadConfig({}),
  store,
  log: createLogger('silent'),
  cursorKey: Buffer.alloc(32),
  providers,
});
