import { OrderedIds } from './ordered-ids.js';
import { SecondaryIndex } from './secondary-index.js';
import { StoreConflictError, type CollectionSpec, type Doc } from './store.js';

/** Where a document sits: `seq` orders documents by insertion, `page` names the page file that holds it. */
export interface Entry {
  doc: Doc;
  seq: number;
  page: number;
}

/**
 * One collection in memory: documents by id, the pages they belong to, and the secondary indexes. Methods here
 * apply a change that the caller has already checked; they do not log or undo anything.
 */
export class Collection {
  readonly name: string;
  private readonly entries = new Map<string, Entry>();
  /** pages[n]: ids stored in page file n. New documents only ever go to the last page. */
  private readonly pages: OrderedIds[] = [];
  private readonly indexes = new Map<string, SecondaryIndex>();
  private nextSeq = 0;
  /** Off while loading from disk: an intermediate state of recovery may violate a unique index. */
  private indexed = false;
  private readonly seqOf = (id: string): number => this.entries.get(id)!.seq;

  constructor(
    spec: CollectionSpec,
    private readonly pageSize: number,
  ) {
    this.name = spec.name;
    for (const [name, index] of Object.entries(spec.indexes ?? {})) {
      this.indexes.set(name, new SecondaryIndex(name, index));
    }
  }

  get count(): number {
    return this.entries.size;
  }

  get pageCount(): number {
    return this.pages.length;
  }

  entry(id: string): Entry | undefined {
    return this.entries.get(id);
  }

  get(id: string): Doc | undefined {
    return this.entries.get(id)?.doc;
  }

  all(): Doc[] {
    const docs: Doc[] = [];
    for (const page of this.pages) for (const id of page.inOrder(this.seqOf)) docs.push(this.entries.get(id)!.doc);
    return docs;
  }

  pageDocs(page: number): Doc[] {
    const ids = this.pages[page];
    return ids ? [...ids.inOrder(this.seqOf)].map((id) => this.entries.get(id)!.doc) : [];
  }

  lookup(index: string, key: string): Doc[] {
    const ids = this.index(index).ids(key, this.seqOf);
    return Array.from(ids, (id) => this.entries.get(id)!.doc);
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

  insert(doc: Doc, page = this.tailPage()): Entry {
    const entry: Entry = { doc, seq: this.nextSeq++, page };
    this.place(entry);
    return entry;
  }

  replace(entry: Entry, doc: Doc): void {
    for (const index of this.indexesIfBuilt()) {
      const before = index.keyOf(entry.doc);
      const after = index.keyOf(doc);
      if (before === after) continue;
      index.delete(before, doc.id);
      index.add(after, doc.id, entry.seq);
    }
    entry.doc = doc;
  }

  remove(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    for (const index of this.indexesIfBuilt()) index.delete(index.keyOf(entry.doc), id);
    this.pages[entry.page]!.delete(id);
    this.entries.delete(id);
    return entry;
  }

  /** Puts back an entry taken out by remove(), at its old place in insertion order. */
  restore(entry: Entry): void {
    this.place(entry);
  }

  /** Builds the indexes once loading is over; a unique key held twice means the data on disk is inconsistent. */
  buildIndexes(): void {
    for (const index of this.indexes.values()) index.clear();
    for (const entry of this.entries.values()) {
      for (const index of this.indexes.values()) {
        const key = index.keyOf(entry.doc);
        if (key === undefined) continue;
        const holder = index.unique ? index.holder(key) : undefined;
        if (holder !== undefined) {
          throw new Error(`store: ${this.name}.${index.name} "${key}" is held by ${holder} and ${entry.doc.id}`);
        }
        index.add(key, entry.doc.id, entry.seq);
      }
    }
    this.indexed = true;
  }

  private place(entry: Entry): void {
    const id = entry.doc.id;
    this.entries.set(id, entry);
    while (this.pages.length <= entry.page) this.pages.push(new OrderedIds());
    this.pages[entry.page]!.add(id, entry.seq);
    for (const index of this.indexesIfBuilt()) index.add(index.keyOf(entry.doc), id, entry.seq);
  }

  private tailPage(): number {
    const last = this.pages.length - 1;
    return last >= 0 && this.pages[last]!.size < this.pageSize ? last : this.pages.length;
  }

  private checkUnique(doc: Doc): void {
    for (const index of this.indexes.values()) {
      if (!index.unique) continue;
      const key = index.keyOf(doc);
      if (key === undefined) continue;
      const holder = index.holder(key);
      if (holder !== undefined && holder !== doc.id) throw new StoreConflictError(this.name, index.name, key);
    }
  }

  private index(name: string): SecondaryIndex {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`store: collection "${this.name}" has no index "${name}"`);
    return index;
  }

  private indexesIfBuilt(): Iterable<SecondaryIndex> {
    return this.indexed ? this.indexes.values() : [];
  }
}
