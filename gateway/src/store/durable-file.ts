import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Adapter } from 'lowdb';

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

/**
 * A lowdb adapter for one JSON file. Unlike lowdb's own JSONFile (steno), a write is durable when it resolves,
 * and an unreadable file is an error rather than an empty database.
 */
export class DurableJsonFile<T> implements Adapter<T> {
  constructor(readonly file: string) {}

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      throw new Error(`store: ${this.file} is not valid JSON (${(err as Error).message}); refusing to open`);
    }
  }

  write(data: T): Promise<void> {
    return writeFileDurably(this.file, JSON.stringify(data));
  }
}
