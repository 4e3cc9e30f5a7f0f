import { readFile } from 'node:fs/promises';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Low, type Adapter } from 'lowdb';
import { StoreDamagedError, type Doc } from '../store.js';
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
/** How much of a page file is read at a time for its first line. */
const FIRST_LINE_CHUNK = 128 * 1024;

/**
 * What a page's first line keeps of its documents line, so that a page cut short or changed on disk (a bad copy, a
 * damaged backup) is found when the store opens rather than at the first read of it: its length and CRC-32.
 */
interface DocsCheck {
  bytes: number;
  crc32: string;
}

/** A page's first line: its documents' keys and, since checks were kept, the check of its documents line. */
type PageHead = PageKeys & { check?: DocsCheck };

const checkOf = (docs: Buffer): DocsCheck => ({
  bytes: docs.length,
  crc32: crc32(docs).toString(16).padStart(8, '0'),
});

/** A lowdb adapter for page files: durable writes, and a damaged file is an error rather than an empty page. */
class PageFile implements Adapter<PageData> {
  constructor(readonly file: string) {}

  async read(): Promise<PageData | null> {
    let content: Buffer;
    try {
      content = await readFile(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const { head, docs } = checkedPage(this.file, content);
    return { keys: head as PageKeys | null, docs };
  }

  write(data: PageData): Promise<void> {
    const docs = JSON.stringify({ docs: data.docs });
    const check = checkOf(Buffer.from(docs, 'utf8'));
    return writeFileDurably(this.file, `${JSON.stringify({ ...data.keys, check })}\n${docs}`);
  }
}

/**
 * Why a page file's content is not a page as the store wrote it; undefined when it is. Its documents are parsed only
 * when the page keeps no check of them (written by a release before checks were kept): documents that pass their
 * check are as the store wrote them.
 */
export function pageProblem(content: Buffer): string | undefined {
  try {
    const { first, docs } = pageParts(content);
    const head = first === undefined ? null : headOf('', first);
    if (head?.check) checkDocs('', head.check, docs);
    else checkedPage('', content);
    return undefined;
  } catch (err) {
    return err instanceof StoreDamagedError ? err.reason : (err as Error).message;
  }
}

/**
 * The page's first line (its keys, null for a page written before keys were kept) and its documents, checked against
 * the check the first line keeps; a page that fails it throws StoreDamagedError naming `file`.
 */
function checkedPage(file: string, content: Buffer): { head: PageHead | null; docs: Doc[] } {
  const { first, docs: docsPart } = pageParts(content);
  const head = first === undefined ? null : parseHead(file, first);
  if (head?.check) checkDocs(file, head.check, docsPart);
  return { head, docs: validDocs(file, parseDamaged(file, docsPart, 'its documents')) };
}

/** Throws StoreDamagedError naming `file` when its documents line is not the one its first line was written with. */
function checkDocs(file: string, check: DocsCheck, docsPart: Buffer): void {
  const problem = docsProblem(check, docsPart);
  if (problem !== undefined) throw new StoreDamagedError(file, problem);
}

/** Why a documents line is not the one `check` was written with; undefined when it is. */
function docsProblem(check: DocsCheck, docsPart: Buffer): string | undefined {
  if (docsPart.length !== check.bytes)
    return `it holds ${docsPart.length} bytes of documents where ${check.bytes} were written: it was cut short or added to`;
  if (checkOf(docsPart).crc32 !== check.crc32) return 'its documents do not match the checksum written with them';
  return undefined;
}

function parseDamaged(file: string, bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new StoreDamagedError(file, `${what} is not valid JSON: ${(err as Error).message}`);
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
  let content: Buffer;
  try {
    content = await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return checkedPage(file, content).docs;
}

/** A page opened from its first line alone: its documents are checked against `check` once the store is open. */
export interface UncheckedPage {
  file: string;
  check: DocsCheck;
}

/**
 * The keys of one page for opening the store: from its first line alone when they were computed for this index
 * shape and keep the check of the documents, which are then not read here (`unchecked`: checkPage reads them once
 * the store is open); else from its documents (their places in order still from the first line), and `stale` then,
 * for the page to be written again with keys of this shape. Read synchronously: the open has nothing else to do
 * meanwhile, and reading a hundred pages through the thread pool left the process idle for a fifth of it.
 */
export function readPageKeys(
  dir: string,
  page: number,
  shape: IndexShape,
): { keys: PageKeys; stale: boolean; unchecked?: UncheckedPage; damaged?: StoreDamagedError } {
  const file = join(dir, `${page}.json`);
  const first = firstLine(file);
  const keys = first === undefined ? null : headOf(file, first);
  const current = keys !== null && keys.shape === shapeSignature(shape) && Array.isArray(keys.ids);
  const { check, ...intact } = keys ?? {};
  if (current && check) return { keys: intact as PageKeys, stale: false, unchecked: { file, check } };
  // No check of the documents, or keys of another shape, or none: the documents are read and parsed.
  let docs: Doc[];
  try {
    docs = checkedPage(file, readFileSync(file)).docs;
  } catch (err) {
    // A page whose keys are intact opens all the same: its ids are known, and what needs its documents is refused
    // (StoreDamagedError) until the data dir is restored.
    if (!(err instanceof StoreDamagedError) || !current) throw refusal(err);
    return { keys: intact as PageKeys, stale: false, damaged: err };
  }
  if (current) return { keys: intact as PageKeys, stale: false };
  // Keys of another shape, or none: computed again, and the page written again.
  const seqs = keys && Array.isArray(keys.seqs) && keys.seqs.length === docs.length ? keys.seqs : undefined;
  return { keys: pageKeys(docs, shape, seqs), stale: true };
}

/**
 * Whether the documents of a page opened from its first line are those it was written with: undefined when they
 * are, when the page is gone, or when it was written again since the open (a checkpoint) and is as the store wrote
 * it; else why it is damaged. The file is read whole, through the thread pool, while the gateway serves: a read of
 * a document checks its page as well, so a damaged page is refused at a read before this finds it.
 */
export async function checkPage({ file, check }: UncheckedPage): Promise<StoreDamagedError | undefined> {
  let content: Buffer;
  try {
    content = await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return new StoreDamagedError(file, `it cannot be read: ${(err as Error).message}`);
  }
  if (docsProblem(check, pageParts(content).docs) === undefined) return undefined;
  // Not the documents the open saw the check of: damaged, or written again since with a check of its own.
  const problem = pageProblem(content);
  return problem === undefined ? undefined : new StoreDamagedError(file, problem);
}

/** A page file's first line, without its newline, read alone; undefined when the file has none (no keys line). */
function firstLine(file: string): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    for (let position = 0; ; ) {
      const chunk = Buffer.allocUnsafe(FIRST_LINE_CHUNK);
      const read = readSync(fd, chunk, 0, chunk.length, position);
      if (read === 0) return undefined;
      const newline = chunk.subarray(0, read).indexOf(0x0a);
      chunks.push(chunk.subarray(0, newline >= 0 ? newline : read));
      if (newline >= 0) return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      position += read;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A page file's first line and its documents line; a page written before keys were kept has no first line, its
 * content is the documents line.
 */
function pageParts(content: Buffer): { first: Buffer | undefined; docs: Buffer } {
  const split = content.indexOf(0x0a);
  return split < 0
    ? { first: undefined, docs: content }
    : { first: content.subarray(0, split), docs: content.subarray(split + 1) };
}

/** The page's first line parsed; throws StoreDamagedError naming `file` when it cannot be. */
function parseHead(file: string, line: Buffer): PageHead | null {
  return parseDamaged(file, line, "its first line (the page's keys)") as PageHead | null;
}

/** The page's keys from its first line; null when it has none, or they cannot be read. */
function headOf(file: string, line: Buffer): PageHead | null {
  try {
    return parseHead(file, line);
  } catch {
    return null;
  }
}

/** A page the store cannot open without: neither its keys nor its documents can be read. */
function refusal(err: unknown): Error {
  return err instanceof StoreDamagedError
    ? new Error(
        `store: page ${err.file} is damaged (${err.reason}), and so are its keys; refusing to open: restore the data dir from a backup (README, "Backups")`,
      )
    : (err as Error);
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

function validDocs(file: string, data: unknown): Doc[] {
  const docs = (data as { docs?: unknown } | null)?.docs;
  if (!Array.isArray(docs)) throw new StoreDamagedError(file, 'it has no "docs" array');
  for (const doc of docs) {
    if (typeof doc !== 'object' || doc === null || typeof (doc as Doc).id !== 'string') {
      throw new StoreDamagedError(file, 'it holds a document without an id');
    }
  }
  return docs as Doc[];
}
