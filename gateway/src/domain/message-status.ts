import type { Gateway } from '../context.js';
import { deliveryFailed } from '../engine/events.js';
import { now } from '../ids.js';
import type { StatusUpdate } from '../providers/channels/channel-provider.js';
import type { Account } from './accounts.js';
import { messageSettled } from './conversations.js';
import type { Message } from './messages.js';

/** How far along a message is; a status report never moves it back (callbacks may arrive out of order). */
const PROGRESS: Record<string, number> = { pending: 0, queued: 1, sent: 2, delivered: 3, read: 4 };

/**
 * A provider's report on a message it sent (Twilio's status callback, WhatsApp's status webhook): the message
 * shows it, and a failure keeps the provider's error code and is reported as `delivery_failed`. A failure after the
 * contact's phone got the message changes nothing. Reports on unknown messages are ignored.
 */
export async function applyStatusUpdate(gw: Gateway, account: Account, update: StatusUpdate): Promise<void> {
  await gw.store.transact(async (tx) => {
    const [message] = await tx.find<Message>('messages', 'providerMessageId', [account.id, update.providerMessageId]);
    if (!message || message.status === 'failed') return;
    const was = PROGRESS[message.status] ?? 0;
    if (update.status === 'failed' ? was >= PROGRESS.delivered! : (PROGRESS[update.status] ?? 0) <= was) return;
    const failure = update.status === 'failed'
      ? { error: update.error ?? `${update.providerStatus} (no reason given)`, errorCode: update.errorCode }
      : {};
    const changed = await tx.update<Message>('messages', message.id, { status: update.status, ...failure, updatedAt: now() });
    await messageSettled(tx, changed);
    if (changed.status === 'failed') await deliveryFailed(tx, changed);
  });
}
