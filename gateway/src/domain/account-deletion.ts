import { clockNow } from '../clock.js';
import { ApiError, notFound } from '../errors.js';
import { now } from '../ids.js';
import type { Doc, Store } from '../store/store.js';
import type { Account } from './accounts.js';
import { audit, type AuditBy } from './audit-log.js';
import { returnUnspent } from './credits.js';
import { newJob, type JobKinds } from './job-kinds.js';
import type { Media } from './media.js';
import type { accountDeletionAnswer } from '../contract/credits.js';
import type { Answer } from '../contract/shared.js';

/**
 * DELETE /admin/v1/accounts/{id}: the operator deletes an account and everything of it (GDPR art. 17; a processor's
 * duty at the end of its contract). One transaction removes the account's document and records the deletion
 * (`account_deletions`, its id the account's): from that commit the account is unknown everywhere at once, as an id
 * never given (its API key, its console sessions, its channels' provider webhooks, its custom channel, its jobs).
 * Then a job (`account_deletion`) removes the rest a batch per transaction, collection by collection as OWNERS says,
 * recording in the same transactions where it is and what it removed: a gateway stopped midway resumes where it was
 * when it starts again. The record is kept when done, the account's id and the counts only, for the operator to see
 * it finish (GET /admin/v1/accounts/{id}/deletion), and for its agency when it was a sub-account
 * (GET /v1/subaccounts/{id}/deletion). A sub-account's unspent balance goes back to its agency in that first
 * transaction: once, however often the deletion is asked or resumed.
 */

/** Documents removed per transaction: an account of any size never holds the store for long. */
export const DELETION_BATCH = 200;
/** Batches per run of the job: then it queues itself again, and the other jobs waiting take their turn. */
const BATCHES_PER_RUN = 25;

const DELETIONS = 'account_deletions';

export interface AccountDeletion {
  /** The deleted account's id. */
  id: string;
  status: 'deleting' | 'done';
  /** The agency it was a sub-account of, which follows its deletion; absent on deletions of earlier versions. */
  parentId?: string | null;
  startedAt: string;
  finishedAt: string | null;
  /**
   * The collection of OWNERS being walked (from OWNERS.length on, the second walk), and the last document of it walked
   * and kept (another account's).
   */
  step: number;
  after: string | null;
  /** Documents removed, per collection; `files`, the media files; `jobs`, the jobs waiting or dead. */
  removed: Record<string, number>;
}

/**
 * How the documents of an account are found in each collection of collections.ts; a collection added there without
 * a way here fails the gateway's tests (test/gateway/api-account-deletion.test.ts). In order: a collection whose
 * documents are found through another's (`campaign`) comes before that one.
 *
 * - `id`: the one document whose id is the account's.
 * - `index`: found by an index on the account's id alone; those holding the field `keeps` stay.
 * - `campaign`: one document per campaign of the account, its id the campaign's.
 * - `field`: the documents holding the account's id as `accountId`, found by walking the collection, as no index
 *   finds them by account alone.
 * - `none`: holds nothing of the account that could be told apart, and why.
 */
export type Owner =
  | { by: 'id' }
  | { by: 'index'; index: string; keeps?: string }
  | { by: 'campaign' }
  | { by: 'field' }
  | { by: 'none'; why: string };

export const OWNERS: ReadonlyArray<readonly [string, Owner]> = [
  ['accounts', { by: 'id' }],
  ['sessions', { by: 'index', index: 'account' }],
  ['members', { by: 'index', index: 'account' }],
  ['webhooks', { by: 'index', index: 'account' }],
  // Its files' bytes go before their records: a stop between the two leaves the record, found again on resuming.
  ['media', { by: 'field' }],
  ['messages', { by: 'field' }],
  ['deliveries', { by: 'field' }],
  ['notes', { by: 'field' }],
  ['idempotency', { by: 'field' }],
  ['inbound_turns', { by: 'field' }],
  ['openings', { by: 'field' }],
  ['failed_openings', { by: 'field' }],
  ['funnel_steps', { by: 'field' }],
  ['funnel_counts', { by: 'field' }],
  ['unreachable', { by: 'field' }],
  ['unreachable_counts', { by: 'field' }],
  ['unanswered', { by: 'field' }],
  ['pacing', { by: 'campaign' }],
  ['campaigns', { by: 'index', index: 'account' }],
  ['conversations', { by: 'index', index: 'account' }],
  ['memberships', { by: 'field' }],
  ['import_chunks', { by: 'field' }],
  ['imports', { by: 'field' }],
  ['lists', { by: 'index', index: 'account' }],
  ['contact_search', { by: 'field' }],
  ['external_ids', { by: 'field' }],
  ['contacts', { by: 'field' }],
  ['saved_replies', { by: 'index', index: 'account' }],
  ['audit_log', { by: 'index', index: 'account' }],
  ['assignment_turns', { by: 'id' }],
  // Its own credit history. An agency's grants to it are the agency's records too (its history shows them): they stay,
  // naming it by id, until the agency is deleted in turn.
  ['transactions', { by: 'index', index: 'account', keeps: 'grantedBy' }],
  ['transactions', { by: 'index', index: 'grantedBy' }],
  [
    'erased_opt_outs',
    {
      by: 'none',
      why: "keyed hashes of erased contacts' addresses, made with the account's id: nothing readable, and no account can ever match them again",
    },
  ],
  ['erasures', { by: 'none', why: 'keyed hashes as erased_opt_outs, and when: forgotten after 7 days' }],
  [DELETIONS, { by: 'none', why: "the record of a deletion itself: the account's id and counts only" }],
];

/**
 * 409 for an agency that still has sub-accounts. The operator is told which (their own accounts to delete first); an
 * agency deleting one of its sub-accounts is not: the sub-account's own clients are none of its business.
 */
function hasSubaccounts(account: Account, subs: Account[], askedByAgency: boolean): ApiError {
  if (askedByAgency)
    return new ApiError(
      409,
      'ACCOUNT_HAS_SUBACCOUNTS',
      `${account.name} is an agency with sub-accounts of its own: it deletes them first (DELETE /v1/subaccounts/{id}, with its own API key or console), then it can be deleted`,
    );
  const named = subs.map((s) => `${s.email} (${s.id})`).join(', ');
  return new ApiError(
    409,
    'ACCOUNT_HAS_SUBACCOUNTS',
    `The agency has sub-accounts (${named}${subs.length === 3 ? ', …' : ''}): delete each of them first (GET /admin/v1/accounts gives each account's parentId), then the agency`,
  );
}
/**
 * Starts the deletion (202): the account is gone at once, its data goes in the background. Refused while it is an
 * agency with sub-accounts. An account being deleted answers its deletion again (and its job is queued again, should
 * it have died); an id never known, 404. With `agency` (an agency deleting its sub-account), any account that is not
 * or was not one of that agency's answers exactly like a missing sub-account, and nothing happens; the deletion
 * started is an entry of the agency's audit log, naming who asked for it.
 */
export async function deleteAccount(
  store: Store,
  accountId: string,
  agency?: { id: string; by: AuditBy },
): Promise<AccountDeletion> {
  const agencyId = agency?.id;
  const missing = () => (agencyId === undefined ? notFound('Account') : notFound('Sub-account'));
  const deletion = await store.transact(async (tx) => {
    const account = await tx.lock<Account>('accounts', accountId);
    if (agencyId !== undefined && account && account.parentId !== agencyId) throw missing();
    if (!account) {
      const earlier = await tx.get<AccountDeletion>(DELETIONS, accountId);
      if (!earlier || (agencyId !== undefined && earlier.parentId !== agencyId)) throw missing();
      if (earlier.status === 'deleting') await tx.enqueue(deletionJob(accountId));
      return earlier;
    }
    const subs = await tx.find<Account>('accounts', 'parentId', [accountId], { limit: 3 });
    if (subs.length) throw hasSubaccounts(account, subs, agencyId !== undefined);
    await tx.remove('accounts', accountId);
    // In the transaction that removes the account: a retry, a restart or a second deletion finds no balance to return.
    await returnUnspent(tx, account);
    await tx.enqueue(deletionJob(accountId));
    await audit(tx, agency?.by, 'subaccount.deleted', { type: 'subaccount', id: account.id, name: account.name });
    return tx.insert<AccountDeletion>(DELETIONS, {
      id: accountId,
      status: 'deleting',
      parentId: account.parentId,
      startedAt: now(),
      finishedAt: null,
      step: 0,
      after: null,
      removed: { accounts: 1 },
    });
  });
  // Nothing of it may run from now on: what a runner holds already ends finding no account.
  if (deletion.status === 'deleting') await store.jobs.discardOfAccount(accountId);
  return deletion;
}

/** The deletion of an account, as the operator follows it; 404 when the account was never deleted. */
export async function accountDeletion(store: Store, accountId: string): Promise<AccountDeletion> {
  const deletion = await store.get<AccountDeletion>(DELETIONS, accountId);
  if (!deletion) throw notFound('Account deletion', 'No deletion of this account');
  return deletion;
}

/**
 * The deletion of one of the agency's sub-accounts, as the agency follows it. Another agency's, or any other account,
 * answers exactly like a missing sub-account; one of its own not deleted, 404 SUB_ACCOUNT_DELETION_NOT_FOUND.
 */
export async function subAccountDeletion(store: Store, agencyId: string, accountId: string): Promise<AccountDeletion> {
  const deletion = await store.get<AccountDeletion>(DELETIONS, accountId);
  if (deletion?.parentId === agencyId) return deletion;
  const account = await store.get<Account>('accounts', accountId);
  if (account?.parentId !== agencyId) throw notFound('Sub-account');
  throw notFound('Sub-account deletion', 'This sub-account is not being deleted');
}

/** A deletion as the operator and the agency follow it: the account's id, whether its data is gone yet, what went. */
export const publicDeletion = (d: AccountDeletion): Answer<typeof accountDeletionAnswer> => ({
  accountId: d.id,
  status: d.status,
  startedAt: d.startedAt,
  finishedAt: d.finishedAt,
  removed: d.removed,
});

/** The job of a deletion: queued without an account, so that removing the account's jobs leaves it. */
const deletionJob = (accountId: string) =>
  newJob('account_deletion', { accountId }, { key: `account_deletion:${accountId}` });

/** Job `account_deletion`: some batches, then it runs again, until every collection is walked. */
export async function runAccountDeletion(
  gw: { store: Store },
  { accountId }: JobKinds['account_deletion'],
): Promise<{ later: number } | void> {
  for (let n = 0; n < BATCHES_PER_RUN; n++) {
    if (!(await deleteBatch(gw.store, accountId))) return;
  }
  return { later: clockNow() };
}

/**
 * The collections are walked twice: what a request or a job that had read the account before its deletion wrote
 * after the first walk had passed its collection is found by the second.
 */
const STEPS = OWNERS.length * 2;

/**
 * One batch of the deletion: true while more is left. A walk step that found nothing more moves to the next
 * collection; after the last, the jobs queued meanwhile go and the deletion is done.
 */
export async function deleteBatch(store: Store, accountId: string): Promise<boolean> {
  const deletion = await store.get<AccountDeletion>(DELETIONS, accountId);
  if (!deletion || deletion.status === 'done') return false;
  const entry = deletion.step < STEPS ? OWNERS[deletion.step % OWNERS.length] : undefined;
  if (!entry) {
    // A file no record points at (its record's transaction never committed, the process stopped between) goes too.
    await store.blobs.deleteAccount(accountId);
    const jobs = await store.jobs.discardOfAccount(accountId);
    await store.transact(async (tx) => {
      const held = await tx.lock<AccountDeletion>(DELETIONS, accountId);
      if (held?.status !== 'deleting') return;
      await tx.update<AccountDeletion>(DELETIONS, accountId, {
        status: 'done',
        finishedAt: now(),
        after: null,
        removed: add(held.removed, 'jobs', jobs),
      });
    });
    return false;
  }
  const [collection, owner] = entry;
  const { batch, after, done } = await nextBatch(store, collection, owner, accountId, deletion.after);
  // Bytes first: a record still there is found again, a file without one would be found by nothing.
  if (collection === 'media') for (const m of batch as Media[]) await store.blobs.delete(accountId, m.id);
  await store.transact(async (tx) => {
    const held = await tx.lock<AccountDeletion>(DELETIONS, accountId);
    if (held?.status !== 'deleting' || held.step !== deletion.step) return;
    for (const doc of batch) await tx.remove(collection, doc.id);
    let removed = add(held.removed, collection, batch.length);
    if (collection === 'media') removed = add(removed, 'files', batch.length);
    await tx.update<AccountDeletion>(
      DELETIONS,
      accountId,
      done ? { step: held.step + 1, after: null, removed } : { after, removed },
    );
  });
  return true;
}

/** The next documents of the account in `collection` from `after`, where the walk goes on, and whether it ends here. */
async function nextBatch(
  store: Store,
  collection: string,
  owner: Owner,
  accountId: string,
  after: string | null,
): Promise<{ batch: Doc[]; after: string | null; done: boolean }> {
  const page = { limit: DELETION_BATCH, ...(after ? { after } : {}) };
  switch (owner.by) {
    case 'none':
      return { batch: [], after: null, done: true };
    case 'id': {
      const doc = await store.get(collection, accountId);
      return { batch: doc ? [doc] : [], after: null, done: true };
    }
    case 'index': {
      // What it finds goes but what it keeps: the walk goes on after the last of those.
      const docs = await store.find<Doc & Record<string, unknown>>(collection, owner.index, [accountId], page);
      const kept = (d: Record<string, unknown>) => owner.keeps !== undefined && d[owner.keeps] != null;
      return {
        batch: docs.filter((d) => !kept(d)),
        after: docs.filter(kept).at(-1)?.id ?? after,
        done: docs.length < DELETION_BATCH,
      };
    }
    case 'campaign': {
      // The campaigns stay until their own step: the walk pages through them.
      const campaigns = await store.find('campaigns', 'account', [accountId], page);
      const found = await Promise.all(campaigns.map((c) => store.get(collection, c.id)));
      return {
        batch: found.filter((d): d is Doc => d !== undefined),
        after: campaigns.at(-1)?.id ?? after,
        done: campaigns.length < DELETION_BATCH,
      };
    }
    case 'field': {
      // Another account's documents stay: the walk goes on after the last of them it saw.
      const docs = await store.scan<Doc & { accountId?: string }>(collection, page);
      // The document the walk went on after was removed since (another account's erasure): it starts again.
      if (!docs.length && after && !(await store.get(collection, after)))
        return { batch: [], after: null, done: false };
      const batch = docs.filter((d) => d.accountId === accountId);
      const kept = docs.filter((d) => d.accountId !== accountId).at(-1);
      return { batch, after: kept?.id ?? after, done: docs.length < DELETION_BATCH };
    }
  }
}

const add = (removed: Record<string, number>, what: string, n: number): Record<string, number> =>
  n ? { ...removed, [what]: (removed[what] ?? 0) + n } : removed;
