import type { Gateway } from '../context.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import { iso, newId, now } from '../ids.js';
import { clockNow } from '../clock.js';
import type { Page, Placed, Reader, Store, Tx } from '../store/store.js';
import type { Account } from './accounts.js';
import { audit, type AuditBy } from './audit-log.js';
import { digest, hashPassword, newToken } from './secrets.js';
import { endSessionIn } from './session-ends.js';
import { memberChanged } from './team-changes.js';
import type { Availability, MemberRole, Role } from '../api-contract.js';
import type { MemberAnswer } from '../contract/account.js';

/**
 * The people of an account's team. The owner signs in with the account's own email and password (there is exactly
 * one, and it is no record here: its id is derived from the account's, see ownerIdOf); admins and agents are
 * members, invited by a link that lets them set their own password.
 */
export interface Member {
  id: string;
  accountId: string;
  email: string;
  name: string;
  role: MemberRole;
  /** invited until the member sets a password through the invitation's link. */
  status: 'invited' | 'active';
  passwordHash: string | null;
  /** The digest of the invitation's token (the link holds the token itself), while one is open. */
  inviteTokenHash: string | null;
  /** Epoch ms after which the invitation no longer opens. */
  inviteExpiresAt: number | null;
  /** Away: round robin passes them by; available when unset (members stored before there was a choice). */
  availability?: Availability;
  createdAt: string;
  updatedAt: string;
}

/** Whoever acts on the account: the owner (its sign-in or its API key) or a member. */
export interface Actor {
  id: string;
  name: string;
  email: string;
  role: Role;
  /** As their member record holds it (Member), or the account the owner's. */
  availability?: Availability;
}

/** How long an invitation's link opens. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60_000;

/** The owner's member id: the account's id under the members' prefix ("acc_x" gives "mem_accx"). */
export const ownerIdOf = (accountId: string): string => `mem_${accountId.replace('_', '')}`;

export const ownerOf = (account: Account): Actor => ({
  id: ownerIdOf(account.id),
  name: account.ownerName || account.name,
  email: account.email,
  role: 'owner',
  availability: account.ownerAvailability ?? 'available',
});

/** A member's (or the owner's) availability: available unless they said they are away. */
export const availabilityOf = (m: Member | Actor): Availability => m.availability ?? 'available';

export const actorOf = (m: Member): Actor => ({
  id: m.id,
  name: m.name,
  email: m.email,
  role: m.role,
  availability: availabilityOf(m),
});

/** The account's member with this id, the owner included; 404 for anyone else's. */
export async function getMember(r: Reader, account: Account, id: string): Promise<Member | Actor> {
  if (id === ownerIdOf(account.id)) return ownerOf(account);
  const member = await r.get<Member>('members', id);
  if (!member || member.accountId !== account.id) throw notFound('Member');
  return member;
}

/**
 * The owner first, then the members in the order they were invited, each at its place: a page after the owner's id
 * or a member's place, so that a member removed between two pages does not end the walk there.
 */
export async function membersOf(
  r: Pick<Store, 'findPlaced'>,
  account: Account,
  page: { limit: number; after?: Page['after'] },
): Promise<Array<Actor | Placed<Member>>> {
  const ownerId = ownerIdOf(account.id);
  if (page.after === undefined) {
    const members = await r.findPlaced<Member>('members', 'account', [account.id], { limit: page.limit - 1 });
    return [ownerOf(account), ...members];
  }
  const after = page.after === ownerId ? undefined : page.after;
  return r.findPlaced<Member>('members', 'account', [account.id], { limit: page.limit, after });
}

export function publicMember(m: Member | Actor): MemberAnswer {
  if (!('accountId' in m))
    return {
      id: m.id,
      email: m.email,
      name: m.name,
      role: m.role,
      status: 'active' as const,
      availability: availabilityOf(m),
      inviteExpiresAt: null,
      createdAt: null,
    };
  return {
    id: m.id,
    email: m.email,
    name: m.name,
    role: m.role,
    status: m.status,
    availability: availabilityOf(m),
    inviteExpiresAt: m.inviteTokenHash && m.inviteExpiresAt ? iso(m.inviteExpiresAt) : null,
    createdAt: m.createdAt,
  };
}

/** A member and the link of their invitation, which is shown this once: only its digest is kept. */
export interface Invitation {
  member: Member;
  token: string;
}

const emailTaken = (email: string) => new ApiError(409, 'EMAIL_TAKEN', `${email} is already on this account's team`);

/** POST /v1/members: the member is `invited` until they open the link and set a password. */
export async function inviteMember(
  gw: Gateway,
  account: Account,
  input: { email: string; name: string; role: MemberRole },
  by?: AuditBy,
): Promise<Invitation> {
  const email = input.email.trim().toLowerCase();
  if (email === account.email) throw emailTaken(email);
  const token = newToken();
  const at = now();
  const member = await gw.store.transact(async (tx) => {
    if ((await tx.find('members', 'email', [account.id, email])).length > 0) throw emailTaken(email);
    const made = await tx.insert<Member>('members', {
      id: newId('mem'),
      accountId: account.id,
      email,
      name: input.name.trim(),
      role: input.role,
      status: 'invited',
      passwordHash: null,
      inviteTokenHash: digest(token),
      inviteExpiresAt: clockNow() + INVITE_TTL_MS,
      createdAt: at,
      updatedAt: at,
    });
    await audit(tx, by, 'member.invited', memberTarget(made), { role: made.role });
    memberChanged(tx, account.id);
    return made;
  });
  return { member, token };
}

/**
 * POST /v1/members/{id}/invite: a new link for a member who lost theirs, let it expire, or forgot their password.
 * Any earlier link stops opening; an active member stays active (with their password) until the new one is used.
 */
export async function reinvite(gw: Gateway, account: Account, id: string, by?: AuditBy): Promise<Invitation> {
  const token = newToken();
  const member = await gw.store.transact(async (tx) => {
    const found = await getMember(tx, account, id);
    if (!('accountId' in found))
      throw ownerIsNoMember("gets no invitation: the owner signs in with the account's password");
    const updated = await tx.update<Member>('members', found.id, {
      inviteTokenHash: digest(token),
      inviteExpiresAt: clockNow() + INVITE_TTL_MS,
      updatedAt: now(),
    });
    await audit(tx, by, 'member.reinvited', memberTarget(updated));
    return updated;
  });
  return { member, token };
}

export const ownerIsNoMember = (what: string) => forbidden('OWNER_UNCHANGEABLE', `The account's owner ${what}`);

/** PATCH /v1/members/{id}: a member's name or role; of the owner, only the name shown on their replies. */
export async function updateMember(
  gw: Gateway,
  account: Account,
  id: string,
  changes: { name?: string; role?: MemberRole },
  by?: AuditBy,
): Promise<Member | Actor> {
  return gw.store.transact(async (tx) => {
    const found = await getMember(tx, account, id);
    if (!('accountId' in found)) {
      if (changes.role) throw ownerIsNoMember('keeps the owner role');
      if (changes.name === undefined) return found;
      const updated = ownerOf(await tx.update<Account>('accounts', account.id, { ownerName: changes.name.trim() }));
      if (updated.name !== found.name) {
        await audit(tx, by, 'member.changed', memberTarget(updated), { keys: ['name'] });
        memberChanged(tx, account.id);
      }
      return updated;
    }
    const updated = await tx.update<Member>('members', found.id, {
      ...changes,
      ...(changes.name ? { name: changes.name.trim() } : {}),
      updatedAt: now(),
    });
    const keys = (['name', 'role'] as const).filter((k) => found[k] !== updated[k]);
    const roles = keys.includes('role') ? { roleBefore: found.role, roleAfter: updated.role } : {};
    if (keys.length) {
      await audit(tx, by, 'member.changed', memberTarget(updated), { keys, ...roles });
      memberChanged(tx, account.id);
    }
    return updated;
  });
}

/** A member as the audit log names them: by their name as it was then. */
export const memberTarget = (m: Member | Actor) => ({ type: 'member' as const, id: m.id, name: m.name });

/** Ends every console session of a member. */
export async function endSessions(tx: Tx, memberId: string): Promise<void> {
  for (const session of await tx.find<{ id: string; accountId: string }>('sessions', 'member', [memberId]))
    await endSessionIn(tx, session);
}

const inviteNotFound = () =>
  notFound(
    'Invitation',
    'This invitation link is not valid: it was used already, replaced by a newer one, or the member was removed',
  );

/** The open invitation a link's token opens; 404 for any other token, 410 once it expired. */
export async function invitationOf(r: Reader, token: string): Promise<Member> {
  const [member] = await r.find<Member>('members', 'inviteToken', [digest(token)]);
  if (!member) throw inviteNotFound();
  if ((member.inviteExpiresAt ?? 0) <= clockNow()) {
    throw new ApiError(
      410,
      'INVITE_EXPIRED',
      "This invitation link has expired: ask the account's owner or an admin for a new one",
    );
  }
  return member;
}

/**
 * POST /console/api/invites/{token}: the member sets their password and is active. The link opens once. Setting a
 * new password through it ends any session the member had: the link may have been sent because one leaked.
 */
export async function acceptInvitation(gw: Gateway, token: string, password: string): Promise<Member> {
  // A link that opens nothing costs no hashing: guessed tokens are refused before any.
  await invitationOf(gw.store, token);
  const passwordHash = await hashPassword(password);
  return gw.store.transact(async (tx) => {
    const member = await invitationOf(tx, token);
    await endSessions(tx, member.id);
    // Active now: the team's pages offer them at once (an assignee picker, round robin's turn on the Members page).
    if (member.status !== 'active') memberChanged(tx, member.accountId);
    return tx.update<Member>('members', member.id, {
      status: 'active',
      passwordHash,
      inviteTokenHash: null,
      inviteExpiresAt: null,
      updatedAt: now(),
    });
  });
}

/** How many of an email's teams a sign-in that names no account tries: each costs a password's hashing. */
export const TEAMS_TRIED = 20;

/**
 * The active members who sign in with this email: of the account named, or of every account, oldest first, the
 * first TEAMS_TRIED of them. An invitation never accepted takes none of these places.
 */
export async function activeMembersByEmail(r: Reader, email: string, accountId?: string): Promise<Member[]> {
  const found =
    accountId === undefined
      ? await r.find<Member>('members', 'login', [email])
      : await r.find<Member>('members', 'email', [accountId, email]);
  return found.filter((m) => m.status === 'active' && m.passwordHash).slice(0, TEAMS_TRIED);
}

/** The account's members, invited or active, in the order they joined (the round-robin turn's order). */
export const teamOf = (r: Reader, accountId: string): Promise<Member[]> =>
  r.find<Member>('members', 'account', [accountId]);
