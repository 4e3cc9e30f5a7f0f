import { AUDIT_LOG_DAYS, type AuditAction } from '../api-contract.js';
import { clockNow } from '../clock.js';
import type { auditEntry } from '../contract/audit-log.js';
import type { Answer } from '../contract/shared.js';
import { newId, now } from '../ids.js';
import type { Page, Reader, Store, Tx } from '../store/store.js';

/**
 * The account's audit log: who changed what, and when (a webhook deleted, the API key rotated, a member removed, a
 * contact erased). Each entry is written in the transaction of the change it records, so a change refused or rolled
 * back records nothing and one committed is never without its entry; a read worth recording (an export) records
 * once it was read whole. An entry names what it was done to and which settings or fields changed, never a value
 * that is a secret, a key, a password, a token or a message's text, and of a contact its id alone: an erasure
 * leaves its own entry and nothing the contact could be known by.
 */

/** Who acted, as the request proved it: a member's console sign-in (the owner's included) or the API key. */
export interface AuditActor {
  type: 'member' | 'api_key';
  /** The member's id; null for the API key. */
  id: string | null;
  name: string;
}

/** Whose change an entry records: the account and who acted. Absent for changes nobody of the team made. */
export interface AuditBy {
  accountId: string;
  actor: AuditActor;
}

export type AuditTarget = Answer<typeof auditEntry>['target'];
export type AuditDetails = Answer<typeof auditEntry>['details'];

export interface AuditEntry {
  id: string;
  accountId: string;
  at: string;
  action: AuditAction;
  actorType: AuditActor['type'];
  /** The member's id, or API_KEY_ACTOR: the index ?actorId= reads, which skips a field that is null. */
  actorId: string;
  actorName: string;
  target: AuditTarget;
  details: AuditDetails;
}

/** What ?actorId= names the API key by, as it has no member id. */
export const API_KEY_ACTOR = 'api_key';

const COLLECTION = 'audit_log';
const KEEP_MS = AUDIT_LOG_DAYS * 24 * 3_600_000;

/** A contact as the audit log names it: by its id alone, never by what it could be known by. */
export const contactTarget = (id: string) => ({ type: 'contact' as const, id, name: null });

/** A list as the audit log names it: by its name as it was then. */
export const listTarget = (l: { id: string; name: string }) => ({ type: 'list' as const, id: l.id, name: l.name });

/** Records `action` by `by` in `tx`, the change's own transaction; nothing when nobody of the team acted. */
export async function audit(
  tx: Tx,
  by: AuditBy | undefined,
  action: AuditAction,
  target: AuditTarget,
  details: AuditDetails = {},
): Promise<void> {
  if (!by) return;
  await tx.insert<AuditEntry>(COLLECTION, {
    id: newId('aud'),
    accountId: by.accountId,
    at: now(),
    action,
    actorType: by.actor.type,
    actorId: by.actor.id ?? API_KEY_ACTOR,
    actorName: by.actor.name,
    target,
    details,
  });
}

/** Records what changed nothing in the store (an export): in a transaction of its own, once it was done. */
export const auditAlone = (
  store: Store,
  by: AuditBy | undefined,
  action: AuditAction,
  target: AuditTarget,
  details?: AuditDetails,
): Promise<void> => store.transact((tx) => audit(tx, by, action, target, details));

export const publicAuditEntry = (e: AuditEntry): Answer<typeof auditEntry> => ({
  id: e.id,
  at: e.at,
  action: e.action,
  actor: { type: e.actorType, id: e.actorType === 'api_key' ? null : e.actorId, name: e.actorName },
  target: e.target,
  details: e.details,
});

/** GET /v1/audit-log: the account's entries newest first, of one action, one actor, or both. */
export function auditLogOf(
  r: Reader,
  accountId: string,
  filter: { action?: AuditAction; actorId?: string },
  page: Page,
): Promise<AuditEntry[]> {
  const desc = { ...page, order: 'desc' as const };
  if (filter.action !== undefined && filter.actorId !== undefined)
    return r.find<AuditEntry>(COLLECTION, 'actionActor', [accountId, filter.action, filter.actorId], desc);
  if (filter.action !== undefined) return r.find<AuditEntry>(COLLECTION, 'action', [accountId, filter.action], desc);
  if (filter.actorId !== undefined) return r.find<AuditEntry>(COLLECTION, 'actor', [accountId, filter.actorId], desc);
  return r.find<AuditEntry>(COLLECTION, 'account', [accountId], desc);
}

/**
 * Housekeeping: entries older than AUDIT_LOG_DAYS go. The log is only ever added to, so its oldest entries come
 * first: the walk stops at the first one still kept, and costs what it removes, not what the log holds.
 */
export async function forgetOldAuditEntries(store: Store): Promise<number> {
  const before = new Date(clockNow() - KEEP_MS).toISOString();
  let forgotten = 0;
  for (;;) {
    const oldest = await store.scan<AuditEntry>(COLLECTION, { limit: 100 });
    const past = oldest.filter((e) => e.at < before);
    if (past.length === 0) return forgotten;
    forgotten += await store.transact(async (tx) => {
      for (const e of past) await tx.remove(COLLECTION, e.id);
      return past.length;
    });
    if (past.length < oldest.length) return forgotten;
  }
}

/** Which of `keys` a change gave another value: what an entry names, so that saving a form unchanged names none. */
export const changedKeys = <T extends object>(before: T, after: T, keys: ReadonlyArray<keyof T & string>): string[] =>
  keys.filter((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null));
