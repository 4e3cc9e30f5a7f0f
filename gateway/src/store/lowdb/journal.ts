import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { AppendFile } from './append-file.js';
import { fsyncDir } from './durable-file.js';

/**
 * The write-ahead journal: one line per group commit, `<byte length> <crc32 hex> <json>\n`. Appending a line and
 * fdatasync-ing it is the durability point of every transaction in the group. A crash can only tear the last line;
 * open() detects that by length and checksum and cuts it off.
 */
export class Journal {
  /** Set when the file may no longer match what we believe it holds; every later append fails. */
  broken = false;

  private constructor(
    private readonly file: AppendFile,
    private bytes: number,
    private count: number,
  ) {}

  /** Number of records since the last reset. */
  get records(): number {
    return this.count;
  }

  get size(): number {
    return this.bytes;
  }

  /** Opens (or creates) the journal and returns the payloads of its intact records, in order. */
  static async open(file: string): Promise<{ journal: Journal; payloads: unknown[] }> {
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
      if (created) await fsyncDir(dirname(file));
    } catch (err) {
      await handle.close();
      throw err;
    }
    return { journal: new Journal(handle, intactBytes, payloads.length), payloads };
  }

  /** Appends one record and makes it durable. On failure the file is cut back to its last record. */
  async append(payload: string): Promise<void> {
    if (this.broken) throw new Error('store: the journal can no longer be written');
    const record = encodeRecord(payload);
    try {
      await this.file.writeAll(record);
      await this.file.datasync();
    } catch (err) {
      try {
        await this.file.truncate(this.bytes);
        await this.file.datasync();
      } catch {
        this.broken = true;
      }
      throw err;
    }
    this.bytes += record.length;
    this.count += 1;
  }

  /** Empties the journal once everything it holds is in the pages. */
  async reset(): Promise<void> {
    // A failed truncate leaves the records in place (replaying them is harmless); a failed sync after it leaves
    // the length unknown, so nothing may be appended after that.
    await this.file.truncate(0);
    try {
      await this.file.datasync();
    } catch (err) {
      this.broken = true;
      throw err;
    }
    this.bytes = 0;
    this.count = 0;
  }

  close(): Promise<void> {
    return this.file.close();
  }
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
