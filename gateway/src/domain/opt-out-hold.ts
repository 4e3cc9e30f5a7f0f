import type { Tx } from '../store/store.js';
import { conversationsOfContact, updateConversation } from './conversations.js';
import { cancelFollowUps } from './follow-up-timers.js';
import { stopOpenings } from './openings.js';

/**
 * Nothing more goes to an opted-out contact, however it came to be opted out (its STOP, a merge with a contact that
 * said it, an address an erased contact opted out with): its waiting opening messages are skipped, its follow-ups
 * cancelled, and each of its conversations is `opted_out`.
 */
export async function holdOptOut(tx: Tx, contactId: string): Promise<void> {
  await stopOpenings(tx, contactId, 'opted_out');
  for (const c of await conversationsOfContact(tx, contactId)) {
    await updateConversation(tx, await cancelFollowUps(tx, c), { status: 'opted_out' });
  }
}
