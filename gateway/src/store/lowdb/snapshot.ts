import { constants, createReadStream, createWriteStream } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { makeDir } from '../../make-dir.js';
import type { Store } from '../store.js';
import type { LowdbStore } from './lowdb-store.js';

/**
 * A consistent copy of a running gateway's data dir, taken without copying its data while commits wait.
 *
 * Every file of the data dir is written in one of three ways, and each is captured by a hard link:
 * - replaced whole by a rename (page files, the format file) or written once (media files, sealed journals,
 *   the TLS certificate, the admin token): a link keeps the version linked, whatever happens to the name later;
 * - appended to (`journal.log`): a link keeps the file, and only its first bytes up to its length at the snapshot
 *   point are copied out, after the pause. Those bytes never change: a failed append is cut back to no less.
 * The links are made at the store's snapshot point (LowdbStore.snapshot), where the files hold exactly the commits
 * acknowledged so far and nothing writes them: the copy is what a crash at that instant would have left, which the
 * store recovers from by design.
 */

/** What a snapshot copies, relative to the data dir: the store, media files, the generated certificate and token. */
export const SNAPSHOT_ENTRIES = ['format', 'admin-token', 'tls', 'store', 'media'];

const ACTIVE_JOURNAL = join('store', 'journal.log');
/** Held in the data dir, so that hard links reach the files; removed when the backup ends, or by the next one. */
const SNAPSHOT_PREFIX = '.backup-';

export interface Snapshot {
  /** The copy of the data dir. */
  dir: string;
  /** Files in it. */
  files: number;
  /** How long new commits waited for it, in milliseconds. */
  heldMs: number;
  remove(): Promise<void>;
}

export function canSnapshot(store: Store): store is LowdbStore {
  return typeof (store as Partial<LowdbStore>).snapshot === 'function';
}

/**
 * Takes a snapshot of `dataDir` into a new directory inside it, as `<dir>/data`. Snapshots of an earlier run that
 * ended before its cleanup (a crash mid-backup) are removed first: the caller takes one snapshot at a time.
 * `atPoint` is called at the snapshot point, with commits held: the time it tells is the time of the copy.
 */
export async function takeSnapshot(
  store: LowdbStore,
  dataDir: string,
  atPoint: () => void = () => undefined,
): Promise<Snapshot> {
  const { dir, remove } = await snapshotDir(dataDir);
  try {
    const data = join(dir, 'data');
    const live = join(dir, 'journal.live');
    let files = 0;
    const asked = performance.now();
    let heldMs = 0;
    const journalBytes = await store.snapshot(async (bytes) => {
      atPoint();
      await mkdir(data, { mode: 0o700 });
      for (const entry of SNAPSHOT_ENTRIES) files += await linkTree(join(dataDir, entry), join(data, entry), entry);
      await keep(join(dataDir, ACTIVE_JOURNAL), live);
      heldMs = Math.round(performance.now() - asked);
      return bytes;
    });
    await copyPrefix(live, join(data, ACTIVE_JOURNAL), journalBytes);
    await unlink(live);
    files += 1;
    return { dir, files, heldMs, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

/**
 * A copy of a stopped gateway's data dir, taken while the caller holds the data dir's lock: nothing writes its files,
 * so each is linked as it stands, the active journal whole (a torn tail left by a crash is recovered from at start,
 * as it would be in place).
 */
export async function snapshotStopped(dataDir: string): Promise<Snapshot> {
  const { dir, remove } = await snapshotDir(dataDir);
  try {
    const data = join(dir, 'data');
    await mkdir(data, { mode: 0o700 });
    let files = 0;
    for (const entry of SNAPSHOT_ENTRIES) files += await linkTree(join(dataDir, entry), join(data, entry), entry);
    files += await linkTree(join(dataDir, ACTIVE_JOURNAL), join(data, ACTIVE_JOURNAL), 'journal');
    return { dir, files, heldMs: 0, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

/** A new directory for a snapshot, inside the data dir; those of an earlier run that ended before its cleanup go first. */
async function snapshotDir(dataDir: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  for (const name of await readdir(dataDir)) {
    if (name.startsWith(SNAPSHOT_PREFIX)) await rm(join(dataDir, name), { recursive: true, force: true });
  }
  const dir = await mkdtemp(join(dataDir, SNAPSHOT_PREFIX));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Links every file under `from` into `to`, but the active journal and temp files; the count linked. */
async function linkTree(from: string, to: string, relative: string): Promise<number> {
  if (relative === ACTIVE_JOURNAL || relative.endsWith('.tmp')) return 0;
  let names: string[];
  try {
    names = await readdir(from);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 0;
    if (code !== 'ENOTDIR') throw err;
    await keep(from, to);
    return 1;
  }
  await makeDir(to, 0o700);
  let files = 0;
  for (const name of names) files += await linkTree(join(from, name), join(to, name), join(relative, name));
  return files;
}

/**
 * A hard link where the file system allows it (no data copied); otherwise a copy, a clone where the file system
 * offers one (the same files are then copied during the pause: slower, as correct).
 */
async function keep(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw err;
    await copyFile(from, to, constants.COPYFILE_FICLONE);
  }
}

/** Copies the first `bytes` bytes of `from` into a new file `to`. */
async function copyPrefix(from: string, to: string, bytes: number): Promise<void> {
  if (bytes === 0) return writeFile(to, '', { flag: 'wx', mode: 0o600 });
  // `end` is inclusive.
  await pipeline(
    createReadStream(from, { start: 0, end: bytes - 1 }),
    createWriteStream(to, { flags: 'wx', mode: 0o600 }),
  );
}
