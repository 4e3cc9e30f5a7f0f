import type { Doc } from '../store.js';

/** Whether a document is in a list: it has the list's index values (any document, for a scan). */
export type Includes = (doc: Doc) => boolean;

/** A scan's: every document of the collection. */
export const everything: Includes = () => true;

interface Listed {
  docs: Promise<Doc[]>;
  /** The list once read. */
  known?: Doc[];
  /** Undefined for a page of a list: where a written document goes in it is not known. */
  includes?: Includes;
}

/**
 * The lists a transaction read, kept as the database would now answer them. A write of the transaction places its
 * document in each list read whole (an insert or a touch puts it last, an update leaves it in its place, a document
 * that no longer has the list's values leaves it), so that a list read again costs no statement. A list the
 * transaction cannot work out is read again: a page of one, one still being read, or one that a document joins by
 * an update (its place is its row's, which the transaction does not know).
 */
export class KnownLists {
  private readonly byCollection = new Map<string, Map<string, Listed>>();

  /**
   * The list `query` of `collection`: read once with `read`, then as the transaction's writes left it. `includes`
   * (undefined for a page) tells which documents are in it.
   */
  get<T extends Doc>(
    collection: string,
    query: string,
    includes: (() => Includes) | undefined,
    read: () => Promise<T[]>,
  ): Promise<T[]> {
    let lists = this.byCollection.get(collection);
    if (!lists) this.byCollection.set(collection, (lists = new Map()));
    let listed = lists.get(query);
    if (!listed) {
      const entry: Listed = { docs: read(), includes: includes?.() };
      entry.docs.then(
        (docs) => (entry.known = docs),
        () => lists.get(query) === entry && lists.delete(query),
      );
      lists.set(query, (listed = entry));
    }
    return listed.docs.then((docs) => [...docs] as T[]);
  }

  /** Places a document the transaction wrote (null: removed) in the collection's lists; `last` for an insert or a touch. */
  wrote(collection: string, id: string, doc: Doc | null, last: boolean): void {
    const lists = this.byCollection.get(collection);
    if (!lists) return;
    for (const [query, listed] of lists) {
      const placed = listed.known && listed.includes ? place(listed.known, id, doc, last, listed.includes) : undefined;
      if (!placed) {
        lists.delete(query);
        continue;
      }
      listed.known = placed;
      listed.docs = Promise.resolve(placed);
    }
  }
}

/** The list with `doc` written into it; undefined when its place cannot be known. */
function place(docs: Doc[], id: string, doc: Doc | null, last: boolean, includes: Includes): Doc[] | undefined {
  const at = docs.findIndex((d) => d.id === id);
  const listed = doc !== null && includes(doc);
  if (at >= 0 && listed && !last) return docs.map((d, i) => (i === at ? doc : d));
  const rest = at >= 0 ? docs.filter((_, i) => i !== at) : docs;
  if (!listed) return rest;
  return last ? [...rest, doc] : undefined;
}
