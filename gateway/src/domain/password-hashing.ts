import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { ApiError } from '../errors.js';
import { metrics } from '../metrics.js';

/**
 * Password hashing on threads of its own. scrypt is made to be slow and to take memory; run as Node's async
 * `crypto.scrypt` it would take libuv's thread pool, which the embedded store's file writes and fsyncs share: a flood
 * of sign-ins (or a loop of right ones) would hold every write up behind it. Here each derivation runs on a worker
 * thread, at most `threads` at once, and at most `queue` more wait for one; past that a password is not checked at
 * all but refused with 429 and Retry-After, so a flood costs a bounded amount of CPU and never a write's turn.
 */
export class PasswordHashing {
  private pool: Piscina | undefined;
  private admitted = 0;

  constructor(
    readonly threads: number,
    readonly queue: number,
  ) {}

  /** scrypt of `password` with `salt`; a 429 BUSY ApiError when the pool and its queue are full. */
  async derive(password: string, salt: Uint8Array): Promise<Buffer> {
    if (this.admitted >= this.threads + this.queue) {
      metrics.passwordDerivations.inc({ outcome: 'busy' });
      throw busy();
    }
    this.admitted += 1;
    try {
      // Loaded with the first password: a start, and every process that never checks one, are spared its modules.
      const { Piscina } = await import('piscina');
      this.pool ??= new Piscina({
        filename: new URL('./password-worker.js', import.meta.url).href,
        minThreads: 0,
        maxThreads: this.threads,
        maxQueue: this.queue + this.threads,
        // An idle pool keeps no thread (nor its scrypt memory) alive.
        idleTimeout: 30_000,
      });
      const derived = Buffer.from((await this.pool.run({ password, salt })) as Uint8Array);
      metrics.passwordDerivations.inc({ outcome: 'derived' });
      return derived;
    } finally {
      this.admitted -= 1;
    }
  }

  /** Ends the pool's threads; a later derivation starts new ones. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}

/** Seconds a refused client is asked to wait: a queue's worth of derivations takes a fraction of that. */
export const BUSY_RETRY_SECONDS = 1;

const busy = () =>
  new ApiError(
    429,
    'BUSY',
    `The gateway is checking many passwords at once; try again in ${BUSY_RETRY_SECONDS} second`,
    { 'Retry-After': String(BUSY_RETRY_SECONDS) },
  );

/**
 * The process's pool: half the cores (at least one), so requests, the store and jobs keep the rest. Its queue holds
 * about two seconds of derivations (32 a thread at 50–100 ms each): a burst of people signing in at once waits its
 * turn, and so does a flood's every client, which then sends its next attempt only as fast as passwords are checked
 * rather than as fast as refusals come back. Past that, 429 BUSY.
 */
const threads = Math.max(1, Math.floor(availableParallelism() / 2));
export const passwordHashing = new PasswordHashing(threads, 32 * threads);
