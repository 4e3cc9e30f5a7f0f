import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * `mkdir -p` that fails where Node's loops: a directory whose parent exists but takes no new directory and says
 * ENOENT (procfs, a lazily mounted share) sends `mkdir(dir, { recursive: true })` round for ever, creating the
 * parent again and again. Here each directory is made once its parent stands, and a refusal then is the error.
 */
export async function makeDir(dir: string, mode?: number): Promise<void> {
  try {
    await mkdir(dir, { mode });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return existing(dir, err);
    // A file where a parent should be: named by the parent's own refusal.
    if (code === 'ENOTDIR') {
      await makeDir(path.dirname(dir), mode);
      throw err;
    }
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    await makeDir(parent, mode);
  }
  try {
    await mkdir(dir, { mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`cannot create ${dir}: ${path.dirname(dir)} takes no new directory`, { cause: err });
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    await existing(dir, err);
  }
}

/** What mkdir found in the way: a directory is what was asked for; a file is named, not left as "EEXIST: mkdir". */
async function existing(dir: string, err: unknown): Promise<void> {
  if ((await stat(dir)).isDirectory()) return;
  throw new Error(`cannot create ${dir}: a file of that name is in the way`, { cause: err });
}
