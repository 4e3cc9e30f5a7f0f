import { hash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import {
  rateLimit,
  type ClientRateLimitInfo,
  type Options,
  type RateLimitInfo,
  type Store as RateLimitStore,
} from 'express-rate-limit';
import { ApiError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { clockNow } from '../../clock.js';

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

const WINDOW_MS = 60_000;

/** The two budgets: each API key's (spec §8), and each console session's, so the console never spends the key's. */
export interface RateBudgets {
  perKey: number;
  perSession: number;
}

/** Whose budget a request spends: its console session's, or its account's key's. */
const budgetOf = (res: Response, budgets: RateBudgets) =>
  res.locals.sessionId
    ? { key: `session:${res.locals.sessionId as string}`, policy: 'per-session', limit: budgets.perSession }
    : { key: (res.locals.account as { id: string }).id, policy: 'per-key', limit: budgets.perKey };

/**
 * Spec §8: a per-minute budget for each API key (not each IP), so one key's flood never slows another; a console
 * session has a budget of its own. The library counts and decides. The IETF RateLimit / RateLimit-Policy headers
 * (draft-8) are written here from its count: the policy's partition key, a digest that names the key without
 * showing it, is computed once per key rather than on every request as the library's own draft-8 headers do. A 429
 * also carries Retry-After.
 */
export function rateLimits(store: Store, budgets: RateBudgets): RequestHandler {
  const policies = new Map<string, string>();
  const policy = (key: string, name: string, limit: number) => {
    let header = policies.get(key);
    if (header === undefined) {
      const pk = Buffer.from(hash('sha256', key, 'hex').slice(0, 12)).toString('base64');
      header = `"${name}"; q=${limit}; w=${WINDOW_MS / 1000}; pk=:${pk}:`;
      // Sessions come and go: their headers are not worth keeping.
      if (name === 'per-key') policies.set(key, header);
    }
    return header;
  };
  const setHeaders = (req: Request, res: Response): number => {
    const info = (req as Request & { rateLimit: RateLimitInfo }).rateLimit;
    const { policy: name, limit } = budgetOf(res, budgets);
    const seconds = Math.max(0, Math.ceil(((info.resetTime?.getTime() ?? clockNow() + WINDOW_MS) - clockNow()) / 1000));
    res.setHeader('RateLimit', `"${name}"; r=${info.remaining}; t=${seconds}`);
    res.setHeader('RateLimit-Policy', policy(info.key, name, limit));
    return seconds;
  };
  const limiter = rateLimit({
    store: new StoreCounter(store),
    windowMs: WINDOW_MS,
    limit: (_req, res) => budgetOf(res, budgets).limit,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: (_req, res) => budgetOf(res, budgets).key,
    handler: (req, res, next) => {
      const seconds = String(Math.max(1, setHeaders(req, res)));
      const limit = budgetOf(res, budgets).limit;
      next(
        new ApiError(
          429,
          'RATE_LIMITED',
          `Rate limit of ${limit} requests per minute exceeded; retry after ${seconds} s`,
          { 'Retry-After': seconds },
        ),
      );
    },
  });
  return (req, res, next) =>
    limiter(req, res, (err?: unknown) => {
      if (err === undefined) setHeaders(req, res);
      next(err);
    });
}
