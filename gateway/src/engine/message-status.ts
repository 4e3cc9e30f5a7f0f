import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { changeStatus } from '../domain/message-status-change.js';
import { OWNER_TARGET } from '../domain/webhooks.js';
import { messageStatusChanged } from '../domain/inbox-changes.js';
import { deliveriesOf, type Message } from '../domain/messages.js';
import type { Tx } from '../store/store.js';
import { contactOfExternalId } from '../domain/contact-identity.js';
import type { StatusUpdate, Watermark } from './ports/channel-provider.js';

/**
 * A reply is Sent once the owner's platform accepted it, Failed once it gave up (spec §3.1); the error of the last
 * failure is kept with it. The owner's platform is the Custom Channel Webhook URL, where the reply went to one: the
 * `reply` subscribers beside it get copies, whose answers change nothing. Without one, the subscribers are the
 * platform (an n8n workflow that delivers): Sent once any accepted it, Failed once every one gave up.
 */
export async function settleDeliveries(tx: Tx, messageId: string): Promise<void> {
  const message = await tx.get<Message>('messages', messageId);
  if (!message) return;
  const replies = (await deliveriesOf(tx, messageId)).filter((d) => d.event === 'reply');
  const toOwner = replies.filter((d) => d.target === OWNER_TARGET);
  const deliveries = toOwner.length > 0 ? toOwner : replies;
  const sent = deliveries.some((d) => d.status === 'sent');
  const failed = !sent && deliveries.length > 0 && deliveries.every((d) => d.status === 'failed');
  const status = sent ? 'sent' : failed ? 'failed' : 'pending';
  const error = failed
    ? (deliveries
        .map((d) => d.attempts.at(-1)?.error)
        .filter(Boolean)
        .at(-1) ?? 'Delivery failed')
    : null;
  if (status === message.status && error === message.error) {
    // A failed attempt of a reply still being sent changes its delivery, not the message: the thread shows the
    // attempts, so the inbox is told all the same.
    if (message.conversationId)
      messageStatusChanged(tx, message.accountId, message.conversationId, message.id, message.status);
    return;
  }
  await changeStatus(tx, message, { status, error });
}

/** How far along a message is; a status report never moves it back (callbacks may arrive out of order). */
const PROGRESS: Record<string, number> = { pending: 0, queued: 1, sent: 2, delivered: 3, read: 4 };

/**
 * A provider's report on a message it sent (Twilio's status callback, WhatsApp's status webhook): the message
 * shows it, and a failure keeps the provider's error code and is reported as `delivery_failed`. A failure after the
 * contact's phone got the message changes nothing. A report on a message another provider sent (`provider`, the
 * name the message was sent under) is ignored. False when no message of the account has the report's id: the
 * provider may have reported before it answered the send that names it (jobs/inbound.ts looks again).
 */
export async function applyStatusUpdate(
  gw: Gateway,
  account: Account,
  update: StatusUpdate,
  provider: string,
): Promise<boolean> {
  return gw.store.transact(async (tx) => {
    const [message] = await tx.find<Message>('messages', 'providerMessageId', [account.id, update.providerMessageId]);
    if (message?.provider === provider) await report(tx, message, update);
    return message !== undefined;
  });
}

/** A report moves a message forward, or fails one not yet delivered; anything else changes nothing. */
async function report(
  tx: Tx,
  message: Message,
  update: Pick<StatusUpdate, 'status' | 'providerStatus' | 'errorCode' | 'error'>,
): Promise<void> {
  if (message.status === 'failed') return;
  const was = PROGRESS[message.status] ?? 0;
  if (update.status === 'failed' ? was >= PROGRESS.delivered! : (PROGRESS[update.status] ?? 0) <= was) return;
  const failure =
    update.status === 'failed'
      ? { error: update.error ?? `${update.providerStatus} (no reason given)`, errorCode: update.errorCode }
      : {};
  await changeStatus(tx, message, { status: update.status, ...failure });
}

/** How far back a watermark looks among the contact's messages: receipts come within minutes of the sending. */
const WATERMARK_REACH = 100;

/**
 * Messenger's receipts name no message: everything the business sent the contact on that channel up to the
 * watermark was delivered, or read. Each such message moves forward as a status report would move it, in one
 * transaction.
 */
export async function applyWatermark(gw: Gateway, account: Account, watermark: Watermark): Promise<void> {
  const upTo = new Date(watermark.upTo).toISOString();
  const update = { status: watermark.status, providerStatus: watermark.status, errorCode: null, error: null };
  await gw.store.transact(async (tx) => {
    const contact = await contactOfExternalId(tx, account.id, watermark.contact);
    if (!contact) return;
    const recent = await tx.find<Message>('messages', 'contact', [contact.id], {
      order: 'desc',
      limit: WATERMARK_REACH,
    });
    for (const m of recent) {
      const handedOver =
        m.direction === 'outgoing' &&
        m.channel === watermark.channel &&
        m.providerMessageId &&
        (PROGRESS[m.status] ?? 0) >= PROGRESS.sent!;
      if (handedOver && m.createdAt <= upTo) await report(tx, m, update);
    }
  });
}
