import type { Gateway } from '../../context.js';
import { findByEmail, type Account } from '../../domain/accounts.js';
import { activeMembersByEmail, actorOf, ownerIdOf, ownerOf, type Actor, type Member } from '../../domain/members.js';
import { digest, verifyPassword } from '../../domain/secrets.js';
import type { SameKey } from '../../domain/sessions.js';
import { ApiError, rateLimited } from '../../errors.js';
import { addressKey } from '../../http/client-address.js';

/** Failed sign-ins allowed per window: a person mistyping stays well below, a password guesser is held to a crawl. */
export const FAILURES_PER_EMAIL_AND_ADDRESS = 10;
export const FAILURES_PER_ADDRESS = 50;
export const FAILURES_PER_KNOWN_BROWSER = 10;
/** Failures of an email from every address together before each further attempt waits its turn. */
export const FREE_FAILURES_PER_EMAIL = 10;
/** The longest turn: a stranger's guesses keep the email's owner, on a new browser, waiting at most this long. */
export const MAX_TURN_MS = 60_000;
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** An email's failures from every address are kept longer: a patient guesser gets no fresh start every 15 minutes. */
export const EMAIL_FAILURE_WINDOW_MS = 24 * 60 * 60_000;
/** The window of every attempt's count per address (LEADCHAT_SIGN_IN_RATE_LIMIT_PER_MINUTE). */
export const ATTEMPT_WINDOW_MS = 60_000;

/**
 * Checked against when the email has no account (or no password), so that a failure costs the same scrypt work
 * either way and its timing tells nothing of which emails exist. The hash of a random password thrown away at once:
 * nothing matches it, and even a match would be refused, since no account is there.
 */
const DECOY_HASH = 'scrypt$YES8bH2h1zyPR8P1kkNhew==$U0NgUNPDcrZndslEz4GOyrmANKJg0jrYcqriXcPRtbE=';

export const signInFailed = () => new ApiError(401, 'SIGN_IN_FAILED', 'The email or the password is not right');

/** Whom a sign-in opens the console to: the account, the owner or member who signed in, and the hash checked. */
export interface SignInResult {
  account: Account;
  actor: Actor;
  /** The stored password the given one matched: the session opens only while it is still the one (startSession). */
  passwordHash: string;
  /** The email's other accounts the same password opens: the console offers to switch to them. */
  alsoOpens: SameKey[];
}

/** A limit on failures counted under one key; `hits` past `limit` refuse the attempt unchecked. */
interface Budget {
  key: string;
  limit: number;
  windowMs: number;
}

/**
 * Checks an email and password against budgets of failures counted in the store (shared by every process on
 * PostgreSQL). Over a budget an attempt is refused with 429 before its password is checked, the right one too, so
 * a guesser learns nothing; every 429 is answered after LEADCHAT_SIGN_IN_REFUSAL_DELAY. Which budgets apply depends on who tries:
 *
 * - A browser that signed in to the email before (`knownBrowser`, see known-browser.ts) has its own budget and no
 *   other: a stranger's guesses, from anywhere, never lock the owner's usual browser out.
 * - Any other attempt counts against its address (password spraying), against the email from that address, and
 *   against the email from every address together: past FREE_FAILURES_PER_EMAIL each attempt waits for its turn,
 *   twice as long after each failure up to MAX_TURN_MS, so guesses from many addresses stay few and the owner on a
 *   new browser waits a minute at most.
 *
 * Before any of these, every attempt, right or wrong, known browser or not, counts against its address's budget of
 * attempts per minute (LEADCHAT_SIGN_IN_RATE_LIMIT_PER_MINUTE): each costs a password's hashing, so one address
 * signing in with the right password in a loop is held back too. An address is an IPv6 one's /64 (addressKey).
 *
 * Each attempt is counted before its password is checked and taken back when it succeeds (or is refused unchecked),
 * so that only failures stay counted, and attempts sent all at once cannot each pass a count that none of them has
 * added to yet. A success does not clear the email's earlier failures: a guesser's budget for an account would
 * start again every time its owner signs in.
 *
 * One email may sign in to several accounts (an agency's staff on its sub-accounts' teams), each with its own
 * password: the password decides which. When the same password opens several, `accountId` picks one; without it
 * the first opens: the account the email owns, then the teams in the order the person joined them (the first
 * TEAMS_TRIED of them, each a password's hashing; `accountId` reaches any). Once a password is found right, the
 * email's others are checked against it too (firstMatch): those it opens are offered to switch to, since the person
 * could open each with it already, while one merely sharing the email is never named to them.
 */
export async function checkSignIn(gw: Gateway, attempt: Attempt): Promise<SignInResult> {
  try {
    return await check(gw, attempt);
  } catch (err) {
    // As PostgreSQL's auth_delay does: a client that asks again as soon as it is refused, whatever Retry-After says,
    // asks at most once a delay per connection, and its flood costs a timer each instead of the CPU that requests
    // and the store's writes need.
    const delay = gw.config.signInRefusalDelayMs;
    if (err instanceof ApiError && err.status === 429 && delay > 0) await new Promise((r) => setTimeout(r, delay));
    throw err;
  }
}

type Attempt = { email: string; password: string; address: string; accountId?: string; knownBrowser?: string };

async function check(gw: Gateway, attempt: Attempt): Promise<SignInResult> {
  const email = attempt.email.trim().toLowerCase();
  const address = addressKey(attempt.address);
  const budgets: Budget[] = attempt.knownBrowser
    ? [
        {
          key: `sign-in:browser:${attempt.knownBrowser}`,
          limit: FAILURES_PER_KNOWN_BROWSER,
          windowMs: FAILURE_WINDOW_MS,
        },
      ]
    : [
        { key: `sign-in:ip:${address}`, limit: FAILURES_PER_ADDRESS, windowMs: FAILURE_WINDOW_MS },
        {
          key: `sign-in:email-ip:${email}\n${address}`,
          limit: FAILURES_PER_EMAIL_AND_ADDRESS,
          windowMs: FAILURE_WINDOW_MS,
        },
        { key: `sign-in:email:${email}`, limit: Infinity, windowMs: EMAIL_FAILURE_WINDOW_MS },
      ];
  const [attempts, ...counted] = await Promise.all([
    gw.store.hit(`sign-in:attempts:${address}`, ATTEMPT_WINDOW_MS),
    ...budgets.map((b) => gw.store.hit(b.key, b.windowMs)),
  ]);
  const takeBack = () => Promise.all(budgets.map((b) => gw.store.hit(b.key, b.windowMs, -1)));
  if (attempts!.hits > gw.config.signInRateLimitPerMinute) {
    await takeBack();
    throw tooManyAttempts(attempts!.resetAt);
  }
  const over = counted.filter((c, i) => c.hits > budgets[i]!.limit);
  if (over.length) {
    await takeBack();
    throw tooManyFailures(Math.max(...over.map((c) => c.resetAt)));
  }
  if (!attempt.knownBrowser) {
    const turn = turnMs(counted[2]!.hits);
    if (turn > 0) {
      // One attempt per turn: the turn's window opens with the first, and every other within it is refused.
      const taken = await gw.store.hit(`sign-in:turn:${email}`, turn);
      budgets.push({ key: `sign-in:turn:${email}`, limit: 1, windowMs: turn });
      if (taken.hits > 1) {
        await takeBack();
        throw tooManyFailures(taken.resetAt);
      }
    }
  }
  let signedIn: SignInResult | undefined;
  try {
    signedIn = await firstMatch(gw, email, attempt.password, attempt.accountId);
  } catch (err) {
    // The hashing pool was full: the password was not checked, so no failure stays counted.
    if (err instanceof ApiError && err.status === 429) await takeBack();
    throw err;
  }
  if (!signedIn) throw signInFailed();
  await takeBack();
  return signedIn;
}

/** How long the attempt that makes an email's `failures` (this one counted) holds the next ones back. */
const turnMs = (failures: number) =>
  failures <= FREE_FAILURES_PER_EMAIL ? 0 : Math.min(MAX_TURN_MS, 1000 * 2 ** (failures - FREE_FAILURES_PER_EMAIL - 1));

/** One way an email signs in: to the account it owns, or to a team it joined. */
interface Candidate {
  accountId: string;
  passwordHash: string;
  member?: Member;
}

/** The email's sign-ins, the account it owns first, then its teams in the order joined; only `accountId`'s if named. */
async function candidatesOf(gw: Gateway, email: string, accountId: string | undefined) {
  const owned = await findByEmail(gw.store, email);
  const found: Candidate[] = [];
  if (owned?.passwordHash && (accountId === undefined || owned.id === accountId))
    found.push({ accountId: owned.id, passwordHash: owned.passwordHash });
  for (const member of await activeMembersByEmail(gw.store, email, accountId))
    found.push({ accountId: member.accountId, passwordHash: member.passwordHash!, member });
  return { owned, found };
}

/** The first of the email's sign-ins whose password this is; the decoy's work when there is none to check. */
async function firstMatch(
  gw: Gateway,
  email: string,
  password: string,
  accountId: string | undefined,
): Promise<SignInResult | undefined> {
  const { owned, found: chosen } = await candidatesOf(gw, email, accountId);
  if (chosen.length === 0) {
    await verifyPassword(password, DECOY_HASH);
    return undefined;
  }
  for (const [i, candidate] of chosen.entries()) {
    if (!(await verifyPassword(password, candidate.passwordHash))) continue;
    const account = candidate.member ? await gw.store.get<Account>('accounts', candidate.accountId) : owned;
    if (account) {
      const actor = candidate.member ? actorOf(candidate.member) : ownerOf(account);
      // Those tried before this one refused the password; named, every other is still to be tried.
      const rest = accountId === undefined ? chosen.slice(i + 1) : (await candidatesOf(gw, email, undefined)).found;
      const alsoOpens = await sameKeyAmong(
        rest.filter((c) => c.accountId !== account.id),
        password,
      );
      return { account, actor, passwordHash: candidate.passwordHash, alsoOpens };
    }
  }
  return undefined;
}

/**
 * The email's other sign-ins (besides `except`) this password opens, for a session to offer to switch to: checked
 * after a password was found right only, each a password's hashing (at most TEAMS_TRIED and the owned account's,
 * what a wrong password costs already).
 */
export async function sameKeyElsewhere(
  gw: Gateway,
  email: string,
  password: string,
  except: string,
): Promise<SameKey[]> {
  const { found } = await candidatesOf(gw, email.trim().toLowerCase(), undefined);
  return sameKeyAmong(
    found.filter((c) => c.accountId !== except),
    password,
  );
}

async function sameKeyAmong(candidates: Candidate[], password: string): Promise<SameKey[]> {
  const same: SameKey[] = [];
  // One after another: a person's few teams should not take the hashing pool's places from others' sign-ins.
  for (const c of candidates) {
    const opens = await verifyPassword(password, c.passwordHash).catch((err: unknown) => {
      // The pool is full: the sign-in stands, that account is only not offered.
      if (err instanceof ApiError && err.status === 429) return false;
      throw err;
    });
    if (opens)
      same.push({
        accountId: c.accountId,
        memberId: c.member ? c.member.id : ownerIdOf(c.accountId),
        hashDigest: digest(c.passwordHash),
      });
  }
  return same;
}

/** A wait in words: "5 seconds", "2 minutes". */
function inWords(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return seconds < 60 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

const tooManyFailures = (until: number) =>
  rateLimited(until, (seconds) => `Too many failed sign-ins; try again in ${inWords(seconds)}`);

const tooManyAttempts = (until: number) =>
  rateLimited(until, (seconds) => `Too many sign-ins from this address; try again in ${inWords(seconds)}`);
