import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { assigneeOf, heldByAbsent } from '../domain/assignment.js';
import { touchConversation, type Conversation } from '../domain/conversations.js';
import { emitEvent } from '../domain/emit-event.js';
import { conversationWoke } from '../domain/inbox-changes.js';
import type { JobKinds } from '../domain/job-kinds.js';
import { snoozeCancelled, snoozeFields } from '../domain/snooze-timers.js';
import type { Tx } from '../store/store.js';
import type { JobResult } from '../store/store.js';

/**
 * Job `snooze_end`: the time a conversation was snoozed until came. It comes back to the front of the inbox, whoever
 * has it (every member when nobody does, or when they are away) is told on the console, and the `snooze_ended` event
 * lets a workflow act. Nothing when it was snoozed again since, woken early or is gone (the job's `until` is not its
 * snooze any more), nor when it ran already: the queue runs a job at least once, and on PostgreSQL a second run's
 * write loses to the first's and reads the snooze over.
 */
export async function runSnoozeEnd(gw: Gateway, { conversationId, until }: JobKinds['snooze_end']): Promise<JobResult> {
  return gw.store.transact(async (tx) => {
    const conversation = await tx.get<Conversation>('conversations', conversationId);
    if (!conversation || conversation.snoozedUntil !== until) return;
    const account = await tx.get<Account>('accounts', conversation.accountId);
    if (!account) return;
    const back = await touchConversation(tx, conversation, snoozeFields(null));
    // Its assignee away, nobody would hear of it: every member is told, as of one nobody has. It stays theirs.
    const told = (await heldByAbsent(tx, account, back)) ? null : (back.assigneeId ?? null);
    conversationWoke(tx, back.accountId, back.id, told);
    await tellSnoozeEnded(tx, account, back, 'time');
  });
}

/**
 * The contact wrote (any message, a reaction too) in a snoozed conversation: it is awake at once, its wake-up
 * cancelled, and the `snooze_ended` event says why. The fields to write with the message; none when not snoozed.
 */
export async function wokenByContact(tx: Tx, conversation: Conversation) {
  if (!conversation.snoozedUntil) return {};
  const account = await tx.get<Account>('accounts', conversation.accountId);
  if (account) await tellSnoozeEnded(tx, account, conversation, 'contact_wrote');
  return snoozeCancelled(tx, conversation);
}

async function tellSnoozeEnded(tx: Tx, account: Account, c: Conversation, reason: 'time' | 'contact_wrote') {
  await emitEvent(tx, account, 'snooze_ended', {
    conversationId: c.id,
    contactId: c.contactId,
    assignee: await assigneeOf(tx, account, c),
    reason,
  });
}
