import path from 'node:path';
import type { CollectionSpec, Store } from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import { BACKEND } from './gateway';

export type { Store };

/** The gateway's store, opened here on the storage a stopped gateway used: to make data as an earlier release left it. */
export async function openStoreOf(env: Record<string, string>): Promise<Store> {
  const dist = path.resolve(__dirname, '../../gateway/dist');
  const { collections } = (await import(path.join(dist, 'domain/collections.js'))) as { collections: CollectionSpec[] };
  if (BACKEND === 'postgres') {
    const { openPostgresStore } = await import(path.join(dist, 'store/postgres/postgres-store.js'));
    return openPostgresStore({ url: env.LEADCHAT_DATABASE_URL, collections });
  }
  const { openLowdbStore } = await import(path.join(dist, 'store/lowdb/lowdb-store.js'));
  return openLowdbStore({ dir: path.join(env.LEADCHAT_DATA_DIR!, 'store'), collections });
}
