import type { Tx } from '../store/store.js';
import { conversationsOfContact, updateConversation } from './conversations.js';
import { forgetOptOut, type Addresses } from './erased-opt-outs.js';
import { cancelFollowUps } from './follow-up-timers.js';
import { stopOpenings } from './openings.js';
import { withholdWaitingReplies } from './withheld-replies.js';

/**
 * Nothing more goes to an opted-out contact, however it came to be opted out (its STOP, a merge with a contact that
 * said it, an address an erased contact opted out with): its waiting opening messages are skipped, its follow-ups
 * cancelled, and each of its conversations is `opted_out`, its replies waiting for a custom channel's retry skipped
 * now rather than when the retry comes due (the contact opted out already in `tx`).
 */
export async function holdOptOut(tx: Tx, contactId: string): Promise<void> {
  await stopOpenings(tx, contactId, 'opted_out');
  for (const c of await conversationsOfContact(tx, contactId)) {
    await updateConversation(tx, await cancelFollowUps(tx, c), { status: 'opted_out' });
    // A STOP's confirmation goes behind them in the conversation's turn: it would wait for their retries too.
    await withholdWaitingReplies(tx, c.accountId, c.id);
  }
}

/**
 * The person's latest word is START (their own, or one a merge brings): each conversation held opted out is active
 * again (handed off where the bot was off), and an opt-out an erased contact left under the contact's addresses is
 * over, so that a contact those addresses reach later (by a merge, a correction) is not opted out again.
 */
export async function releaseOptOut(tx: Tx, contact: Addresses & { id: string }): Promise<void> {
  await forgetOptOut(tx, contact);
  for (const c of await conversationsOfContact(tx, contact.id)) {
    if (c.status === 'opted_out') await updateConversation(tx, c, { status: c.bot.active ? 'active' : 'handed_off' });
  }
}
