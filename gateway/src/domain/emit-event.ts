import type { Account } from './accounts.js';
import { countFailed, type Conversation } from './conversations.js';
import { recordStep } from './funnel.js';
import type { Message } from './messages.js';
import { emit } from './webhooks.js';
import type { EventPayload, EventType } from './events.js';
import { now } from '../ids.js';
import type { Tx } from '../store/store.js';

/** The events the engine reports, each payload starting with its `type` and `occurredAt`. */
type EngineEvent = Exclude<EventType, 'reply' | 'auto_recharge'>;

/** Queues an engine event for the account's subscribers, in the transaction of the change it reports. */
export async function emitEvent<E extends EngineEvent>(
  tx: Tx,
  account: Account | string,
  event: E,
  fields: Omit<EventPayload<E>, 'type' | 'occurredAt'>,
  messageId: string | null = null,
): Promise<void> {
  const owner = typeof account === 'string' ? await tx.get<Account>('accounts', account) : account;
  if (!owner) return;
  // The spread of a generic's fields is not known to TypeScript as the payload it makes; the signature holds it.
  await emit(tx, owner, event, { type: event, occurredAt: now(), ...fields } as EventPayload<E>, messageId);
}

/** An outgoing message that will not reach the contact: its channel failed for good. */
export async function deliveryFailed(tx: Tx, message: Message): Promise<void> {
  await recordStep(tx, 'failed', message);
  await countFailed(tx, message.conversationId, 1);
  const conversation = message.conversationId && (await tx.get<Conversation>('conversations', message.conversationId));
  await emitEvent(tx, message.accountId, 'delivery_failed', {
    contactId: message.contactId,
    conversationId: message.conversationId,
    messageId: message.id,
    channel: message.channel,
    customChannel: conversation && conversation.channel === 'custom' ? conversation.customChannel : null,
    error: message.error,
    errorCode: message.errorCode,
  });
}
