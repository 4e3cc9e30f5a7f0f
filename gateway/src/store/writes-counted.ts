import { metrics } from '../metrics.js';

/**
 * Counts what a committed transaction wrote (`leadchat_store_writes_total`), given each write as its collection and
 * the document's id: a document written twice in one transaction counts once, as it reaches the disk or the
 * database once. What a request costs the store shows there, by collection, on either backend.
 */
export function countWrites(written: Iterable<readonly [collection: string, id: string]>): void {
  const documents = new Map<string, Set<string>>();
  for (const [collection, id] of written) {
    let ids = documents.get(collection);
    if (!ids) documents.set(collection, (ids = new Set()));
    ids.add(id);
  }
  for (const [collection, ids] of documents) metrics.storeWrites.inc({ collection }, ids.size);
}
