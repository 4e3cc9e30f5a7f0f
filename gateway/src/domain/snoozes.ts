import type { Gateway } from '../context.js';
import { ApiError, fieldError } from '../errors.js';
import { clockNow } from '../clock.js';
import { getConversation, updateConversation, type Conversation } from './conversations.js';
import { snoozeCancelled, snoozeTimed } from './snooze-timers.js';

/** The furthest a conversation is snoozed: a year ahead, past which a callback is a task for a CRM, not the inbox. */
export const LONGEST_SNOOZE_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * POST /v1/conversations/{id}/snooze: hidden from the inbox until `until` (an ISO date-time with its offset, kept in
 * UTC), which must lie ahead by the gateway's clock and within a year. Snoozed again, the new time replaces the old.
 * Never while the contact waits for a person ("Nobody waits in silence": answer first), nor for a contact who opted
 * out, whom nobody may write to again.
 */
export async function snoozeConversation(
  gw: Gateway,
  accountId: string,
  conversationId: string,
  until: string,
): Promise<Conversation> {
  const at = Date.parse(until);
  if (at <= clockNow()) throw fieldError('until', 'must be in the future');
  if (at > clockNow() + LONGEST_SNOOZE_DAYS * DAY_MS)
    throw fieldError('until', `must be at most ${LONGEST_SNOOZE_DAYS} days ahead`);
  return gw.store.transact(async (tx) => {
    const conversation = await getConversation(tx, accountId, conversationId);
    if (conversation.waitingSince)
      throw new ApiError(
        409,
        'CONTACT_WAITING',
        'The contact waits for a reply from the team: answer them (or give the conversation back to the bot) before snoozing it',
      );
    if (conversation.status === 'opted_out')
      throw new ApiError(
        409,
        'CONTACT_OPTED_OUT',
        'The contact opted out: nobody may write to them again, so there is nothing to come back to',
      );
    return updateConversation(tx, conversation, await snoozeTimed(tx, conversation, new Date(at).toISOString()));
  });
}

/** DELETE /v1/conversations/{id}/snooze: back in the inbox now, where its last activity places it; told to nobody. */
export async function wakeConversation(gw: Gateway, accountId: string, conversationId: string): Promise<Conversation> {
  return gw.store.transact(async (tx) => {
    const conversation = await getConversation(tx, accountId, conversationId);
    if (!conversation.snoozedUntil) return conversation;
    return updateConversation(tx, conversation, await snoozeCancelled(tx, conversation));
  });
}
