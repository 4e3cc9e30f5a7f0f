import type { Gateway } from '../context.js';
import { audit, listTarget, type AuditBy } from './audit-log.js';
import { ApiError } from '../errors.js';
import type { Tx } from '../store/store.js';
import { campaignsOfList, unlinkArchived, type Campaign } from './campaigns.js';
import type { Import } from './imports.js';
import { newJob, type JobKinds } from './job-kinds.js';
import { lockList, type Membership } from './lists.js';

/** Memberships removed per transaction once their list is gone: a list of any size never holds one for long. */
const MEMBERSHIPS_BATCH = 500;

/**
 * DELETE /v1/lists/{id}: the list goes with its import reports in one commit, and a job then removes its memberships a
 * batch per transaction; the contacts stay, they are the account's. A list gone is no list to anything that reads
 * memberships through it (its contacts, a contact's lists and export), so the memberships still waiting for the job
 * are never read. Refused while a campaign that is not archived is linked to it (its openings, reach and funnel read
 * the list) or an import into it has rows to apply: the message says what to do first. An archived campaign linked to
 * it is left with none.
 */
export async function deleteList(gw: Gateway, accountId: string, id: string, by?: AuditBy): Promise<void> {
  await gw.store.transact(async (tx) => {
    // Held until the commit: a campaign or an import linked to it meanwhile waits, then finds it gone.
    const list = await lockList(tx, accountId, id);
    const campaigns = await campaignsOfList(tx, accountId, id);
    refuseLinkedCampaigns(campaigns);
    const imports = await tx.find<Import>('imports', 'list', [id]);
    const running = imports.find((i) => i.status !== 'done');
    if (running)
      throw new ApiError(
        409,
        'LIST_IMPORT_RUNNING',
        `An import into this list is still running (${running.id}, ${running.processed} of ${running.total} rows): wait until GET /v1/imports/${running.id} says done, then delete the list`,
      );
    // A report names the rows' contacts, which the account's export and erasure reach through its list only.
    for (const report of imports) await tx.remove('imports', report.id);
    await unlinkArchived(tx, campaigns);
    await tx.remove('lists', id);
    await audit(tx, by, 'list.deleted', listTarget(list));
    await tx.enqueue(newJob('list_memberships', { listId: id }, { accountId, key: `list_memberships:${id}` }));
  });
}

/** The list's campaigns (`campaigns`) but the archived ones keep it. */
function refuseLinkedCampaigns(campaigns: Campaign[]): void {
  const linked = campaigns.filter((c) => c.status !== 'archived');
  if (linked.length === 0) return;
  const names = linked.map((c) => `"${c.name}" (${c.id})`).join(', ');
  throw new ApiError(
    409,
    'LIST_HAS_CAMPAIGNS',
    `The list is linked to ${linked.length === 1 ? 'the campaign' : 'the campaigns'} ${names}: link ${linked.length === 1 ? 'it' : 'each'} to another list (listId of PATCH /v1/campaigns/{id}; a campaign that is not Live may have none) or archive ${linked.length === 1 ? 'it' : 'them'}, then delete the list`,
  );
}

/**
 * Job `list_memberships`: the memberships of a deleted list go, a batch per transaction, until none is left. A list
 * still there (never the case: ids are not reused) keeps them.
 */
export async function removeListMemberships(gw: Gateway, { listId }: JobKinds['list_memberships']): Promise<void> {
  for (;;) {
    const more = await gw.store.transact(async (tx: Tx) => {
      if (await tx.get('lists', listId)) return false;
      const batch = await tx.find<Membership>('memberships', 'list', [listId], { limit: MEMBERSHIPS_BATCH });
      for (const m of batch) await tx.remove('memberships', m.id);
      return batch.length === MEMBERSHIPS_BATCH;
    });
    if (!more) return;
  }
}
