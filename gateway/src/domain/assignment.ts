import type { Gateway } from '../context.js';
import { ApiError } from '../errors.js';
import type { Tx } from '../store/store.js';
import { HANDOFF_REASONS, type HandoffReason } from '../api-contract.js';
import type { Account } from './accounts.js';
import { getConversation, updateConversation, type Conversation } from './conversations.js';
import { emitEvent } from './emit-event.js';
import { availabilityOf, getMember, teamOf, type Actor, type Member } from './members.js';
import { holdTurn } from './turns.js';

/**
 * POST /v1/conversations/{id}/assign: the conversation is the member's (or the owner's) to answer, or nobody's
 * (null). `me` names whoever asks. Only an active member takes a conversation: an invited one cannot answer yet.
 * With `expected` (who the caller saw having it; null: nobody), only if they still have it: two agents pressing
 * "Assign to me" at once, the second is told who took it rather than taking it from them.
 */
export async function assignConversation(
  gw: Gateway,
  account: Account,
  actor: Actor,
  conversationId: string,
  memberId: string | null,
  { expected }: { expected?: string | null } = {},
): Promise<Conversation> {
  return gw.store.transact(async (tx) => {
    const conversation = await getConversation(tx, account.id, conversationId);
    if (expected !== undefined && (conversation.assigneeId ?? null) !== expected) {
      const now = await assigneeOf(tx, account, conversation);
      throw new ApiError(
        409,
        'ASSIGNEE_CHANGED',
        now
          ? `${now.id === actor.id ? 'You have' : `${now.name} has`} had this conversation since it was read: it was not reassigned`
          : 'Nobody has this conversation any more since it was read: it was not reassigned',
      );
    }
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
 * The next active agent in turn who is not away (the available admins' turn when no agent is available), recorded as
 * having taken it; none when nobody is available, and the hand-off is nobody's, which every member is told of. The
 * turn (turns.ts) is held in the hand-off's transaction: concurrent hand-offs, on any number of processes, wait for
 * each other on it and each takes the next, as does a member going away (availability.ts). The next is the first of
 * the pool who joined after whoever took the last, who may have left the pool since (an agent made an admin, away).
 */
export async function takeTurn(tx: Tx, accountId: string): Promise<Member | undefined> {
  const turn = await holdTurn(tx, accountId);
  const team = await teamOf(tx, accountId);
  const active = team.filter((m) => m.status === 'active' && availabilityOf(m) === 'available');
  const agents = active.filter((m) => m.role === 'agent');
  const pool = agents.length > 0 ? agents : active.filter((m) => m.role === 'admin');
  if (pool.length === 0) return undefined;
  const lastAt = team.findIndex((m) => m.id === turn.last);
  const next = pool.find((m) => team.indexOf(m) > lastAt) ?? pool[0]!;
  await turn.record(next.id);
  return next;
}

/**
 * Whether the member who has the conversation is away (or gone): a contact handed to them would wait unseen. The
 * owner's availability is read from the account as stored now, not as the caller read it.
 */
export async function heldByAbsent(tx: Tx, account: Account, conversation: Conversation): Promise<boolean> {
  if (!conversation.assigneeId) return false;
  const current = (await tx.get<Account>('accounts', account.id)) ?? account;
  const holder = await getMember(tx, current, conversation.assigneeId).catch(() => undefined);
  return !holder || availabilityOf(holder) === 'away';
}

const reasonOf = (c: Conversation): HandoffReason => HANDOFF_REASONS.find((r) => r === c.handoff?.reason) ?? 'team';

/**
 * A conversation waiting for a person whose assignee is no longer there for it (they left the team, or went away) is
 * handed off anew, as a hand-off would be: to the next available in turn under round robin, else to nobody, and the
 * `handoff` event (its own reason, and its message unless `body` says what the contact wrote since) tells the team
 * who has it now, so that no contact waits unseen.
 */
export async function handOffAnew(
  tx: Tx,
  account: Account,
  conversation: Conversation,
  body: string | null = conversation.handoff?.message ?? null,
): Promise<void> {
  const inTurn = account.handoffAssignment === 'round_robin' ? await takeTurn(tx, account.id) : undefined;
  const passed = await updateConversation(tx, conversation, { assigneeId: inTurn?.id ?? null });
  await tellTeam(tx, account, passed, reasonOf(passed), body);
}

/**
 * The `handoff` event: the team hears that the conversation waits for a person, and who of them has it (read as
 * the transaction has it), so that a workflow can alert that person.
 */
export async function tellTeam(
  tx: Tx,
  account: Account,
  conversation: Conversation,
  reason: HandoffReason,
  body: string | null,
): Promise<void> {
  await emitEvent(tx, account, 'handoff', {
    contactId: conversation.contactId,
    conversationId: conversation.id,
    channel: conversation.channel,
    customChannel: conversation.customChannel,
    reason,
    body,
    assignee: await assigneeOf(tx, account, conversation),
  });
}

/** Who of the team has the conversation, as the events name them; null for nobody (or a member gone meanwhile). */
export async function assigneeOf(
  tx: Tx,
  account: Account,
  conversation: Conversation,
): Promise<{ id: string; name: string; email: string } | null> {
  const assignee = conversation.assigneeId
    ? await getMember(tx, account, conversation.assigneeId).catch(() => undefined)
    : undefined;
  return assignee ? { id: assignee.id, name: assignee.name, email: assignee.email } : null;
}
