import { mkdir, open, readFile, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { StoreWriteError, type BlobStore, type ByteSpan } from '../store.js';
import { refuseWhenFaulty } from './full-disk.js';

/** Media files of the lowdb store: one file each under `<dir>/<accountId>/<id>`, durable before any record. */
export class FileBlobs implements BlobStore {
  constructor(private readonly dir: string) {}

  /** A disk that refuses the file (full, failing) leaves no part of it, and the request is refused with 503. */
  async put(accountId: string, id: string, bytes: Buffer): Promise<void> {
    const file = this.file(accountId, id);
    await mkdir(path.dirname(file), { recursive: true });
    const handle = await open(file, 'wx', 0o600);
    let refused: unknown;
    try {
      refuseWhenFaulty();
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (err) {
      refused = err;
    } finally {
      await handle.close();
    }
    if (refused === undefined) return;
    await unlink(file).catch(() => undefined);
    throw new StoreWriteError('store: the media file could not be saved', { cause: refused });
  }

  async get(accountId: string, id: string, part?: ByteSpan): Promise<Buffer | undefined> {
    try {
      return part ? await readPart(this.file(accountId, id), part) : await readFile(this.file(accountId, id));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async delete(accountId: string, id: string): Promise<void> {
    await unlink(this.file(accountId, id)).catch(() => undefined);
  }

  /** The account's folder, its name checked as a file's is. */
  async deleteAccount(accountId: string): Promise<void> {
    await rm(path.dirname(this.file(accountId, 'folder')), { recursive: true, force: true });
  }

  private file(accountId: string, id: string): string {
    // Ids come from records the gateway made, never from a request; refuse anything path-like all the same.
    if (!/^[\w-]+$/.test(accountId) || !/^[\w-]+$/.test(id)) throw new Error('blobs: invalid id');
    return path.join(this.dir, accountId, id);
  }
}

/** The bytes of `part` of a file, read at their offset: fewer when the file ends first. */
async function readPart(file: string, part: ByteSpan): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const bytes = Buffer.alloc(part.end - part.start + 1);
    let read = 0;
    while (read < bytes.length) {
      const { bytesRead } = await handle.read(bytes, read, bytes.length - read, part.start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return bytes.subarray(0, read);
  } finally {
    await handle.close();
  }
}
