import { answersOnly } from '../api-contract.js';
import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { campaignById, campaignsOf, getCampaign, stopped, type Campaign } from '../domain/campaigns.js';
import { addressOf, type Contact } from '../domain/contacts.js';
import { isOnCampaignList, type Membership } from '../domain/lists.js';
import { ApiError } from '../errors.js';
import {
  channelKeyOf,
  conversationFor,
  removeConversation,
  updateConversation,
  type Conversation,
} from '../domain/conversations.js';
import { recordStep } from '../domain/funnel.js';
import { forgetUnreachable, isUnreachableReason, recordUnreachable } from '../domain/reach.js';
import {
  followedUpByAnother,
  openingsOf,
  queueOpening,
  settleOpening,
  stateOf,
  type Opening,
} from '../domain/openings.js';
import { iso, newId, now } from '../ids.js';
import type { JobResult, Tx } from '../store/store.js';
import type { JobKinds } from '../domain/job-kinds.js';
import { parseRate } from '../domain/durations.js';
import { scheduleFollowUp } from './follow-ups.js';
import { cancelFollowUps } from '../domain/follow-up-timers.js';
import { sendOnConversation } from './outgoing.js';
import { changeStatus } from '../domain/message-status-change.js';
import { OPTED_OUT } from '../domain/opted-out.js';
import { handOver, outsideWindow, outsideWindowMessage, readyAgain, type Refusal } from './sending.js';
import type { Message } from '../domain/messages.js';
import { nextSend, stalled, withinWindow, type PaceStep, type PacingState } from './pacing.js';
import { personalize } from '../domain/personalize.js';
import { isOpen, nextOpening } from '../domain/sending-window.js';
import { openingTemplateFor } from '../domain/whatsapp.js';
import { clockNow } from '../clock.js';
import type { reachExisting as reachExistingAnswer } from '../contract/campaigns.js';
import type { Answer } from '../contract/shared.js';

export interface Pacing extends PacingState {
  id: string;
  /** When the campaign's last opening message went (epoch ms). */
  lastSentAt?: number;
  /** When a send last found the campaign stalled: every send due before then takes a new slot. */
  stalledAt?: number;
  /**
   * The pace's round: a new send rate or sending window starts the next (engine/campaign-queue.ts), and the openings
   * whose slots are of an earlier one are paced anew. Absent on older data: 0.
   */
  round?: number;
  /** A rate or window changed while the campaign was not Live: the next round starts when it is Live again. */
  roundDue?: boolean;
}

/** A slot of the campaign's pace for one opening: when it goes, and the round it was taken in. */
export interface Slot {
  dueAt: number;
  round: number;
}

/**
 * In the add-to-list transaction (spec §3.2): each Live campaign of the list with its trigger on schedules its opening
 * message to the contact, `delayMs` from now, paced and within the campaign's sending window. Answers whether one of
 * them cannot reach the contact (no address on its channel, opted out).
 */
export async function onAddedToList(
  tx: Tx,
  accountId: string,
  listId: string,
  contact: Contact,
  delayMs = 0,
): Promise<{ unreachable: boolean }> {
  let unreachable = false;
  for (const campaign of await campaignsOf(tx, accountId)) {
    if (campaign.listId !== listId || !campaign.triggerOnNewContacts || campaign.status !== 'live') continue;
    if (isUnreachableReason(await scheduleOpening(tx, campaign, contact, delayMs))) unreachable = true;
  }
  return { unreachable };
}

/** What reaching a campaign's existing contacts did: the openings it queued, and why the others cannot go, by reason. */
export type ReachExisting = Answer<typeof reachExistingAnswer>;

const REACH_BATCH = 100;

/**
 * `POST /v1/campaigns/{id}/reach-existing`: every contact already on the Live campaign's list that has had no
 * opening message from it gets one, paced like new additions; those that cannot be reached are counted by reason.
 * A batch of the list per transaction. Each contact gets one at most, however many calls run at once on however
 * many processes: openings are unique per campaign and contact (a backend index), and a batch that loses that race
 * runs again and finds the opening there.
 */
export async function reachExisting(gw: Gateway, accountId: string, campaignId: string): Promise<ReachExisting> {
  const reached: ReachExisting = { queued: 0, unreachable: {} };
  let after: string | undefined;
  for (;;) {
    const batch = await gw.store.transact(async (tx) => {
      const campaign = await getCampaign(tx, accountId, campaignId);
      if (campaign.status !== 'live')
        throw new ApiError(
          409,
          'CAMPAIGN_NOT_LIVE',
          `The campaign is ${campaign.status}: ${campaign.status === 'archived' ? 'bring it back (status paused) and make' : 'make'} it Live to reach its list`,
        );
      if (!campaign.listId)
        throw new ApiError(
          409,
          'CAMPAIGN_WITHOUT_LIST',
          'The campaign has no list: give it one (listId) to reach its contacts',
        );
      const members = await tx.find<Membership>('memberships', 'list', [campaign.listId], {
        limit: REACH_BATCH,
        after,
      });
      const outcomes: Array<string | undefined> = [];
      for (const member of members) {
        const contact = await tx.get<Contact>('contacts', member.contactId);
        if (contact) outcomes.push(await scheduleOpening(tx, campaign, contact, 0));
      }
      return { last: members.at(-1)?.id, full: members.length === REACH_BATCH, outcomes };
    });
    for (const outcome of batch.outcomes) {
      if (outcome === QUEUED) reached.queued += 1;
      else if (outcome !== ALREADY) reached.unreachable[outcome!] = (reached.unreachable[outcome!] ?? 0) + 1;
    }
    if (!batch.full) return reached;
    after = batch.last;
  }
}

/** Why the opening message cannot go to this contact, or undefined when it can. */
function skipReason(campaign: Campaign, contact: Contact, conversation: Conversation): string | undefined {
  if (answersOnly(campaign.channel)) return 'no_first_message';
  if (contact.optOut) return 'opted_out';
  if (!addressOf(contact, campaign.channel, campaign.customChannel))
    return campaign.channel === 'custom' ? 'no_external_id' : 'no_phone';
  if (conversation.lastIncomingAt) return 'wrote_first';
  return undefined;
}

const QUEUED = 'queued';
const ALREADY = 'already';

/** Why an opening may not have gone that a later addition (or reach-existing) can find gone: it is tried again. */
const PASSING_REASONS = new Set(['left_list', 'not_live', 'no_phone', 'no_external_id', 'opted_out']);

/**
 * Whether the contact's earlier opening from the campaign may be tried again: it never went, for a reason that may
 * have passed (the contact was taken off the list, had no phone, had opted out, the campaign was no longer Live
 * when it was due), and nothing was said on its conversation since. The contact still gets one opening at most.
 */
async function mayTryAgain(tx: Tx, earlier: Opening): Promise<boolean> {
  if (earlier.status !== 'skipped' && earlier.status !== 'cancelled') return false;
  if (!PASSING_REASONS.has(earlier.reason ?? '')) return false;
  return !(await tx.get<Conversation>('conversations', earlier.conversationId))?.lastMessage;
}

/**
 * Schedules the opening message, or records why it cannot go; answers QUEUED, that reason, or ALREADY when the
 * contact had one from the campaign (scheduled, sent, or not sent for a reason that still holds: the conversation
 * shows how that went).
 */
async function scheduleOpening(tx: Tx, campaign: Campaign, contact: Contact, delayMs: number): Promise<string> {
  const [found] = await tx.find<Opening>('openings', 'member', [campaign.id, contact.id]);
  // Read to change: two additions of the contact at once take turns, and the second finds it queued.
  const earlier = found && (await tx.lock<Opening>('openings', found.id));
  if (earlier && !(await mayTryAgain(tx, earlier))) return ALREADY;
  const conversation = await conversationFor(tx, contact, campaign.channel, campaign.customChannel, campaign.id);
  const reason = skipReason(campaign, contact, conversation);
  if (earlier && reason === earlier.reason) return ALREADY;
  // A delayed opening takes its slot once due: a slot taken now, ahead of the queue, would hold back every later
  // addition until it went.
  const due = clockNow() + delayMs;
  const slot = reason || delayMs > 0 ? undefined : await takeSlot(tx, campaign, due);
  const dueAt = reason ? null : (slot?.dueAt ?? arrivalOf(campaign, due));
  const at = now();
  const state = {
    status: reason ? 'skipped' : 'queued',
    reason: reason ?? null,
    held: null,
    dueAt,
    awaitsSlot: dueAt !== null && delayMs > 0,
    delayEndsAt: dueAt !== null && delayMs > 0 ? due : null,
    round: slot?.round ?? null,
    messageId: null,
    conversationId: conversation.id,
    updatedAt: at,
  } satisfies Partial<Opening>;
  const opening = earlier
    ? await tx.update<Opening>('openings', earlier.id, state)
    : await tx.insert<Opening>('openings', {
        id: newId('opn'),
        accountId: campaign.accountId,
        campaignId: campaign.id,
        contactId: contact.id,
        createdAt: at,
        ...state,
      });
  if (dueAt !== null) {
    await queueOpening(tx, opening, dueAt);
    await recordStep(tx, 'added', opening);
  }
  if (isUnreachableReason(reason)) await recordUnreachable(tx, reason, opening);
  if (dueAt !== null && isUnreachableReason(earlier?.reason)) await forgetUnreachable(tx, earlier.reason, opening);
  await updateConversation(tx, conversation, {
    opening: stateOf(opening),
    ...(followedUpByAnother(conversation, campaign.id)
      ? {}
      : { campaignId: campaign.id, next: dueAt === null ? conversation.next : { kind: 'opening', at: iso(dueAt) } }),
  });
  return reason ?? QUEUED;
}

/** When an opening due at `due` may go, the campaign's sending window aside from its pace. */
export const arrivalOf = (campaign: Campaign, due: number): number =>
  campaign.sendingWindow ? nextOpening(campaign.sendingWindow, due) : due;

/**
 * The campaign's next send slot for an opening message due at `due` (epoch ms): the first opening of its sending
 * window from then, paced at its rate (the first 3 of a burst at once), a slot never where the window is closed. The
 * pacing state is one document per campaign, written in the same transaction: concurrent additions take turns on it,
 * on any process.
 */
export async function takeSlot(tx: Tx, campaign: Campaign, due: number, step: PaceStep = nextSend): Promise<Slot> {
  const arrival = arrivalOf(campaign, due);
  // Every opening of the campaign takes its slot from this one document, in turn.
  const stored = await tx.lock<Pacing>('pacing', campaign.id);
  const paced = withinWindow(step, campaign.sendingWindow);
  const { sendAt, state } = paced(stored, arrival, parseRate(campaign.sendRate));
  if (stored) await tx.update<Pacing>('pacing', campaign.id, state);
  else await tx.insert<Pacing>('pacing', { id: campaign.id, ...state });
  return { dueAt: sendAt, round: stored?.round ?? 0 };
}

/**
 * The conversation an opening goes on: the contact's on the campaign's channel as it goes. The campaign may have moved
 * to another channel since the opening was queued: the conversation it was queued on then waits for it no more, and
 * is gone when it held nothing else (no message, no other campaign's opening).
 */
async function onCampaignChannel(tx: Tx, campaign: Campaign, contact: Contact, queuedOn: Conversation) {
  const channelKey = channelKeyOf(campaign.channel, campaign.customChannel);
  if (channelKeyOf(queuedOn.channel, queuedOn.customChannel) === channelKey) return queuedOn;
  const others = (await openingsOf(tx, contact.id)).filter(
    (o) => o.conversationId === queuedOn.id && o.campaignId !== campaign.id,
  );
  if (!queuedOn.lastMessage && others.length === 0) await removeConversation(tx, queuedOn);
  else if (queuedOn.opening?.campaignId === campaign.id)
    await updateConversation(tx, queuedOn, {
      opening: null,
      next: queuedOn.next?.kind === 'opening' ? null : queuedOn.next,
    });
  const conversation = await conversationFor(tx, contact, campaign.channel, campaign.customChannel, campaign.id);
  return updateConversation(tx, conversation, { campaignId: campaign.id });
}

/** Why a retried opening's message is not sent after all, as its error, by the reason the queue did not send it. */
const NOT_SENT: Record<string, Refusal> = {
  left_list: {
    code: 'CONTACT_LEFT_LIST',
    message: "The contact is no longer on the campaign's list: its messages are not sent to them",
  },
  opted_out: OPTED_OUT,
  wrote_first: {
    code: 'CONTACT_WROTE_SINCE',
    message: 'The contact wrote since this opening failed: the campaign does not write first to them',
  },
  not_live: { code: 'CAMPAIGN_NOT_LIVE', message: 'The campaign is not Live: its openings are not sent' },
};

/** The refusal for an opening the campaign's queue would not send for `reason` (skipReason, a stop). */
export const notSentFor = (reason: string | null): Refusal =>
  NOT_SENT[reason ?? ''] ?? {
    code: 'OPENING_NOT_SENT',
    message: `The campaign's queue does not send this opening (${reason ?? 'unknown'})`,
  };

/**
 * Why the campaign's queue would not send its opening to this contact now (campaign not Live, no address, opted
 * out, the contact wrote first), or undefined when it would: a retry asks before it queues the opening again.
 */
export function openingRefusal(campaign: Campaign, contact: Contact, conversation: Conversation): Refusal | undefined {
  if (campaign.status === 'draft') return notSentFor('not_live');
  const reason = skipReason(campaign, contact, conversation);
  return reason ? notSentFor(reason) : undefined;
}

/** A retried opening's message, pending while it waits in the queue (engine/retry.ts), read to change. */
async function retriedMessage(tx: Tx, opening: Opening): Promise<Message | undefined> {
  if (opening.messageId === null || opening.status === 'sent' || opening.status === 'failed') return undefined;
  const message = await tx.lock<Message>('messages', opening.messageId);
  return message?.status === 'pending' ? message : undefined;
}

/** The queue does not send a retried opening after all: its message fails again, with the reason. */
async function notSent(tx: Tx, message: Message, reason: string | null): Promise<void> {
  const refusal = notSentFor(reason);
  await changeStatus(tx, message, { status: 'failed', error: refusal.message, errorCode: refusal.code });
}

/**
 * A retried opening's message handed to its channel in its turn, as POST /v1/messages/{id}/retry hands one at once:
 * paid for unless it was handed over before, and failed again when it cannot go now (credits spent meanwhile, no
 * receiver, outside WhatsApp's window).
 */
async function sendRetried(
  tx: Tx,
  gw: Gateway,
  account: Account,
  conversation: Conversation,
  message: Message,
): Promise<Message> {
  const failAgain = (refused: Refusal) =>
    changeStatus(tx, message, { status: 'failed', error: refused.message, errorCode: refused.code });
  if (outsideWindow(conversation, message))
    return failAgain({ code: 'OUTSIDE_24H_WINDOW', message: outsideWindowMessage(conversation.channel) });
  const { refused, receivers, deliveries } = await readyAgain(tx, gw, account, conversation, message);
  if (refused) return failAgain(refused);
  await handOver(tx, account, conversation, message, receivers, deliveries);
  return message;
}

/**
 * Job `opening`: sends a queued opening message, unless what happened since says otherwise. An opening a retry put
 * back in the queue sends its failed message again, on the conversation it was written for; one the queue does not
 * send (stopped meanwhile, or found so now) fails its message again with the reason.
 */
export async function runOpening(gw: Gateway, { openingId }: JobKinds['opening']): Promise<JobResult> {
  return gw.store.transact(async (tx) => {
    let opening = await tx.get<Opening>('openings', openingId);
    if (!opening) return;
    const retried = await retriedMessage(tx, opening);
    if (opening.status !== 'queued') {
      if (retried && (opening.status === 'cancelled' || opening.status === 'skipped'))
        await notSent(tx, retried, opening.reason);
      return;
    }
    if (opening.messageId !== null && !retried) return;
    const settle = async (patch: Partial<Opening>) => {
      const settled = await settleOpening(tx, opening!, patch);
      if (retried && settled.status !== 'held') await notSent(tx, retried, settled.reason);
    };
    const campaign = await campaignById(tx, opening.campaignId);
    if (!campaign || campaign.status === 'draft') return void (await settle({ status: 'skipped', reason: 'not_live' }));
    if (stopped(campaign)) return void (await settle({ status: 'held', held: 'held' }));
    // An opening goes only to the list the campaign has when it goes.
    if (!(await isOnCampaignList(tx, campaign, opening.contactId)))
      return void (await settle({ status: 'cancelled', reason: 'left_list' }));
    const [account, contact, queuedOn, pacing] = await Promise.all([
      tx.get<Account>('accounts', opening.accountId),
      tx.get<Contact>('contacts', opening.contactId),
      tx.get<Conversation>('conversations', opening.conversationId),
      tx.get<Pacing>('pacing', campaign.id),
    ]);
    if (!account || !contact || !queuedOn) return;
    const conversation = retried ? queuedOn : await onCampaignChannel(tx, campaign, contact, queuedOn);
    if (conversation.id !== opening.conversationId)
      opening = await tx.update<Opening>('openings', opening.id, { conversationId: conversation.id });
    const reason = skipReason(campaign, contact, conversation);
    if (reason) return void (await settle({ status: reason === 'wrote_first' ? 'cancelled' : 'skipped', reason }));
    const at = clockNow();
    const due = opening.dueAt ?? at;
    const stall = !opening.awaitsSlot && stalled(due, at, pacing?.lastSentAt, parseRate(campaign.sendRate));
    if (stall && pacing) await tx.update<Pacing>('pacing', campaign.id, { stalledAt: at });
    const closed = campaign.sendingWindow && !isOpen(campaign.sendingWindow, at);
    if (opening.awaitsSlot || stall || due < (pacing?.stalledAt ?? 0) || closed) {
      const slot = await takeSlot(tx, campaign, at);
      if (slot.dueAt > at) {
        await settleOpening(tx, opening, { ...slot, awaitsSlot: false });
        return { later: slot.dueAt };
      }
    }
    const message = retried
      ? await sendRetried(tx, gw, account, conversation, retried)
      : (
          await sendOnConversation(tx, gw, account, contact, conversation, {
            body: personalize(campaign.openingMessage ?? '', contact),
            author: 'campaign',
            campaignId: campaign.id,
            template: openingTemplateFor(campaign, contact),
          })
        ).message;
    if (await tx.get<Pacing>('pacing', campaign.id))
      await tx.update<Pacing>('pacing', campaign.id, { lastSentAt: retried ? at : Date.parse(message.createdAt) });
    const status = message.status === 'failed' ? 'failed' : 'sent';
    await settleOpening(tx, opening, { status, messageId: message.id, awaitsSlot: false });
    // One that failed at once (no credits, no receiver) is followed up once a retry sends it (engine/retry.ts):
    // a follow-up never goes to a lead the opening did not reach.
    if (message.status === 'failed') return;
    await recordStep(tx, 'openingSent', opening);
    // The conversation follows up for this campaign from now, and names it: another's timer waiting there (two
    // campaigns on one channel) would send at its own time what `next` does not say, and the campaign queued there
    // last (whose opening may have gone first) would lend its steps to this one's timer. One the other campaign
    // closed, its follow-ups unanswered, is open again: this campaign's sequence begins.
    const current = await cancelFollowUps(tx, (await tx.get<Conversation>('conversations', conversation.id))!);
    const followed = await updateConversation(tx, current, {
      campaignId: campaign.id,
      ...(current.status === 'closed' ? { status: 'active' as const } : {}),
    });
    await scheduleFollowUp(tx, campaign, followed, 0, clockNow());
  });
}
