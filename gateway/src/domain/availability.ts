import { canAct, type Availability } from '../api-contract.js';
import type { Gateway } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { now } from '../ids.js';
import type { Account } from './accounts.js';
import { handOffAnew } from './assignment.js';
import { audit, type AuditBy } from './audit-log.js';
import { waitsForPerson, type Conversation } from './conversations.js';
import { availabilityOf, getMember, memberTarget, ownerOf, type Actor, type Member } from './members.js';
import { memberChanged } from './team-changes.js';
import { holdTurn } from './turns.js';

/**
 * PUT /v1/members/{id}/availability: a member (`me`: whoever asks) is away, and round robin passes them by, or
 * available again. Everyone sets their own; the owner and admins set anyone's too, covering for a colleague who
 * forgot before leaving (an agent setting another's is 403 FORBIDDEN), and that is in the audit log, as is the API
 * key's setting of the owner's.
 *
 * Going away hands off anew each conversation of theirs that waits for a person (waitsForPerson), as their removal
 * from the team would: nobody else would answer it while they are gone. Their other conversations stay theirs (one
 * they answered, one the bot has), and one of those whose contact writes while they are away is handed on then
 * (engine/incoming.ts); coming back gives nothing back: those handed on are the new assignees' now.
 *
 * The account's round-robin turn is held first, as a hand-off holds it: one under way on another process either
 * assigned the conversation before (and it is handed on here) or reads the member away after.
 */
export async function setAvailability(
  gw: Gateway,
  account: Account,
  actor: Actor,
  id: string,
  availability: Availability,
  by?: AuditBy,
): Promise<Member | Actor> {
  const memberId = id === 'me' ? actor.id : id;
  return gw.store.transact(async (tx) => {
    await holdTurn(tx, account.id);
    const current = await tx.get<Account>('accounts', account.id);
    if (!current) throw notFound('Account');
    const found = await getMember(tx, current, memberId);
    if (found.id !== actor.id && !canAct(actor.role, 'admin'))
      throw forbidden('FORBIDDEN', `An agent sets only their own availability, not ${found.name}'s`);
    if (availabilityOf(found) === availability) return found;
    const updated =
      'accountId' in found
        ? await tx.update<Member>('members', found.id, { availability, updatedAt: now() })
        : ownerOf(await tx.update<Account>('accounts', current.id, { ownerAvailability: availability }));
    memberChanged(tx, current.id);
    // One's own is nobody else's business; the API key acting for the owner is a workflow, not the owner in person.
    if (found.id !== actor.id || by?.actor.type === 'api_key')
      await audit(tx, by, 'member.changed', memberTarget(updated), { keys: ['availability'] });
    if (availability === 'away') {
      for (const c of await tx.find<Conversation>('conversations', 'assignee', [current.id, found.id]))
        if (waitsForPerson(c)) await handOffAnew(tx, current, c);
    }
    return updated;
  });
}
