import { MAX_PROBLEMS, type FieldProblem } from './api-contract.js';
import { clockNow } from './clock.js';

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
    /** The record the conflict is with (409 CONTACT_EXISTS names the contact holding the phone or email). */
    readonly contactId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string, code = 'VALIDATION_ERROR') => new ApiError(400, code, message);

/**
 * A 400 about one field. The message names it first: "field: message", or "field message" when `message` reads on
 * from the name ("must be a duration …"), as `joiner` says.
 */
export const fieldError = (field: string, message: string, code = 'VALIDATION_ERROR', joiner: ': ' | ' ' = ': ') =>
  new ApiError(400, code, `${field}${joiner}${message}`, {}, [{ field, code, message }]);

/**
 * One 400 naming several problems at once: their sentences joined by "; " and their fields listed, at most
 * MAX_PROBLEMS of each (the message tells how many more); the code is the first problem's.
 */
export function invalidFields(code: string, sentences: string[], fields: FieldProblem[]): ApiError {
  const more = sentences.length - MAX_PROBLEMS;
  const message =
    sentences.slice(0, MAX_PROBLEMS).join('; ') + (more > 0 ? `; and ${more} more problem${more > 1 ? 's' : ''}` : '');
  return new ApiError(400, code, message, {}, fields.slice(0, MAX_PROBLEMS));
}

/**
 * Runs checks that each refuse one field with a 400 of fieldError's kind, and throws one 400 naming all they refused;
 * an error that names no field is thrown as it is, at once. Answers each check's value (undefined when it refused).
 */
export class FieldChecks {
  private readonly refused: ApiError[] = [];

  run<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 400 && err.fields)) throw err;
      this.add(err);
      return undefined;
    }
  }

  /** Counts a refusal found without a check that throws it. */
  add(refusal: ApiError): void {
    this.refused.push(refusal);
  }

  /** Throws the refusals so far as one 400, if there were any. */
  done(): void {
    const [first] = this.refused;
    if (first)
      throw invalidFields(
        first.code,
        this.refused.map((e) => e.message),
        this.refused.flatMap((e) => e.fields!),
      );
  }
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
  const seconds = Math.max(1, Math.ceil((until - clockNow()) / 1000));
  return new ApiError(429, 'RATE_LIMITED', say(seconds), { 'Retry-After': String(seconds) });
}
