import type { Role } from '../../api-contract.js';
import { call, get, SESSION_PATH, setCsrfToken } from './api.js';

/** What the gateway says of the signed-in user; see /console/api/session. */
export interface SessionInfo {
  account: { id: string; name: string; email: string; type: 'agency' | 'standard' };
  /** Who signed in: the account's owner, or a member of its team, with the role that decides what they may do. */
  member: { id: string; name: string; email: string; role: Role };
  csrfToken: string;
  expiresAt: string;
  idleMinutes: number;
}

/** The current session, its CSRF token put to use; undefined when nobody is signed in. */
export async function loadSession(): Promise<SessionInfo | undefined> {
  const res = await get<SessionInfo>(SESSION_PATH);
  if (!res.ok || !res.data) return undefined;
  setCsrfToken(res.data.csrfToken);
  return res.data;
}

export async function signIn(email: string, password: string) {
  const res = await call<SessionInfo>('POST', SESSION_PATH, { email, password });
  if (res.ok && res.data) setCsrfToken(res.data.csrfToken);
  return res;
}

export const signOut = () => call('DELETE', SESSION_PATH);
