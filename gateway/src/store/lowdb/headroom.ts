import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { refuseWhenFaulty } from './full-disk.js';

/** What a probe writes at least: room for a few group commits and a page written by a checkpoint. */
export const HEADROOM_BYTES = 1024 * 1024;

/**
 * Whether the disk of `dir` takes `bytes` more, durably: a file of that size is written, synced and removed. After
 * the disk refused a write, the store counts as back only once this holds; the few bytes a full disk may still take
 * (the rest of a file's last block) do not make it so.
 */
export async function diskTakes(dir: string, bytes: number): Promise<boolean> {
  const file = join(dir, 'headroom.probe');
  try {
    refuseWhenFaulty('create');
    const handle = await open(file, 'w', 0o600);
    try {
      await handle.writeFile(Buffer.alloc(bytes));
      await handle.datasync();
    } finally {
      await handle.close();
    }
    return true;
  } catch {
    return false;
  } finally {
    await unlink(file).catch(() => undefined);
  }
}
