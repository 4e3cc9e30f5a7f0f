import { chmod, mkdtemp, open, readdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { makeDir } from '../make-dir.js';
import { checkExtracted, extractArchive, manifestSummary, readArchive, DATA } from '../store/lowdb/backup-archive.js';
import { fsyncDir } from '../store/lowdb/durable-file.js';
import { refuseNewer } from '../store/lowdb/format.js';

/**
 * `leadchat-gateway restore --from FILE`: fills an empty (or absent) LEADCHAT_DATA_DIR from a backup, with no
 * gateway running on it. The archive is read whole and checked first (every file against the SHA-256 its manifest
 * keeps, every store page as a page); it is then extracted into a temp directory beside the data dir, checked again
 * there, and moved into place only once complete and durable, so that a failed restore leaves the data dir as empty
 * as it found it. The gateway started on the dir afterwards recovers the store as after a crash at the snapshot point.
 */
export async function restoreCommand(from: string | undefined): Promise<number> {
  if (!from) throw new Error('restore needs --from FILE');
  const config = loadConfig(process.env, { adminApi: false });
  if (config.databaseUrl) {
    throw new Error(
      'restore fills an embedded data dir, and LEADCHAT_DATABASE_URL is set: this gateway runs on PostgreSQL; ' +
        'restore the database with pg_restore instead (README, "Backups")',
    );
  }
  const file = path.resolve(from);
  const dataDir = config.dataDir;
  const present = await entriesOf(dataDir);
  if (present && present.length > 0) {
    throw new Error(
      `the data dir ${dataDir} is not empty; restore only into an empty data dir (move its files away, or set LEADCHAT_DATA_DIR to a new directory)`,
    );
  }
  const manifest = await readArchive(file);
  refuseNewer(`the backup ${file}`, manifest);

  // Extracted beside the data dir when it does not exist yet (then renamed into place), inside it when it does
  // (it may be a mount point, which a rename cannot replace): either way on the same file system.
  if (!present) await makeDir(path.dirname(dataDir));
  const work = await mkdtemp(
    present ? path.join(dataDir, '.restore-') : path.join(path.dirname(dataDir), `.${path.basename(dataDir)}.restore-`),
  );
  try {
    await extractArchive(file, work);
    // Read back from the disk it was written to: what is moved into place is what was backed up.
    await checkExtracted(work, manifest);
    const restored = path.join(work, DATA);
    await syncTree(restored);
    if (present) await moveInto(restored, dataDir);
    else await rename(restored, dataDir);
    await chmod(dataDir, 0o700);
    await fsyncDir(dataDir);
    await fsyncDir(path.dirname(dataDir));
  } catch (err) {
    if (present) await emptyDir(dataDir, path.basename(work));
    throw err;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  process.stdout.write(
    `${JSON.stringify({ restored: dataDir, from: file, manifest: manifestSummary(manifest) }, null, 2)}\n`,
  );
  return 0;
}

/** The names in `dir`; undefined when it does not exist. */
async function entriesOf(dir: string): Promise<string[] | undefined> {
  try {
    return await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') throw new Error(`LEADCHAT_DATA_DIR ${dir} is a file, not a directory`);
    throw err;
  }
}

/** Moves every entry of `from` into `to`. */
async function moveInto(from: string, to: string): Promise<void> {
  for (const name of await readdir(from)) await rename(path.join(from, name), path.join(to, name));
  await rmdir(from);
}

/** After a failed restore into a dir that was empty: empty again, but for `keep` (removed by the caller). */
async function emptyDir(dir: string, keep: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [])) {
    if (name !== keep) await rm(path.join(dir, name), { recursive: true, force: true });
  }
}

/** Makes every file and directory under `dir` durable before it is moved into place: tar writes without fsync. */
async function syncTree(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await syncTree(full);
    else {
      const handle = await open(full, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  }
  await fsyncDir(dir);
}
