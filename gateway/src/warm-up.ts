import { randomBytes } from 'node:crypto';
import { findByApiKey, newAccountDoc, type Account } from './domain/accounts.js';
import type { Engine } from './engine/ports/providers.js';
import { messageOfPost, receiveMessage } from './engine/receive.js';
import { parse } from './http/route.js';
import { incomingMessage } from './http/schemas.js';
import type { Logger } from './log.js';
import type { Store, Tx } from './store/store.js';

/** Transactions run side by side: as many as the requests' pool holds, so that each of its connections takes part. */
const TOGETHER = 10;
/** Rounds of each: enough for the engine's code to be compiled and optimised (more measured no better). */
const ROUNDS = 8;
/**
 * Messages received in one transaction: a new sender's first, the same sender's second, another's first. Phone
 * numbers, as most senders' are, from the range kept for fiction (555-01xx).
 */
const SENDERS = ['+15555550100', '+15555550100', '+15555550101'];

/** Thrown at the end of each warm-up transaction, so that it rolls back. */
class RolledBack extends Error {}

/**
 * Whether this process has run the rounds already: its code stays compiled, so a later gateway of the same process
 * (the tests' in-process ones) runs one round on each connection, which readies its own pool.
 */
let compiled = false;

/**
 * Runs the path of an incoming custom-channel message a few dozen times before the port opens: JSON parsing, the
 * body's validation, the channel's adapter, the engine, the store's statements and the answer's serialisation. A
 * gateway just started otherwise compiles all of it under its first requests, and answers them in up to 0.2 s.
 *
 * Nothing is kept. Each run is one PostgreSQL transaction, rolled back at its end: it adds an account of its own (a
 * random id and email, which no one else writes) and receives its messages there, and none of its rows, jobs or
 * notifications outlive it. Its store takes no other write: files, jobs and settings outside the transaction are
 * refused. The runs go side by side on the requests' pool, so that every connection of the pool is opened and has
 * parsed the hot statements before the first request. The embedded store is not warmed: it has no connections to
 * open nor statements to parse.
 */
export async function warmUp(gw: Engine, log: Logger): Promise<void> {
  if (gw.store.backend !== 'postgres') return;
  const started = performance.now();
  const rounds = compiled ? 1 : ROUNDS;
  compiled = true;
  const runs = Array.from({ length: TOGETHER }, async (_, lane) => {
    for (let round = 0; round < rounds; round++) await warmRun(gw, `${lane}-${round}`);
  });
  const failed = (await Promise.allSettled(runs)).find((r) => r.status === 'rejected');
  if (failed) log.warn({ err: failed.reason as Error }, 'the warm-up failed: the first requests may be slower');
  else log.debug({ ms: Math.round(performance.now() - started), rounds }, 'the engine and the store warmed up');
}

async function warmRun(gw: Engine, run: string): Promise<void> {
  const account = warmUpAccount();
  // A request's authentication, with a key no account has: a read on the pool, as the requests make it.
  await findByApiKey(gw, randomBytes(24).toString('hex'));
  try {
    await gw.store.transact(async (tx) => {
      await tx.insert('accounts', account);
      const engine: Engine = { ...gw, store: inTransaction(gw.store, tx) };
      for (const [i, sender] of SENDERS.entries()) {
        // As the body parser hands it over.
        const body = JSON.parse(
          JSON.stringify({
            customData: {
              messageSid: `warm-up-${run}-${i}`,
              fromId: sender,
              toId: 'warm-up',
              body: 'Hello',
              channel: 'warm-up',
            },
          }),
        ) as unknown;
        const adapter = engine.providers.customChannel(engine.config, account);
        const incoming = await messageOfPost(adapter, parse(incomingMessage, body));
        const { message } = await receiveMessage(engine, account, incoming, adapter.readFile);
        JSON.stringify({ success: true, messageId: message.id });
      }
      throw new RolledBack();
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) throw err;
  }
}

/** An account no one else has: the store's unique keys never meet another's. */
function warmUpAccount(): Account {
  const id = `acc_warmup${randomBytes(8).toString('hex')}`;
  const account = newAccountDoc({
    name: 'Warm-up',
    email: `${id}@warm-up.invalid`,
    type: 'standard',
    parentId: null,
    apiKeyHash: randomBytes(32).toString('hex'),
  });
  return { ...account, id };
}

/**
 * The store as the engine sees it during the warm-up: its transactions are parts of `tx`, its reads are `tx`'s,
 * and anything else (files, jobs, settings) is refused, as the path has no use for it.
 */
function inTransaction(store: Store, tx: Tx): Store {
  const reads = {
    backend: store.backend,
    get: tx.get.bind(tx),
    find: tx.find.bind(tx),
    scan: tx.scan.bind(tx),
    transact: <R>(fn: (tx: Tx) => Promise<R>) => fn(tx),
  };
  return new Proxy(reads, {
    get(target, prop) {
      if (prop in target) return target[prop as keyof typeof target];
      throw new Error(`the warm-up does not use the store's ${String(prop)}`);
    },
  }) as unknown as Store;
}
