import type { Doc, Page, Placed, Scalar, Store } from './store.js';

/**
 * An index read `size` documents at a time, from `after` on, by place as each read saw it: a document that moves up
 * meanwhile is met once, and the walk never starts over. A loop that stops early (`break`) reads no further batch.
 */
export async function* batchesOf<T extends Doc>(
  r: Pick<Store, 'findPlaced'>,
  collection: string,
  index: string,
  values: Scalar[],
  { size, order, after }: { size: number; order?: Page['order']; after?: Page['after'] },
): AsyncGenerator<Array<Placed<T>>> {
  for (;;) {
    const batch = await r.findPlaced<T>(collection, index, values, { order, after, limit: size });
    if (batch.length === 0) return;
    yield batch;
    if (batch.length < size) return;
    after = batch.at(-1)!.place;
  }
}

/** The first `limit` items of the batches that `wanted` keeps, in order: no batch past the one filling them is read. */
export async function firstWanted<T>(
  batches: AsyncIterable<T[]>,
  wanted: (item: T) => boolean,
  limit: number,
): Promise<T[]> {
  const found: T[] = [];
  for await (const batch of batches) {
    found.push(...batch.filter(wanted));
    if (found.length >= limit) break;
  }
  return found.slice(0, limit);
}
