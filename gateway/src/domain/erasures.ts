import { clockNow } from '../clock.js';
import { now } from '../ids.js';
import type { Reader, Store, Tx } from '../store/store.js';
import { addressesOf, hashesMade, hashesOf, type Addresses } from './erased-opt-outs.js';

/**
 * An erasure reaches the entries of a provider's webhook taken before it and processed after it (one waiting for its
 * contact's turn, or in the job queue's backlog, or processed as the erasure commits): they are part of what was
 * erased, and must not make the contact again. So an erasure leaves, under a keyed hash of each of the contact's
 * addresses (domain/erased-opt-outs.ts: nothing readable, nothing to test numbers against without the key), when it
 * happened; an entry from one of them taken before then is dropped. A message taken after it is a new contact's.
 *
 * Kept for REACH_MS, well past the longest an entry is tried (25 tries, about 20 hours), then forgotten.
 */
const COLLECTION = 'erasures';
export const REACH_MS = 7 * 24 * 3_600_000;

interface Erasure {
  id: string;
  /** When the contact was erased: entries taken before it are the erased contact's. */
  erasedAt: string;
}

const idOf = (hash: string) => `ers_${hash}`;

/** In the erasure's transaction: when it happened, under each of the contact's addresses. */
export async function recordErasure(tx: Tx, contact: Addresses): Promise<void> {
  const erasedAt = now();
  for (const hash of await hashesMade(tx, contact.accountId, addressesOf(contact))) {
    const id = idOf(hash);
    if (await tx.get<Erasure>(COLLECTION, id)) await tx.update<Erasure>(COLLECTION, id, { erasedAt });
    else await tx.insert<Erasure>(COLLECTION, { id, erasedAt });
  }
}

/**
 * The addresses a provider's sender is (read as it came, before its entry is parsed): its ID on the provider (a Meta
 * page-scoped ID), or a phone number, which Twilio writes "+…" ("whatsapp:+…" on WhatsApp) and Meta as digits.
 */
export function senderAddresses(sender: string): string[] {
  const phone = sender.replace(/^whatsapp:/i, '');
  return [`id:${sender}`, ...(/^\+?\d{7,15}$/.test(phone) ? [`phone:+${phone.replace(/^\+/, '')}`] : [])];
}

/** Whether one of the account's addresses (`phone:+…`, `id:…`) was erased after `takenAt`. */
export async function erasedSince(
  r: Reader,
  accountId: string,
  addresses: string[],
  takenAt: string,
): Promise<boolean> {
  const hashes = await hashesOf(r, accountId, addresses);
  const found = await Promise.all(hashes.map((hash) => r.get<Erasure>(COLLECTION, idOf(hash))));
  return found.some((erasure) => erasure && erasure.erasedAt > takenAt);
}

/** The message of an entry taken before its sender was erased: it is dropped, nothing of it stored. */
export class TakenBeforeErasure extends Error {
  constructor() {
    super('the sender was erased after this entry was taken');
    this.name = 'TakenBeforeErasure';
  }
}

/** Housekeeping: the erasures past their reach are forgotten (one recorded again since is kept). */
export async function forgetPastErasures(store: Store): Promise<number> {
  const before = new Date(clockNow() - REACH_MS).toISOString();
  const past: string[] = [];
  for (let after: string | undefined; ; ) {
    const page = await store.scan<Erasure>(COLLECTION, { limit: 500, after });
    if (page.length === 0) break;
    after = page.at(-1)!.id;
    for (const e of page) if (e.erasedAt < before) past.push(e.id);
  }
  let forgotten = 0;
  for (let i = 0; i < past.length; i += 100)
    forgotten += await store.transact(async (tx) => {
      let n = 0;
      for (const id of past.slice(i, i + 100)) {
        const erasure = await tx.get<Erasure>(COLLECTION, id);
        if (erasure && erasure.erasedAt < before) {
          await tx.remove(COLLECTION, id);
          n += 1;
        }
      }
      return n;
    });
  return forgotten;
}
