import type { Tx } from '../store/store.js';
import type { EventPayload } from './events.js';
import { deliverJob, newDelivery, OWNER_TARGET, subscriptionsOf, type Attempt, type Delivery } from './webhooks.js';

/**
 * A conversation's replies reach each receiver of replies in the order they were made: a chat window shows them as
 * they come, so a reply retried after a 503 must not land after the one made while it waited. The pending deliveries
 * of one conversation to one receiver share a turn (`turn`, kept while they are pending): the first is in the job
 * queue (being posted, or waiting for its retry); each later one waits, named `next` by the one made before it, and
 * its job is queued once that one is sent or has failed for good. A failed one lets the next go: a reply the receiver
 * keeps refusing holds its conversation only until its retries run out, and never holds another conversation.
 *
 * Holds across processes: the reply made and the earlier one settling both write the earlier one's delivery, so one
 * of them loses its race and runs again, seeing the other's write. Replies of one conversation are made one at a time
 * already (each writes the conversation). Events other than `reply` are delivered each on its own, in no order.
 */

export const turnOf = (conversationId: string, target: string): string => `${conversationId}:${target}`;

/** Queues the delivery of a reply made on a conversation to one receiver, in its turn. */
export async function queueReply(
  tx: Tx,
  accountId: string,
  conversationId: string,
  payload: EventPayload<'reply'>,
  messageId: string,
  receiver: { target: string; url: string },
): Promise<Delivery> {
  const delivery = await tx.insert<Delivery>('deliveries', {
    ...newDelivery(accountId, 'reply', payload, messageId, receiver),
    turn: turnOf(conversationId, receiver.target),
  });
  await takeTurn(tx, delivery);
  return delivery;
}

/**
 * A delivery just made pending in its turn (a new reply, or a failed one sent again by hand, which is made again now)
 * goes at once when no other reply of its turn is pending, else after the last of them.
 */
export async function takeTurn(tx: Tx, delivery: Delivery): Promise<void> {
  const pending = await tx.find<Delivery>('deliveries', 'turn', [delivery.turn!]);
  const last = pending.filter((d) => d.id !== delivery.id && !d.next).at(-1);
  if (last) await tx.update<Delivery>('deliveries', last.id, { next: delivery.id });
  else await tx.enqueue(deliverJob(delivery));
}

/** What a delivery sent or failed for good writes with its outcome: it leaves its turn, and the next one goes. */
export async function leaveTurn(tx: Tx, delivery: Delivery): Promise<Partial<Delivery>> {
  if (!delivery.turn) return {};
  if (delivery.next) await tx.enqueue(deliverJob({ ...delivery, id: delivery.next }));
  return { turn: null, next: null };
}

/**
 * A pending delivery ended failed without being posted (its receiver gone, its contact opted out): one attempt that
 * says why, no retry, and its turn left to the next.
 */
export async function endUnposted(tx: Tx, delivery: Delivery, why: string, at: string): Promise<void> {
  const notPosted: Attempt = { at, status: null, latencyMs: 0, error: why, responseExcerpt: null };
  await tx.update<Delivery>('deliveries', delivery.id, {
    status: 'failed',
    attempts: [...delivery.attempts, notPosted],
    nextAttemptAt: null,
    pendingTarget: null,
    updatedAt: at,
    ...(await leaveTurn(tx, delivery)),
  });
}

/**
 * The replies of a conversation waiting in a turn held by a retry, to any receiver of the account (the one waiting for
 * its retry, and those behind it): their messages' ids, in one order. A turn whose first reply is being posted, or
 * about to be, holds nothing up: it is not waiting.
 */
export async function repliesWaitingOn(tx: Tx, accountId: string, conversationId: string): Promise<string[]> {
  const targets = [OWNER_TARGET, ...(await subscriptionsOf(tx, accountId)).map((s) => s.id)];
  const ids = new Set<string>();
  for (const target of targets) {
    const turn = await tx.find<Delivery>('deliveries', 'turn', [turnOf(conversationId, target)]);
    if (!turn.some((d) => d.nextAttemptAt)) continue;
    for (const d of turn) if (d.messageId) ids.add(d.messageId);
  }
  return [...ids].sort();
}
