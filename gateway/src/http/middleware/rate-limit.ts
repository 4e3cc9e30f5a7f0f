import type { RequestHandler } from 'express';
import { rateLimit, type ClientRateLimitInfo, type Options, type Store as RateLimitStore } from 'express-rate-limit';
import { ApiError } from '../../errors.js';
import type { Store } from '../../store/store.js';

/** Counts hits in the gateway's store, so that on PostgreSQL one key's budget is shared by every process. */
class StoreCounter implements RateLimitStore {
  readonly prefix = 'rate:';
  readonly localKeys: boolean;
  private windowMs = 60_000;

  constructor(private readonly store: Store) {
    this.localKeys = store.backend === 'lowdb';
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const { hits, resetAt } = await this.store.hit(this.prefix + key, this.windowMs);
    return { totalHits: hits, resetTime: new Date(resetAt) };
  }

  // Only called with skipFailedRequests/skipSuccessfulRequests or by resetKey() callers, which this limit never uses.
  async decrement(): Promise<void> {}
  async resetKey(): Promise<void> {}
}

/**
 * Spec §8: a per-minute budget for each API key (not each IP), so one key's flood never slows another.
 * Headers: IETF RateLimit / RateLimit-Policy (draft-8) and, on 429, Retry-After.
 */
export function perKeyRateLimit(store: Store, limit: number): RequestHandler {
  return rateLimit({
    store: new StoreCounter(store),
    windowMs: 60_000,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'per-key',
    keyGenerator: (_req, res) => res.locals.account.id,
    handler: (req, _res, next) => {
      const reset = (req as typeof req & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime?.getTime() ?? Date.now() + 60_000;
      const seconds = String(Math.max(1, Math.ceil((reset - Date.now()) / 1000)));
      next(new ApiError(429, 'RATE_LIMITED', `Rate limit of ${limit} requests per minute exceeded; retry after ${seconds} s`, { 'Retry-After': seconds }));
    },
  });
}
