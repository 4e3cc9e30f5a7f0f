import { countFailed, messageSettled, type Conversation } from './conversations.js';
import { refund } from './credits.js';
import { deliveryFailed } from './emit-event.js';
import { isOpening, openingStatusChanged } from './failed-openings.js';
import { cancelFollowUps } from './follow-up-timers.js';
import { recordStep } from './funnel.js';
import { messageStatusChanged } from './inbox-changes.js';
import { newJob } from './job-kinds.js';
import type { Message } from './messages.js';
import { now } from '../ids.js';
import { channelLabel, metrics } from '../metrics.js';
import type { Tx } from '../store/store.js';

/**
 * The one way a stored message's status changes, whoever changes it (the send job, a provider's report, its
 * receivers' answers, a retry): the message, its conversation's last message and failed count, a failure told
 * once as `delivery_failed` (and a bot's answer to the team), and an opening sent again counted in its campaign's
 * funnel. An opening a campaign's retry put back in its queue (`queued`) is pending until its turn, and counted as
 * sent when it goes then (engine/openings.ts).
 */
export async function changeStatus(
  tx: Tx,
  message: Message,
  patch: Partial<Message> & Pick<Message, 'status'>,
  { queued = false }: { queued?: boolean } = {},
): Promise<Message> {
  let changed = await tx.update<Message>('messages', message.id, { ...patch, updatedAt: now() });
  // Withheld before any provider took it (the contact opted out meanwhile): it was never sent, and is not paid for.
  if (message.status === 'pending' && changed.status === 'skipped' && changed.provider === null) {
    await refund(tx, changed, `Not sent: ${changed.error ?? 'withheld'}`);
    changed = (await tx.get<Message>('messages', message.id)) ?? changed;
  }
  if (changed.status !== message.status && changed.status !== 'pending') {
    tx.afterCommit(() => metrics.messagesSent.inc({ channel: channelLabel(changed.channel), status: changed.status }));
  }
  if (changed.status !== message.status && changed.conversationId)
    messageStatusChanged(tx, changed.accountId, changed.conversationId, changed.id, changed.status);
  await messageSettled(tx, changed);
  await openingStatusChanged(tx, message, changed);
  if (changed.status === 'failed' && message.status !== 'failed') {
    await deliveryFailed(tx, changed);
    if (isOpening(changed)) await unfollow(tx, changed);
    // The team answers a bot's answer that never reached the contact (engine/failed-answer.ts), once committed.
    if (changed.author === 'bot' && changed.conversationId)
      await tx.enqueue(newJob('reply_failed', { messageId: changed.id }, { accountId: changed.accountId }));
  } else if (message.status === 'failed' && changed.status !== 'failed') {
    await countFailed(tx, changed.conversationId, -1);
    // A retry handed a failed opening to its channel again: it went now, as a first send that did not fail goes
    // (engine/openings.ts), whichever retry sent it. The step counts the contact once, however many retries.
    if (isOpening(changed) && !queued) await recordStep(tx, 'openingSent', changed);
  }
  return changed;
}

/**
 * Follow-ups follow an opening that went (engine/openings.ts): one its channel failed after all (the provider
 * refused it, reported it undelivered, or every receiver gave up) stops them, until a retry sends it
 * (engine/retry.ts). A lead it never reached gets no "Still there?".
 */
async function unfollow(tx: Tx, opening: Message): Promise<void> {
  const conversation = opening.conversationId
    ? await tx.get<Conversation>('conversations', opening.conversationId)
    : undefined;
  if (conversation) await cancelFollowUps(tx, conversation);
}
