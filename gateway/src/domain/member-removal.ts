import type { Gateway } from '../context.js';
import type { Tx } from '../store/store.js';
import type { Account } from './accounts.js';
import { handOffAnew } from './assignment.js';
import { updateConversation, type Conversation } from './conversations.js';
import { audit, type AuditBy } from './audit-log.js';
import { endSessions, getMember, memberTarget, ownerIsNoMember, teamOf } from './members.js';
import { memberChanged } from './team-changes.js';
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
    memberChanged(tx, account.id);
    for (const c of await tx.find<Conversation>('conversations', 'assignee', [account.id, found.id]))
      await passOn(tx, account, c);
  });
}

/**
 * A conversation of a member who left. One that waits for a person is handed off anew (handOffAnew). Any other is
 * nobody's: the bot has it, or it ended.
 */
async function passOn(tx: Tx, account: Account, conversation: Conversation): Promise<void> {
  if (conversation.status === 'handed_off') await handOffAnew(tx, account, conversation);
  else await updateConversation(tx, conversation, { assigneeId: null });
}
