import { rateLimited } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { clockNow } from '../../clock.js';
import { addressKey } from '../client-address.js';

/** A person with a typo in a key stays far below; a guesser is held to a crawl. */
export const AUTH_FAILURES_PER_ADDRESS = 20;
export const AUTH_FAILURE_WINDOW_MS = 10 * 60_000;

/**
 * Failed authentications (a wrong API key, a wrong admin token) per client address (an IPv6 one by its /64: see
 * addressKey), counted in the store so that
 * on PostgreSQL every process adds to one count. Over the limit, each further failure from the address is refused
 * with a 429 and Retry-After instead of a 401, so a guesser is told to stop until the window ends.
 *
 * Only failures are judged: a valid credential is never refused for what others did from its address (every n8n
 * workflow of a deployment may come from one address, a forgotten rotated key among them), and it costs nothing
 * here. Once an address is over the limit, this process answers its next failures from memory (the window's end),
 * without a store round trip.
 */
export class AuthFailures {
  private readonly blockedUntil = new Map<string, number>();
  private nextPurge = 0;

  constructor(private readonly store: Store) {}

  /** Counts a failure; refuses it (rather than letting it be a 401) when the address is over the limit. */
  async failed(ip: string | undefined): Promise<void> {
    const address = addressKey(ip);
    const at = clockNow();
    const until = this.blockedUntil.get(address);
    if (until !== undefined && until > at) throw tooManyFailures(until);
    const { hits, resetAt } = await this.store.hit(`auth-failures:${address}`, AUTH_FAILURE_WINDOW_MS);
    if (hits <= AUTH_FAILURES_PER_ADDRESS) return;
    if (at >= this.nextPurge) {
      for (const [known, end] of this.blockedUntil) if (end <= at) this.blockedUntil.delete(known);
      this.nextPurge = at + AUTH_FAILURE_WINDOW_MS;
    }
    this.blockedUntil.set(address, resetAt);
    throw tooManyFailures(resetAt);
  }
}

const tooManyFailures = (until: number) =>
  rateLimited(until, (seconds) => `Too many failed authentications from this address; retry after ${seconds} s`);
