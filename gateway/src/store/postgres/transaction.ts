import type pg from 'pg';
import { StoreWriteError, type Tx } from '../store.js';
import type { Catalog } from './catalog.js';
import { asStoreError, isUnavailable, rethrow } from './errors.js';
import { PostgresTx } from './postgres-tx.js';

/** A transaction that lost a race (a key taken meanwhile, a deadlock) is run this many times at most. */
const ATTEMPTS = 10;

/**
 * Runs `fn` in one READ COMMITTED transaction on one connection, then commits. Its reads take no locks; a write to a
 * document it read applies only if the document is unchanged (see PostgresTx), so read-then-write is safe across
 * processes. A lost race rolls back and runs `fn` again from the start (it then reads what the winner committed),
 * reading the documents it lost on locked, so that it waits its turn on them rather than lose again; any other error
 * of `fn` rolls back and is thrown unchanged.
 */
export async function runTransaction<R>(pool: pg.Pool, catalog: Catalog, fn: (tx: Tx) => Promise<R>): Promise<R> {
  const contended = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect().catch(rethrow);
    const tx = new PostgresTx(client, catalog, contended);
    // The server may end the connection between statements; unheard, that error would crash the process.
    const dropped = (err: Error) => (tx.failure ??= err);
    client.on('error', dropped);
    let broken = false;
    try {
      // Explicit, whatever default_transaction_isolation the operator chose: the retry logic assumes it.
      await client.query('BEGIN ISOLATION LEVEL READ COMMITTED').catch(rethrow);
      let result: R;
      try {
        result = await fn(tx);
      } finally {
        tx.close();
      }
      // `fn` went on after a failed statement: PostgreSQL has given the transaction up, a COMMIT would not commit.
      if (tx.failure !== undefined) throw asStoreError(tx.failure);
      const commit = await client.query('COMMIT').catch(rethrow);
      if (commit.command !== 'COMMIT') throw new StoreWriteError('store: the database rolled the transaction back');
      return result;
    } catch (err) {
      broken = !(await rollback(client)) || isUnavailable(tx.failure);
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

/** False when the connection could not even roll back: it is dropped rather than given to someone else. */
async function rollback(client: pg.PoolClient): Promise<boolean> {
  try {
    await client.query('ROLLBACK');
    return true;
  } catch {
    return false;
  }
}

/** A few jittered milliseconds, more after each loss, so that racing transactions fall out of step. */
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 4 * attempt));
