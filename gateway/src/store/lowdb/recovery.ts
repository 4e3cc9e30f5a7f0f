import { join } from 'node:path';
import type { Collection } from './collection.js';
import { Journal } from './journal.js';
import type { StoreDamagedError } from '../store.js';
import { pageNumbers, readPageKeys, type UncheckedPage } from './pages.js';
import { replayRecord } from './records.js';

/** Pages changed in memory since they were last written, per collection. */
export type DirtyPages = Map<Collection, Set<number>>;

export function markDirty(dirty: DirtyPages, collection: Collection, page: number): void {
  let pages = dirty.get(collection);
  if (!pages) dirty.set(collection, (pages = new Set()));
  pages.add(page);
}

/**
 * Rebuilds memory from disk: every page, then the journals on top (a torn tail cut off), then the indexes.
 * Of the pages only the ids and index keys are kept (the documents are read back when asked for), so opening
 * needs no more memory than the indexes; what the journal replays stays in memory until the caller checkpoints
 * it. Returns the open journal, the pages the replay changed, the pages found damaged, and those opened from their
 * keys alone, whose documents are still to be checked (see readPageKeys).
 */
export async function recover(
  dir: string,
  collections: Map<string, Collection>,
): Promise<{
  journal: Journal;
  dirty: DirtyPages;
  replayed: number;
  damaged: StoreDamagedError[];
  unchecked: UncheckedPage[];
}> {
  const dirty: DirtyPages = new Map();
  const damaged: StoreDamagedError[] = [];
  const unchecked: UncheckedPage[] = [];
  for (const collection of collections.values()) {
    const pagesDir = join(dir, collection.name);
    for (const page of await pageNumbers(pagesDir)) {
      const { keys, stale, damaged: damage, unchecked: toCheck } = readPageKeys(pagesDir, page, collection.shape);
      if (toCheck) unchecked.push(toCheck);
      if (damage) damaged.push(damage);
      // A page written before documents kept their place or their check, or with the keys of other indexes (one added
      // since), is written again at the open's checkpoint. A damaged one is left as it is: its documents are not known.
      else if ((stale || !keys.seqs) && keys.ids.length > 0) markDirty(dirty, collection, page);
      for (const earlier of collection.loadPage(page, keys)) {
        // The same id in two pages: a document removed and re-inserted, caught by a crash in the middle of a
        // checkpoint. The journal still holds both changes and its replay settles the content (known limit: such
        // a re-inserted document may then sort after documents inserted after it).
        markDirty(dirty, collection, earlier);
        markDirty(dirty, collection, page);
      }
    }
  }
  const { journal, payloads } = await Journal.open(dir);
  try {
    for (const payload of payloads) replayRecord(payload, collections, (c, page) => markDirty(dirty, c, page));
    for (const collection of collections.values()) collection.buildIndexes();
  } catch (err) {
    await journal.close();
    throw err;
  }
  return { journal, dirty, replayed: payloads.length, damaged, unchecked };
}
