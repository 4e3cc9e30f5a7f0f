import type { Gateway } from '../context.js';
import { audit, type AuditBy } from './audit-log.js';
import type { Account } from './accounts.js';
import { actorOf, ownerIdOf, ownerOf, type Actor, type Member } from './members.js';
import { digest, newToken } from './secrets.js';
import { newId, now } from '../ids.js';
import { endSessionIn } from './session-ends.js';
import type { Reader, Tx } from '../store/store.js';
import { clockNow } from '../clock.js';

/**
 * A signed-in console user. The browser holds a random token in a cookie; the store holds only its digest, so a
 * copy of the database signs nobody in. Sessions live in the store, so on PostgreSQL every process knows them.
 */
export interface Session {
  id: string;
  tokenHash: string;
  accountId: string;
  /** Who signed in: a member's id, or the owner's (ownerIdOf); absent on sessions older than the team. */
  memberId?: string;
  createdAt: string;
  /** Epoch ms of the last request seen, to within TOUCH_EVERY_MS: the idle expiry counts from it. */
  lastSeenAt: number;
  /** Epoch ms after which the session ends however busy it is. */
  expiresAt: number;
  /** The email's other sign-ins that the password this session was opened with opens too; none when absent. */
  alsoOpens?: SameKey[];
}

/**
 * Another account whose sign-in, by the same email, the session's password opened when it was checked: the console
 * offers to switch to it. Its password was checked, so its name tells the person nothing they could not read by
 * signing in there; an email on a team is never proven (whoever invites it may accept the link), so an account
 * merely sharing the email is never named.
 */
export interface SameKey {
  accountId: string;
  /** The member, or the owner (ownerIdOf), who signs in there. */
  memberId: string;
  /** A digest of the password hash the password matched there: a password set there since drops the account. */
  hashDigest: string;
}

/** Ends a session left alone this long: a console forgotten open on a shared computer. */
export const IDLE_MS = 2 * 60 * 60_000;
/** Ends any session this long after sign-in, so a stolen cookie is not good forever. */
export const MAX_AGE_MS = 12 * 60 * 60_000;
/** Recording every request would make each read a write; the idle clock only needs minutes. */
export const TOUCH_EVERY_MS = 60_000;

/** Whether a session still holds at `at`; idle counts from the last request recorded. */
export const isLive = (s: Pick<Session, 'lastSeenAt' | 'expiresAt'>, at: number): boolean =>
  at < s.expiresAt && at < s.lastSeenAt + IDLE_MS;

/**
 * The CSRF token of a session, derived from its secret token: only a page that was given it (by the session
 * endpoint, to a script of the console's own origin) can send it back, and it dies with the session.
 */
export const csrfTokenOf = (token: string): string => digest(`csrf:${token}`);

/**
 * Signs a member (or the owner) in, whose password was checked against `passwordHash`; expired sessions of the
 * account are cleared away on the way. Checking a password takes a while, and a new password set meanwhile (a
 * reset, an invitation's link) ends the sessions there are as it commits: so the sign-in opens none (undefined)
 * unless the password it checked is still the one. The record holding it is locked for this, so that a new
 * password and a session take turns: either the session comes first and the new password ends it, or it is
 * refused.
 */
export async function startSession(
  gw: Gateway,
  accountId: string,
  memberId: string,
  passwordHash: string,
  alsoOpens: SameKey[] = [],
  audited?: { by: AuditBy; ip: string },
): Promise<{ token: string; session: Session } | undefined> {
  const token = newToken();
  const at = clockNow();
  const session = await gw.store.transact(async (tx) => {
    const holder =
      memberId === ownerIdOf(accountId)
        ? await tx.lock<Account>('accounts', accountId)
        : await tx.lock<Member>('members', memberId);
    if (holder?.passwordHash !== passwordHash) return undefined;
    for (const old of await tx.find<Session>('sessions', 'account', [accountId])) {
      if (!isLive(old, at)) await endSessionIn(tx, old);
    }
    if (audited) await audit(tx, audited.by, 'console.signed_in', null, { ip: audited.ip });
    return tx.insert<Session>('sessions', {
      id: newId('ses'),
      tokenHash: digest(token),
      accountId,
      memberId,
      createdAt: now(),
      lastSeenAt: at,
      expiresAt: at + MAX_AGE_MS,
      ...(alsoOpens.length ? { alsoOpens } : {}),
    });
  });
  return session && { token, session };
}

export interface SignedIn {
  session: Session;
  account: Account;
  /** Who signed in, with their role as it is now: a role changed meanwhile counts at once. */
  actor: Actor;
  /** The cookie's token: the CSRF token is derived from it. */
  token: string;
}

/** The live session of a cookie's token, with its account; an expired one is removed. */
export async function sessionByToken(gw: Gateway, token: string): Promise<SignedIn | undefined> {
  const [session] = await gw.store.find<Session>('sessions', 'tokenHash', [digest(token)]);
  if (!session) return undefined;
  const at = clockNow();
  if (!isLive(session, at)) {
    await gw.store.transact((tx) => endSessionIn(tx, session));
    return undefined;
  }
  const account = await gw.store.get<Account>('accounts', session.accountId);
  if (!account) return undefined;
  const actor = await actorOfSession(gw, account, session);
  if (!actor) return undefined;
  if (at - session.lastSeenAt >= TOUCH_EVERY_MS) {
    // Another request of the same session may have ended it meanwhile (sign-out): then there is nothing to touch.
    await gw.store.transact(async (tx) => {
      if (await tx.get('sessions', session.id)) await tx.update<Session>('sessions', session.id, { lastSeenAt: at });
    });
  }
  return { session, account, actor, token };
}

/**
 * Whether a session still holds, as a request with it would find (live, its member still active), without counting
 * as its activity: what holds a session open by itself (an event stream) must not keep it from idling out.
 */
export async function stillSignedIn(gw: Gateway, sessionId: string): Promise<boolean> {
  const session = await gw.store.get<Session>('sessions', sessionId);
  if (!session || !isLive(session, clockNow())) return false;
  const account = await gw.store.get<Account>('accounts', session.accountId);
  return account !== undefined && (await actorOfSession(gw, account, session)) !== undefined;
}

/** The owner, or the member the session is of while they are an active member of the account. */
async function actorOfSession(gw: Gateway, account: Account, session: Session): Promise<Actor | undefined> {
  const ownerId = ownerIdOf(account.id);
  if (!session.memberId || session.memberId === ownerId) return ownerOf(account);
  const member = await gw.store.get<Member>('members', session.memberId);
  return member?.accountId === account.id && member.status === 'active' ? actorOf(member) : undefined;
}

export async function endSession(gw: Gateway, sessionId: string): Promise<void> {
  await gw.store.transact(async (tx) => {
    const session = await tx.get<Session>('sessions', sessionId);
    if (session) await endSessionIn(tx, session);
  });
}

/** Signs the account's owner out everywhere (the password changed); returns how many sessions ended. */
export async function endOwnerSessionsIn(tx: Tx, accountId: string): Promise<number> {
  const ownerId = ownerIdOf(accountId);
  const sessions = (await tx.find<Session>('sessions', 'account', [accountId])).filter(
    (s) => !s.memberId || s.memberId === ownerId,
  );
  for (const s of sessions) await endSessionIn(tx, s);
  return sessions.length;
}

/**
 * The accounts a session's person may switch to (SameKey), as they are now: one whose sign-in by this email is gone
 * (the member removed, the account's email changed) or whose password was set since is left out.
 */
export async function switchableAccounts(r: Reader, session: Session, email: string): Promise<Account[]> {
  const found: Account[] = [];
  for (const other of session.alsoOpens ?? []) {
    const account = await r.get<Account>('accounts', other.accountId);
    if (!account) continue;
    const holder = other.memberId === ownerIdOf(account.id) ? account : await r.get<Member>('members', other.memberId);
    if (!holder?.passwordHash || holder.email.toLowerCase() !== email.toLowerCase()) continue;
    if ('status' in holder && (holder.status !== 'active' || holder.accountId !== account.id)) continue;
    if (digest(holder.passwordHash) === other.hashDigest) found.push(account);
  }
  return found;
}
