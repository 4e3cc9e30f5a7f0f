import { StoreConflictError, StoreUnavailableError, StoreWriteError } from '../store.js';

export const UNIQUE_VIOLATION = '23505';
/** Lost races that running the transaction again resolves: a key taken meanwhile, serialization failure, deadlock. */
const RACES = new Set([UNIQUE_VIOLATION, '40001', '40P01']);
/**
 * The database cannot take the change now: no connection (08), out of resources (53), shut down or cancelled by
 * the operator (57), system or internal errors (58, XX), a read-only server (25006, e.g. during a failover).
 */
const UNAVAILABLE = /^(08|53|57|58|XX)|^25006$/;
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH']);

const codeOf = (err: unknown): string => String((err as { code?: unknown } | null)?.code ?? '');

export const isRace = (err: unknown): boolean => RACES.has(codeOf(err));

/** The server or the way to it failed, as opposed to a statement this code got wrong. */
export function isUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (UNAVAILABLE.test(code) || NETWORK.has(code)) return true;
  const message = err instanceof Error ? err.message : '';
  // node-postgres reports these without a code.
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
    message,
  );
}

/**
 * The store's own error (the HTTP layer answers 503) for an unreachable database, met by a statement outside a
 * transaction (a read, a job's claim): what it asked was not done, or, for a write, its outcome is not known; any
 * other error unchanged.
 */
export function asStoreError(err: unknown): unknown {
  return isUnavailable(err)
    ? new StoreUnavailableError(`store: the database is out of reach: ${(err as Error).message}`, { cause: err })
    : err;
}

/** For `.catch()`: rethrows as asStoreError does. */
export function rethrow(err: unknown): never {
  throw asStoreError(err);
}

/** As asStoreError, for a transaction that the database never committed: nothing of it was kept. */
export function asWriteError(err: unknown): unknown {
  return isUnavailable(err)
    ? new StoreWriteError(`store: the change was not saved: the database failed: ${(err as Error).message}`, {
        cause: err,
      })
    : err;
}

/** For `.catch()`: rethrows as asWriteError does. */
export function rethrowWrite(err: unknown): never {
  throw asWriteError(err);
}

/**
 * Whether the server itself answered with this failure (an ErrorResponse; our conflict error stands for one): it
 * then knew the statement failed, and the transaction is rolled back, as opposed to a connection that broke with no
 * answer.
 */
export const answeredByServer = (err: unknown): boolean =>
  err instanceof StoreConflictError || typeof (err as { severity?: unknown } | null)?.severity === 'string';

/**
 * Whether a COMMIT that failed with `err` may still have committed: the connection broke after COMMIT went out and
 * before its answer (no answer, or a FATAL one, which a backend ending right after its commit may send). Not when
 * node-postgres refused to send it at all (the connection was known lost), nor when the server answered an ERROR.
 */
export function commitMayHaveHappened(err: unknown): boolean {
  if (/not queryable|Client was closed/i.test(err instanceof Error ? err.message : '')) return false;
  const severity = (err as { severity?: unknown } | null)?.severity;
  return typeof severity !== 'string' || severity === 'FATAL' || severity === 'PANIC';
}
