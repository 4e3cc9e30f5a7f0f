import type { Collection } from './collection.js';
import type { Doc } from '../store.js';
import { deepFreeze } from './freeze.js';
import type { Op } from './transaction.js';

/**
 * The payload of a journal record: the changes of one group commit, in order, as `["p", collection, doc, seq]`
 * (upsert of the full document, at its place in the collection's order) or `["d", collection, id]`. Full documents
 * and places make replay idempotent: replaying a record over pages that already hold its effect changes nothing.
 * (Records written before places were kept have no `seq`: the document keeps its place, or a new one goes last.)
 */
export function encodeOps(ops: Op[]): string {
  return JSON.stringify(
    ops.map((op) => (op.doc ? ['p', op.collection.name, op.doc, op.seq] : ['d', op.collection.name, op.id])),
  );
}

/** Applies one record to memory during recovery; calls `touched` with every page it changes. */
export function replayRecord(
  payload: unknown,
  collections: Map<string, Collection>,
  touched: (collection: Collection, page: number) => void,
): void {
  if (!Array.isArray(payload)) throw damaged();
  for (const op of payload) {
    if (!Array.isArray(op)) throw damaged();
    const [kind, name, value, place] = op as [unknown, unknown, unknown, unknown];
    const seq = typeof place === 'number' ? place : undefined;
    const collection = typeof name === 'string' ? collections.get(name) : undefined;
    // Changes to a collection no longer declared are skipped, as its pages are.
    if (!collection) continue;
    if (kind === 'p' && isDoc(value)) {
      const doc = deepFreeze(value);
      const entry = collection.entry(doc.id);
      // Kept in memory until the checkpoint after the replay has written it to its page.
      if (entry) {
        collection.replace(entry, doc);
        if (seq !== undefined && seq !== entry.seq) collection.renew(entry, seq);
        entry.cleanAfter = 1;
      }
      touched(collection, (entry ?? collection.insert(doc, undefined, 1, seq)).page);
    } else if (kind === 'd' && typeof value === 'string') {
      const entry = collection.remove(value);
      if (entry) touched(collection, entry.page);
    } else {
      throw damaged();
    }
  }
}

function isDoc(value: unknown): value is Doc {
  return typeof value === 'object' && value !== null && typeof (value as Doc).id === 'string';
}

function damaged(): Error {
  return new Error('store: a journal record holds an unknown change; refusing to open');
}
