import type { Gateway } from '../context.js';
import { getAccount } from '../domain/accounts.js';
import { campaignById, getCampaign } from '../domain/campaigns.js';
import { failedOpeningsOf } from '../domain/failed-openings.js';
import { getContact } from '../domain/contacts.js';
import { getConversation, type Conversation } from '../domain/conversations.js';
import { deliveriesOf, getMessage, type Message } from '../domain/messages.js';
import type { Delivery } from '../domain/webhooks.js';
import { ApiError } from '../errors.js';
import { followRetried, leftCampaignList, wroteSince } from './follow-ups.js';
import { changeStatus } from './message-status.js';
import {
  checkConsent,
  handOver,
  messageTagOf,
  OUTSIDE_WINDOW,
  outsideWindow,
  outsideWindowMessage,
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
  if (campaign && (await leftCampaignList(tx, campaign, conversation)))
    return {
      code: 'CONTACT_LEFT_LIST',
      message: "The contact is no longer on the campaign's list: its messages are not sent to them",
    };
  return undefined;
}

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
    if (message.status !== 'failed') {
      if (message.errorCode === 'OUTSIDE_24H_WINDOW')
        throw refuse('OUTSIDE_24H_WINDOW', message.error ?? OUTSIDE_WINDOW);
      throw refuse('MESSAGE_NOT_FAILED', `Only a failed message can be retried; this one is ${message.status}`);
    }
    const conversation = message.conversationId
      ? await tx.get<Conversation>('conversations', message.conversationId)
      : undefined;
    if (!conversation) throw refuse('MESSAGE_NOT_RETRYABLE', 'The message belongs to no conversation to send it on');
    checkConsent(await getContact(tx, accountId, message.contactId), message.author);
    const overtaken = await overtakenCampaignMessage(tx, conversation, message);
    if (overtaken) throw refuse(overtaken.code, overtaken.message);
    if (outsideWindow(conversation, message))
      throw refuse('OUTSIDE_24H_WINDOW', outsideWindowMessage(conversation.channel));

    const account = await getAccount(tx, accountId);
    const deliveries = await deliveriesOf(tx, message.id);
    const handedOverBefore = message.provider !== null || deliveries.length > 0;
    const receivers = await receiversFor(tx, account, conversation);
    const refused = await readyToGo(tx, gw, account, conversation, message, receivers, !handedOverBefore);
    if (refused) throw refuse(refused.code, refused.message);
    // A stale status report on the failed send must not move the new one.
    const retried = await changeStatus(tx, message, {
      status: 'pending',
      error: null,
      errorCode: null,
      providerMessageId: null,
      messageTag: messageTagOf(conversation, message),
    });
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
 */
export async function retryFailed(gw: Gateway, accountId: string, conversationId?: string): Promise<RetryReport> {
  const conversations = conversationId
    ? [await getConversation(gw.store, accountId, conversationId)]
    : await gw.store.find<Conversation>('conversations', 'failing', [accountId, 'failed'], {
        limit: RETRY_CONVERSATIONS + 1,
      });
  const report: RetryReport = { retried: [], refused: [], more: conversations.length > RETRY_CONVERSATIONS };
  for (const conversation of conversations.slice(0, RETRY_CONVERSATIONS)) {
    const messages = await gw.store.find<Message>('messages', 'contact', [conversation.contactId]);
    for (const m of messages) {
      if (m.conversationId !== conversation.id || m.direction !== 'outgoing' || m.status !== 'failed') continue;
      try {
        await retryMessage(gw, accountId, m.id);
        report.retried.push(m.id);
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
 * A campaign's failed opening messages (the oldest RETRY_OPENINGS of them) go out again as POST
 * /v1/messages/{id}/retry sends each: after credits were granted, one click on the campaign's page.
 */
export async function retryFailedOpenings(gw: Gateway, accountId: string, campaignId: string): Promise<RetryReport> {
  await getCampaign(gw.store, accountId, campaignId);
  const failed = await failedOpeningsOf(gw.store, campaignId, RETRY_OPENINGS + 1);
  const report: RetryReport = { retried: [], refused: [], more: failed.length > RETRY_OPENINGS };
  for (const opening of failed.slice(0, RETRY_OPENINGS)) {
    try {
      await retryMessage(gw, accountId, opening.id);
      report.retried.push(opening.id);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      report.refused.push({ messageId: opening.id, code: err.code, message: err.message });
    }
  }
  return report;
}
