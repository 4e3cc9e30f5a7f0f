import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { refuseWhenFaulty } from './full-disk.js';

/**
 * Makes a rename or a file creation in `dir` survive a power cut. Windows cannot open a directory for fsync,
 * and NTFS journals renames itself, so there it is skipped.
 */
export async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replaces `file` atomically and durably: temp file in the same directory, fsync, rename, fsync the directory. */
export async function writeFileDurably(file: string, data: string): Promise<void> {
  const temp = `${file}.tmp`;
  try {
    refuseWhenFaulty('create');
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await fsyncDir(dirname(file));
}
