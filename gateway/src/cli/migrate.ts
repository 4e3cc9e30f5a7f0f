import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, withoutPassword } from '../config.js';
import { collections } from '../domain/collections.js';
import type { Media } from '../domain/media.js';
import { CURSOR_KEY_SETTING } from '../http/paging.js';
import { upgradeStoredConversations } from '../jobs/conversation-upgrade.js';
import { SETTINGS } from '../store/lowdb/settings.js';
import { openEmbeddedStore } from '../store/open.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import { notOpened } from '../store/postgres/unreachable.js';
import type { Doc, Job, Store } from '../store/store.js';

const PAGE = 500;

/**
 * `leadchat-gateway migrate --to postgres://…`: copies the embedded store of LEADCHAT_DATA_DIR (every record,
 * queued job and media file) into an empty PostgreSQL database, in insertion order. The gateway must be stopped:
 * the data dir's lock is taken for the copy. A database that holds anything is refused.
 */
export async function migrateCommand(to: string | undefined): Promise<number> {
  if (!to || !/^postgres(ql)?:\/\//.test(to))
    throw new Error('migrate needs --to postgres://user:password@host:port/database');
  const config = loadConfig(process.env, { adminApi: false });
  // A data dir named wrong (a typo, another folder's ./data) would be opened as a new, empty store: nothing copied,
  // and an empty database ready for the gateway as if it had been.
  if (!existsSync(path.join(config.dataDir, 'store')))
    throw new Error(`${config.dataDir} holds no embedded store to migrate (LEADCHAT_DATA_DIR)`);
  // A newer data dir is refused, an older one upgraded first (said on stderr, stdout being the copy's JSON report).
  const log = {
    info: (_fields: object, message: string) => void process.stderr.write(`leadchat-gateway: ${message}\n`),
  };
  const source = await openEmbeddedStore(config, log, collections);
  try {
    // The database's migrations find it empty: what an earlier release stored is brought up to date here first.
    await upgradeStoredConversations({ store: source.store, log });
    const target = await openPostgresStore({ url: to, collections }).catch((err: Error) => {
      // The gateway's own refusals (a newer database) name their cause; the system's and the server's name no URL.
      if (!(err as NodeJS.ErrnoException).code) throw err;
      throw notOpened(`cannot open the database --to ${withoutPassword(to)}`, to, err);
    });
    try {
      await refuseNonEmpty(target);
      const copied: Record<string, number> = {};
      for (const { name } of collections) copied[name] = await copyCollection(source.store, target, name);
      copied.settings = await copySettings(source.store, target);
      copied.mediaFiles = await copyMedia(source.store, target);
      copied.jobs = await copyJobs(source.store, target);
      process.stdout.write(`${JSON.stringify({ from: config.dataDir, to: withoutPassword(to), copied }, null, 2)}\n`);
      return 0;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function refuseNonEmpty(target: Store): Promise<void> {
  for (const { name } of collections) {
    if ((await target.scan(name, { limit: 1 })).length)
      throw new Error(`the target database is not empty (it has ${name}); migrate only into an empty database`);
  }
  for (const status of ['pending', 'running', 'dead'] as const) {
    if ((await target.jobs.list(status, { limit: 1 })).length)
      throw new Error('the target database is not empty (it has jobs); migrate only into an empty database');
  }
}

async function copyCollection(source: Store, target: Store, name: string): Promise<number> {
  let copied = 0;
  for (let after: string | undefined; ; ) {
    const docs = await source.scan<Doc>(name, { limit: PAGE, after });
    if (docs.length === 0) return copied;
    await target.transact(async (tx) => {
      for (const doc of docs) await tx.insert(name, doc);
    });
    copied += docs.length;
    after = docs.at(-1)!.id;
  }
}

/**
 * The store's own settings: the marks of the walks over an earlier release's data, done already, which the database
 * must not walk again as if the data were an earlier release's (one would ask again every auto-recharge request
 * still waiting, those a receiver took among them). Not the key that signs page cursors: the database places
 * documents anew, so a cursor of the embedded store is refused there rather than read at another place.
 */
async function copySettings(source: Store, target: Store): Promise<number> {
  let copied = 0;
  for (let after: string | undefined; ; ) {
    const settings = await source.scan<Doc & { value: string }>(SETTINGS, { limit: PAGE, after });
    if (settings.length === 0) return copied;
    for (const { id, value } of settings) {
      if (id === CURSOR_KEY_SETTING) continue;
      await target.settings.putIfAbsent(id, value);
      copied += 1;
    }
    after = settings.at(-1)!.id;
  }
}

async function copyMedia(source: Store, target: Store): Promise<number> {
  let copied = 0;
  for (let after: string | undefined; ; ) {
    const records = await source.scan<Media>('media', { limit: PAGE, after });
    if (records.length === 0) return copied;
    for (const media of records) {
      const bytes = await source.blobs.get(media.accountId, media.id);
      if (!bytes) throw new Error(`media file ${media.id} is missing from ${path.join('media', media.accountId)}`);
      await target.blobs.put(media.accountId, media.id, bytes);
      copied += 1;
    }
    after = records.at(-1)!.id;
  }
}

async function copyJobs(source: Store, target: Store): Promise<number> {
  let copied = 0;
  for (const status of ['pending', 'running', 'dead'] as const) {
    for (let after: string | undefined; ; ) {
      const jobs: Job[] = await source.jobs.list(status, { limit: PAGE, after });
      if (jobs.length === 0) break;
      await target.jobs.adopt(jobs);
      copied += jobs.length;
      after = jobs.at(-1)!.id;
    }
  }
  return copied;
}
