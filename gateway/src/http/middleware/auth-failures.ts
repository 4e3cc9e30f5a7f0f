import { rateLimited } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { clockNow } from '../../clock.js';

/** A person with a typo in a key stays far below; a guesser is held to a crawl. */
export const AUTH_FAILURES_PER_ADDRESS = 20;
export const AUTH_FAILURE_WINDOW_MS = 10 * 60_000;

/**
 * Failed authentications (a wrong API key, a wrong admin token) per client address, counted in the store so that
 * on PostgreSQL every process adds to one count. Over the limit, every attempt from the address is refused with a
 * 429 before its credential is looked at, so a guesser learns nothing more until the window ends.
 *
 * Only failures reach the store: a request whose key is valid costs nothing here. So the check before the
 * credential is made against what this process has learnt (the address's window end, known from the failure
 * that went over the limit or any failure after it), never with a store round trip. On PostgreSQL another process
 * learns of the block at the first failure it sees from the address, which is refused too: over a window a
 * guesser gets at most the limit plus one attempt per process checked.
 */
export class AuthFailures {
  private readonly blockedUntil = new Map<string, number>();
  private nextPurge = 0;

  constructor(private readonly store: Store) {}

  /** Refuses an address this process knows to be over the limit. */
  check(address: string): void {
    const until = this.blockedUntil.get(address);
    if (until === undefined) return;
    if (until > clockNow()) throw tooManyFailures(until);
    this.blockedUntil.delete(address);
  }

  /** Counts a failure; refuses it (rather than letting it be a 401) when it goes over the limit. */
  async failed(address: string): Promise<void> {
    const { hits, resetAt } = await this.store.hit(`auth-failures:${address}`, AUTH_FAILURE_WINDOW_MS);
    if (hits <= AUTH_FAILURES_PER_ADDRESS) return;
    const at = clockNow();
    if (at >= this.nextPurge) {
      for (const [known, until] of this.blockedUntil) if (until <= at) this.blockedUntil.delete(known);
      this.nextPurge = at + AUTH_FAILURE_WINDOW_MS;
    }
    this.blockedUntil.set(address, resetAt);
    throw tooManyFailures(resetAt);
  }
}

const tooManyFailures = (until: number) => rateLimited(until, (seconds) => `Too many failed authentications from this address; retry after ${seconds} s`);
