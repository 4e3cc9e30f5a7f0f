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
    if (code === 'EEXIST' && (await stat(dir)).isDirectory()) return;
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    await makeDir(parent, mode);
  }
  try {
    await mkdir(dir, { mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`cannot create ${dir}: ${path.dirname(dir)} takes no new directory`, { cause: err });
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(dir)).isDirectory()) throw err;
  }
}
