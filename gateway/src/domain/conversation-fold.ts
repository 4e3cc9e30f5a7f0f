import type { Tx } from '../store/store.js';
import { touchConversation, updateConversation, type Conversation } from './conversations.js';
import { cancelFollowUps } from './follow-up-timers.js';
import { foldedWait } from './handoff-waits.js';
import { foldedSnooze } from './snooze-timers.js';
import { foldedLabels } from './conversation-labels.js';

/** The later of two ISO timestamps, either may be absent. */
const later = (a?: string | null, b?: string | null) => ((a ?? '') >= (b ?? '') ? (a ?? null) : (b ?? null));

/** Whether the other's is the later of two times; at the same moment, it is when the contact wrote there last. */
const theirsIsLater = (theirs: string | undefined, mine: string | undefined, theyWroteLast: boolean) =>
  (theirs ?? '') > (mine ?? '') || (theirs !== undefined && theirs === mine && theyWroteLast);

/**
 * A merge folds the duplicate's conversation on a channel into this contact's conversation there: one exchange with one
 * person, which reads as if every message had come to it. Its last message, the contact's latest word, the unread and
 * failed counts and the bot's answers counted against its reply limit are both's; a hand-off in either stands (a person
 * was asked for: the team must still see who waits, and the bot stays quiet), and a contact waiting for a person in
 * either waits since the earlier wait began, reminded of once; a member who had either has it; a conversation still
 * going opens a closed one again; it stays snoozed only when both were, until the earlier time; it carries both's
 * labels. This conversation's
 * follow-ups stop when the contact wrote in the other after its last message (a reply stops them); its opening stands.
 */
export async function foldConversation(tx: Tx, into: Conversation, from: Conversation): Promise<Conversation> {
  const theyWroteLast = (from.lastIncomingAt ?? '') > (into.lastIncomingAt ?? '');
  // A follow-up waits for an answer to this conversation's last message: one the contact gave in the other.
  const answered = (from.lastIncomingAt ?? '') > (into.lastMessage?.createdAt ?? '');
  const kept = answered ? await cancelFollowUps(tx, into) : into;
  const handedOff = [kept, from]
    .filter((c) => c.status === 'handed_off')
    .sort((a, b) => (a.handoff?.at ?? '').localeCompare(b.handoff?.at ?? ''))
    .at(-1);
  const failed = (kept.failed ?? 0) + (from.failed ?? 0);
  const patch: Partial<Conversation> = {
    lastMessage: theirsIsLater(from.lastMessage?.createdAt, kept.lastMessage?.createdAt, theyWroteLast)
      ? from.lastMessage
      : kept.lastMessage,
    unread: (kept.unread ?? 0) + (from.unread ?? 0),
    failed,
    failing: failed > 0 ? 'failed' : null,
    // The limit is per conversation: answers given in either count, or a merge would lift it from a runaway exchange.
    ...(from.botReplyTimes?.length
      ? { botReplyTimes: [...(kept.botReplyTimes ?? []), ...from.botReplyTimes].sort() }
      : {}),
    handoffNoticeAt: later(kept.handoffNoticeAt, from.handoffNoticeAt),
    goalReachedAt: kept.goalReachedAt ?? from.goalReachedAt ?? null,
    campaignId: kept.campaignId ?? from.campaignId,
    // Whoever had either has the one left (whoever has the one handed off last, first): nobody's only when both were.
    assigneeId: handedOff?.assigneeId ?? kept.assigneeId ?? from.assigneeId ?? null,
    ...(await foldedWait(tx, kept, from)),
    ...(await foldedSnooze(tx, kept, from)),
    ...foldedLabels(kept, from),
    ...(theyWroteLast
      ? {
          lastIncomingAt: from.lastIncomingAt,
          lastIncomingId: from.lastIncomingId ?? null,
          botAnsweredId: from.botAnsweredId ?? null,
          clarifying: from.clarifying ?? null,
        }
      : {}),
    ...(handedOff
      ? {
          status: 'handed_off' as const,
          bot: handedOff.bot,
          handoff: handedOff.handoff ?? null,
        }
      : kept.status === 'closed' && from.status === 'active'
        ? { status: 'active' as const }
        : {}),
  };
  // Activity later than this conversation's own brings it up the inbox, as a new message would.
  return from.lastActivityAt > kept.lastActivityAt
    ? touchConversation(tx, kept, patch)
    : updateConversation(tx, kept, patch);
}
