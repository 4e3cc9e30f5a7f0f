import type { Gateway } from '../../context.js';
import { findByEmail, type Account } from '../../domain/accounts.js';
import { activeMembersByEmail, actorOf, ownerOf, type Actor, type Member } from '../../domain/members.js';
import { verifyPassword } from '../../domain/secrets.js';
import { ApiError, rateLimited } from '../../errors.js';

/** Failed sign-ins allowed per window: a person mistyping stays well below, a password guesser is held to a crawl. */
export const FAILURES_PER_EMAIL = 10;
export const FAILURES_PER_IP = 50;
export const FAILURE_WINDOW_MS = 15 * 60_000;

/**
 * Checked against when the email has no account (or no password), so that a failure costs the same scrypt work
 * either way and its timing tells nothing of which emails exist. The hash of a random password thrown away at once:
 * nothing matches it, and even a match would be refused, since no account is there.
 */
const DECOY_HASH = 'scrypt$YES8bH2h1zyPR8P1kkNhew==$U0NgUNPDcrZndslEz4GOyrmANKJg0jrYcqriXcPRtbE=';

export const signInFailed = () => new ApiError(401, 'SIGN_IN_FAILED', 'The email or the password is not right');

/** Whom a sign-in opens the console to: the account, and the owner or member who signed in. */
export interface SignInResult {
  account: Account;
  actor: Actor;
}

/**
 * Checks an email and password. Failures are counted in the store (shared by every process on PostgreSQL) per email
 * and per client address; over either limit a sign-in is refused before any password is checked, the right one too.
 *
 * Each attempt is counted before its password is checked and taken back when it succeeds (or is refused unchecked),
 * so that only failures stay counted, and attempts sent all at once cannot each pass a count that none of them has
 * added to yet. A success does not clear the email's earlier failures: a guesser's budget for an account would
 * start again every time its owner signs in.
 *
 * One email may sign in to several accounts (an agency's staff on its sub-accounts' teams), each with its own
 * password: the password decides which. When the same password opens several, `accountId` picks one; without it
 * the first opens: the account the email owns, then the teams in the order the person joined them.
 */
export async function checkSignIn(gw: Gateway, email: string, password: string, ip: string, accountId?: string): Promise<SignInResult> {
  const normalized = email.trim().toLowerCase();
  const keys = [`sign-in:ip:${ip}`, `sign-in:email:${normalized}`] as const;
  const [byIp, byEmail] = await Promise.all(keys.map((key) => gw.store.hit(key, FAILURE_WINDOW_MS)));
  const takeBack = () => Promise.all(keys.map((key) => gw.store.hit(key, FAILURE_WINDOW_MS, -1)));
  const overIp = byIp!.hits > FAILURES_PER_IP;
  const overEmail = byEmail!.hits > FAILURES_PER_EMAIL;
  if (overIp || overEmail) {
    await takeBack();
    throw tooManyFailures(Math.max(overIp ? byIp!.resetAt : 0, overEmail ? byEmail!.resetAt : 0));
  }
  const signedIn = await firstMatch(gw, normalized, password, accountId);
  if (!signedIn) throw signInFailed();
  await takeBack();
  return signedIn;
}

/** The first of the email's sign-ins whose password this is; the decoy's work when there is none to check. */
async function firstMatch(gw: Gateway, email: string, password: string, accountId: string | undefined): Promise<SignInResult | undefined> {
  const owned = await findByEmail(gw.store, email);
  const candidates: Array<{ accountId: string; passwordHash: string; member?: Member }> = [];
  if (owned?.passwordHash) candidates.push({ accountId: owned.id, passwordHash: owned.passwordHash });
  for (const member of await activeMembersByEmail(gw.store, email)) candidates.push({ accountId: member.accountId, passwordHash: member.passwordHash!, member });
  const chosen = accountId === undefined ? candidates : candidates.filter((c) => c.accountId === accountId);
  if (chosen.length === 0) {
    await verifyPassword(password, DECOY_HASH);
    return undefined;
  }
  for (const candidate of chosen) {
    if (!(await verifyPassword(password, candidate.passwordHash))) continue;
    const account = candidate.member ? await gw.store.get<Account>('accounts', candidate.accountId) : owned;
    if (account) return { account, actor: candidate.member ? actorOf(candidate.member) : ownerOf(account) };
  }
  return undefined;
}

const tooManyFailures = (until: number) =>
  rateLimited(until, (seconds) => {
    const minutes = Math.ceil(seconds / 60);
    return `Too many failed sign-ins; try again in ${minutes === 1 ? '1 minute' : `${minutes} minutes`}`;
  });
