import { HANDOFF_REASONS, type HandoffReason } from '../api-contract.js';
import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import { assigneeOf } from '../domain/assignment.js';
import { updateConversation, type Conversation } from '../domain/conversations.js';
import { emitEvent } from '../domain/emit-event.js';
import { reminderAfter } from '../domain/handoff-waits.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { Message } from '../domain/messages.js';
import { now } from '../ids.js';
import { clockNow } from '../clock.js';
import { outOfHours } from '../domain/business-time.js';
import { nextOpening } from '../domain/sending-window.js';
import type { JobResult } from '../store/store.js';

const isReason = (reason: string | undefined): reason is HandoffReason =>
  (HANDOFF_REASONS as readonly string[]).includes(reason ?? '');

/**
 * Job `handoff_reminder`: a contact has waited for a person since `since`, as long as the account's reminder allows.
 * The conversation shows it (`remindedAt`: the console tells every member, as it tells a conversation nobody has),
 * and the `handoff_waiting` event lets a workflow page someone. Nothing when that wait is over (a person replied, the
 * bot has it again) or was reminded of already (the queue runs a job at least once; on PostgreSQL a second run's
 * write loses to the first's and reads it done), nor when the account turned reminders off meanwhile. Never out of
 * business hours: one due then (hours set while their walk, engine/handoff-reminder-times.ts, had not timed it anew yet)
 * runs again at their next opening.
 *
 * The conversation stays with whoever has it, round robin or not: taking it from them unasked would move a contact
 * mid-exchange to someone who has not read it, and a member may be writing the answer. Every member now sees it, any
 * of them may take it, and a workflow may reassign it (POST /v1/conversations/{id}/assign).
 */
export async function runHandoffReminder(
  gw: Gateway,
  { conversationId, since }: JobKinds['handoff_reminder'],
): Promise<JobResult> {
  return gw.store.transact(async (tx) => {
    const conversation = await tx.get<Conversation>('conversations', conversationId);
    if (!conversation || conversation.waitingSince !== since || conversation.remindedAt) return;
    const [account, latest] = await Promise.all([
      tx.get<Account>('accounts', conversation.accountId),
      conversation.lastIncomingId ? tx.get<Message>('messages', conversation.lastIncomingId) : undefined,
    ]);
    if (!account || reminderAfter(account) === null) return;
    // Business hours set since the wait was timed: the reminder waits for the team to be back.
    if (outOfHours(account.businessHours, clockNow()))
      return { later: nextOpening(account.businessHours!, clockNow()) };
    const reminded = await updateConversation(tx, conversation, { remindedAt: now() });
    const reason = reminded.handoff?.reason;
    await emitEvent(tx, account, 'handoff_waiting', {
      contactId: reminded.contactId,
      conversationId: reminded.id,
      channel: reminded.channel,
      customChannel: reminded.customChannel,
      waitingSince: since,
      reason: isReason(reason) ? reason : null,
      body: latest?.body || null,
      assignee: await assigneeOf(tx, account, reminded),
    });
  });
}
