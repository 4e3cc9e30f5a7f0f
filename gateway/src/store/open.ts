import path from 'node:path';
import { withoutPassword, type Config } from '../config.js';
import { lockDataDir } from '../lock.js';
import type { Logger } from '../log.js';
import { StoreHealth } from './health.js';
import { upgradeDataDir, type FormatLog } from './lowdb/format.js';
import { simulateFullDisk } from './lowdb/full-disk.js';
import { openLowdbStore, type LowdbStoreOptions } from './lowdb/lowdb-store.js';
import { notOpened } from './postgres/unreachable.js';
import type { CollectionSpec, Store } from './store.js';

export interface OpenedStore {
  store: Store;
  /** Closes the store and releases what the backend held for this process (the data-dir lock). */
  close(): Promise<void>;
}

/**
 * The backend the configuration names: PostgreSQL when LEADCHAT_DATABASE_URL is set (any number of processes),
 * else the embedded lowdb store in the data dir, which one process at a time may hold; with the `collections` the
 * gateway keeps. Its health (an outage's lines) is told on `log`.
 */
export async function openStore(config: Config, log: Logger, collections: CollectionSpec[]): Promise<OpenedStore> {
  if (config.databaseUrl) {
    const { openPostgresStore } = await import('./postgres/postgres-store.js');
    const store = await openPostgresStore({ url: config.databaseUrl, collections, log }).catch((err: Error) => {
      // The system's or PostgreSQL's words (connect ECONNREFUSED, database "leadchat" does not exist, password
      // authentication failed) name neither the setting nor the server; the gateway's own refusals say theirs.
      if (typeof (err as { code?: unknown }).code !== 'string') throw err;
      throw notOpened(
        `cannot open LEADCHAT_DATABASE_URL=${withoutPassword(config.databaseUrl!)}`,
        config.databaseUrl!,
        err,
      );
    });
    return { store, close: () => store.close() };
  }
  return openEmbeddedStore(config, log, collections, {
    health: new StoreHealth(log),
    onDamaged: ({ file, reason }) =>
      log.error(
        { file, reason },
        `the store's file ${file} is damaged: what needs it is refused (503 STORE_DAMAGED) and /readyz answers 503; stop the gateway and restore the data dir from a backup (README, "Backups")`,
      ),
  });
}

/**
 * The embedded store of the data dir, for this process alone: the dir locked, brought to this gateway's format (a
 * newer one is refused), then opened. Closing it releases the lock.
 */
export async function openEmbeddedStore(
  config: Config,
  log: FormatLog,
  collections: CollectionSpec[],
  { health, onDamaged }: Pick<LowdbStoreOptions, 'health' | 'onDamaged'> = {},
): Promise<OpenedStore> {
  simulateFullDisk(config.testFullDisk);
  const unlock = await lockDataDir(config.dataDir);
  try {
    // Under the lock: no other gateway reads the files while a step changes them.
    await upgradeDataDir(config.dataDir, log);
    const store = await openLowdbStore({
      dir: path.join(config.dataDir, 'store'),
      mediaDir: path.join(config.dataDir, 'media'),
      collections,
      cacheSize: config.cacheDocuments,
      health,
      onDamaged,
    });
    return {
      store,
      close: async () => {
        try {
          await store.close();
        } finally {
          await unlock();
        }
      },
    };
  } catch (err) {
    await unlock();
    throw err;
  }
}
