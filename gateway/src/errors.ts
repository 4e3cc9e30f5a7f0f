import { MAX_PROBLEMS, type FieldProblem } from './api-contract.js';

/**
 * The one error type of the gateway: an HTTP status, a stable code and a message a caller can act on; a 400 about
 * fields of the request also lists each problem with its field (`fields`), for a client to show beside its inputs.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly fields?: FieldProblem[],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string, code = 'VALIDATION_ERROR') => new ApiError(400, code, message);

/**
 * One 400 naming several problems at once: their sentences joined by "; " and their fields listed, at most
 * MAX_PROBLEMS of each (the message tells how many more); the code is the first problem's.
 */
export function invalidFields(code: string, sentences: string[], fields: FieldProblem[]): ApiError {
  const more = sentences.length - MAX_PROBLEMS;
  const message = sentences.slice(0, MAX_PROBLEMS).join('; ') + (more > 0 ? `; and ${more} more problem${more > 1 ? 's' : ''}` : '');
  return new ApiError(400, code, message, {}, fields.slice(0, MAX_PROBLEMS));
}

/**
 * A record the request names that the caller's account does not have: `CAMPAIGN_NOT_FOUND` for 'Campaign'. Another
 * account's record gets exactly this answer too, so an id never tells whether it exists elsewhere.
 */
export const notFound = (thing: string, message = `${thing} not found`) =>
  new ApiError(404, `${thing.toUpperCase().replace(/[^A-Z]+/g, '_')}_NOT_FOUND`, message);
export const unauthorized = (message = 'Invalid or missing API key') => new ApiError(401, 'UNAUTHORIZED', message);
export const forbidden = (code: string, message: string) => new ApiError(403, code, message);

/** 429 RATE_LIMITED until `until` (epoch ms), with Retry-After in whole seconds, at least 1; `say` words the wait. */
export function rateLimited(until: number, say: (seconds: number) => string): ApiError {
  const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
  return new ApiError(429, 'RATE_LIMITED', say(seconds), { 'Retry-After': String(seconds) });
}
