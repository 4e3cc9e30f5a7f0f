import { createHash } from 'node:crypto';
import type { Gateway } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { now } from '../ids.js';
import type { Tx } from '../store/store.js';

/** A remembered response to an `Idempotency-Key` request (Stripe's model, IETF draft status codes). */
interface Remembered {
  id: string;
  requestHash: string;
  status: number;
  response: unknown;
  createdAt: string;
}

const TTL_MS = 24 * 3_600_000;

/**
 * Runs `perform` at most once per account and key within 24 h. The same key with the same body replays the
 * first response; with another body it is 422; while the first is still being committed it is 409.
 * `perform` returns the status and body to answer, and writes `remember(...)` in its own transaction.
 */
export class Idempotency {
  private inFlight = new Set<string>();

  constructor(private readonly gw: Gateway) {}

  async run(
    accountId: string,
    key: string | undefined,
    body: unknown,
    perform: (remember: (tx: Tx, status: number, response: unknown) => void) => Promise<{ status: number; response: unknown }>,
  ): Promise<{ status: number; response: unknown; replayed: boolean }> {
    if (key === undefined) return { ...(await perform(() => undefined)), replayed: false };
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw badRequest('Idempotency-Key: must be 1-255 visible ASCII characters', 'INVALID_IDEMPOTENCY_KEY');
    const id = `${accountId}|${key}`;
    const requestHash = createHash('sha256').update(JSON.stringify(body ?? null)).digest('hex');
    if (this.inFlight.has(id)) throw new ApiError(409, 'IDEMPOTENCY_IN_FLIGHT', 'A request with this Idempotency-Key is still being processed');
    const stored = this.gw.store.get<Remembered>('idempotency', id);
    if (stored && Date.now() - Date.parse(stored.createdAt) < TTL_MS) {
      if (stored.requestHash !== requestHash) {
        throw new ApiError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request body');
      }
      await this.gw.store.durable();
      return { status: stored.status, response: stored.response, replayed: true };
    }
    this.inFlight.add(id);
    try {
      const result = await perform((tx, status, response) => {
        const record = { id, requestHash, status, response, createdAt: now() };
        if (tx.get('idempotency', id)) tx.update<Remembered>('idempotency', id, record);
        else tx.insert<Remembered>('idempotency', record);
      });
      return { ...result, replayed: false };
    } finally {
      this.inFlight.delete(id);
    }
  }
}
