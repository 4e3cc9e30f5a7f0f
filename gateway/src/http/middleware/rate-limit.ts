import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { ApiError } from '../../errors.js';

/**
 * Spec §8: a per-minute budget for each API key (not each IP), so one key's flood never slows another.
 * Headers: IETF RateLimit / RateLimit-Policy (draft-8) and, on 429, Retry-After.
 */
export function perKeyRateLimit(limit: number): RequestHandler {
  return rateLimit({
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
