import type { Gateway } from '../context.js';
import { ApiError } from '../errors.js';
import { now } from '../ids.js';
import type { Tx } from '../store/store.js';
import type { Account } from './accounts.js';
import { getConversation, updateConversation, type Conversation } from './conversations.js';
import { activeMembers, getMember, type Actor, type Member } from './members.js';

/** Whose turn the next round-robin hand-off of an account is: the member who took the last one. */
interface Turn {
  /** The account's id. */
  id: string;
  lastMemberId: string;
  at: string;
}

/**
 * POST /v1/conversations/{id}/assign: the conversation is the member's (or the owner's) to answer, or nobody's
 * (null). `me` names whoever asks. Only an active member takes a conversation: an invited one cannot answer yet.
 */
export async function assignConversation(
  gw: Gateway,
  account: Account,
  actor: Actor,
  conversationId: string,
  memberId: string | null,
): Promise<Conversation> {
  return gw.store.transact(async (tx) => {
    const conversation = await getConversation(tx, account.id, conversationId);
    if (memberId === null) return updateConversation(tx, conversation, { assigneeId: null });
    const member = await getMember(tx, account, memberId === 'me' ? actor.id : memberId);
    if ('status' in member && member.status !== 'active') {
      throw new ApiError(
        409,
        'MEMBER_NOT_ACTIVE',
        `${member.name} has not accepted the invitation yet: only an active member takes conversations`,
      );
    }
    return updateConversation(tx, conversation, { assigneeId: member.id });
  });
}

/**
 * The next active agent in turn (the admins' turn when the account has no agent), recorded as having taken it; none
 * when the team has neither. The turn is one document per account, read and written in the hand-off's transaction:
 * concurrent hand-offs, on any number of processes, wait for each other on it and each takes the next.
 */
export async function takeTurn(tx: Tx, accountId: string): Promise<Member | undefined> {
  const turn = await tx.lock<Turn>('assignment_turns', accountId);
  const members = await activeMembers(tx, accountId);
  const agents = members.filter((m) => m.role === 'agent');
  const pool = agents.length > 0 ? agents : members.filter((m) => m.role === 'admin');
  if (pool.length === 0) return undefined;
  const next = pool[(pool.findIndex((m) => m.id === turn?.lastMemberId) + 1) % pool.length]!;
  if (turn) await tx.update<Turn>('assignment_turns', accountId, { lastMemberId: next.id, at: now() });
  else await tx.insert<Turn>('assignment_turns', { id: accountId, lastMemberId: next.id, at: now() });
  return next;
}
