import type { Availability, Role } from '../../api-contract.js';
import { call, get, SESSION_PATH, setCsrfToken } from './api.js';
import { setDefaultCountry } from './default-country.js';

/** What the gateway says of the signed-in user; see /console/api/session. */
export interface SessionInfo {
  /** `defaultCountry`: what phone hints say to everyone, though only admins read the settings (/v1/settings). */
  account: { id: string; name: string; email: string; type: 'agency' | 'standard'; defaultCountry: string | null };
  /**
   * Who signed in: the account's owner, or a member of its team, with the role that decides what they may do, and
   * whether they are away, as they were when the console opened (the frame's Away button holds it after).
   */
  member: { id: string; name: string; email: string; role: Role; availability: Availability };
  csrfToken: string;
  expiresAt: string;
  idleMinutes: number;
  /** The person's other accounts their password opened too (the same email, the same password): Switch account. */
  otherAccounts: Array<{ id: string; name: string }>;
}

/**
 * The current session, its CSRF token put to use; neither it nor an error when nobody is signed in (401); the error
 * when the gateway could not tell (out of reach, its store away): that says nothing of the session.
 */
export async function loadSession(): Promise<{ session?: SessionInfo; error?: string }> {
  const res = await get<SessionInfo>(SESSION_PATH);
  if (res.status === 401) return {};
  if (!res.ok || !res.data) return { error: res.error ?? `The gateway answered ${res.status}.` };
  setCsrfToken(res.data.csrfToken, res.data.member.id);
  setDefaultCountry(res.data.account.defaultCountry ?? null);
  return { session: res.data };
}

/** `accountId`: the account to sign in to, when the email's password opens several (a member of several teams). */
export async function signIn(email: string, password: string, accountId?: string) {
  const res = await call<SessionInfo>('POST', SESSION_PATH, { email, password, ...(accountId ? { accountId } : {}) });
  if (res.ok && res.data) {
    setCsrfToken(res.data.csrfToken, res.data.member.id);
    setDefaultCountry(res.data.account.defaultCountry ?? null);
  }
  return res;
}

export const signOut = () => call('DELETE', SESSION_PATH);
