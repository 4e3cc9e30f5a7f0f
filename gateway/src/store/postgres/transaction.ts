import type pg from 'pg';
import { StoreUnavailableError, type Tx } from '../store.js';
import type { StoreHealth } from '../health.js';
import type { Catalog } from './catalog.js';
import { isUnavailable, rethrowWrite } from './errors.js';
import { PostgresTx } from './postgres-tx.js';
import { countWrites } from '../writes-counted.js';

/** A transaction that lost a race (a key taken meanwhile, a deadlock) is run this many times at most. */
const ATTEMPTS = 10;

/**
 * Runs `fn` in one READ COMMITTED transaction on one connection, then commits. Its reads take no locks; a write to a
 * document it read applies only if the document is unchanged (see PostgresTx), so read-then-write is safe across
 * processes. A lost race rolls back and runs `fn` again from the start (it then reads what the winner committed),
 * reading the documents it lost on locked, so that it waits its turn on them rather than lose again; any other error
 * of `fn` rolls back and is thrown unchanged. `health` hears whether the database answered.
 */
export async function runTransaction<R>(
  pool: pg.Pool,
  catalog: Catalog,
  fn: (tx: Tx) => Promise<R>,
  health: StoreHealth,
): Promise<R> {
  try {
    const result = await attempts(pool, catalog, fn);
    health.answered();
    return result;
  } catch (err) {
    if (err instanceof StoreUnavailableError) health.failed(err);
    throw err;
  }
}

async function attempts<R>(pool: pg.Pool, catalog: Catalog, fn: (tx: Tx) => Promise<R>): Promise<R> {
  const contended = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect().catch(rethrowWrite);
    const tx = new PostgresTx(client, catalog, contended);
    // The server may end the connection between statements; unheard, that error would crash the process.
    const dropped = (err: Error) => (tx.failure ??= err);
    client.on('error', dropped);
    let broken = false;
    try {
      let result: R;
      try {
        result = await fn(tx);
      } finally {
        tx.close();
      }
      await tx.commit();
      countWrites(tx.documentsWritten());
      for (const told of tx.committed) told();
      return result;
    } catch (err) {
      broken = !(await tx.rollback()) || isUnavailable(tx.failure);
      if (attempt < ATTEMPTS && tx.lost(err)) {
        await pause(attempt);
        continue;
      }
      throw err;
    } finally {
      client.removeListener('error', dropped);
      client.release(broken);
    }
  }
}

/** A few jittered milliseconds, more after each loss, so that racing transactions fall out of step. */
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 4 * attempt));
