import type { ApiFailure } from './errors';

/**
 * The gateway refuses a request for want of its store (its database restarting for an upgrade, a disk failing for a
 * moment) with 503 and a short Retry-After, and the code says what became of a change (docs/api.md):
 * STORE_UNAVAILABLE, nothing was done (a change was not saved); COMMIT_OUTCOME_UNKNOWN, the change may have been
 * saved or not. STORE_DAMAGED waits for its operator to restore a backup, not for seconds: it is not among them.
 */
const NOTHING_DONE = 'STORE_UNAVAILABLE';
const OUTCOME_UNKNOWN = 'COMMIT_OUTCOME_UNKNOWN';

/** The methods whose request, sent twice, leaves what sending it once leaves: reads, and updates that set values. */
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'PUT', 'PATCH']);

export interface RepeatableRequest {
  method: string;
  headers?: Record<string, string>;
  /** Overrides what the method and an Idempotency-Key header say (see LeadChatRequest.repeatable). */
  repeatable?: boolean;
}

/**
 * Whether sending the request again cannot make its change twice: a read, a PUT-like update, a change carrying an
 * Idempotency-Key (the gateway answers its first answer again), or one its caller says is so. A DELETE is not: made
 * once, it answers 404 when sent again, and the item would fail for what succeeded.
 */
export function isRepeatable(request: RepeatableRequest): boolean {
  if (request.repeatable !== undefined) return request.repeatable;
  if (REPEATABLE_METHODS.has(request.method.toUpperCase())) return true;
  return Object.entries(request.headers ?? {}).some(
    ([name, value]) => name.toLowerCase() === 'idempotency-key' && value.trim() !== '',
  );
}

/**
 * Whether a refusal for want of the store is worth waiting out and sending again: any request the store did nothing
 * of, and one that may have been saved only when sending it again cannot make it twice.
 */
export function isPassingStoreRefusal(status: number, failure: ApiFailure, request: RepeatableRequest): boolean {
  if (status !== 503) return false;
  if (failure.code === NOTHING_DONE) return true;
  return failure.code === OUTCOME_UNKNOWN && isRepeatable(request);
}
