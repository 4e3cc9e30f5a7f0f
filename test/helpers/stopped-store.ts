import path from 'node:path';
import { Client } from 'pg';
import type { CollectionSpec, Store } from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import { BACKEND } from './gateway';
import { gatewayModule } from './gateway-modules';

export type { Store };

/** The gateway's store, opened here on the storage a stopped gateway used: to make data as an earlier release left it. */
export async function openStoreOf(env: Record<string, string>): Promise<Store> {
  const dist = path.resolve(__dirname, '../../gateway/dist');
  const { collections } = (await gatewayModule(path.join(dist, 'domain/collections.js'))) as {
    collections: CollectionSpec[];
  };
  if (BACKEND === 'postgres') {
    const { openPostgresStore } = await gatewayModule(path.join(dist, 'store/postgres/postgres-store.js'));
    return openPostgresStore({ url: env.LEADCHAT_DATABASE_URL, collections });
  }
  const { openLowdbStore } = await gatewayModule(path.join(dist, 'store/lowdb/lowdb-store.js'));
  return openLowdbStore({ dir: path.join(env.LEADCHAT_DATA_DIR!, 'store'), collections });
}

/**
 * Forgets that the gateway's one-off upgrade walks ran (their done marks), as storage an earlier release left holds
 * none of them: in the database's settings on PostgreSQL, in the store's on the embedded one. The gateway is stopped.
 */
export async function forgetDone(env: Record<string, string>, marks: string[]): Promise<void> {
  if (BACKEND === 'postgres') {
    const client = new Client({ connectionString: env.LEADCHAT_DATABASE_URL });
    await client.connect();
    try {
      await client.query('DELETE FROM leadchat_settings WHERE name = ANY($1)', [marks]);
    } finally {
      await client.end();
    }
    return;
  }
  const store = await openStoreOf(env);
  try {
    await store.transact(async (tx) => {
      for (const mark of marks) await tx.remove('gateway_settings', mark);
    });
  } finally {
    await store.close();
  }
}
