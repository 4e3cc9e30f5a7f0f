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
import { arrivalOf, takeSlot, type Pacing } from './openings.js';
import { BURST, intervalMs, nextQueuedSend } from './pacing.js';

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
        const slot = await takeSlot(tx, campaign, clockNow());
        await settleOpening(tx, opening, { status: 'queued', held: null, ...slot, awaitsSlot: false });
        await queueOpening(tx, opening, slot.dueAt);
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
 * Job `campaign_pace`: the Live campaign's send rate or sending window changed (or changed while it was paused, and
 * it is Live again), which started a new round of its pace (newRound). The opening messages still waiting for slots
 * of an earlier round are paced anew, at its rate and within its window, in the order their contacts joined the list,
 * a batch per transaction: a slower rate or a narrower window holds them back, a faster rate or a wider window brings
 * them forward. They take the queue's next slots, never a burst's: the openings queued since the change (contacts
 * added, or reached at once as the campaign went Live) keep the slots, and the burst, they took. One waiting for its
 * delay takes its slot when the delay ends, as ever, at the window's opening as it is now (delayedAnew); one whose
 * contact left the list goes nowhere anyway.
 */
export async function runCampaignPace(gw: Gateway, { campaignId }: JobKinds['campaign_pace']): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const batch = await gw.store.transact(async (tx) => {
      const campaign = await campaignById(tx, campaignId);
      if (campaign?.status !== 'live' || !campaign.listId) return undefined;
      const round = (await tx.get<Pacing>('pacing', campaign.id))?.round ?? 0;
      const members = await tx.find<Membership>('memberships', 'list', [campaign.listId], {
        limit: PACE_BATCH,
        after,
      });
      for (const member of members) {
        const [found] = await tx.find<Opening>('openings', 'member', [campaign.id, member.contactId]);
        const opening = found && (await tx.lock<Opening>('openings', found.id));
        if (opening?.status === 'queued' && opening.awaitsSlot) await delayedAnew(tx, campaign, opening);
        if (opening?.status !== 'queued' || opening.awaitsSlot || (opening.round ?? 0) >= round) continue;
        const slot = await takeSlot(tx, campaign, clockNow(), nextQueuedSend);
        await tx.cancelJobs(openingKey(opening.id));
        await settleOpening(tx, opening, slot);
        await queueOpening(tx, opening, slot.dueAt);
      }
      return { last: members.at(-1)?.id, full: members.length === PACE_BATCH };
    });
    if (!batch?.full) return;
    after = batch.last;
  }
}

/**
 * A delayed opening is timed from when its delay ends to the opening of the window the campaign has now (another
 * zone, other hours, none): it was timed to the window's opening as it was when the contact was added. It still takes
 * its slot of the pace when it comes due. Older data, which kept no end of the delay, keeps its time.
 */
async function delayedAnew(tx: Tx, campaign: Campaign, opening: Opening): Promise<void> {
  if (opening.delayEndsAt == null) return;
  const dueAt = arrivalOf(campaign, Math.max(opening.delayEndsAt, clockNow()));
  if (dueAt === opening.dueAt) return;
  await tx.cancelJobs(openingKey(opening.id));
  await settleOpening(tx, opening, { dueAt });
  await queueOpening(tx, opening, dueAt);
}

/**
 * A new send rate or sending window for the openings waiting, in the transaction that changed it: the campaign's pace
 * starts its next round from now, its next slot one interval of the new rate after the last send. Changed while Live,
 * no burst follows (what waits is not a new addition). Live again after a pause (`live`), those added or reached from
 * now are additions and have their burst, so the next slot is an interval away: what waited never goes beside it.
 * The waiting openings are then paced anew by the job `campaign_pace`.
 */
export async function newRound(tx: Tx, campaign: Campaign, { live }: { live: boolean }): Promise<void> {
  const stored = await tx.lock<Pacing>('pacing', campaign.id);
  if (!stored) return;
  const at = clockNow();
  const interval = intervalMs(parseRate(campaign.sendRate));
  await tx.update<Pacing>('pacing', campaign.id, {
    round: (stored.round ?? 0) + 1,
    roundDue: false,
    burstStartedAt: at,
    burstCount: live ? 0 : BURST,
    nextSlotAt: Math.max(live ? at + interval : at, (stored.lastSentAt ?? 0) + interval),
  });
}

/** A rate or window changed while the campaign is not Live: its next round starts once it is Live again. */
export async function roundWhenLive(tx: Tx, campaign: Campaign): Promise<void> {
  if (await tx.lock<Pacing>('pacing', campaign.id)) await tx.update<Pacing>('pacing', campaign.id, { roundDue: true });
}

/** Whether the campaign going Live again starts the next round of its pace (a rate or window changed meanwhile). */
export const roundDue = async (tx: Tx, campaign: Campaign): Promise<boolean> =>
  (await tx.get<Pacing>('pacing', campaign.id))?.roundDue === true;
