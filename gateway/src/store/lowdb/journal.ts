import { access, constants, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { AppendFile } from './append-file.js';
import { fsyncDir } from './durable-file.js';
import { refuseWhenFaulty } from './full-disk.js';
import { numberedFiles } from './numbered-files.js';

const ACTIVE = 'journal.log';
const SEALED = /^journal\.(\d+)\.log$/;
const sealedName = (generation: number) => `journal.${generation}.log`;

/**
 * The write-ahead journal: one line per group commit, `<byte length> <crc32 hex> <json>\n`. Appending a line
 * durably (AppendFile.appendDurably) is the durability point of every transaction in the group. A crash can only tear the last line;
 * open() detects that by length and checksum and cuts it off.
 *
 * Records go to `journal.log`. A checkpoint seals it (renamed `journal.<n>.log`, n counting up) and records go on
 * into a new, empty `journal.log` while the checkpoint writes its pages; once they are written, the sealed journals
 * are deleted. Opening replays the sealed journals, oldest first, then `journal.log`.
 */
export class Journal {
  /** Set when the files may no longer match what we believe they hold; every later append fails. */
  broken = false;

  private constructor(
    private readonly dir: string,
    private file: AppendFile,
    private bytes: number,
    private count: number,
    /** Generations of the sealed journals on disk, oldest first. */
    private readonly sealed: number[],
  ) {}

  /** Number of records since the journal was last sealed. */
  get records(): number {
    return this.count;
  }

  get size(): number {
    return this.bytes;
  }

  /** Opens (or creates) the journal in `dir` and returns the payloads of its intact records, in order. */
  static async open(dir: string): Promise<{ journal: Journal; payloads: unknown[] }> {
    const sealed = await numberedFiles(dir, SEALED);
    let payloads: unknown[] = [];
    for (const generation of sealed) {
      const file = join(dir, sealedName(generation));
      const content = await readFile(file);
      const records = decodeRecords(file, content);
      // A sealed journal was durable in full before the next one took over: no crash can have torn it.
      if (records.intactBytes < content.length) {
        throw new Error(`store: journal ${file} is damaged at byte ${records.intactBytes}; refusing to open`);
      }
      payloads = payloads.concat(records.payloads);
    }
    const { handle, bytes, payloads: active } = await openActive(dir);
    return { journal: new Journal(dir, handle, bytes, active.length, sealed), payloads: payloads.concat(active) };
  }

  /**
   * Appends one record and makes it durable. On failure the file is cut back to its last record; the journal is
   * broken only if a part of the record may stay there.
   */
  async append(payload: string): Promise<void> {
    if (this.broken) throw new Error('store: the journal can no longer be written');
    const record = encodeRecord(payload);
    try {
      await this.file.appendDurably(record);
    } catch (err) {
      if (!(await this.cutBack())) this.broken = true;
      throw err;
    }
    this.bytes += record.length;
    this.count += 1;
  }

  /**
   * Whether the journal ends at its last record after a failed append. A file the system refuses to cut (an
   * immutable file refuses writes and cuts alike) still holds its last record at its end if the append left nothing
   * of itself: its length tells, and the journal goes on from there once the file takes writes again.
   */
  private async cutBack(): Promise<boolean> {
    try {
      await this.file.truncate(this.bytes);
    } catch {
      return (await this.file.size().catch(() => -1)) === this.bytes;
    }
    // A cut that may not be durable cannot be trusted: fsync errors cannot be retried safely.
    return this.file.datasync().then(
      () => true,
      () => false,
    );
  }

  /**
   * Whether `journal.log` takes writes, as far as its owner, mode and attributes tell (an immutable file does not):
   * after a refused append, the store is back only once it does.
   */
  async writable(): Promise<boolean> {
    try {
      refuseWhenFaulty('write');
      await access(join(this.dir, ACTIVE), constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Seals the journal: later records go to a new, empty one. Returns the sealed journal's generation, for
   * release(). On failure the records go on into the same journal.
   */
  async seal(): Promise<number> {
    if (this.broken) throw new Error('store: the journal can no longer be written');
    const generation = (this.sealed.at(-1) ?? 0) + 1;
    const active = join(this.dir, ACTIVE);
    const sealed = join(this.dir, sealedName(generation));
    refuseWhenFaulty('create');
    await rename(active, sealed);
    let next: AppendFile;
    try {
      next = await AppendFile.open(active);
    } catch (err) {
      await rename(sealed, active).catch(() => (this.broken = true));
      throw err;
    }
    const previous = this.file;
    this.file = next;
    this.bytes = 0;
    this.count = 0;
    this.sealed.push(generation);
    await previous.close().catch(() => undefined);
    // Nothing may be acknowledged from the new journal before its name is durable.
    await this.syncDir();
    return generation;
  }

  /**
   * Deletes the sealed journals up to `generation`, once the pages hold all they hold. Oldest first, each deletion
   * durable before the next: the sealed journals a crash leaves are always the newest ones, and replaying them in
   * order over the pages gives what they held.
   */
  async release(generation: number): Promise<void> {
    while (this.sealed.length > 0 && this.sealed[0]! <= generation) {
      await unlink(join(this.dir, sealedName(this.sealed[0]!))).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      await this.syncDir();
      this.sealed.shift();
    }
  }

  close(): Promise<void> {
    return this.file.close();
  }

  private async syncDir(): Promise<void> {
    try {
      await fsyncDir(this.dir);
    } catch (err) {
      this.broken = true;
      throw err;
    }
  }
}

/** Opens `journal.log` for appending, cutting off a torn tail; its intact records' payloads. */
async function openActive(dir: string): Promise<{ handle: AppendFile; bytes: number; payloads: unknown[] }> {
  const file = join(dir, ACTIVE);
  let content = Buffer.alloc(0);
  let created = false;
  try {
    content = await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    created = true;
  }
  const { payloads, intactBytes } = decodeRecords(file, content);
  const handle = await AppendFile.open(file);
  try {
    if (intactBytes < content.length) {
      await handle.truncate(intactBytes);
      await handle.datasync();
    }
    if (created) await fsyncDir(dir);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return { handle, bytes: intactBytes, payloads };
}

function encodeRecord(payload: string): Buffer {
  const body = Buffer.from(payload, 'utf8');
  const head = Buffer.from(`${body.length} ${checksum(body)} `, 'latin1');
  return Buffer.concat([head, body, Buffer.from('\n')]);
}

function checksum(body: Uint8Array): string {
  return crc32(body).toString(16).padStart(8, '0');
}

const HEAD = /^(\d{1,10}) ([0-9a-f]{8}) /;

/** The record starting at `at`, or null if it is incomplete or damaged. */
function decodeRecord(content: Buffer, at: number): { payload: unknown; next: number } | null {
  const head = HEAD.exec(content.toString('latin1', at, Math.min(content.length, at + 20)));
  if (!head) return null;
  const start = at + head[0].length;
  const end = start + Number(head[1]);
  if (end >= content.length || content[end] !== 0x0a) return null;
  const body = content.subarray(start, end);
  if (checksum(body) !== head[2]) return null;
  try {
    return { payload: JSON.parse(body.toString('utf8')), next: end + 1 };
  } catch {
    return null;
  }
}

function decodeRecords(file: string, content: Buffer): { payloads: unknown[]; intactBytes: number } {
  const payloads: unknown[] = [];
  let at = 0;
  for (let record = decodeRecord(content, at); record; record = decodeRecord(content, at)) {
    payloads.push(record.payload);
    at = record.next;
  }
  // A torn write only ever damages the end. An intact record after the damage means the file was corrupted
  // in the middle: cutting it off would silently drop acknowledged commits.
  for (let nl = content.indexOf(0x0a, at); nl !== -1; nl = content.indexOf(0x0a, nl + 1)) {
    if (decodeRecord(content, nl + 1)) {
      throw new Error(`store: journal ${file} is damaged at byte ${at}, before intact records; refusing to open`);
    }
  }
  return { payloads, intactBytes: at };
}
