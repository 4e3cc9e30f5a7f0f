import { createWriteStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { loadConfig } from '../config.js';
import { readArchive } from '../store/lowdb/backup-archive.js';
import { fsyncDir } from '../store/lowdb/durable-file.js';
import { adminConnection, adminResponse, print, readAnswer } from './account.js';

/**
 * `leadchat-gateway backup --to FILE`: asks the running gateway for a consistent snapshot of its embedded store
 * (POST /admin/v1/backup) and writes the archive to FILE. The archive goes to a temp file beside FILE, is read back
 * whole and checked, and only then renamed: a failed backup never leaves a file under FILE's name, nor replaces an
 * earlier backup there.
 */
export async function backupCommand(to: string | undefined): Promise<number> {
  if (!to) throw new Error('backup needs --to FILE');
  const config = loadConfig();
  if (config.databaseUrl) {
    throw new Error(
      'backup copies the embedded store, and this gateway runs on PostgreSQL (LEADCHAT_DATABASE_URL is set): ' +
        'back the database up with pg_dump instead (README, "Backups")',
    );
  }
  const target = path.resolve(to);
  if ((await stat(target).catch(() => undefined))?.isDirectory()) throw new Error(`${target} is a directory; --to names the archive file to write`);
  const { url, token, ca } = await adminConnection(config);
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.partial`);
  // The archive holds the admin token and the TLS key: readable by its owner only, from the first byte.
  const handle = await open(temp, 'wx', 0o600).catch((err: Error) => {
    throw new Error(`Cannot write in ${path.dirname(target)}: ${err.message}`);
  });
  try {
    const res = await adminResponse(new URL('/admin/v1/backup', url), token, ca, 'POST');
    if (res.statusCode !== 200) {
      await handle.close();
      return print(await readAnswer(res));
    }
    await pipeline(res, createWriteStream('', { fd: handle.fd, autoClose: false })).catch((err: Error) => {
      throw new Error(`The backup was cut short (${err.message}); nothing was written to ${target}`);
    });
    await handle.sync();
    await handle.close();
    const manifest = await readArchive(temp);
    const { size } = await stat(temp);
    await rename(temp, target);
    await fsyncDir(path.dirname(target));
    process.stdout.write(`${JSON.stringify({ backup: target, bytes: size, manifest }, null, 2)}\n`);
    return 0;
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  } finally {
    await rm(temp, { force: true });
  }
}
