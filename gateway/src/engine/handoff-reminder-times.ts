import type { Gateway } from '../context.js';
import type { Account } from '../domain/accounts.js';
import type { Conversation } from '../domain/conversations.js';
import { retimedWait } from '../domain/handoff-waits.js';
import type { JobKinds } from '../domain/job-kinds.js';
import { batchesOf } from '../store/batches.js';

const BATCH = 100;

/**
 * Job `handoff_reminders`: the account's handoffReminderAfter or businessHours changed (change `version` of them).
 * Every contact waiting for a person whom the team was not reminded of yet has their reminder timed anew under what the
 * account says now (domain/handoff-waits.ts), a batch of the conversations needing a reply per transaction: an account
 * with thousands waiting holds neither the request nor one long transaction.
 *
 * A later change queues a walk of its own, and this one stops at its next batch: each batch holds the account while
 * it times its waits, so a change either comes before it (and the batch stops, or times by it) or after it (and its
 * own walk times them again). The waits always end timed by the latest settings.
 */
export async function runHandoffReminders(
  gw: Gateway,
  { accountId, version }: JobKinds['handoff_reminders'],
): Promise<void> {
  const batches = batchesOf<Conversation>(gw.store, 'conversations', 'awaiting', [accountId, 'reply'], { size: BATCH });
  for await (const batch of batches) {
    const current = await gw.store.transact(async (tx) => {
      const account = await tx.lock<Account>('accounts', accountId);
      if (!account || (account.remindersRetimed ?? 0) !== version) return false;
      for (const { doc } of batch) {
        const conversation = await tx.get<Conversation>('conversations', doc.id);
        if (conversation) await retimedWait(tx, account, conversation);
      }
      return true;
    });
    if (!current) return;
  }
}
