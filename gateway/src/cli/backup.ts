import { createWriteStream, existsSync } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loadConfig, type Config } from '../config.js';
import { DataDirInUse, DataDirNotWritable, lockDataDir } from '../lock.js';
import { ARCHIVE_KIND, manifestSummary, packArchive, readArchive } from '../store/lowdb/backup-archive.js';
import { fsyncDir } from '../store/lowdb/durable-file.js';
import { readFormat } from '../store/lowdb/format.js';
import { snapshotStopped } from '../store/lowdb/snapshot.js';
import { gatewayVersion } from '../version.js';
import { adminConnection, adminResponse, print, readAnswer } from './account.js';

/**
 * `leadchat-gateway backup --to FILE`: a consistent copy of the embedded store as an archive in FILE. A stopped
 * gateway's data dir is copied under its lock, as it stands (so the README's upgrade steps, "stop, then back up",
 * work); a running gateway is asked for a snapshot (POST /admin/v1/backup) while it serves on. The archive goes to
 * a temp file beside FILE, is read back whole and checked, and only then renamed: a failed backup never leaves a
 * file under FILE's name, nor replaces an earlier backup there.
 */
export async function backupCommand(to: string | undefined): Promise<number> {
  if (!to) throw new Error('backup needs --to FILE');
  const config = loadConfig(process.env, { adminApi: false });
  if (config.databaseUrl) {
    throw new Error(
      'backup copies the embedded store, and this gateway runs on PostgreSQL (LEADCHAT_DATABASE_URL is set): ' +
        'back the database up with pg_dump instead (README, "Backups")',
    );
  }
  const target = path.resolve(to);
  if ((await stat(target).catch(() => undefined))?.isDirectory())
    throw new Error(`${target} is a directory; --to names the archive file to write`);
  let held: DataDirInUse | undefined;
  const unlock = await lockDataDir(config.dataDir).catch((err: Error) => {
    if (err instanceof DataDirInUse) return void (held = err);
    // The command may run as another user than the gateway's: the system's words, not advice to chown the dir to it.
    const system = err instanceof DataDirNotWritable ? (err.cause as Error) : err;
    throw new Error(`Cannot open the data dir ${config.dataDir}: ${system.message}`);
  });
  if (unlock) {
    try {
      return await writeArchive(target, () => stoppedArchive(config));
    } finally {
      await unlock();
    }
  }
  const { url, token, trust } = await adminConnection(config);
  return writeArchive(target, async () => {
    const res: IncomingMessage = await adminResponse(new URL('/admin/v1/backup', url), token, trust, 'POST').catch(
      (err: Error) => {
        // The gateway holding the data dir listens elsewhere: the command was not given the gateway's settings.
        throw new Error(
          `${err.message}; a gateway (${held?.holder}) runs on the data dir ${config.dataDir}: run backup with the settings it runs with (LEADCHAT_HOST and LEADCHAT_PORT, or LEADCHAT_URL)`,
        );
      },
    );
    if (res.statusCode !== 200) return { refused: await readAnswer(res) };
    return { archive: res };
  });
}

/** The archive of a stopped gateway's data dir, whose lock the caller holds, in the data dir's own store format. */
async function stoppedArchive(config: Config): Promise<{ archive: Readable; done: () => Promise<void> }> {
  if (!existsSync(path.join(config.dataDir, 'store')))
    throw new Error(`${config.dataDir} holds no embedded store to back up (LEADCHAT_DATA_DIR)`);
  const snapshot = await snapshotStopped(config.dataDir);
  try {
    const storeFormat = (await readFormat(config.dataDir)) ?? 1;
    const archive = await packArchive(snapshot.dir, {
      kind: ARCHIVE_KIND,
      storeFormat,
      gatewayVersion,
      createdAt: new Date().toISOString(),
      files: snapshot.files,
    });
    return { archive, done: snapshot.remove };
  } catch (err) {
    await snapshot.remove();
    throw err;
  }
}

type Source = { archive: Readable; done?: () => Promise<void> } | { refused: Parameters<typeof print>[0] };

/** Writes the archive `source` gives to `target` by way of a checked temp file; prints what was written. */
async function writeArchive(target: string, source: () => Promise<Source>): Promise<number> {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.partial`);
  // The archive holds the admin token and the TLS key: readable by its owner only, from the first byte.
  const handle = await open(temp, 'wx', 0o600).catch((err: Error) => {
    throw new Error(`Cannot write in ${path.dirname(target)}: ${err.message}`);
  });
  try {
    const given = await source();
    if ('refused' in given) {
      await handle.close();
      return print(given.refused);
    }
    try {
      await pipeline(given.archive, createWriteStream('', { fd: handle.fd, autoClose: false })).catch((err: Error) => {
        throw new Error(`The backup was cut short (${err.message}); nothing was written to ${target}`);
      });
    } finally {
      await given.done?.();
    }
    await handle.sync();
    await handle.close();
    const manifest = await readArchive(temp);
    const { size } = await stat(temp);
    await rename(temp, target);
    await fsyncDir(path.dirname(target));
    process.stdout.write(
      `${JSON.stringify({ backup: target, bytes: size, manifest: manifestSummary(manifest) }, null, 2)}\n`,
    );
    return 0;
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * `leadchat-gateway backup verify FILE`: reads the archive whole and checks it as restore does (every file against the
 * SHA-256 its manifest keeps, every store page as a page), without writing anything anywhere; exit 0 and what it
 * holds, or 1 and the file that is damaged. It reads the file alone, whatever the backend configured: a PostgreSQL
 * deployment's dumps are pg_dump's, and it says so of one (check it with pg_restore --list).
 */
export async function verifyCommand(file: string | undefined): Promise<number> {
  if (!file) throw new Error('backup verify needs the archive: leadchat-gateway backup verify FILE');
  const archive = path.resolve(file);
  const manifest = await readArchive(archive);
  const { size } = await stat(archive);
  const checked = manifest.checksums
    ? 'every file against its SHA-256, every store page as a page'
    : 'every store page as a page, and the count of files (an archive of a release before checksums were kept)';
  process.stdout.write(
    `${JSON.stringify({ verified: archive, bytes: size, checked, manifest: manifestSummary(manifest) }, null, 2)}\n`,
  );
  return 0;
}
