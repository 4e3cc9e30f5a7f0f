import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import type { Doc } from '../store.js';
import { writeFileDurably } from './durable-file.js';
import { numberedFiles } from './numbered-files.js';
import { pageKeys, shapeSignature, type IndexShape, type PageKeys } from './page-keys.js';

/**
 * One page of a collection on disk, `<dir>/<collection>/<n>.json`: a line with the page's keys, then a line with
 * its documents in insertion order. A page written before keys were kept is the documents line alone.
 */
interface PageData {
  keys: PageKeys | null;
  docs: Doc[];
}

const PAGE_NAME = /^(\d+)\.json$/;

/** A lowdb adapter for page files: durable writes, and a damaged file is an error rather than an empty page. */
class PageFile implements Adapter<PageData> {
  constructor(readonly file: string) {}

  async read(): Promise<PageData | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const split = text.indexOf('\n');
    const keys = split < 0 ? null : (parse(this.file, text.slice(0, split)) as PageKeys);
    return { keys, docs: validDocs(this.file, parse(this.file, split < 0 ? text : text.slice(split + 1))) };
  }

  write(data: PageData): Promise<void> {
    return writeFileDurably(this.file, `${JSON.stringify(data.keys)}\n${JSON.stringify({ docs: data.docs })}`);
  }
}

/** The page numbers of one collection directory, ascending. */
export const pageNumbers = (dir: string): Promise<number[]> => numberedFiles(dir, PAGE_NAME);

/**
 * The documents of one page file, its keys line skipped unparsed (reading a document back needs the documents
 * only). A damaged page is an error: the store refuses to open rather than lose data.
 */
export async function readPage(dir: string, page: number): Promise<Doc[]> {
  const file = join(dir, `${page}.json`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return validDocs(file, parse(file, text.slice(text.indexOf('\n') + 1)));
}

/**
 * The keys of one page for opening the store: from its first line alone when they were computed for this index
 * shape, else from its documents (their places in order still from the first line); `stale` then, for the page to
 * be written again with keys of this shape.
 */
export async function readPageKeys(
  dir: string,
  page: number,
  shape: IndexShape,
): Promise<{ keys: PageKeys; stale: boolean }> {
  const file = join(dir, `${page}.json`);
  const head = await readFirstLine(file);
  const keys = head === null ? null : (parse(file, head) as PageKeys | null);
  if (keys && keys.shape === shapeSignature(shape) && Array.isArray(keys.ids)) return { keys, stale: false };
  const docs = await readPage(dir, page);
  const seqs = keys && Array.isArray(keys.seqs) && keys.seqs.length === docs.length ? keys.seqs : undefined;
  return { keys: pageKeys(docs, shape, seqs), stale: true };
}

const CHUNK = 256 * 1024;

/** The first line of a file, read up to its end only; null when the file has no line break. */
async function readFirstLine(file: string): Promise<string | null> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    for (let position = 0; ; ) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, position);
      if (bytesRead === 0) return null;
      const end = chunk.subarray(0, bytesRead).indexOf(0x0a);
      chunks.push(chunk.subarray(0, end < 0 ? bytesRead : end));
      if (end >= 0) return Buffer.concat(chunks).toString('utf8');
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** Writes a page: its documents in order, and their keys and places (`seqs`) on the first line. */
export async function writePage(
  dir: string,
  page: number,
  docs: Doc[],
  shape: IndexShape,
  seqs: number[],
): Promise<void> {
  const db = new Low<PageData>(new PageFile(join(dir, `${page}.json`)), { keys: pageKeys(docs, shape, seqs), docs });
  await db.write();
}

function parse(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`store: ${file} is not valid JSON (${(err as Error).message}); refusing to open`);
  }
}

function validDocs(file: string, data: unknown): Doc[] {
  const docs = (data as { docs?: unknown } | null)?.docs;
  if (!Array.isArray(docs)) throw new Error(`store: page ${file} is damaged (no "docs" array); refusing to open`);
  for (const doc of docs) {
    if (typeof doc !== 'object' || doc === null || typeof (doc as Doc).id !== 'string') {
      throw new Error(`store: page ${file} holds a document without an id; refusing to open`);
    }
  }
  return docs as Doc[];
}
