import type { Gateway } from '../../context.js';
import { findByEmail, type Account } from '../../domain/accounts.js';
import { verifyPassword } from '../../domain/secrets.js';
import { ApiError } from '../../errors.js';

/** Attempts allowed per window: a person mistyping stays well below, a password guesser is held to a crawl. */
export const ATTEMPTS_PER_EMAIL = 10;
export const ATTEMPTS_PER_IP = 50;
export const ATTEMPT_WINDOW_MS = 15 * 60_000;

/**
 * Checked against when the email has no account (or no password), so that a failure costs the same scrypt work
 * either way and its timing tells nothing of which emails exist. The hash of a random password thrown away at once:
 * nothing matches it, and even a match would be refused, since no account is there.
 */
const DECOY_HASH = 'scrypt$YES8bH2h1zyPR8P1kkNhew==$U0NgUNPDcrZndslEz4GOyrmANKJg0jrYcqriXcPRtbE=';

export const signInFailed = () => new ApiError(401, 'SIGN_IN_FAILED', 'The email or the password is not right');

/**
 * Checks an email and password. Attempts are counted in the store (shared by every process on PostgreSQL) per email
 * and per client address, whatever their outcome, and refused over the limit before any password is checked.
 */
export async function checkSignIn(gw: Gateway, email: string, password: string, ip: string): Promise<Account> {
  const normalized = email.trim().toLowerCase();
  const [byIp, byEmail] = await Promise.all([
    gw.store.hit(`sign-in:ip:${ip}`, ATTEMPT_WINDOW_MS),
    gw.store.hit(`sign-in:email:${normalized}`, ATTEMPT_WINDOW_MS),
  ]);
  if (byIp.hits > ATTEMPTS_PER_IP || byEmail.hits > ATTEMPTS_PER_EMAIL) {
    const resetAt = Math.max(byIp.hits > ATTEMPTS_PER_IP ? byIp.resetAt : 0, byEmail.hits > ATTEMPTS_PER_EMAIL ? byEmail.resetAt : 0);
    const seconds = String(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000)));
    throw new ApiError(429, 'RATE_LIMITED', `Too many sign-in attempts; retry after ${seconds} s`, { 'Retry-After': seconds });
  }
  const account = await findByEmail(gw.store, normalized);
  const matches = await verifyPassword(password, account?.passwordHash ?? DECOY_HASH);
  if (!account?.passwordHash || !matches) throw signInFailed();
  return account;
}
