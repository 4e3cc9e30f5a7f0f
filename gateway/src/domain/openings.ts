import { clockNow } from '../clock.js';
import { iso, now } from '../ids.js';
import type { Reader, Tx } from '../store/store.js';
import { updateConversation, type Conversation, type OpeningState } from './conversations.js';
import { newJob } from './job-kinds.js';
import { isUnreachableReason, recordUnreachable } from './reach.js';

/** A campaign's opening message to one contact: at most one per campaign and contact (a unique index). */
export interface Opening {
  id: string;
  accountId: string;
  campaignId: string;
  contactId: string;
  conversationId: string;
  status: OpeningState['status'];
  reason: string | null;
  /** 'held' while a paused campaign holds it. */
  held: 'held' | null;
  /** When it is due (epoch ms), once queued. */
  dueAt: number | null;
  /**
   * True while a delayed opening waits for its delay to end: it takes its slot of the campaign's pace then, so that
   * the additions after it are not queued behind it. False or absent (older data) once it has its slot.
   */
  awaitsSlot?: boolean;
  /**
   * When a delayed opening's delay ends (epoch ms): a sending window changed while it waits for it (awaitsSlot) times
   * it anew from then (engine/campaign-queue.ts). Absent on older data, and on an opening given no delay.
   */
  delayEndsAt?: number | null;
  /** The round of the campaign's pace its slot was taken in (engine/openings.ts, Pacing); absent on older data: 0. */
  round?: number | null;
  messageId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The key of the opening's job, by which a stop cancels it. */
export const openingKey = (id: string) => `opening:${id}`;

/** The opening's job, to send it at `dueAt` (epoch ms), keyed by the opening. */
export const queueOpening = (tx: Tx, opening: Opening, dueAt: number) =>
  tx.enqueue(
    newJob(
      'opening',
      { openingId: opening.id },
      { runAt: dueAt, key: openingKey(opening.id), accountId: opening.accountId },
    ),
  );

/** The contact's opening messages, of every campaign. */
export const openingsOf = (r: Reader, contactId: string) => r.find<Opening>('openings', 'contact', [contactId]);

/**
 * Whether the conversation came to the campaign by its list: the campaign's opening went to the contact there, as the
 * contact was on the list. One the contact started by writing in (on a Meta channel, or to a campaign with no list)
 * did not, even when the contact is on the list too.
 */
export async function openedByList(r: Reader, campaignId: string, conversation: Conversation): Promise<boolean> {
  const [opening] = await r.find<Opening>('openings', 'member', [campaignId, conversation.contactId]);
  return opening?.conversationId === conversation.id && opening.messageId !== null;
}

/** The opening as its conversation shows it. */
export const stateOf = (o: Opening): OpeningState => ({
  campaignId: o.campaignId,
  status: o.status,
  reason: o.reason,
  at: o.updatedAt,
});

/**
 * Whether another campaign follows up on the conversation (two campaigns on one channel): its timer keeps the
 * conversation, and its name, until this campaign's opening goes (engine/openings.ts hands it over then), as the
 * opening queued may yet not go (the contact writes first, leaves the list).
 */
export const followedUpByAnother = (conversation: Conversation, campaignId: string) =>
  conversation.campaignId !== campaignId &&
  (conversation.next?.kind === 'follow_up' || conversation.next?.kind === 'close');

/**
 * Writes a change of the opening, and what follows from it: an opening the contact cannot be reached by counts in its
 * campaign's reach, and its conversation shows its state and, while it waits, when it is due.
 */
export async function settleOpening(tx: Tx, opening: Opening, patch: Partial<Opening>): Promise<Opening> {
  const updated = await tx.update<Opening>('openings', opening.id, { ...patch, updatedAt: now() });
  if (updated.status === 'skipped' && isUnreachableReason(updated.reason))
    await recordUnreachable(tx, updated.reason, updated);
  const conversation = await tx.get<Conversation>('conversations', opening.conversationId);
  if (conversation) {
    const next = followedUpByAnother(conversation, updated.campaignId)
      ? conversation.next
      : updated.status === 'queued' && updated.dueAt !== null
        ? { kind: 'opening' as const, at: iso(updated.dueAt) }
        : conversation.next?.kind === 'opening'
          ? null
          : conversation.next;
    await updateConversation(tx, conversation, { opening: stateOf(updated), next });
  }
  return updated;
}

/**
 * The opening's message failed, or went again on a retry: the opening reads `failed` while its message is failed,
 * `sent` again once a retry hands it to its channel. Its conversation shows it while it shows this campaign's opening
 * (another campaign's may have come since, on a conversation two campaigns share).
 */
export async function openingMessageChanged(
  tx: Tx,
  message: { id: string; campaignId: string; contactId: string; status: string },
): Promise<void> {
  const [found] = await tx.find<Opening>('openings', 'member', [message.campaignId, message.contactId]);
  if (found?.messageId !== message.id || (found.status !== 'sent' && found.status !== 'failed')) return;
  const status = message.status === 'failed' ? 'failed' : 'sent';
  if (found.status === status) return;
  const updated = await tx.update<Opening>('openings', found.id, { status, updatedAt: now() });
  const conversation = await tx.get<Conversation>('conversations', updated.conversationId);
  if (conversation?.opening?.campaignId === updated.campaignId)
    await updateConversation(tx, conversation, { opening: stateOf(updated) });
}

/**
 * The contact wrote, opted out or was handed to a person (or left the list of the campaigns `only` picks): opening
 * messages still waiting for them will not go. Returns how many were stopped.
 */
export async function stopOpenings(
  tx: Tx,
  contactId: string,
  reason: string,
  only: (o: Opening) => boolean = () => true,
): Promise<number> {
  let stopped = 0;
  for (const opening of await openingsOf(tx, contactId)) {
    if ((opening.status !== 'queued' && opening.status !== 'held') || !only(opening)) continue;
    await tx.cancelJobs(openingKey(opening.id));
    const settled = await settleOpening(tx, opening, {
      status: reason === 'opted_out' ? 'skipped' : 'cancelled',
      reason,
      held: null,
    });
    // A retried opening's message waits pending in the queue (engine/retry.ts): its job, run now, fails it with the
    // reason it will not go. An erased contact's messages are gone with it.
    if (settled.messageId !== null && reason !== 'erased') await queueOpening(tx, settled, clockNow());
    stopped += 1;
  }
  return stopped;
}
