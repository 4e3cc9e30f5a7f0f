import { HANDOFF_REASONS, type HandoffReason } from '../api-contract.js';
import type { Gateway } from '../context.js';
import type { Tx } from '../store/store.js';
import type { Account } from './accounts.js';
import { takeTurn, tellTeam } from './assignment.js';
import { updateConversation, type Conversation } from './conversations.js';
import { audit, type AuditBy } from './audit-log.js';
import { endSessions, getMember, memberTarget, ownerIsNoMember, teamOf } from './members.js';
import { leaveTurn } from './turns.js';

/**
 * DELETE /v1/members/{id}: the member's sessions end at once, the round robin goes on from where they were in it,
 * and their conversations are passed on (passOn).
 */
export async function removeMember(gw: Gateway, account: Account, id: string, by?: AuditBy): Promise<void> {
  await gw.store.transact(async (tx) => {
    const found = await getMember(tx, account, id);
    if (!('accountId' in found)) throw ownerIsNoMember('cannot be removed');
    const team = await teamOf(tx, account.id);
    await leaveTurn(tx, account.id, found.id, team[team.findIndex((m) => m.id === found.id) - 1]?.id ?? null);
    await endSessions(tx, found.id);
    await tx.remove('members', found.id);
    await audit(tx, by, 'member.removed', memberTarget(found), { role: found.role });
    for (const c of await tx.find<Conversation>('conversations', 'assignee', [account.id, found.id]))
      await passOn(tx, account, c);
  });
}

const reasonOf = (c: Conversation): HandoffReason => HANDOFF_REASONS.find((r) => r === c.handoff?.reason) ?? 'team';

/**
 * A conversation of a member who left. One that waits for a person is handed off anew, as a hand-off would be: to
 * the next in turn under round robin, else to nobody, and the `handoff` event (its own reason and message) tells
 * the team who has it now, so that nobody's contact waits unseen. Any other is nobody's: the bot has it, or it ended.
 */
async function passOn(tx: Tx, account: Account, conversation: Conversation): Promise<void> {
  if (conversation.status !== 'handed_off') {
    await updateConversation(tx, conversation, { assigneeId: null });
    return;
  }
  const inTurn = account.handoffAssignment === 'round_robin' ? await takeTurn(tx, account.id) : undefined;
  const passed = await updateConversation(tx, conversation, { assigneeId: inTurn?.id ?? null });
  await tellTeam(tx, account, passed, reasonOf(passed), passed.handoff?.message ?? null);
}
