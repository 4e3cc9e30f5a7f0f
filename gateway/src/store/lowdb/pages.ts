import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
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

/**
 * What a page's first line keeps of its documents line, so that a page cut short or changed on disk (a bad copy, a
 * damaged backup) is found when the store opens rather than at the first read of it: its length and CRC-32.
 */
interface DocsCheck {
  bytes: number;
  crc32: string;
}

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
    const split = content.indexOf(0x0a);
    const head = headOf('', content, split);
    if (head?.check) checkDocs('', head.check, content.subarray(split + 1));
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
function checkedPage(file: string, content: Buffer): { head: (PageKeys & { check?: DocsCheck }) | null; docs: Doc[] } {
  const split = content.indexOf(0x0a);
  const head =
    split < 0
      ? null
      : (parseDamaged(file, content.subarray(0, split), "its first line (the page's keys)") as
          | (PageKeys & { check?: DocsCheck })
          | null);
  const docsPart = split < 0 ? content : content.subarray(split + 1);
  if (head?.check) checkDocs(file, head.check, docsPart);
  return { head, docs: validDocs(file, parseDamaged(file, docsPart, 'its documents')) };
}

/** Throws StoreDamagedError naming `file` when its documents line is not the one its first line was written with. */
function checkDocs(file: string, check: DocsCheck, docsPart: Buffer): void {
  if (docsPart.length !== check.bytes)
    throw new StoreDamagedError(
      file,
      `it holds ${docsPart.length} bytes of documents where ${check.bytes} were written: it was cut short or added to`,
    );
  if (checkOf(docsPart).crc32 !== check.crc32)
    throw new StoreDamagedError(file, 'its documents do not match the checksum written with them');
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

/**
 * The keys of one page for opening the store: from its first line alone when they were computed for this index
 * shape, else from its documents (their places in order still from the first line); `stale` then, for the page to
 * be written again with keys of this shape. Read synchronously: the open has nothing else to do meanwhile, and
 * reading a hundred pages through the thread pool left the process idle for a fifth of it.
 */
export function readPageKeys(
  dir: string,
  page: number,
  shape: IndexShape,
): { keys: PageKeys; stale: boolean; damaged?: StoreDamagedError } {
  const file = join(dir, `${page}.json`);
  const content = readFileSync(file);
  const split = content.indexOf(0x0a);
  const keys = headOf(file, content, split);
  const current = keys !== null && keys.shape === shapeSignature(shape) && Array.isArray(keys.ids);
  // Every page is checked as the store opens (its documents against the check its first line keeps), so that a damaged
  // one is known at once. One whose keys are intact opens all the same: its ids are known, and what needs its
  // documents is refused (StoreDamagedError) until the data dir is restored. Documents that pass the check are as the
  // store wrote them: they are parsed when first read, not here, so that opening costs no more than the checksums.
  const { check, ...intact } = keys ?? {};
  let docs: Doc[] | undefined;
  try {
    if (current && check) checkDocs(file, check, content.subarray(split + 1));
    else docs = checkedPage(file, content).docs;
  } catch (err) {
    if (!(err instanceof StoreDamagedError) || !current) throw refusal(err);
    return { keys: intact as PageKeys, stale: false, damaged: err };
  }
  if (!docs) return { keys: intact as PageKeys, stale: false };
  // Keys of another shape, or none, or no check of the documents: computed again, and the page written again.
  const seqs = keys && Array.isArray(keys.seqs) && keys.seqs.length === docs.length ? keys.seqs : undefined;
  return { keys: pageKeys(docs, shape, seqs), stale: true };
}

/** The page's keys from its first line; null when it has none, or they cannot be read. */
function headOf(file: string, content: Buffer, split: number): (PageKeys & { check?: DocsCheck }) | null {
  if (split < 0) return null;
  try {
    return parseDamaged(file, content.subarray(0, split), "its first line (the page's keys)") as PageKeys & {
      check?: DocsCheck;
    };
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
