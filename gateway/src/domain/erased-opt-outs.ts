import { createHmac, randomBytes } from 'node:crypto';
import type { Reader, Tx } from '../store/store.js';

/**
 * A STOP outlives the data it came with: an erased contact who had opted out leaves each of its addresses (phone,
 * email, external IDs) as a keyed hash, HMAC-SHA256 of the account and the address under a secret of the deployment,
 * so that nothing readable of the contact remains and nobody without the secret can test numbers against the list.
 * An address that leaves an opted-out contact (a correction, a merge that keeps another) is kept the same way. A
 * contact written later with one of those addresses is opted out as it is stored.
 *
 * The secret is a document of the same collection, made by the first erasure (domain/erasures.ts hashes with it
 * too): a deployment that never erased a contact reads one absent document per new address and nothing more.
 */
const COLLECTION = 'erased_opt_outs';
const KEY_ID = 'key';

/** An opt-out as a contact holds it (contacts.ts's ConsentChange, which imports this module). */
interface ConsentChange {
  at: string;
  channel: string;
  keyword: string;
}

interface Secret {
  id: typeof KEY_ID;
  secret: string;
}

/** An erased contact's opt-out, under the hash of one of its addresses: when and how it was given, nothing else. */
interface ErasedOptOut extends ConsentChange {
  id: string;
}

/** What of a contact is an address it is reached or found by. */
export interface Addresses {
  accountId: string;
  phone: string | null;
  email: string | null;
  fromId: string | null;
  externalIds?: Record<string, string>;
}

/** Each address as its hash is made: `phone:+…`, `email:…`, `id:…`. */
export const addressesOf = (c: Addresses): string[] =>
  [
    ...new Set([
      c.phone && `phone:${c.phone}`,
      c.email && `email:${c.email}`,
      c.fromId && `id:${c.fromId}`,
      ...Object.values(c.externalIds ?? {}).map((v) => `id:${v}`),
    ]),
  ].filter((a): a is string => Boolean(a));

/** These addresses but those `other` has. */
const without = (addresses: string[], other?: Addresses): string[] => {
  const has = new Set(other ? addressesOf(other) : []);
  return addresses.filter((a) => !has.has(a));
};

const keyedHash = (secret: string, accountId: string, address: string) =>
  createHmac('sha256', Buffer.from(secret, 'base64url')).update(`${accountId}\n${address}`).digest('hex');

const hashId = (secret: string, accountId: string, address: string) => `eoo_${keyedHash(secret, accountId, address)}`;

/** The deployment's key, made by the first caller that needs one. */
async function keyMade(tx: Tx): Promise<Secret> {
  // Two first erasures at once: the one that loses the race on the id runs again and reads the winner's.
  return (
    (await tx.get<Secret>(COLLECTION, KEY_ID)) ??
    (await tx.insert<Secret>(COLLECTION, { id: KEY_ID, secret: randomBytes(32).toString('base64url') }))
  );
}

/**
 * The keyed hashes of an account's addresses (as addressesOf writes them), for the other records an erased contact
 * leaves (domain/erasures.ts): none while no key was made.
 */
export async function hashesOf(r: Reader, accountId: string, addresses: string[]): Promise<string[]> {
  const key = await r.get<Secret>(COLLECTION, KEY_ID);
  return key ? addresses.map((a) => keyedHash(key.secret, accountId, a)) : [];
}

/** As hashesOf, in the transaction of an erasure, which makes the key when none was made yet. */
export async function hashesMade(tx: Tx, accountId: string, addresses: string[]): Promise<string[]> {
  const key = await keyMade(tx);
  return addresses.map((a) => keyedHash(key.secret, accountId, a));
}

/**
 * Keeps an opted-out contact's opt-out under its addresses (those `still` lacks: the addresses leaving it), in the
 * transaction that erases the contact or takes them from it.
 */
export async function keepOptOut(tx: Tx, contact: Addresses, optOut: ConsentChange, still?: Addresses): Promise<void> {
  const addresses = without(addressesOf(contact), still);
  if (!addresses.length) return;
  const key = await keyMade(tx);
  const { at, channel, keyword } = optOut;
  for (const address of addresses) {
    const id = hashId(key.secret, contact.accountId, address);
    if (!(await tx.get(COLLECTION, id))) await tx.insert<ErasedOptOut>(COLLECTION, { id, at, channel, keyword });
  }
}

/**
 * Erasing a contact who is not opted out (it never was, or opted in again since): an opt-out an earlier erased
 * contact left under its addresses is over, as the person's latest word was not STOP.
 */
export async function forgetOptOut(tx: Tx, contact: Addresses): Promise<void> {
  const key = await tx.get<Secret>(COLLECTION, KEY_ID);
  if (!key) return;
  for (const address of addressesOf(contact))
    await tx.remove(COLLECTION, hashId(key.secret, contact.accountId, address));
}

/** The opt-out an erased contact left under one of these addresses (those `before` lacked), if any. */
export async function erasedOptOutOf(
  r: Reader,
  contact: Addresses,
  before?: Addresses,
): Promise<ConsentChange | undefined> {
  const addresses = without(addressesOf(contact), before);
  if (!addresses.length) return undefined;
  const key = await r.get<Secret>(COLLECTION, KEY_ID);
  if (!key) return undefined;
  const found = await Promise.all(
    addresses.map((a) => r.get<ErasedOptOut>(COLLECTION, hashId(key.secret, contact.accountId, a))),
  );
  const kept = found.find((f) => f);
  return kept && { at: kept.at, channel: kept.channel, keyword: kept.keyword };
}
