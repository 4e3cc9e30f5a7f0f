import { keyOf, StoreConflictError, type CollectionSpec, type Doc, type Page, type Scalar } from '../store.js';
import { OrderedIds } from './ordered-ids.js';
import type { IndexShape, PageKeys } from './page-keys.js';
import { pageOf } from './paging.js';
import { SecondaryIndex } from './secondary-index.js';
import { SortedIndex, type SortGroups, type SortKey } from './sorted-index.js';

/** What keeps something of a collection's documents up to date as the indexes are (see Collection.watch). */
export interface Watcher {
  /** The documents there once the store has opened: each one in memory, or what its page keys tell of it. */
  loaded(docs: Doc[]): void;
  /** A document inserted (`before` absent), replaced, or removed (`after` absent); undos included. */
  changed(before: Doc | undefined, after: Doc | undefined): void;
}

/**
 * A collection of the lowdb store; `sortedBy` names a numeric field kept in order for range scans (jobs), per group
 * of `sortedWithin` when given (a job's queue, and within it its account).
 */
export interface LowdbCollectionSpec extends CollectionSpec {
  sortedBy?: string;
  sortedWithin?: SortGroups;
}

/**
 * Where a document sits: `seq` orders documents by insertion, or by latest activity for one touched since (see
 * `renew`); `page` names the page file that holds it. `doc`
 * is the document while it is in memory; a clean document (the same in its page file) may be dropped and read
 * back from that page when needed.
 */
export interface Entry {
  id: string;
  /** The collection holding it: the document cache tells it of a document dropped from memory (see drop). */
  collection: Collection;
  doc: Doc | undefined;
  seq: number;
  page: number;
  /** Transactions and reads using the document now: it stays in memory until they end. */
  holds: number;
  /** The checkpoint after which the page files hold this version; before that only the journal does. */
  cleanAfter: number;
  /** The document cache's count of uses when it was last used. */
  usedAt: number;
}

/**
 * The documents read from their pages as the store opened, by their position in the order read. A document not
 * asked for since is known by that position alone (see Collection.entries): its Entry is made the first time it is
 * asked for, so that opening a large store makes no object per document.
 */
interface Loaded {
  /** seqs[at]: the place of the document read at `at`. */
  seqs: number[];
  /** One run per page read: the position of its first document, its page number, and its keys (until indexed). */
  starts: number[];
  pages: number[];
  keys: PageKeys[];
}

/**
 * A document dropped from memory is known, as one read as the store opened and not asked for since is, by a number
 * in place of its entry: below zero, its place and its page in one (see drop). A page number from PAGES on keeps its
 * entry.
 */
const PAGES = 2 ** 20;
const parked = (seq: number, page: number): number => -1 - (seq * PAGES + page);
const parkedSeq = (value: number): number => Math.floor((-1 - value) / PAGES);
const parkedPage = (value: number): number => (-1 - value) % PAGES;

/**
 * One collection in memory: the entries by id, the pages they belong to, and the secondary indexes. Methods here
 * apply a change that the caller has already checked, to documents the caller made sure are in memory; they do
 * not log or undo anything.
 */
export class Collection {
  readonly name: string;
  /**
   * By id: the entry; or, for a document not in memory, its position among those read as the store opened (see
   * Loaded) or, below zero, its place and page since it was dropped (see drop).
   */
  private readonly entries = new Map<string, Entry | number>();
  private readonly loaded: Loaded = { seqs: [], starts: [], pages: [], keys: [] };
  /** pages[n]: ids stored in page file n. New documents only ever go to the last page. */
  private readonly pages: OrderedIds[] = [];
  private readonly indexes: SecondaryIndex[] = [];
  readonly sorted: SortedIndex | undefined;
  private nextSeq = 0;
  /** Some document's order is not its page's: a scan then orders every id by `seq` instead of page by page. */
  private reordered = false;
  /** While the store opens: the place of the document loaded last, to notice pages out of order. */
  private loadedUpTo = -1;
  /** Off while loading from disk: an intermediate state of recovery may violate a unique index. */
  private indexed = false;
  /** Kept as the indexes are, once they are built: see watch(). */
  private watcher: Watcher | undefined;
  private readonly seqOf = (id: string): number => this.maybeSeqOf(id)!;
  private readonly maybeSeqOf = (id: string): number | undefined => {
    const found = this.entries.get(id);
    return found === undefined ? undefined : this.placeOf(found);
  };
  /** The place of an entry, or of a document known by a number (see entries). */
  private readonly placeOf = (found: Entry | number): number =>
    typeof found !== 'number' ? found.seq : found >= 0 ? this.loaded.seqs[found]! : parkedSeq(found);

  constructor(
    private readonly spec: LowdbCollectionSpec,
    private readonly pageSize: number,
  ) {
    this.name = spec.name;
    this.sorted = spec.sortedBy ? new SortedIndex(spec.sortedBy, spec.sortedWithin) : undefined;
    for (const [name, index] of Object.entries(spec.indexes ?? {}))
      this.indexes.push(new SecondaryIndex(name, index, this.seqOf));
  }

  /** What a page reader needs to compute this collection's index keys, in the order of its indexes. */
  get shape(): IndexShape {
    return {
      indexes: this.indexes.map((index) => index.spec),
      sortedBy: this.spec.sortedBy,
      sortedWithin: this.spec.sortedWithin,
    };
  }

  entry(id: string): Entry | undefined {
    const found = this.entries.get(id);
    if (typeof found !== 'number') return found;
    const page = found >= 0 ? this.loaded.pages[this.runOf(found)]! : parkedPage(found);
    const entry: Entry = {
      id,
      collection: this,
      doc: undefined,
      seq: this.placeOf(found),
      page,
      holds: 0,
      cleanAfter: 0,
      usedAt: 0,
    };
    this.entries.set(id, entry);
    return entry;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * Tells `watcher`, set before the store opens, of the documents there once the indexes are built, then of every
   * change as the indexes hear of it: what it keeps (the job queue's counts) follows the collection through rollbacks
   * too. A document not in memory is told as its page keys know it (see shadows), not read.
   */
  watch(watcher: Watcher): void {
    this.watcher = watcher;
  }

  scanIds(page?: Page): string[] {
    return pageOf(this.allIds(), page, this.maybeSeqOf);
  }

  findIds(index: string, values: Scalar[], page?: Page): string[] {
    const found = this.index(index);
    if (values.length !== found.spec.fields.length)
      throw new Error(`store: index "${index}" takes ${found.spec.fields.length} values`);
    return pageOf(found.ids(keyOf(values)), page, this.maybeSeqOf);
  }

  private *allIds(): Iterable<string> {
    if (this.reordered) {
      yield* this.pages.flatMap((page) => [...page.inOrder(this.seqOf)]).sort((a, b) => this.seqOf(a) - this.seqOf(b));
      return;
    }
    for (const page of this.pages) yield* page.inOrder(this.seqOf);
  }

  /**
   * What a checkpoint writes of one page file: its ids in order, each with its document when in memory, and their
   * places.
   */
  pageContents(page: number): { docs: Array<[string, Doc | undefined]>; seqs: number[] } {
    const docs: Array<[string, Doc | undefined]> = [];
    const seqs: number[] = [];
    for (const id of this.pages[page]?.inOrder(this.seqOf) ?? []) {
      const found = this.entries.get(id)!;
      docs.push([id, typeof found === 'number' ? undefined : found.doc]);
      seqs.push(this.placeOf(found));
    }
    return { docs, seqs };
  }

  /** Throws StoreConflictError if `doc` cannot be added. */
  checkInsert(doc: Doc): void {
    if (this.entries.has(doc.id)) throw new StoreConflictError(this.name, 'id', doc.id);
    this.checkUnique(doc);
  }

  /** Throws StoreConflictError if `doc` cannot replace the document with the same id. */
  checkReplace(doc: Doc): void {
    this.checkUnique(doc);
  }

  /** Adds a document last in order, or at `seq` when replaying the journal (which recorded its place). */
  insert(doc: Doc, page = this.tailPage(), cleanAfter = 0, seq?: number): Entry {
    const entry: Entry = {
      id: doc.id,
      collection: this,
      doc,
      seq: this.numbered(seq),
      page,
      holds: 0,
      cleanAfter,
      usedAt: 0,
    };
    this.place(entry);
    return entry;
  }

  /**
   * Moves a document to the end of the order (its latest activity: an inbox lists conversations this way) while it
   * stays in its page, so that a touch rewrites one page, not two. `seq` puts it back where it was (an undo) or where
   * the journal says. Returns its place before.
   */
  renew(entry: Entry, seq?: number): number {
    const before = entry.seq;
    entry.seq = this.numbered(seq);
    this.reordered = true;
    this.pages[entry.page]!.delete(entry.id);
    this.pages[entry.page]!.add(entry.id, entry.seq);
    if (this.indexed) {
      for (const index of this.indexes) {
        const key = index.keyOf(entry.doc!);
        index.delete(key, entry.id);
        index.add(key, entry.id, entry.seq);
      }
    }
    return before;
  }

  replace(entry: Entry, doc: Doc): void {
    if (this.indexed) {
      const previous = entry.doc!;
      if (this.sorted) {
        const before = this.sorted.keyOf(previous);
        const after = this.sorted.keyOf(doc);
        if (before.value !== after.value || before.group !== after.group || before.part !== after.part) {
          this.sorted.delete(previous.id, before);
          this.sorted.add(doc.id, after);
        }
      }
      for (const index of this.indexes) {
        if (index.sameFields(previous, doc)) continue;
        const before = index.keyOf(previous);
        const after = index.keyOf(doc);
        if (before === after) continue;
        index.delete(before, doc.id);
        index.add(after, doc.id, entry.seq);
      }
      this.watcher?.changed(previous, doc);
    }
    entry.doc = doc;
  }

  remove(id: string): Entry | undefined {
    const entry = this.entry(id);
    if (!entry) return undefined;
    if (this.indexed) {
      const doc = entry.doc!;
      for (const index of this.indexes) index.delete(index.keyOf(doc), id);
      this.sorted?.delete(id, this.sorted.keyOf(doc));
      this.watcher?.changed(doc, undefined);
    }
    this.pages[entry.page]!.delete(id);
    this.entries.delete(id);
    return entry;
  }

  /**
   * A clean document dropped from memory by the document cache, to be read back from its page when next asked for.
   * Its entry gives way to a number (see entries): a large store read through holds no object per document. An
   * entry the collection no longer holds (removed, or dropped before and asked for again since) is left as it is.
   */
  drop(entry: Entry): void {
    entry.doc = undefined;
    if (this.indexed && entry.page < PAGES && this.entries.get(entry.id) === entry)
      this.entries.set(entry.id, parked(entry.seq, entry.page));
  }

  /** Puts back an entry taken out by remove(), at its old place in insertion order. */
  restore(entry: Entry): void {
    this.place(entry);
  }

  /**
   * While the store opens: the documents of one page, known by their ids and index keys only. Returns the pages that
   * held an earlier copy of one of them, now dropped: a document removed and re-inserted, caught by a crash in the
   * middle of a checkpoint.
   */
  loadPage(page: number, keys: PageKeys): number[] {
    const { seqs, starts, pages } = this.loaded;
    starts.push(seqs.length);
    pages.push(page);
    this.loaded.keys.push(keys);
    const earlier: number[] = [];
    const twice: string[] = [];
    let sorted = true;
    let lastSeq = -1;
    keys.ids.forEach((id, at) => {
      const seq = this.numbered(keys.seqs?.[at]);
      if (seq < this.loadedUpTo) this.reordered = true;
      this.loadedUpTo = seq;
      if (seq > lastSeq) lastSeq = seq;
      else sorted = false;
      const size = this.entries.size;
      this.entries.set(id, seqs.push(seq) - 1);
      // One look-up per document: an id already there is known by the map not growing.
      if (this.entries.size === size) {
        const from = this.dropFromPage(id, page);
        if (from === page) twice.push(id);
        earlier.push(from);
      }
    });
    while (this.pages.length < page) this.pages.push(new OrderedIds());
    this.pages[page] = OrderedIds.of(twice.length ? lastOfEach(keys.ids, twice) : keys.ids, sorted, lastSeq);
    return earlier;
  }

  /** Takes an id out of the earlier page that holds it; that page's number, or `page` when none does. */
  private dropFromPage(id: string, page: number): number {
    const earlier = this.pages.findIndex((ids, at) => at < page && ids.has(id));
    if (earlier < 0) return page;
    this.pages[earlier]!.delete(id);
    return earlier;
  }

  /** The run of pages read (see Loaded) that holds the document read at `at`; `hint` is tried first. */
  private runOf(at: number, hint = 0): number {
    const { starts } = this.loaded;
    const within = (run: number) => starts[run]! <= at && (run + 1 === starts.length || at < starts[run + 1]!);
    if (within(hint)) return hint;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** Builds the indexes once loading is over; a unique key held twice means the data on disk is inconsistent. */
  buildIndexes(): void {
    const width = this.indexes.length;
    const sorted: Array<[string, SortKey]> = [];
    const absent = this.spec.sortedWithin?.absent ?? '';
    const found: Doc[] = [];
    const shadowOf = this.watcher ? this.shadows() : undefined;
    const { starts, keys: pageKeys } = this.loaded;
    // The page run of the document read last: the entries come in the order they were read, so it seldom changes.
    let run = 0;
    // What the journal's replay made an entry of holds its document; the rest are known by their pages' keys.
    const keyAt = (value: Entry | number, i: number): string | null | undefined => {
      if (typeof value !== 'number') return this.indexes[i]!.keyOf(value.doc!);
      run = this.runOf(value, run);
      return pageKeys[run]!.keys[(value - starts[run]!) * width + i];
    };
    for (const [id, value] of this.entries) {
      const loaded = typeof value === 'number';
      if (loaded) run = this.runOf(value, run);
      const doc = loaded ? undefined : value.doc!;
      const keys = pageKeys[run]!;
      const at = loaded ? value - starts[run]! : 0;
      if (shadowOf) found.push(doc ?? shadowOf(id, keys, at));
      if (this.sorted)
        sorted.push([
          id,
          doc
            ? this.sorted.keyOf(doc)
            : { value: keys.sorted[at] ?? undefined, group: keys.groups?.[at] ?? absent, part: keys.parts?.[at] ?? '' },
        ]);
      for (let i = 0; i < width; i++) {
        const key = keyAt(value, i);
        if (key === undefined || key === null) continue;
        const index = this.indexes[i]!;
        if (index.load(key, id, this.placeOf(value))) continue;
        const holder = [...this.entries].find(([other, held]) => other !== id && keyAt(held, i) === key)?.[0];
        throw new Error(`store: ${this.name}.${index.name} "${key}" is held by ${holder} and ${id}`);
      }
    }
    this.loaded.keys = [];
    this.sorted?.load(sorted);
    this.indexed = true;
    this.watcher?.loaded(found);
  }

  /**
   * Makes a document not in memory as its page keys tell it: its id, the field of each index on one field (as the
   * text the index holds) and the sort field; enough for a watcher that counts, without reading the page.
   */
  private shadows(): (id: string, keys: PageKeys, at: number) => Doc {
    const width = this.indexes.length;
    const fields = this.indexes.flatMap((index, i) =>
      index.spec.fields.length === 1 ? [{ name: index.spec.fields[0]!, i }] : [],
    );
    const sortedBy = this.spec.sortedBy;
    return (id, keys, at) => {
      const shadow: Record<string, unknown> = { id };
      for (const { name, i } of fields) shadow[name] = keys.keys[at * width + i] ?? null;
      if (sortedBy) shadow[sortedBy] = keys.sorted[at] ?? null;
      return shadow as unknown as Doc;
    };
  }

  private place(entry: Entry): void {
    const doc = entry.doc!;
    this.entries.set(doc.id, entry);
    while (this.pages.length <= entry.page) this.pages.push(new OrderedIds());
    this.pages[entry.page]!.add(doc.id, entry.seq);
    if (!this.indexed) return;
    for (const index of this.indexes) index.add(index.keyOf(doc), doc.id, entry.seq);
    this.sorted?.add(doc.id, this.sorted.keyOf(doc));
    this.watcher?.changed(undefined, doc);
  }

  /** The next number in order, or the one given (a recorded place), which later numbers then follow. */
  private numbered(seq: number | undefined): number {
    if (seq === undefined) return this.nextSeq++;
    if (seq >= this.nextSeq) this.nextSeq = seq + 1;
    return seq;
  }

  private tailPage(): number {
    const last = this.pages.length - 1;
    return last >= 0 && this.pages[last]!.size < this.pageSize ? last : this.pages.length;
  }

  private checkUnique(doc: Doc): void {
    for (const index of this.indexes) {
      if (!index.unique) continue;
      const key = index.keyOf(doc);
      if (key === undefined) continue;
      const holder = index.holder(key);
      if (holder !== undefined && holder !== doc.id) throw new StoreConflictError(this.name, index.name, key);
    }
  }

  private index(name: string): SecondaryIndex {
    const index = this.indexes.find((i) => i.name === name);
    if (!index) throw new Error(`store: collection "${this.name}" has no index "${name}"`);
    return index;
  }
}

/** An id twice in a page (a page not written by the store) is kept once, at its last place. */
function lastOfEach(ids: string[], twice: string[]): string[] {
  const last = new Map(twice.map((id) => [id, ids.lastIndexOf(id)]));
  return ids.filter((id, at) => (last.get(id) ?? at) === at);
}
