import { indexKey, type Doc, type IndexSpec } from '../store.js';
import { sortKeyOf, type SortGroups } from './sorted-index.js';

/** The shape of a collection's indexes: what its index keys are computed from. */
export interface IndexShape {
  indexes: IndexSpec[];
  sortedBy?: string;
  sortedWithin?: SortGroups;
}

/**
 * What opening the store needs of one page: its documents' ids, index keys and sort values, without the
 * documents. Stored at the head of the page file, so that opening parses this instead of every document.
 */
export interface PageKeys {
  /** The index shape the keys were computed for: keys of another shape are computed again from the documents. */
  shape: string;
  ids: string[];
  /** keys[i * indexes + k]: the key of document i in index k (null when it is not in that index). */
  keys: Array<string | null>;
  sorted: Array<number | null>;
  /** groups[i]: document i's group in the sorted index, when it is kept per group (sortedWithin). */
  groups?: string[];
  /** parts[i]: document i's part of its group, when the groups are kept apart by another field (sortedWithin.by). */
  parts?: string[];
  /** seqs[i]: document i's place in the collection's order (absent in pages written before it was kept). */
  seqs?: number[];
}

export const shapeSignature = (shape: IndexShape): string =>
  JSON.stringify([shape.indexes, shape.sortedBy ?? null, ...(shape.sortedWithin ? [shape.sortedWithin] : [])]);

export function pageKeys(docs: Doc[], shape: IndexShape, seqs?: number[]): PageKeys {
  const within = shape.sortedWithin;
  const result: PageKeys = {
    shape: shapeSignature(shape),
    ids: [],
    keys: [],
    sorted: [],
    ...(within ? { groups: [] } : {}),
    ...(within?.by ? { parts: [] } : {}),
    ...(seqs ? { seqs } : {}),
  };
  for (const doc of docs) {
    const fields = doc as unknown as Record<string, unknown>;
    result.ids.push(doc.id);
    for (const spec of shape.indexes) result.keys.push(indexKey(spec, fields) ?? null);
    const { value, group, part } =
      shape.sortedBy === undefined ? { value: undefined, group: '', part: '' } : sortKeyOf(doc, shape.sortedBy, within);
    result.sorted.push(value ?? null);
    if (within) result.groups!.push(group);
    if (within?.by) result.parts!.push(part);
  }
  return result;
}
