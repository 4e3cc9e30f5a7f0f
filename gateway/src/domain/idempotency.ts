import { createHash } from 'node:crypto';
import type { Gateway } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { newId, now } from '../ids.js';
import { CommitOutcomeUnknownError, type Tx } from '../store/store.js';
import { clockNow } from '../clock.js';

/**
 * An `Idempotency-Key` request (Stripe's model, IETF draft status codes), stored so that every process sees it:
 * claimed in flight by the first request, then holding the response to replay.
 */
interface Remembered {
  id: string;
  accountId: string;
  key: string;
  requestHash: string;
  state: 'in_flight' | 'done';
  /** In flight: when a claim whose process died may be taken over. */
  leaseUntil: number;
  status: number | null;
  response: unknown;
  /** The contact the response names (a team reply, a message sent), whose erasure forgets it (forgetAnswersNaming). */
  contactId?: string | null;
  /** Epoch ms after which the key is forgotten. */
  expiresAt: number;
  createdAt: string;
}

const TTL_MS = 24 * 3_600_000;
const LEASE_MS = 60_000;

type Claim = { replay: Remembered } | { claimed: string };

/**
 * Runs `perform` at most once per account and key within 24 h. The same key with the same request (its method,
 * path and body, as http/idempotent-answer.ts gives it, an object's keys in any order) replays the first response;
 * with another request it is 422; while the first is still in flight it is 409. `perform` returns the status and
 * body to answer, and calls `remember(...)` inside its own transaction, so the response is kept
 * exactly when the change commits. A failed `perform` releases the key, unless its response was kept after all (its
 * commit's answer lost: CommitOutcomeUnknownError), which a repetition then replays.
 */
export async function idempotent(
  gw: Gateway,
  accountId: string,
  key: string | undefined,
  request: unknown,
  perform: (
    remember: (tx: Tx, status: number, response: unknown) => Promise<void>,
  ) => Promise<{ status: number; response: unknown }>,
): Promise<{ status: number; response: unknown; replayed: boolean }> {
  if (key === undefined) return { ...(await perform(async () => undefined)), replayed: false };
  if (!/^[\x21-\x7e]{1,255}$/.test(key))
    throw badRequest('Idempotency-Key: must be 1-255 visible ASCII characters', 'INVALID_IDEMPOTENCY_KEY');
  const requestHash = sha256(JSON.stringify(request ?? null, sortedKeys));
  // A key kept before requests were hashed with their keys sorted, for up to 24 hours after an upgrade.
  const asWritten = sha256(JSON.stringify(request ?? null));

  /** The record this request made, if it made one: the only one it may let go of when its claim's outcome is unknown. */
  let made: string | undefined;
  const claiming = gw.store.transact(async (tx): Promise<Claim> => {
    made = undefined;
    const at = clockNow();
    const [stored] = await tx.find<Remembered>('idempotency', 'key', [accountId, key]);
    if (stored && stored.expiresAt > at) {
      if (stored.requestHash !== requestHash && stored.requestHash !== asWritten) {
        throw new ApiError(
          422,
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was used with a different request (another body, or another path)',
        );
      }
      if (stored.state === 'done') return { replay: stored };
      if (stored.leaseUntil > at)
        throw new ApiError(
          409,
          'IDEMPOTENCY_IN_FLIGHT',
          'A request with this Idempotency-Key is still being processed',
        );
      await tx.update<Remembered>('idempotency', stored.id, { leaseUntil: at + LEASE_MS });
      return { claimed: stored.id };
    }
    if (stored) await tx.remove('idempotency', stored.id);
    const record = await tx.insert<Remembered>('idempotency', {
      id: newId('idk'),
      accountId,
      key,
      requestHash,
      state: 'in_flight',
      leaseUntil: at + LEASE_MS,
      status: null,
      response: null,
      expiresAt: at + TTL_MS,
      createdAt: now(),
    });
    made = record.id;
    return { claimed: record.id };
  });
  const claim = await claiming.catch(async (err: unknown) => {
    // The claim may be kept with its answer lost: left so, the repetition would wait out its lease (409).
    if (err instanceof CommitOutcomeUnknownError && made !== undefined) await release(gw, made);
    throw err;
  });
  if ('replay' in claim) return { status: claim.replay.status!, response: claim.replay.response, replayed: true };

  const id = claim.claimed;
  try {
    const result = await perform(async (tx, status, response) => {
      await tx.update<Remembered>('idempotency', id, { state: 'done', status, response, contactId: named(response) });
    });
    return { ...result, replayed: false };
  } catch (err) {
    await release(gw, id);
    throw err;
  }
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * An object's keys in one order: a client library that writes its JSON from a map may write the same body's keys in
 * another order when it sends it again, and that is the same request.
 */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The contact a response names by its `contactId`, as every answer about a contact does. */
const named = (response: unknown): string | null => {
  const contactId = (response as { contactId?: unknown } | null)?.contactId;
  return typeof contactId === 'string' ? contactId : null;
};

/**
 * A merge: the answers kept that name the duplicate hold what was said to the person the merged contact is, and go
 * with its erasure.
 */
export async function moveAnswersNaming(tx: Tx, contactId: string, into: string): Promise<void> {
  for (const kept of await tx.find<Remembered>('idempotency', 'contact', [contactId]))
    await tx.update<Remembered>('idempotency', kept.id, { contactId: into });
}

/**
 * An erased contact's responses kept for a repetition go with it (engine/erase-contact.ts): they hold what was said
 * to it. A repetition after the erasure is a new request, refused as any request about the contact then is.
 */
export async function forgetAnswersNaming(tx: Tx, contactId: string): Promise<void> {
  for (const kept of await tx.find<Remembered>('idempotency', 'contact', [contactId]))
    await tx.remove('idempotency', kept.id);
}

/** Lets a key go while it is in flight; not once it holds a response (a change committed though its answer was lost). */
async function release(gw: Gateway, id: string): Promise<void> {
  await gw.store
    .transact(async (tx) => {
      const current = await tx.get<Remembered>('idempotency', id);
      if (current?.state === 'in_flight') await tx.remove('idempotency', id);
    })
    .catch(() => undefined);
}

/** Removes the records whose 24 hours are over, in small transactions. */
export async function forgetExpiredKeys(gw: Gateway): Promise<number> {
  const expired: string[] = [];
  for (let after: string | undefined; ; ) {
    const page = await gw.store.scan<Remembered>('idempotency', { limit: 500, after });
    if (page.length === 0) break;
    after = page.at(-1)!.id;
    for (const r of page) if (r.expiresAt <= clockNow()) expired.push(r.id);
  }
  let forgotten = 0;
  for (let i = 0; i < expired.length; i += 100) {
    forgotten += await gw.store.transact(async (tx) => {
      let n = 0;
      for (const id of expired.slice(i, i + 100)) {
        const current = await tx.get<Remembered>('idempotency', id);
        if (current && current.expiresAt <= clockNow()) {
          await tx.remove('idempotency', id);
          n += 1;
        }
      }
      return n;
    });
  }
  return forgotten;
}
