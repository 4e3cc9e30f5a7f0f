import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { DurableJsonFile } from './durable-file.js';
import type { Doc } from './store.js';

/** One page of a collection on disk: `<dir>/<collection>/<n>.json`, documents in insertion order. */
interface PageFile {
  docs: Doc[];
}

export interface Page {
  page: number;
  docs: Doc[];
}

const PAGE_NAME = /^(\d+)\.json$/;

/** Reads every page of one collection directory, in page order. A damaged page stops the open. */
export async function readPages(dir: string): Promise<Page[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const numbers = names
    .map((name) => PAGE_NAME.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  const pages: Page[] = [];
  for (const page of numbers) {
    const file = join(dir, `${page}.json`);
    const db = new Low<PageFile | null>(new DurableJsonFile<PageFile | null>(file), null);
    await db.read();
    pages.push({ page, docs: validPage(file, db.data) });
  }
  return pages;
}

export async function writePage(dir: string, page: number, docs: Doc[]): Promise<void> {
  const db = new Low<PageFile>(new DurableJsonFile<PageFile>(join(dir, `${page}.json`)), { docs });
  await db.write();
}

function validPage(file: string, data: unknown): Doc[] {
  const docs = (data as PageFile | null)?.docs;
  if (!Array.isArray(docs)) throw new Error(`store: page ${file} is damaged (no "docs" array); refusing to open`);
  for (const doc of docs) {
    if (typeof doc !== 'object' || doc === null || typeof (doc as Doc).id !== 'string') {
      throw new Error(`store: page ${file} holds a document without an id; refusing to open`);
    }
  }
  return docs;
}
