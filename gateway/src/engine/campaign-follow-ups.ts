import type { Gateway } from '../context.js';
import { campaignById, type Campaign } from '../domain/campaigns.js';
import type { Conversation } from '../domain/conversations.js';
import { parseRate } from '../domain/durations.js';
import { followUpKey } from '../domain/follow-up-timers.js';
import type { JobKinds } from '../domain/job-kinds.js';
import { nextOpening } from '../domain/sending-window.js';
import { iso } from '../ids.js';
import { batchesOf } from '../store/batches.js';
import type { Tx } from '../store/store.js';
import { clockNow } from '../clock.js';
import { followUpFrom, followUpTime, scheduleFollowUp } from './follow-ups.js';
import { nextSend, withinWindow, type PacingState } from './pacing.js';

const BATCH = 100;

/** Gives the time at which a follow-up an edit made past due goes (epoch ms), each in turn. */
type Pace = (campaign: Campaign) => number;

/**
 * Job `campaign_follow_ups`: the campaign's follow-up delays or sending window changed. Each follow-up waiting (not
 * held by a pause) is timed anew from the message before it, under the steps and window the campaign has now, a
 * batch of its conversations per transaction. One the change made past due goes from now, paced like additions at
 * the campaign's send rate (the first 3 at once, then one per interval), so that an edit sends no burst. A change
 * made while the walk ran (its job then was not queued again) is walked again.
 */
export async function runCampaignFollowUps(
  gw: Gateway,
  { campaignId }: JobKinds['campaign_follow_ups'],
): Promise<void> {
  let state: PacingState | undefined;
  const pace: Pace = (campaign) => {
    const now = clockNow();
    const arrival = campaign.sendingWindow ? nextOpening(campaign.sendingWindow, now) : now;
    const next = withinWindow(nextSend, campaign.sendingWindow)(state, arrival, parseRate(campaign.sendRate));
    state = next.state;
    return next.sendAt;
  };
  for (;;) {
    const campaign = await campaignById(gw.store, campaignId);
    if (!campaign) return;
    await walk(gw, campaign, pace);
    if ((await campaignById(gw.store, campaignId))?.updatedAt === campaign.updatedAt) return;
  }
}

async function walk(gw: Gateway, { accountId, id }: Campaign, pace: Pace): Promise<void> {
  for await (const batch of batchesOf<Conversation>(gw.store, 'conversations', 'campaign', [accountId, id], {
    size: BATCH,
  }))
    await gw.store.transact(async (tx) => {
      const campaign = await campaignById(tx, id);
      if (!campaign || campaign.status === 'draft') return;
      for (const { doc } of batch) {
        const conversation = await tx.get<Conversation>('conversations', doc.id);
        if (conversation?.campaignId === id) await retime(tx, campaign, conversation, pace);
      }
    });
}

/**
 * The conversation's waiting follow-up (or closing) timed by the campaign's steps and window as they are now, from
 * the message before it. It keeps its step: one that went is not sent again, and its job is the one of that step.
 * Follow-ups turned off are left as they wait: their timer sends nothing, and turned on again they go.
 */
async function retime(tx: Tx, campaign: Campaign, conversation: Conversation, pace: Pace): Promise<void> {
  const { next } = conversation;
  if ((next?.kind !== 'follow_up' && next?.kind !== 'close') || conversation.followUpHeld) return;
  if (!campaign.followUps.enabled) return;
  const from = followUpFrom(conversation);
  if (from === undefined) return;
  const step = next.step!;
  const time = followUpTime(campaign, step, from);
  if (time && time.kind === next.kind && iso(time.at) === next.at) return;
  // Already going (its time has come, its job runs): it goes as it is.
  if (time?.late && Date.parse(next.at) <= clockNow()) return;
  await tx.cancelJobs(followUpKey(conversation.id, step));
  // Past due by the new rule: a follow-up goes from now, paced; a closing sends nothing and closes now.
  const goesAt = time?.late && time.kind === 'follow_up' ? pace(campaign) : undefined;
  await scheduleFollowUp(tx, campaign, conversation, step, from, goesAt);
}
