import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import type { Contact } from '../domain/contacts.js';
import type { Conversation } from '../domain/conversations.js';
import { insufficientCredits, spend } from '../domain/credits.js';
import { deliveriesOf, replyPayload, type Message } from '../domain/messages.js';
import { priceOf } from '../domain/prices.js';
import { HUMAN_AGENT_WINDOW_MS, inServiceWindow } from '../domain/whatsapp.js';
import { answersOnly, SERVICE_WINDOW_MS } from '../api-contract.js';
import { noReceiver, receiversOf, type Delivery } from '../domain/webhooks.js';
import { queueReply, takeTurn, turnOf } from '../domain/reply-turns.js';
import { ApiError } from '../errors.js';
import { now } from '../ids.js';
import type { Reader, Tx } from '../store/store.js';
import { newJob } from '../domain/job-kinds.js';
import { OPTED_OUT } from '../domain/opted-out.js';
import { clockNow } from '../clock.js';

/*
 * The rules every outgoing message passes, whoever sends it (an opening, a follow-up, the bot, a team reply, the
 * API) and whether it goes for the first time or again (a retry): consent, WhatsApp's 24-hour window, its price,
 * and how it is handed to its channel.
 */

const optedOut = () => new ApiError(409, OPTED_OUT.code, OPTED_OUT.message);

/** Nothing but the gateway's own answers to STOP, START and HELP goes to a contact who opted out. */
export function checkConsent(contact: Contact, author: Message['author']): void {
  if (contact.optOut && author !== 'system') throw optedOut();
}

export const OUTSIDE_WINDOW =
  "Outside WhatsApp's 24-hour customer-service window: only an approved template may be sent until the contact writes again (set the campaign's reengagementTemplate)";
export const OUTSIDE_META_WINDOW =
  "Outside Meta's messaging window: the bot and follow-ups answer within 24 hours of the contact's last message, a person within 7 days";

/** Why a message cannot go outside its channel's window, in the words of the channel. */
export const outsideWindowMessage = (channel: Conversation['channel']) =>
  answersOnly(channel) ? OUTSIDE_META_WINDOW : OUTSIDE_WINDOW;

/**
 * Whether a message cannot go on this conversation now. WhatsApp: free text more than 24 hours after the contact
 * last wrote (a template may go). Messenger and Instagram: anything after 24 hours, except a person's reply, which
 * goes with Meta's HUMAN_AGENT tag (see messageTagOf) for 7 days.
 */
export function outsideWindow(conversation: Conversation, message: Pick<Message, 'template' | 'author'>): boolean {
  if (conversation.channel === 'whatsapp')
    return !message.template && !inServiceWindow(conversation.lastIncomingAt, clockNow());
  if (!answersOnly(conversation.channel) || inServiceWindow(conversation.lastIncomingAt, clockNow())) return false;
  return messageTagOf(conversation, message) === null;
}

/** Messenger and Instagram: the tag a person's reply goes with after the 24-hour window, within 7 days; else none. */
export function messageTagOf(conversation: Conversation, message: Pick<Message, 'author'>): Message['messageTag'] {
  if (!answersOnly(conversation.channel) || message.author !== 'team' || !conversation.lastIncomingAt) return null;
  const since = clockNow() - Date.parse(conversation.lastIncomingAt);
  return since >= SERVICE_WINDOW_MS && since < HUMAN_AGENT_WINDOW_MS ? 'HUMAN_AGENT' : null;
}

/**
 * Why a message cannot be handed to its channel now: the error it is stored failed with, or a retry's 409. A value,
 * not an error: most are stored, and only a retry throws one.
 */
export interface Refusal {
  code: string;
  message: string;
}

/** What a sub-account pays for the message from its balance; the refusal when the balance is short. */
async function charge(
  tx: Tx,
  gw: Gateway,
  account: Account,
  conversation: Conversation,
  message: Message,
): Promise<Refusal | undefined> {
  const price = await priceOf(gw.config.prices, account, conversation.channel, message);
  if (price === 0) return undefined;
  const balance = await spend(tx, account, price, {
    messageId: message.id,
    description: `${message.author} message on ${conversation.channelKey}`,
    author: message.author,
    channel: conversation.channelKey,
  });
  if (balance !== undefined) {
    // Kept with the message, so that one withheld before any channel took it gives back exactly what it paid. A new
    // message is stored after it is paid for (engine/outgoing.ts), with it.
    if (await tx.get<Message>('messages', message.id))
      await tx.update<Message>('messages', message.id, { paidCents: price });
    else message.paidCents = price;
    return undefined;
  }
  const fresh = await tx.get<Account>('accounts', account.id);
  return insufficientCredits(fresh?.balanceCents ?? 0, price);
}

/** Who takes a message on this conversation: on a custom channel, the account's receivers of replies; else none (a provider sends it). */
export type Receivers = Array<{ target: string; url: string }>;
export const receiversFor = async (r: Reader, account: Account, conversation: Conversation): Promise<Receivers> =>
  conversation.channel === 'custom' ? receiversOf(r, account, 'reply') : [];

/** Whether the message was handed to its channel before (it was paid for then). */
export const handedOverBefore = (message: Message, deliveries: Delivery[]) =>
  message.provider !== null || deliveries.length > 0;

/**
 * A failed message about to be handed to its channel again (a retry, at once or in its campaign's queue): its
 * deliveries so far and the receivers it goes to, and why it cannot go now (readyToGo), paid for unless it was
 * handed to its channel before.
 */
export async function readyAgain(
  tx: Tx,
  gw: Gateway,
  account: Account,
  conversation: Conversation,
  message: Message,
): Promise<{ refused: Refusal | undefined; receivers: Receivers; deliveries: Delivery[] }> {
  const deliveries = await deliveriesOf(tx, message.id);
  const receivers = await receiversFor(tx, account, conversation);
  const pay = !handedOverBefore(message, deliveries);
  return { refused: await readyToGo(tx, gw, account, conversation, message, receivers, pay), receivers, deliveries };
}

/**
 * Why the message cannot be handed to its channel now, or undefined once it can: a custom channel needs a receiver
 * of replies, and a sub-account pays the message's price when `pay` (a message is paid for once, when it is first
 * handed to its channel).
 */
export async function readyToGo(
  tx: Tx,
  gw: Gateway,
  account: Account,
  conversation: Conversation,
  message: Message,
  receivers: Receivers,
  pay: boolean,
): Promise<Refusal | undefined> {
  if (conversation.channel === 'custom' && receivers.length === 0)
    return { code: 'NO_RECEIVER', message: await noReceiver(tx, account.id) };
  return pay ? charge(tx, gw, account, conversation, message) : undefined;
}

/**
 * Hands a pending message to its channel in the caller's transaction, and answers its deliveries: on a custom
 * channel, a signed, retried delivery to each of its `receivers` (the Custom Channel Webhook and the `reply`
 * subscribers, spec §6.1), each posted after the conversation's earlier replies to that receiver (reply-turns.ts),
 * where a receiver that failed it before (`earlier`) gets that same delivery again; on SMS and WhatsApp, a send job
 * for the provider.
 */
export async function handOver(
  tx: Tx,
  account: Account,
  conversation: Conversation,
  message: Message,
  receivers: Receivers,
  earlier: Delivery[] = [],
): Promise<Delivery[]> {
  if (conversation.channel !== 'custom') {
    // Not keyed (a retry may queue it while the failed run settles): it holds only the id, and a message erased meanwhile ends it.
    await tx.enqueue(newJob('send', { messageId: message.id }, { accountId: account.id }));
    return earlier;
  }
  const result = [...earlier];
  for (const receiver of receivers) {
    const before = earlier.find((d) => d.event === 'reply' && d.target === receiver.target);
    if (!before) {
      result.push(await queueReply(tx, account.id, conversation.id, replyPayload(message), message.id, receiver));
    } else if (before.status === 'failed') {
      // The same delivery (same webhook-id, so a receiver that did take it after all can tell), at today's URL, after
      // the replies of the conversation still pending there: to the contact it is made now.
      const again = await tx.update<Delivery>('deliveries', before.id, {
        status: 'pending',
        pendingTarget: before.target,
        url: receiver.url,
        roundStart: before.attempts.length,
        turn: turnOf(conversation.id, receiver.target),
        updatedAt: now(),
      });
      await takeTurn(tx, again);
      result.splice(result.indexOf(before), 1, again);
    }
  }
  return result;
}
