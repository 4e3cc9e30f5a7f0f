import type { Gateway } from '../context.js';
import { campaignById, type Campaign } from '../domain/campaigns.js';
import type { Conversation } from '../domain/conversations.js';
import { parseRate } from '../domain/durations.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { Membership } from '../domain/lists.js';
import { openingKey, queueOpening, settleOpening, type Opening } from '../domain/openings.js';
import type { Tx } from '../store/store.js';
import { clockNow } from '../clock.js';
import { resumeFollowUps } from './follow-ups.js';
import { takeSlot, type Pacing } from './openings.js';
import { BURST, intervalMs } from './pacing.js';

/**
 * A campaign's queue taken up again as a whole: what a pause held once it is Live again, and what waits for its slot
 * once its send rate changed. Each walks the campaign a batch per transaction, in a job of its own.
 */

const RESUME_BATCH = 100;

/**
 * Job `campaign_resume`: the campaign is Live again. What its pause held goes back to the queue, a batch per
 * transaction: opening messages paced anew from now in the order they were added, follow-ups timed anew.
 */
export async function runCampaignResume(gw: Gateway, { campaignId }: JobKinds['campaign_resume']): Promise<void> {
  for (;;) {
    const more = await gw.store.transact(async (tx) => {
      const campaign = await campaignById(tx, campaignId);
      if (campaign?.status !== 'live') return false;
      const openings = await tx.find<Opening>('openings', 'held', [campaignId, 'held'], { limit: RESUME_BATCH });
      for (const opening of openings) {
        const dueAt = await takeSlot(tx, campaign, clockNow());
        await settleOpening(tx, opening, { status: 'queued', held: null, dueAt, awaitsSlot: false });
        await queueOpening(tx, opening, dueAt);
      }
      const room = RESUME_BATCH - openings.length;
      const conversations =
        room > 0
          ? await tx.find<Conversation>('conversations', 'heldFollowUp', [campaignId, 'held'], { limit: room })
          : [];
      for (const conversation of conversations) {
        await resumeFollowUps(tx, campaign, conversation);
      }
      return openings.length + conversations.length === RESUME_BATCH;
    });
    if (!more) return;
  }
}

const PACE_BATCH = 100;

/**
 * Job `campaign_pace`: the Live campaign's send rate or sending window changed. The opening
 * messages waiting for their slots are paced anew from now, at its rate and within its window, in the order their
 * contacts joined the list, a batch per transaction: a slower rate or a narrower window holds the queue back, a
 * faster rate or a wider window brings it forward. One waiting for its delay takes its slot when the delay ends, as
 * ever; one whose contact left the list goes nowhere anyway.
 */
export async function runCampaignPace(gw: Gateway, { campaignId }: JobKinds['campaign_pace']): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const batch = await gw.store.transact(async (tx) => {
      const campaign = await campaignById(tx, campaignId);
      if (campaign?.status !== 'live' || !campaign.listId) return undefined;
      if (after === undefined) await restartPace(tx, campaign);
      const members = await tx.find<Membership>('memberships', 'list', [campaign.listId], {
        limit: PACE_BATCH,
        after,
      });
      for (const member of members) {
        const [found] = await tx.find<Opening>('openings', 'member', [campaign.id, member.contactId]);
        const opening = found && (await tx.lock<Opening>('openings', found.id));
        if (opening?.status !== 'queued' || opening.awaitsSlot) continue;
        const dueAt = await takeSlot(tx, campaign, clockNow());
        await tx.cancelJobs(openingKey(opening.id));
        await settleOpening(tx, opening, { dueAt });
        await queueOpening(tx, opening, dueAt);
      }
      return { last: members.at(-1)?.id, full: members.length === PACE_BATCH };
    });
    if (!batch?.full) return;
    after = batch.last;
  }
}

/**
 * The campaign's queue starts again from now: no burst (what waits is not a new addition), and the next slot one
 * interval of the new rate after the last send.
 */
async function restartPace(tx: Tx, campaign: Campaign): Promise<void> {
  const stored = await tx.lock<Pacing>('pacing', campaign.id);
  if (!stored) return;
  const at = clockNow();
  const nextSlotAt = Math.max(at, (stored.lastSentAt ?? 0) + intervalMs(parseRate(campaign.sendRate)));
  await tx.update<Pacing>('pacing', campaign.id, { burstStartedAt: at, burstCount: BURST, nextSlotAt });
}
