import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type SessionsModule = typeof import('../../gateway/src/domain/sessions.js', { with: { 'resolution-mode': 'import' } });
type CookiesModule = typeof import('../../gateway/src/http/cookies.js', { with: { 'resolution-mode': 'import' } });
type SecretsModule = typeof import('../../gateway/src/domain/secrets.js', { with: { 'resolution-mode': 'import' } });

/** The rules of a console session that take hours to show over HTTP: its expiries, its token and its cookie. */
let sessions: SessionsModule;
let cookies: CookiesModule;
let secrets: SecretsModule;
beforeAll(async () => {
  const dist = path.resolve(__dirname, '../../gateway/dist');
  sessions = (await gatewayModule(path.join(dist, 'domain/sessions.js'))) as SessionsModule;
  cookies = (await gatewayModule(path.join(dist, 'http/cookies.js'))) as CookiesModule;
  secrets = (await gatewayModule(path.join(dist, 'domain/secrets.js'))) as SecretsModule;
});

const HOUR = 3_600_000;

describe('expiry', () => {
  test('a session idle for two hours ends, however young', () => {
    const start = Date.UTC(2026, 0, 1);
    const s = { lastSeenAt: start, expiresAt: start + 12 * HOUR };
    expect(sessions.isLive(s, start + 2 * HOUR - 1)).toBe(true);
    expect(sessions.isLive(s, start + 2 * HOUR)).toBe(false);
  });

  test('a session ends twelve hours after sign-in, however busy', () => {
    const start = Date.UTC(2026, 0, 1);
    const busy = { lastSeenAt: start + 12 * HOUR - 60_000, expiresAt: start + sessions.MAX_AGE_MS };
    expect(sessions.MAX_AGE_MS).toBe(12 * HOUR);
    expect(sessions.isLive(busy, start + 12 * HOUR - 1)).toBe(true);
    expect(sessions.isLive(busy, start + 12 * HOUR)).toBe(false);
  });

  test('the idle clock is recorded at most once a minute, well within the idle time', () => {
    expect(sessions.TOUCH_EVERY_MS).toBeLessThan(sessions.IDLE_MS / 10);
  });
});

describe('CSRF token', () => {
  test('is bound to its session: different for each token, never the token itself', () => {
    const a = secrets.newToken();
    const b = secrets.newToken();
    expect(sessions.csrfTokenOf(a)).toBe(sessions.csrfTokenOf(a));
    expect(sessions.csrfTokenOf(a)).not.toBe(sessions.csrfTokenOf(b));
    expect(sessions.csrfTokenOf(a)).not.toContain(a);
  });
});

describe('cookie', () => {
  test('is found among other cookies, by its exact name only', () => {
    const name = cookies.SESSION_COOKIE;
    expect(cookies.sessionCookieValue(`theme=dark; ${name}=abc123; lang=en`)).toBe('abc123');
    expect(cookies.sessionCookieValue(`${name}=abc123`)).toBe('abc123');
    expect(cookies.sessionCookieValue(`x${name}=forged; lang=en`)).toBeUndefined();
    expect(cookies.sessionCookieValue(`${name}=`)).toBeUndefined();
    expect(cookies.sessionCookieValue(undefined)).toBeUndefined();
  });

  test('is set Secure, HttpOnly, SameSite=Strict on the whole site, and cleared the same way', () => {
    expect(cookies.sessionCookie('tok', 3_600_000)).toBe(
      '__Host-leadchat_session=tok; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=3600',
    );
    expect(cookies.clearedSessionCookie()).toBe(
      '__Host-leadchat_session=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0',
    );
  });
});

describe('verifyPassword', () => {
  test('accepts the password hashPassword was given, and nothing else', async () => {
    const stored = await secrets.hashPassword('correct horse battery');
    expect(await secrets.verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await secrets.verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await secrets.verifyPassword('', stored)).toBe(false);
  });

  test('a stored value of another form never matches', async () => {
    const stored = await secrets.hashPassword('correct horse battery');
    const [, salt, hash] = stored.split('$');
    expect(await secrets.verifyPassword('correct horse battery', `bcrypt$${salt}$${hash}`)).toBe(false);
    expect(await secrets.verifyPassword('correct horse battery', `scrypt$${salt}$${hash!.slice(0, 20)}`)).toBe(false);
    expect(await secrets.verifyPassword('correct horse battery', '')).toBe(false);
  });
});
