import type { Gateway } from '../context.js';
import { ApiError } from '../errors.js';
import { now } from '../ids.js';
import { optedOut } from '../engine/outgoing.js';
import { priceOf } from '../engine/prices.js';
import { inServiceWindow } from '../engine/whatsapp.js';
import type { Tx } from '../store/store.js';
import { getAccount, type Account } from './accounts.js';
import { getContact } from './contacts.js';
import { countFailed, getConversation, messageSettled, type Conversation } from './conversations.js';
import { insufficientCredits, spend } from './credits.js';
import { deliveriesOf, getMessage, NO_RECEIVER, replyPayload, type Message } from './messages.js';
import { queueDelivery, receiversOf, type Delivery } from './webhooks.js';

const refuse = (code: string, message: string) => new ApiError(409, code, message);

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
export async function retryMessage(gw: Gateway, accountId: string, messageId: string): Promise<{ message: Message; deliveries: Delivery[] }> {
  return gw.store.transact(async (tx) => {
    // The message first: a retry and its deliveries settling at once take turns on it.
    const message = await getMessage(tx, accountId, messageId);
    if (message.direction === 'incoming') throw refuse('MESSAGE_INCOMING', 'The message came from the contact: there is nothing to send again');
    if (message.status !== 'failed') {
      if (message.errorCode === 'OUTSIDE_24H_WINDOW') throw outsideWindow();
      throw refuse('MESSAGE_NOT_FAILED', `Only a failed message can be retried; this one is ${message.status}`);
    }
    const conversation = message.conversationId ? await tx.get<Conversation>('conversations', message.conversationId) : undefined;
    if (!conversation) throw refuse('MESSAGE_NOT_RETRYABLE', 'The message belongs to no conversation to send it on');
    const contact = await getContact(tx, accountId, message.contactId);
    if (contact.optOut && message.author !== 'system') throw optedOut();
    if (conversation.channel === 'whatsapp' && !message.template && !inServiceWindow(conversation.lastIncomingAt, Date.now())) throw outsideWindow();

    const account = await getAccount(tx, accountId);
    const deliveries = await deliveriesOf(tx, message.id);
    const receivers = conversation.channel === 'custom' ? await receiversOf(tx, account, 'reply') : [];
    if (conversation.channel === 'custom' && receivers.length === 0) throw refuse('NO_RECEIVER', NO_RECEIVER);
    const handedOver = message.provider !== null || deliveries.length > 0;
    if (!handedOver) await charge(tx, gw, account, conversation, message);

    // A stale status report on the failed send must not move the new one.
    const retried = await tx.update<Message>('messages', message.id, { status: 'pending', error: null, errorCode: null, providerMessageId: null, updatedAt: now() });
    await messageSettled(tx, retried);
    await countFailed(tx, retried.conversationId, -1);
    if (conversation.channel !== 'custom') {
      await tx.enqueue({ kind: 'send', data: { messageId: message.id }, accountId });
      return { message: retried, deliveries };
    }
    return { message: retried, deliveries: await redeliver(tx, retried, deliveries, receivers) };
  });
}

function outsideWindow(): ApiError {
  return refuse('OUTSIDE_24H_WINDOW', "Outside WhatsApp's 24-hour customer-service window: only an approved template may be sent until the contact writes again");
}

async function charge(tx: Tx, gw: Gateway, account: Account, conversation: Conversation, message: Message): Promise<void> {
  const price = await priceOf(gw.config.prices, account, conversation.channel, message);
  if (price === 0) return;
  const balance = await spend(tx, account, price, { messageId: message.id, description: `${message.author} message on ${conversation.channelKey} (retried)` });
  if (balance === undefined) throw insufficientCredits(account.balanceCents, price);
}

/** Each receiver taking replies now gets the message: its earlier failed delivery again, or a new one. */
async function redeliver(tx: Tx, message: Message, deliveries: Delivery[], receivers: Array<{ target: string; url: string }>): Promise<Delivery[]> {
  const result = [...deliveries];
  for (const receiver of receivers) {
    const earlier = deliveries.find((d) => d.event === 'reply' && d.target === receiver.target);
    if (!earlier) {
      result.push(await queueDelivery(tx, message.accountId, 'reply', replyPayload(message), message.id, receiver));
      continue;
    }
    if (earlier.status !== 'failed') continue;
    const again = await tx.update<Delivery>('deliveries', earlier.id, { status: 'pending', url: receiver.url, roundStart: earlier.attempts.length, updatedAt: now() });
    await tx.enqueue({ kind: 'deliver', data: { deliveryId: again.id }, accountId: message.accountId });
    result.splice(result.indexOf(earlier), 1, again);
  }
  return result;
}

/** Conversations whose failed messages one account-wide retry takes; the answer says when more are left. */
export const RETRY_CONVERSATIONS = 100;

export interface RetryReport {
  /** The messages sent again, oldest first. */
  retried: string[];
  /** The failed messages that could not go again, each with why (INSUFFICIENT_CREDITS, NO_RECEIVER …). */
  refused: Array<{ messageId: string; code: string; message: string }>;
  /** Account-wide: whether conversations with failed messages were left for another call. */
  more: boolean;
}

/**
 * "Retry all failed": every failed outgoing message of one conversation, or of the account's conversations that
 * hold one (at most RETRY_CONVERSATIONS of them a call), goes out again as POST /v1/messages/{id}/retry sends it,
 * oldest first. A message that cannot go again (still no credits, no receiver) stays failed and is reported.
 */
export async function retryFailed(gw: Gateway, accountId: string, conversationId?: string): Promise<RetryReport> {
  const conversations = conversationId
    ? [await getConversation(gw.store, accountId, conversationId)]
    : await gw.store.find<Conversation>('conversations', 'failing', [accountId, 'failed'], { limit: RETRY_CONVERSATIONS + 1 });
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
