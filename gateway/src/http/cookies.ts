/**
 * The console's one cookie. The `__Host-` prefix makes the browser refuse it unless it is Secure, has Path=/ and
 * no Domain, so no other host or path can plant or read it; HttpOnly keeps it out of scripts, and SameSite=Strict
 * keeps other sites' pages from sending it.
 */
export const SESSION_COOKIE = '__Host-leadchat_session';

/** The value of the session cookie in a Cookie header, if any. */
export function sessionCookieValue(header: string | undefined): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === SESSION_COOKIE) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

export const sessionCookie = (token: string, maxAgeMs: number): string =>
  `${SESSION_COOKIE}=${token}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}`;

export const clearedSessionCookie = (): string => `${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0`;
