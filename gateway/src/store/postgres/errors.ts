import { StoreWriteError } from '../store.js';

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
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(message);
}

/** The store's own error (the HTTP layer answers 503) for an unreachable database; any other error unchanged. */
export function asStoreError(err: unknown): unknown {
  return isUnavailable(err) ? new StoreWriteError(`store: the database failed: ${(err as Error).message}`, { cause: err }) : err;
}

/** For `.catch()`: rethrows as asStoreError does. */
export function rethrow(err: unknown): never {
  throw asStoreError(err);
}
