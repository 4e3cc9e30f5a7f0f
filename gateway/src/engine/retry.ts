import type { Gateway } from '../context.js';
import { getAccount, lockAccount } from '../domain/accounts.js';
import { campaignById, getCampaign } from '../domain/campaigns.js';
import { failedOpeningsOf, isOpening } from '../domain/failed-openings.js';
import { queueOpening, settleOpening, type Opening } from '../domain/openings.js';
import { insufficientCredits } from '../domain/credits.js';
import { priceOf } from '../domain/prices.js';
import { clockNow } from '../clock.js';
import { notSentFor, openingRefusal, takeSlot } from './openings.js';
import { nextQueuedSend } from './pacing.js';
import { getContact, type Contact } from '../domain/contacts.js';
import { getConversation, type Conversation } from '../domain/conversations.js';
import { deliveriesOf, getMessage, type Message } from '../domain/messages.js';
import type { Delivery } from '../domain/webhooks.js';
import { ApiError } from '../errors.js';
import { followRetried, leftCampaignList, wroteSince } from './follow-ups.js';
import { changeStatus } from '../domain/message-status-change.js';
import {
  checkConsent,
  handedOverBefore,
  handOver,
  messageTagOf,
  OUTSIDE_WINDOW,
  outsideWindow,
  outsideWindowMessage,
  readyAgain,
  readyToGo,
  receiversFor,
  type Refusal,
} from './sending.js';
import type { retryReport } from '../contract/messages.js';
import type { Answer } from '../contract/shared.js';
import type { Tx } from '../store/store.js';

const refuse = (code: string, message: string) => new ApiError(409, code, message);

/**
 * Why a campaign's opening or follow-up that failed is no longer to be sent: for a follow-up, the contact wrote since
 * (the bot or the team answers them now, and "Still there?" after their answer reads as if nobody listened) or the
 * team has the conversation; for either, the contact is off the campaign's list now (taken off it while the campaign ran,
 * or the campaign moved to another). The campaign would not have sent it then (engine/openings.ts, follow-ups.ts),
 * and a retry after credits came back must not either.
 */
async function overtakenCampaignMessage(
  tx: Tx,
  conversation: Conversation,
  message: Message,
): Promise<Refusal | undefined> {
  if ((message.author !== 'campaign' && message.author !== 'follow_up') || !message.campaignId) return undefined;
  const followUp = message.author === 'follow_up';
  if (!followUp && (await openedByAnother(tx, message.campaignId, message))) return OPENED_BY_ANOTHER;
  if (followUp && wroteSince(conversation, message))
    return {
      code: 'CONTACT_WROTE_SINCE',
      message: 'The contact wrote since this follow-up failed: it is not sent after their message',
    };
  if (followUp && conversation.status === 'handed_off')
    return {
      code: 'HANDED_OFF',
      message: 'The conversation was handed to the team since this follow-up failed: it is not sent',
    };
  const campaign = await campaignById(tx, message.campaignId);
  if (campaign && (await leftCampaignList(tx, campaign, conversation))) return notSentFor('left_list');
  return undefined;
}

const OPENED_BY_ANOTHER: Refusal = {
  code: 'OPENING_SUPERSEDED',
  message:
    "The campaign's opening to this contact is another message, sent or waiting to go (a merge brought the duplicate's): a campaign opens a conversation once, so this one is not sent",
};

/**
 * Whether the campaign's opening to the contact is another message than this failed one: a merge of two contacts
 * the campaign had each written to (or was to write to) keeps one opening, and the other's failed message stays in
 * the conversation; sent on a retry, it would greet the person a second time. A message with no opening of its
 * campaign (older data) is its own.
 */
async function openedByAnother(tx: Tx, campaignId: string, message: Message): Promise<boolean> {
  const [opening] = await tx.find<Opening>('openings', 'member', [campaignId, message.contactId]);
  return opening !== undefined && opening.messageId !== message.id;
}

/**
 * What every retry of a failed outgoing message checks first, in the message's transaction: it failed, it has a
 * conversation to go on, its contact did not opt out, the campaign would still send it, and WhatsApp's 24 hours allow
 * it. Answers its conversation and contact.
 */
async function retryableOn(
  tx: Tx,
  accountId: string,
  message: Message,
): Promise<{ conversation: Conversation; contact: Contact }> {
  if (message.status !== 'failed') {
    if (message.errorCode === 'OUTSIDE_24H_WINDOW') throw refuse('OUTSIDE_24H_WINDOW', message.error ?? OUTSIDE_WINDOW);
    throw refuse('MESSAGE_NOT_FAILED', `Only a failed message can be retried; this one is ${message.status}`);
  }
  const conversation = message.conversationId
    ? await tx.get<Conversation>('conversations', message.conversationId)
    : undefined;
  if (!conversation) throw refuse('MESSAGE_NOT_RETRYABLE', 'The message belongs to no conversation to send it on');
  const contact = await getContact(tx, accountId, message.contactId);
  checkConsent(contact, message.author);
  const overtaken = await overtakenCampaignMessage(tx, conversation, message);
  if (overtaken) throw refuse(overtaken.code, overtaken.message);
  if (outsideWindow(conversation, message))
    throw refuse('OUTSIDE_24H_WINDOW', outsideWindowMessage(conversation.channel));
  return { conversation, contact };
}

/** A failed message back to `pending`, its failure cleared: a stale status report on the failed send must not move it. */
const pendingAgain = (conversation: Conversation, message: Message) => ({
  status: 'pending' as const,
  error: null,
  errorCode: null,
  providerMessageId: null,
  messageTag: messageTagOf(conversation, message),
});

/**
 * POST /v1/messages/{id}/retry: a failed outgoing message goes back to `pending` and out again on its channel. On a
 * custom channel each receiver that takes replies now gets a fresh round of the signed, retried delivery: a
 * receiver that failed it before gets the same delivery again (same `webhook-id`, so a receiver that did take it
 * after all can tell), at the Custom Channel Webhook URL as it is set now. On SMS and WhatsApp a new send job
 * hands it to the provider.
 *
 * A message is paid for once, when it is first handed to its channel: one that never was (it failed for want of
 * credits, or for want of a receiver) is charged now, like a new one; one the provider or the receiver failed was
 * charged then and is not charged again.
 */
export async function retryMessage(
  gw: Gateway,
  accountId: string,
  messageId: string,
): Promise<{ message: Message; deliveries: Delivery[] }> {
  return gw.store.transact(async (tx) => {
    // The message first: a retry and its deliveries settling at once take turns on it (once it is known to be the account's).
    await getMessage(tx, accountId, messageId);
    const message = (await tx.lock<Message>('messages', messageId))!;
    if (message.direction === 'incoming')
      throw refuse('MESSAGE_INCOMING', 'The message came from the contact: there is nothing to send again');
    const { conversation } = await retryableOn(tx, accountId, message);

    const account = await getAccount(tx, accountId);
    const { refused, receivers, deliveries } = await readyAgain(tx, gw, account, conversation, message);
    if (refused) throw refuse(refused.code, refused.message);
    const retried = await changeStatus(tx, message, pendingAgain(conversation, message));
    const handedOver = await handOver(tx, account, conversation, retried, receivers, deliveries);
    await followRetried(tx, retried);
    return { message: retried, deliveries: handedOver };
  });
}

/** Conversations whose failed messages one account-wide retry takes; the answer says when more are left. */
export const RETRY_CONVERSATIONS = 100;

/** What a retry of failed messages did (the contract's retryReport). */
export type RetryReport = Answer<typeof retryReport>;

/**
 * "Retry all failed": every failed outgoing message of one conversation, or of the account's conversations that
 * hold one (at most RETRY_CONVERSATIONS of them a call), goes out again as POST /v1/messages/{id}/retry sends it,
 * oldest first. A message that cannot go again (still no credits, no receiver) stays failed and is reported.
 * Across the account, a campaign's failed openings go back to the campaign's queue instead (queueOpeningAgain), as
 * the campaign's own retry puts them: a retry of one conversation is a person's look at one lead, and goes now.
 */
export async function retryFailed(gw: Gateway, accountId: string, conversationId?: string): Promise<RetryReport> {
  const conversations = conversationId
    ? [await getConversation(gw.store, accountId, conversationId)]
    : await gw.store.find<Conversation>('conversations', 'failing', [accountId, 'failed'], {
        limit: RETRY_CONVERSATIONS + 1,
      });
  const report: RetryReport = {
    retried: [],
    queued: [],
    refused: [],
    more: conversations.length > RETRY_CONVERSATIONS,
  };
  const queue: Queueing = { owed: [] };
  for (const conversation of conversations.slice(0, RETRY_CONVERSATIONS)) {
    const messages = await gw.store.find<Message>('messages', 'contact', [conversation.contactId]);
    for (const m of messages) {
      if (m.conversationId !== conversation.id || m.direction !== 'outgoing' || m.status !== 'failed') continue;
      try {
        let queued = false;
        if (conversationId || !isOpening(m)) await retryMessage(gw, accountId, m.id);
        else queued = await retryOpening(gw, accountId, m.id, queue);
        report.retried.push(m.id);
        if (queued) report.queued.push(m.id);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        report.refused.push({ messageId: m.id, code: err.code, message: err.message });
      }
    }
  }
  return report;
}

/** Failed opening messages one campaign retry takes; the answer says when more are left. */
export const RETRY_OPENINGS = 100;

/**
 * A campaign's failed opening messages (the oldest RETRY_OPENINGS of them) go back to the campaign's queue
 * (queueOpeningAgain): after credits were granted, one click on the campaign's page, and they go at its pace, inside
 * its sending window.
 */
export async function retryFailedOpenings(gw: Gateway, accountId: string, campaignId: string): Promise<RetryReport> {
  await getCampaign(gw.store, accountId, campaignId);
  const failed = await failedOpeningsOf(gw.store, campaignId, RETRY_OPENINGS + 1);
  const report: RetryReport = { retried: [], queued: [], refused: [], more: failed.length > RETRY_OPENINGS };
  const queue: Queueing = { owed: [] };
  for (const opening of failed.slice(0, RETRY_OPENINGS)) {
    try {
      if (await retryOpening(gw, accountId, opening.id, queue)) report.queued.push(opening.id);
      report.retried.push(opening.id);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      report.refused.push({ messageId: opening.id, code: err.code, message: err.message });
    }
  }
  return report;
}

/**
 * The openings one retry queued, with what each will cost: they are paid for when they go, so the balance must keep
 * their price for them while they wait. One may go while the retry still queues others: the balance paid for it then,
 * and it is owed no longer.
 */
interface Queueing {
  owed: Array<{ openingId: string; priceCents: number }>;
}

/**
 * A failed opening back in its campaign's queue (true); one the queue never held (older data) goes now, as ever
 * (false).
 */
async function retryOpening(gw: Gateway, accountId: string, messageId: string, queue: Queueing): Promise<boolean> {
  const owed = await queueOpeningAgain(gw, accountId, messageId, queue.owed);
  if (owed === undefined) {
    await retryMessage(gw, accountId, messageId);
    return false;
  }
  queue.owed = owed;
  return true;
}

/**
 * A campaign's failed opening message goes back to the campaign's queue of openings, and is `pending` again while it
 * waits there: it takes the queue's next slot (no burst: it is no new addition), inside the sending window, and the
 * opening job sends it in its turn after the checks any opening passes then (engine/openings.ts runOpening): the
 * contact still on the list and not opted out, the campaign Live, the balance paying for it. It leaves the campaign's
 * failed openings and its conversation's failed count now, and counts in the funnel as sent when it goes. Refused now
 * with the retry's 409 when it could not go now either: what the queue would refuse, no receiver, or a balance that
 * does not pay for it beside those this retry queued before it that still wait (`owed`). Answers what is owed with
 * it, or undefined when the message has no opening of the campaign waiting on it (older data).
 */
async function queueOpeningAgain(
  gw: Gateway,
  accountId: string,
  messageId: string,
  owed: Queueing['owed'],
): Promise<Queueing['owed'] | undefined> {
  return gw.store.transact(async (tx) => {
    await getMessage(tx, accountId, messageId);
    const message = (await tx.lock<Message>('messages', messageId))!;
    if (!isOpening(message)) return undefined;
    const [found] = await tx.find<Opening>('openings', 'member', [message.campaignId, message.contactId]);
    const opening = found && (await tx.lock<Opening>('openings', found.id));
    if (opening?.messageId !== message.id || opening.status !== 'failed') return undefined;
    const { conversation, contact } = await retryableOn(tx, accountId, message);
    const campaign = await campaignById(tx, message.campaignId);
    if (!campaign) throw refuse('CAMPAIGN_NOT_LIVE', notSentFor('not_live').message);
    const notNow = openingRefusal(campaign, contact, conversation);
    if (notNow) throw refuse(notNow.code, notNow.message);

    // An opening this retry queued before may go meanwhile, paid for while it holds the balance: the balance is read
    // once that is done, so that what is still owed is read as of it.
    const account = await lockAccount(tx, accountId);
    const receivers = await receiversFor(tx, account, conversation);
    const noReceiver = await readyToGo(tx, gw, account, conversation, message, receivers, false);
    if (noReceiver) throw refuse(noReceiver.code, noReceiver.message);
    const price = handedOverBefore(message, await deliveriesOf(tx, message.id))
      ? 0
      : await priceOf(gw.config.prices, account, conversation.channel, message);
    const stillOwed = await waiting(tx, owed);
    const available = account.balanceCents - stillOwed.reduce((sum, o) => sum + o.priceCents, 0);
    if (price > 0 && available < price) throw insufficientCredits(Math.max(0, available), price);

    const slot = await takeSlot(tx, campaign, clockNow(), nextQueuedSend);
    const queued = await settleOpening(tx, opening, {
      status: 'queued',
      reason: null,
      held: null,
      ...slot,
      awaitsSlot: false,
      delayEndsAt: null,
    });
    await queueOpening(tx, queued, slot.dueAt);
    await changeStatus(tx, message, pendingAgain(conversation, message), { queued: true });
    return [...stillOwed, { openingId: opening.id, priceCents: price }];
  });
}

/** Those of `owed` still waiting in their campaign's queue, not yet paid for. */
async function waiting(tx: Tx, owed: Queueing['owed']): Promise<Queueing['owed']> {
  const still: Queueing['owed'] = [];
  for (const o of owed) {
    const opening = await tx.get<Opening>('openings', o.openingId);
    if (opening?.status === 'queued' || opening?.status === 'held') still.push(o);
  }
  return still;
}
