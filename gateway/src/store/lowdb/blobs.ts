import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { BlobStore } from '../store.js';

/** Media files of the lowdb store: one file each under `<dir>/<accountId>/<id>`, durable before any record. */
export class FileBlobs implements BlobStore {
  constructor(private readonly dir: string) {}

  async put(accountId: string, id: string, bytes: Buffer): Promise<void> {
    const file = this.file(accountId, id);
    await mkdir(path.dirname(file), { recursive: true });
    const handle = await open(file, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async get(accountId: string, id: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.file(accountId, id));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async delete(accountId: string, id: string): Promise<void> {
    await unlink(this.file(accountId, id)).catch(() => undefined);
  }

  private file(accountId: string, id: string): string {
    // Ids come from records the gateway made, never from a request; refuse anything path-like all the same.
    if (!/^[\w-]+$/.test(accountId) || !/^[\w-]+$/.test(id)) throw new Error('blobs: invalid id');
    return path.join(this.dir, accountId, id);
  }
}
