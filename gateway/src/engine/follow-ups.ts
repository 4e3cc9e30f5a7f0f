import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { campaignById, stopped, type Campaign } from '../domain/campaigns.js';
import type { Contact } from '../domain/contacts.js';
import { updateConversation, type Conversation } from '../domain/conversations.js';
import { followUpKey } from '../domain/follow-up-timers.js';
import { isOnCampaignList } from '../domain/lists.js';
import { openedByList } from '../domain/openings.js';
import { iso } from '../ids.js';
import type { Message } from '../domain/messages.js';
import { isOpening } from '../domain/failed-openings.js';
import type { JobResult, Tx } from '../store/store.js';
import { newJob, type JobKinds } from '../domain/job-kinds.js';
import { DAY_MS, parseDuration } from '../domain/durations.js';
import { sendOnConversation } from './outgoing.js';
import { personalize } from '../domain/personalize.js';
import { isOpen, nextOpening } from '../domain/sending-window.js';
import { addLocalDays } from '../domain/time-zone.js';
import { clockNow } from '../clock.js';

/** The steps the campaign follows up with now: none while its follow-ups are off. */
const stepsOf = (campaign: Campaign) => (campaign.followUps.enabled ? campaign.followUps.steps : []);

/**
 * `after` (a step's delay) past `from`: its whole days on the calendar of `timezone`, the sending window's, so that a
 * follow-up "after 1d" goes at the same local time the next day whichever way the clocks turned overnight (the lead
 * is written to at the hour the opening went, not an hour off, nor past the window's end); its hours, minutes and
 * seconds, and all of it without a window, as elapsed time.
 */
function laterBy(after: string, from: number, timezone: string | undefined): number {
  const ms = parseDuration(after);
  if (!timezone) return from + ms;
  const days = Math.floor(ms / DAY_MS);
  return addLocalDays(timezone, from, days) + (ms - days * DAY_MS);
}

/**
 * When timer `step` counted from `from` (epoch ms) is due by the campaign's steps as they are now (`due`; now, and
 * `late`, when that time has passed), and when it acts (`at`: for a follow-up due outside the sending window, the
 * window's next opening); undefined past the closing timer or with no steps. After the last step one more timer runs,
 * as long as the last step's delay: a lead who let it pass unanswered closes the conversation (that sends nothing, so
 * it keeps no window).
 */
export function followUpTime(
  campaign: Campaign,
  step: number,
  from: number,
): { kind: 'follow_up' | 'close'; due: number; at: number; late: boolean } | undefined {
  const steps = stepsOf(campaign);
  if (steps.length === 0 || step > steps.length) return undefined;
  const due = laterBy(steps[Math.min(step, steps.length - 1)]!.after, from, campaign.sendingWindow?.timezone);
  const late = due < clockNow();
  const window = step < steps.length ? campaign.sendingWindow : null;
  const at = late ? clockNow() : due;
  return {
    kind: step < steps.length ? 'follow_up' : 'close',
    due: at,
    at: window ? nextOpening(window, at) : at,
    late,
  };
}

/**
 * Sets the timer of follow-up `step` (0 = the first), counted from `from` (epoch ms), the time of the message before
 * it, which the conversation keeps so that a step's delay changed later times it anew from there. The conversation
 * shows when it goes: for one due outside the campaign's sending window, the window's next opening (the timer still
 * runs when due and looks at the window then, which may have changed meanwhile). `goesAt`: the paced time of one
 * an edit made past due (engine/campaign-follow-ups.ts).
 */
export async function scheduleFollowUp(
  tx: Tx,
  campaign: Campaign,
  conversation: Conversation,
  step: number,
  from: number,
  goesAt?: number,
): Promise<Conversation> {
  const time = followUpTime(campaign, step, from);
  if (!time) return updateConversation(tx, conversation, { next: null, followUpHeld: null, followUpFrom: null });
  await tx.enqueue(
    newJob(
      'follow_up',
      { conversationId: conversation.id, step },
      { runAt: goesAt ?? time.due, key: followUpKey(conversation.id, step), accountId: conversation.accountId },
    ),
  );
  return updateConversation(tx, conversation, {
    next: { kind: time.kind, at: iso(goesAt ?? time.at), step },
    followUpHeld: null,
    followUpFrom: iso(from),
    followUpFailed: null,
  });
}

/**
 * When the message before the conversation's waiting follow-up went: kept since it was timed; for a conversation
 * timed before that was kept, its last message, when that is the campaign's.
 */
export function followUpFrom(conversation: Conversation): number | undefined {
  if (conversation.followUpFrom) return Date.parse(conversation.followUpFrom);
  const last = conversation.lastMessage;
  return last?.direction === 'outgoing' ? Date.parse(last.createdAt) : undefined;
}

/**
 * A campaign message that failed at once went out on a retry: an opening, or the follow-up that holds the next ones
 * (runFollowUp). The follow-ups after it are timed from now, as they would have been from its first send, unless the
 * lead wrote since it failed or the conversation is no longer the campaign's to follow up (handed off, opted out,
 * closed).
 */
export async function followRetried(tx: Tx, message: Message): Promise<void> {
  const conversation = message.conversationId
    ? await tx.get<Conversation>('conversations', message.conversationId)
    : undefined;
  if (!conversation || !message.campaignId) return;
  const held = conversation.followUpFailed;
  const step = isOpening(message) ? 0 : held?.messageId === message.id ? held.step + 1 : undefined;
  if (step === undefined || conversation.status !== 'active' || conversation.next) return;
  if (wroteSince(conversation, message)) return;
  const campaign = await campaignById(tx, message.campaignId);
  if (campaign?.status === 'live') await scheduleFollowUp(tx, campaign, conversation, step, clockNow());
  // Sent while the campaign is paused (or archived): the step waits as a pause holds one, timed anew once it is Live
  // again.
  else if (stopped(campaign))
    await updateConversation(tx, conversation, {
      next: { kind: 'follow_up', at: iso(clockNow()), step },
      followUpHeld: 'held',
    });
}

/** Whether the lead wrote after the message was made: a follow-up that failed then is not sent after their words. */
export const wroteSince = (conversation: Conversation, message: Message) =>
  conversation.lastIncomingAt !== null && conversation.lastIncomingAt >= message.createdAt;

/**
 * Whether this job is the conversation's timer for follow-up `step` (or, past the last, for its closing): its `next`
 * names the one timer that may act, so a job run again after it acted (the queue runs each at least once) finds it
 * gone.
 */
const isTimerOf = (conversation: Conversation | undefined, step: number): conversation is Conversation =>
  (conversation?.next?.kind === 'follow_up' || conversation?.next?.kind === 'close') && conversation.next.step === step;

/**
 * Whether the conversation still waits for the lead: active, with the lead's message not the latest. A timer that
 * finds it no longer waits only clears `next`: a conversation never shows a follow-up that nothing will send.
 */
const waitsForLead = (conversation: Conversation) =>
  conversation.status === 'active' && conversation.lastMessage?.direction !== 'incoming';

/**
 * Whether the conversation came by the campaign's list (its opening went to the contact there) and the contact is on
 * it no more: taken off it, or the campaign moved to another list the contact is not on. Its follow-ups stop then, and
 * so does its closing: the conversation stays, and the bot still answers the lead who writes. Judged when one is due,
 * as an opening is: a campaign moved back before then sends it. A conversation the lead started by writing in owes
 * its follow-ups to no list.
 */
export const leftCampaignList = async (tx: Tx, campaign: Campaign, conversation: Conversation) =>
  !(await isOnCampaignList(tx, campaign, conversation.contactId)) &&
  (await openedByList(tx, campaign.id, conversation));

/**
 * Job `follow_up`: sends step `step` when the conversation still waits for the lead, or closes it after the last.
 * Follow-ups turned off meanwhile send nothing and close nothing: no follow-up went unanswered.
 */
export async function runFollowUp(gw: Gateway, { conversationId, step }: JobKinds['follow_up']): Promise<JobResult> {
  return gw.store.transact(async (tx) => {
    const conversation = await tx.get<Conversation>('conversations', conversationId);
    if (!isTimerOf(conversation, step)) return;
    if (!waitsForLead(conversation)) return void (await updateConversation(tx, conversation, { next: null }));
    const campaign = conversation.campaignId ? await campaignById(tx, conversation.campaignId) : undefined;
    if (!campaign || campaign.status === 'draft')
      return void (await updateConversation(tx, conversation, { next: null }));
    if (stopped(campaign)) return void (await updateConversation(tx, conversation, { followUpHeld: 'held' }));
    const steps = stepsOf(campaign);
    if (steps.length === 0) return void (await updateConversation(tx, conversation, { next: null }));
    // A step made longer since this timer was set: it waits for its new time.
    const from = followUpFrom(conversation);
    const time = from === undefined ? undefined : followUpTime(campaign, step, from);
    if (time && time.due > clockNow()) {
      await updateConversation(tx, conversation, { next: { kind: time.kind, at: iso(time.at), step } });
      return { later: time.due };
    }
    if (await leftCampaignList(tx, campaign, conversation))
      return void (await updateConversation(tx, conversation, { next: null }));
    if (step >= steps.length) {
      await updateConversation(tx, conversation, { status: 'closed', next: null });
      return;
    }
    const window = campaign.sendingWindow;
    if (window && !isOpen(window, clockNow())) {
      const at = nextOpening(window, clockNow());
      await updateConversation(tx, conversation, { next: { kind: 'follow_up', at: iso(at), step } });
      return { later: at };
    }
    const [account, contact] = await Promise.all([
      tx.get<Account>('accounts', conversation.accountId),
      tx.get<Contact>('contacts', conversation.contactId),
    ]);
    if (!account || !contact || contact.optOut)
      return void (await updateConversation(tx, conversation, { next: null }));
    const sent = await sendOnConversation(tx, gw, account, contact, conversation, {
      body: personalize(steps[step]!.body, contact),
      author: 'follow_up',
      campaignId: campaign.id,
    });
    // One that failed at once (no credits, no receiver) reached nobody: the next steps wait until a retry sends it
    // (followRetried), so the lead never gets a later step before an earlier one, and nothing closes meanwhile.
    if (sent.message.status === 'failed') {
      await updateConversation(tx, sent.conversation, {
        next: null,
        followUpFailed: { messageId: sent.message.id, step },
      });
      return;
    }
    await scheduleFollowUp(tx, campaign, sent.conversation, step + 1, clockNow());
  });
}

/** Live again: the follow-ups a pause held are timed anew from now, the step each was waiting for. */
export async function resumeFollowUps(tx: Tx, campaign: Campaign, conversation: Conversation): Promise<void> {
  const step = conversation.next?.step ?? campaign.followUps.steps.length;
  await scheduleFollowUp(tx, campaign, conversation, step, clockNow());
}
