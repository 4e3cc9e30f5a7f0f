import type { Gateway } from '../context.js';
import { audit, changedKeys, type AuditBy } from '../domain/audit-log.js';
import { campaignTarget, changeCampaign, type Campaign, type CampaignFields } from '../domain/campaigns.js';
import { newJob, type JobKind } from '../domain/job-kinds.js';
import { sameWindow } from '../domain/sending-window.js';
import type { Tx } from '../store/store.js';
import { newRound, roundDue, roundWhenLive } from './campaign-queue.js';

/**
 * PATCH /v1/campaigns/{id}: the change (under the request's If-Match, see changeCampaign), and in the same transaction what it means for what waits. Live again, what a
 * pause held goes back to the queue; a new send rate or sending window holds for the openings waiting (at once while
 * Live, once Live again after a pause); new follow-up delays or a new window hold for the follow-ups waiting. Each is
 * a job of its own: a big campaign holds many. Another list needs none: each opening and follow-up is judged against
 * the list the campaign has when it is due (engine/openings.ts, engine/follow-ups.ts).
 */
export async function updateCampaign(
  gw: Gateway,
  accountId: string,
  id: string,
  patch: Partial<CampaignFields>,
  precondition?: (version: number) => void,
  by?: AuditBy,
): Promise<Campaign> {
  return gw.store.transact(async (tx) => {
    const { before, after } = await changeCampaign(tx, accountId, id, patch, precondition);
    await auditChange(tx, by, before, after, Object.keys(patch) as Array<keyof Campaign & string>);
    const live = after.status === 'live';
    if (before.status !== 'live' && live) {
      await later(tx, 'campaign_resume', after);
      if (pacedAnew(before, after) || (await roundDue(tx, after))) await paceAnew(tx, after, { live: true });
    } else if (live && pacedAnew(before, after)) await paceAnew(tx, after, { live: false });
    else if (!live && pacedAnew(before, after)) await roundWhenLive(tx, after);
    if (after.status !== 'draft' && followUpsRetimed(before, after)) await later(tx, 'campaign_follow_ups', after);
    return after;
  });
}

/** Archiving is an entry of its own: what else the same change named is campaign.changed beside it. */
async function auditChange(tx: Tx, by: AuditBy | undefined, before: Campaign, after: Campaign, asked: string[]) {
  const keys = changedKeys(before, after, asked as Array<keyof Campaign & string>);
  const archived = before.status !== 'archived' && after.status === 'archived';
  if (archived) await audit(tx, by, 'campaign.archived', campaignTarget(after));
  const others = archived ? keys.filter((k) => k !== 'status') : keys;
  if (others.length) await audit(tx, by, 'campaign.changed', campaignTarget(after), { keys: others });
}

/** Whether the change holds for the opening messages already waiting: a new send rate or sending window. */
const pacedAnew = (before: Campaign, after: Campaign) =>
  after.sendRate !== before.sendRate || !sameWindow(after.sendingWindow, before.sendingWindow);

/** The pace's next round, from this transaction on; the openings waiting for slots of the last are paced anew. */
async function paceAnew(tx: Tx, campaign: Campaign, { live }: { live: boolean }): Promise<void> {
  await newRound(tx, campaign, { live });
  await later(tx, 'campaign_pace', campaign);
}

/**
 * Whether the change holds for the follow-ups already waiting: a step's new delay, steps added or taken away, a new
 * sending window.
 */
const followUpsRetimed = (before: Campaign, after: Campaign) =>
  JSON.stringify(after.followUps.steps.map((s) => s.after)) !==
    JSON.stringify(before.followUps.steps.map((s) => s.after)) ||
  !sameWindow(after.sendingWindow, before.sendingWindow);

/** The campaign's job of `kind`, one waiting at most (a second change finds it waiting, and it reads the campaign then). */
const later = (tx: Tx, kind: Extract<JobKind, `campaign_${string}`>, campaign: Campaign) =>
  tx.enqueue(
    newJob(kind, { campaignId: campaign.id }, { key: `${kind}:${campaign.id}`, accountId: campaign.accountId }),
  );
