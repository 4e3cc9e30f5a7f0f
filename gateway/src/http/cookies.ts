/**
 * The console's session cookie. The `__Host-` prefix makes the browser refuse it unless it is Secure, has Path=/ and
 * no Domain, so no other host or path can plant or read it; HttpOnly keeps it out of scripts, and SameSite=Strict
 * keeps other sites' pages from sending it.
 */
export const SESSION_COOKIE = '__Host-leadchat_session';

/**
 * A browser that has signed in before: it keeps its own sign-in budget, so that a stranger's guesses at the same
 * email never lock it out (see console/server/known-browser.ts). The same attributes as the session's.
 */
export const KNOWN_BROWSER_COOKIE = '__Host-leadchat_browser';

/** The value of a cookie in a Cookie header, if any. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** The value of the session cookie in a Cookie header, if any. */
export const sessionCookieValue = (header: string | undefined): string | undefined =>
  cookieValue(header, SESSION_COOKIE);

const cookie = (name: string, value: string, maxAgeMs: number): string =>
  `${name}=${value}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}`;

export const sessionCookie = (token: string, maxAgeMs: number): string => cookie(SESSION_COOKIE, token, maxAgeMs);

export const knownBrowserCookie = (value: string, maxAgeMs: number): string =>
  cookie(KNOWN_BROWSER_COOKIE, value, maxAgeMs);

export const clearedSessionCookie = (): string =>
  `${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0`;
