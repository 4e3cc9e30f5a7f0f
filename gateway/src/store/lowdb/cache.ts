import { join } from 'node:path';
import type { Doc } from '../store.js';
import type { Collection, Entry } from './collection.js';
import { StoreDamagedError } from '../store.js';
import { readPage } from './pages.js';
import { deepFreeze } from './freeze.js';

/**
 * Page files read back lately, parsed: reads of neighbouring documents need not parse the page again. A job of the
 * engine reads a document or two from each of half a dozen collections (the contact, the list membership, the
 * opening message, the conversation, the message, the campaign), and the next job their neighbours: the pages of
 * a few such rounds stay.
 */
const PAGES_KEPT = 12;

/**
 * Which documents are in memory. Lookups need only the indexes; a document itself is kept while it is recent
 * (a bounded least-recently-used set), in use by a transaction or read (held), or changed since the last
 * checkpoint (its only durable copy is then the journal). Any other is dropped, and read back from its page file
 * when asked for, so memory stays bounded however much is stored.
 */
export class DocCache {
  /** Documents in memory that may be dropped, oldest first, each with the use that placed it here. */
  private readonly recent = new Map<Entry, number>();
  /**
   * Documents changed since the last checkpoint written: they stay whatever their age, so they are kept apart
   * from `recent`, whose trim would otherwise walk past every one of them each time.
   */
  private readonly unwritten = new Set<Entry>();
  /**
   * Documents a transaction holds (and not changed since the last checkpoint): they stay until it ends, so they too
   * are kept apart from `recent`; a transaction that reads thousands of documents would otherwise have every trim
   * walk past all of them, once for each document it reads.
   */
  private readonly held = new Set<Entry>();
  private uses = 0;
  private readonly loading = new Map<string, Promise<Map<string, Doc>>>();
  /** The last pages read back, by `collection/page`; emptied by every checkpoint, which rewrites pages. */
  private readonly pages = new Map<string, Map<string, Doc>>();
  private generation = 0;
  /** Checkpoints whose page images were taken, and the last one whose pages are all written. */
  captured = 0;
  private writtenUpTo = 0;

  constructor(
    private readonly dir: string,
    private readonly limit: number,
    /** Told of a page found damaged when read back. */
    private readonly onDamaged: (err: StoreDamagedError) => void = () => undefined,
  ) {}

  get size(): number {
    return this.recent.size + this.unwritten.size + this.held.size;
  }

  /** The last checkpoint whose pages are all written. */
  get written(): number {
    return this.writtenUpTo;
  }

  /** A checkpoint's pages are all written: the documents it holds may be dropped again, the oldest first. */
  set written(captured: number) {
    this.writtenUpTo = captured;
    for (const entry of this.unwritten) {
      if (entry.cleanAfter > captured) continue;
      this.unwritten.delete(entry);
      this.place(entry);
    }
  }

  /**
   * A document now in memory (inserted, replaced, read back): the most recently used. Only its use is noted
   * here; trim() moves it behind the others when it comes to it, so a hit costs no reordering.
   */
  keep(entry: Entry): void {
    entry.usedAt = ++this.uses;
    if (!this.recent.has(entry) && !this.unwritten.has(entry)) this.place(entry);
  }

  /** A transaction uses the document until it ends: it is not dropped meanwhile. */
  hold(entry: Entry): void {
    entry.holds += 1;
    if (entry.holds === 1 && this.recent.delete(entry)) this.held.add(entry);
  }

  /** A transaction that held the document ended: once none holds it, it may be dropped again, the newest. */
  release(entry: Entry): void {
    entry.holds -= 1;
    if (entry.holds === 0 && this.held.delete(entry) && entry.doc) this.recent.set(entry, entry.usedAt);
  }

  /** A document changed by a transaction: it stays until the next checkpoint has written it. */
  changed(entry: Entry): void {
    entry.cleanAfter = this.captured + 1;
    entry.usedAt = ++this.uses;
    this.recent.delete(entry);
    this.held.delete(entry);
    this.unwritten.add(entry);
  }

  forget(entry: Entry): void {
    this.recent.delete(entry);
    this.held.delete(entry);
    this.unwritten.delete(entry);
  }

  /** Brings the documents of these entries into memory, reading the pages that hold the missing ones. */
  async load(collection: Collection, entries: Entry[]): Promise<void> {
    const missing = new Map<number, Entry[]>();
    for (const entry of entries) {
      if (entry.doc) this.keep(entry);
      else {
        const onPage = missing.get(entry.page);
        if (onPage) onPage.push(entry);
        else missing.set(entry.page, [entry]);
      }
    }
    for (const [page, wanted] of missing) {
      const docs = await this.page(collection, page);
      for (const entry of wanted) {
        // Another read may have brought it back meanwhile, or a transaction changed it: memory is then newer.
        if (entry.doc) continue;
        const doc = docs.get(entry.id);
        if (!doc) throw new Error(`store: ${collection.name} page ${page} lacks a document it should hold`);
        entry.doc = deepFreeze(doc);
        this.keep(entry);
      }
    }
    this.trim();
  }

  /** A checkpoint rewrote pages: what was parsed (or is being parsed) before may be older than them. */
  pagesWritten(): void {
    this.pages.clear();
    this.generation += 1;
  }

  /** The documents of a page for a checkpoint image, reading the dropped ones back from the page file. */
  async pageImage(collection: Collection, page: number, entries: Array<[string, Doc | undefined]>): Promise<Doc[]> {
    if (entries.every(([, doc]) => doc)) return entries.map(([, doc]) => doc!);
    const onDisk = new Map((await readPage(join(this.dir, collection.name), page)).map((doc) => [doc.id, doc]));
    return entries.map(([id, doc]) => {
      const found = doc ?? onDisk.get(id);
      if (!found) throw new Error(`store: ${collection.name} page ${page} lacks document ${id}`);
      return found;
    });
  }

  /** Drops the least recently used documents that nothing needs in memory, down to the limit. */
  trim(): void {
    // Each document is looked at most twice: one used since it was placed goes behind the others, so that the next
    // trim starts with those that may go. One held by a transaction is not here (see held).
    let steps = 2 * this.recent.size;
    for (const [entry, placedAt] of this.recent) {
      if (this.size <= this.limit || steps-- === 0) return;
      this.recent.delete(entry);
      if (entry.usedAt > placedAt) this.recent.set(entry, entry.usedAt);
      else entry.collection.drop(entry);
    }
  }

  /** A document in memory that may be dropped once nothing holds it. */
  private place(entry: Entry): void {
    if (entry.holds > 0) this.held.add(entry);
    else this.recent.set(entry, entry.usedAt);
  }

  private page(collection: Collection, page: number): Promise<Map<string, Doc>> {
    const key = `${collection.name}/${page}`;
    const parsed = this.pages.get(key);
    if (parsed) {
      this.pages.delete(key);
      this.pages.set(key, parsed);
      return Promise.resolve(parsed);
    }
    // A read started before the last checkpoint is not shared with reads after it.
    const generation = this.generation;
    const inFlight = `${key}@${generation}`;
    let loading = this.loading.get(inFlight);
    if (!loading) {
      loading = readPage(join(this.dir, collection.name), page)
        .catch((err: unknown) => {
          if (err instanceof StoreDamagedError) this.onDamaged(err);
          throw err;
        })
        .then((docs) => {
          const byId = new Map(docs.map((doc) => [doc.id, doc]));
          if (generation === this.generation) {
            this.pages.set(key, byId);
            if (this.pages.size > PAGES_KEPT) this.pages.delete(this.pages.keys().next().value!);
          }
          return byId;
        })
        .finally(() => this.loading.delete(inFlight));
      this.loading.set(inFlight, loading);
    }
    return loading;
  }
}
