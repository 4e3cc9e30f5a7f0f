import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createAccount, removeDir, request, startGateway, type TestGateway } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import {
  consoleAccount,
  expectSecurityHeaders,
  passwordDerivations,
  acceptInvite,
  setPassword,
  signIn,
  signInTo,
  withSession,
  type ConsoleAccount,
  type SignedIn,
} from './support';

/**
 * The web console's server side over HTTP: sign-in, its cookie and rate limits, the session on /v1 with its CSRF
 * token, sign-out, password resets, and the headers of every console response. The gateway trusts a proxy here
 * so that each test can come from its own client address (X-Forwarded-For) without sharing a sign-in budget.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let ipCounter = 0;
/** Headers of a request from a fresh client address, forwarded by the trusted TLS proxy. */
const fromNewIp = () => {
  ipCounter += 1;
  return { 'x-forwarded-for': `198.51.100.${ipCounter}`, 'x-forwarded-proto': 'https' };
};
const proxied = { 'x-forwarded-proto': 'https' };

beforeAll(async () => {
  gw = await startGateway({ LEADCHAT_TRUST_PROXY: '1' });
});
afterAll(async () => {
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

describe('sign-in', () => {
  let owner: ConsoleAccount;
  beforeAll(async () => {
    owner = await consoleAccount(gw);
  });

  test('the right email and password start a session in a __Host- cookie: Secure, HttpOnly, SameSite=Strict', async () => {
    const { reply, cookie, csrfToken } = await signIn(gw, owner.email.toUpperCase(), owner.password, fromNewIp());
    expect(reply.status).toBe(200);
    const setCookie = [reply.headers['set-cookie']].flat()[0]!;
    expect(setCookie).toMatch(
      /^__Host-leadchat_session=[\w-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    expect(reply.body).toEqual({
      account: { id: owner.id, name: owner.name, email: owner.email, type: 'standard', defaultCountry: null },
      member: {
        id: `mem_${owner.id.replace('_', '')}`,
        name: owner.name,
        email: owner.email,
        role: 'owner',
        availability: 'available',
      },
      csrfToken: expect.stringMatching(/^[0-9a-f]{64}$/),
      expiresAt: expect.any(String),
      idleMinutes: 120,
      otherAccounts: [],
    });
    expect(reply.text).not.toMatch(/password|Hash/i);
    const me = await withSession(gw, { cookie, csrfToken }, 'GET', '/console/api/session', { headers: proxied });
    expect(me.status).toBe(200);
    expect(me.body.csrfToken).toBe(csrfToken);
    expect(me.body.account.id).toBe(owner.id);
  });

  test('a wrong password, an unknown email and an account without a password get the same refusal and no cookie', async () => {
    const bare = await createAccount(gw);
    const refusals = [
      await signIn(gw, owner.email, 'not-the-password-at-all', fromNewIp()),
      await signIn(gw, `nobody-${Date.now()}@example.com`, owner.password, fromNewIp()),
      await signIn(gw, bare.email, owner.password, fromNewIp()),
      await signIn(gw, owner.email, '', fromNewIp()),
    ];
    for (const { reply } of refusals) {
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 401,
        body: { error: { code: 'SIGN_IN_FAILED', message: 'The email or the password is not right' } },
      });
      expect(reply.headers['set-cookie']).toBeUndefined();
    }
  });

  test('an unknown email is refused after the same work as a wrong password: one scrypt derivation each', async () => {
    // Its own account, so that these attempts do not use up the owner's sign-in budget.
    const timed = await consoleAccount(gw);
    for (const email of [timed.email, `ghost-${Date.now()}@example.com`]) {
      // Every password check runs the same derivation on the hashing pool: the gateway counts them.
      const before = await passwordDerivations(gw);
      const { reply } = await signIn(gw, email, 'wrong-password-here', fromNewIp());
      expect(reply.status).toBe(401);
      expect(await passwordDerivations(gw)).toBe(before + 1);
    }
  });

  /** The 429 of too many failed sign-ins: the wait in minutes in its message, in seconds in Retry-After. */
  const expectTooManyFailures = (reply: Awaited<ReturnType<typeof signIn>>['reply']) => {
    expect(reply.status).toBe(429);
    expect(reply.body.error.code).toBe('RATE_LIMITED');
    const seconds = Number(reply.headers['retry-after']);
    expect(Number.isInteger(seconds) && seconds > 0 && seconds <= 15 * 60).toBe(true);
    const minutes = Math.ceil(seconds / 60);
    const wait =
      seconds < 60 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
    expect(reply.body.error.message).toBe(`Too many failed sign-ins; try again in ${wait}`);
    expect(reply.headers['set-cookie']).toBeUndefined();
  };

  test('failures are limited per client address: after 50 the next is refused whatever the email, other addresses go on', async () => {
    const fresh = await consoleAccount(gw);
    const ip = fromNewIp();
    for (let i = 0; i < 49; i++)
      expect((await signIn(gw, `guess-${i}-${Date.now()}@example.com`, 'x', ip)).reply.status).toBe(401);
    // Right sign-ins from the address, even many, add nothing to its failures.
    for (let i = 0; i < 5; i++) expect((await signIn(gw, fresh.email, fresh.password, ip)).reply.status).toBe(200);
    expect((await signIn(gw, `guess-50-${Date.now()}@example.com`, 'x', ip)).reply.status).toBe(401);
    expectTooManyFailures((await signIn(gw, fresh.email, fresh.password, ip)).reply);
    expect((await signIn(gw, fresh.email, fresh.password, fromNewIp())).reply.status).toBe(200);
  });

  test('a sign-in posted from another site is refused', async () => {
    const res = await signIn(gw, owner.email, owner.password, { ...fromNewIp(), origin: 'https://evil.example' });
    expect(res.reply.status).toBe(403);
    expect(res.reply.body.error.code).toBe('CROSS_ORIGIN');
    expect(res.reply.headers['set-cookie']).toBeUndefined();
  });

  test('the store keeps only a digest of the session token', async () => {
    const { cookie } = await signIn(gw, owner.email, owner.password, fromNewIp());
    const token = cookie.split('=')[1]!;
    expect(token).toMatch(/^[\w-]{43}$/);
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else files.push(full);
      }
    };
    walk(gw.dataDir);
    const holding = (text: string) =>
      files.filter((f) => readFileSync(f, 'latin1').includes(text)).map((f) => path.relative(gw.dataDir, f));
    expect(holding('"tokenHash"').length).toBeGreaterThan(0);
    expect(holding(token)).toEqual([]);
  });
});

describe('one email on several accounts', () => {
  const PASSWORD = 'the same password on every team';
  const staff = () => `staff-${++ipCounter}-${process.pid}@agency.example`;
  const named = (...accounts: Array<{ id: string; name: string }>) => accounts.map(({ id, name }) => ({ id, name }));
  const mine = (s: SignedIn) => withSession(gw, s, 'GET', '/console/api/session', { headers: proxied });

  /** Invites the email to the account's team and accepts with `password`; undefined leaves the invitation open. */
  async function join(account: { apiKey: string }, email: string, password?: string) {
    const invited = await request(gw, 'POST', '/v1/members', {
      apiKey: account.apiKey,
      body: { email, name: 'Sam Staff', role: 'agent' },
    });
    expect(invited.status).toBe(201);
    if (password) expect((await acceptInvite(gw, invited.body.inviteUrl, password)).reply.status).toBe(200);
    return invited.body.id as string;
  }

  test('the session names the other accounts its password opens: none whose invitation waits, has another password or was left', async () => {
    const email = staff();
    const agency = await createAccount(gw, { type: 'agency', name: 'Growth Agency' });
    const dental = await createAccount(gw, { parentEmail: agency.email, name: 'Bright Dental' });
    const waiting = await createAccount(gw, { parentEmail: agency.email, name: 'Invited Only' });
    const other = await createAccount(gw, { parentEmail: agency.email, name: 'Own Password' });
    const realty = await createAccount(gw, { parentEmail: agency.email, name: 'Bright Realty' });
    await join(agency, email, PASSWORD);
    await join(dental, email, PASSWORD);
    await join(waiting, email);
    await join(other, email, 'a password of its own here');
    const leaving = await join(realty, email, PASSWORD);

    const session = await signIn(gw, email, PASSWORD, fromNewIp());
    expect(session.reply.status).toBe(200);
    expect(session.reply.body.account.id).toBe(agency.id);
    expect(session.reply.body.otherAccounts).toEqual(named(dental, realty));
    expect((await mine(session)).body.otherAccounts).toEqual(named(dental, realty));

    expect((await request(gw, 'DELETE', `/v1/members/${leaving}`, { apiKey: realty.apiKey })).status).toBe(204);
    expect((await mine(session)).body.otherAccounts).toEqual(named(dental));
    // The account with a password of its own is reached with it, and names none of the others.
    const elsewhere = await signIn(gw, email, 'a password of its own here', fromNewIp());
    expect(elsewhere.reply.body.account.id).toBe(other.id);
    expect(elsewhere.reply.body.otherAccounts).toEqual([]);
  });

  test("an email invited to a team by someone else, its link accepted by them, names none of the person's accounts", async () => {
    const email = staff();
    const agency = await createAccount(gw, { type: 'agency', name: 'Growth Agency' });
    await join(agency, email, PASSWORD);
    const stranger = await createAccount(gw, { name: 'Curious Shop' });
    // The gateway sends no email: whoever invites holds the link, and may set its password themselves.
    const posing = await join(stranger, email, 'the inviter chose this one');
    expect(posing).toBeTruthy();
    const asThem = await signIn(gw, email, 'the inviter chose this one', fromNewIp());
    expect(asThem.reply.body.account.id).toBe(stranger.id);
    expect(asThem.reply.body.otherAccounts).toEqual([]);
    expect(asThem.reply.text).not.toContain('Growth Agency');
  });

  test('switching: a wrong password is refused and the session goes on; the right one opens the account named and ends the old session', async () => {
    const email = staff();
    const owner = await consoleAccount(gw, { type: 'agency', name: 'Growth Agency' });
    const dental = await createAccount(gw, { parentEmail: owner.email, name: 'Bright Dental' });
    const realty = await createAccount(gw, { parentEmail: owner.email, name: 'Bright Realty' });
    await join(owner, email, PASSWORD);
    // Accepting an invitation with the password of the person's other teams names them at once.
    const invited = await request(gw, 'POST', '/v1/members', {
      apiKey: dental.apiKey,
      body: { email, name: 'Sam Staff', role: 'admin' },
    });
    const joined = await acceptInvite(gw, invited.body.inviteUrl, PASSWORD);
    expect(joined.reply.body.account.id).toBe(dental.id);
    expect(joined.reply.body.otherAccounts).toEqual(named(owner));
    await join(realty, email, PASSWORD);

    const ip = fromNewIp();
    const session = await signIn(gw, email, PASSWORD, ip);
    expect(session.reply.body.otherAccounts).toEqual(named(dental, realty));
    const headers = { ...ip, cookie: `${session.cookie}; ${session.browser}` };
    const refused = await signInTo(gw, email, 'not the password at all', realty.id, headers);
    expect({ status: refused.reply.status, body: refused.reply.body }).toEqual({
      status: 401,
      body: { error: { code: 'SIGN_IN_FAILED', message: 'The email or the password is not right' } },
    });
    expect(refused.reply.headers['set-cookie']).toBeUndefined();
    expect((await mine(session)).body.account.id).toBe(owner.id);

    const switched = await signInTo(gw, email, PASSWORD, realty.id, headers);
    expect(switched.reply.status).toBe(200);
    expect(switched.reply.body.account).toMatchObject({ id: realty.id, name: 'Bright Realty' });
    expect(switched.reply.body.member.role).toBe('agent');
    expect(switched.reply.body.otherAccounts).toEqual(named(owner, dental));
    expect((await mine(session)).status).toBe(401);
    expect((await mine(switched)).body.account.id).toBe(realty.id);
  });
});

describe('behind a proxy that sends the gateway a Host of its own', () => {
  // nginx, by default, forwards the upstream's address as Host: the browser's Origin is the public address.
  const PUBLIC_URL = 'https://chat.example.com';
  let behind: InProcessGateway;
  beforeAll(async () => {
    behind = await startInProcess({ LEADCHAT_TRUST_PROXY: '1', LEADCHAT_PUBLIC_URL: PUBLIC_URL });
  });
  afterAll(async () => {
    await behind?.stop();
    if (behind) removeDir(behind.dataDir);
  });
  const viaProxy = (origin: string) => ({ ...proxied, host: '127.0.0.1:8443', origin });

  test('the console at LEADCHAT_PUBLIC_URL signs in, accepts an invitation and signs out; another site is still refused', async () => {
    const owner = await consoleAccount(behind);
    const refused = await signIn(behind, owner.email, owner.password, viaProxy('https://evil.example'));
    expect({ status: refused.reply.status, code: refused.reply.body.error.code }).toEqual({
      status: 403,
      code: 'CROSS_ORIGIN',
    });
    const session = await signIn(behind, owner.email, owner.password, viaProxy(PUBLIC_URL));
    expect(session.reply.status).toBe(200);
    expect((await withSession(behind, session, 'GET', '/v1/settings', { headers: proxied })).status).toBe(200);

    const invited = await request(behind, 'POST', '/v1/members', {
      apiKey: owner.apiKey,
      headers: proxied,
      body: { email: 'proxied@team.example', name: 'Pat', role: 'agent' },
    });
    const token = new URL(invited.body.inviteUrl).hash.slice(1);
    expect(invited.body.inviteUrl).toMatch(new RegExp(`^${PUBLIC_URL}/`));
    const accepted = await request(behind, 'POST', `/console/api/invites/${token}`, {
      headers: viaProxy(PUBLIC_URL),
      body: { password: 'a-long-enough-password' },
    });
    expect(accepted.status).toBe(200);

    const out = await withSession(behind, session, 'DELETE', '/console/api/session', { headers: viaProxy(PUBLIC_URL) });
    expect(out.status).toBe(204);
    expect((await withSession(behind, session, 'GET', '/v1/settings', { headers: proxied })).status).toBe(401);
  });
});

describe('the /v1 API with a console session', () => {
  let a: ConsoleAccount;
  let b: ConsoleAccount;
  let sessionA: { cookie: string; csrfToken: string };
  let sessionB: { cookie: string; csrfToken: string };
  beforeAll(async () => {
    a = await consoleAccount(gw);
    b = await consoleAccount(gw);
    sessionA = await signIn(gw, a.email, a.password, fromNewIp());
    sessionB = await signIn(gw, b.email, b.password, fromNewIp());
  });

  test("reads as the session's account", async () => {
    const res = await withSession(gw, sessionA, 'GET', '/v1/settings', { headers: proxied });
    expect(res.status).toBe(200);
    const byKey = await request(gw, 'GET', '/v1/settings', { apiKey: a.apiKey, headers: proxied });
    expect(res.body).toEqual(byKey.body);
  });

  test('no session, an unknown or a tampered cookie: 401', async () => {
    expect((await request(gw, 'GET', '/v1/settings', { headers: proxied })).status).toBe(401);
    expect(
      (await request(gw, 'GET', '/v1/settings', { headers: { ...proxied, cookie: '__Host-leadchat_session=forged' } }))
        .status,
    ).toBe(401);
    expect(
      (await request(gw, 'GET', '/v1/settings', { headers: { ...proxied, cookie: `${sessionA.cookie}x` } })).status,
    ).toBe(401);
    expect((await request(gw, 'GET', '/v1/settings', { headers: { ...proxied, cookie: 'theme=dark' } })).status).toBe(
      401,
    );
    expect((await request(gw, 'GET', '/console/api/session', { headers: proxied })).status).toBe(401);
  });

  test("a change without the CSRF token, or with another session's, is refused with 403 and changes nothing", async () => {
    const change = { body: { customChannelWebhookUrl: 'https://example.com/hook-csrf' }, headers: proxied };
    for (const csrf of [null, '', 'f'.repeat(64), sessionB.csrfToken]) {
      const res = await withSession(gw, sessionA, 'PUT', '/v1/settings', { ...change, csrf });
      expect({ csrf, status: res.status, code: res.body?.error?.code }).toEqual({
        csrf,
        status: 403,
        code: 'CSRF_TOKEN_INVALID',
      });
    }
    expect(
      (
        await withSession(gw, sessionA, 'POST', '/v1/lists', {
          body: { name: 'no token' },
          csrf: null,
          headers: proxied,
        })
      ).status,
    ).toBe(403);
    expect((await withSession(gw, sessionA, 'POST', '/v1/api-key', { csrf: null, headers: proxied })).status).toBe(403);
    expect(
      (await request(gw, 'GET', '/v1/settings', { apiKey: a.apiKey, headers: proxied })).body.customChannelWebhookUrl,
    ).toBeNull();
    const done = await withSession(gw, sessionA, 'PUT', '/v1/settings', change);
    expect(done.status).toBe(200);
    expect(done.body.customChannelWebhookUrl).toBe('https://example.com/hook-csrf');
  });

  test("a read needs no CSRF token; one carrying another session's is refused with 403, as a page of the member before reads", async () => {
    const read = (csrf: string | null) => withSession(gw, sessionA, 'GET', '/v1/settings', { csrf, headers: proxied });
    expect((await read(null)).status).toBe(200);
    expect((await read(sessionA.csrfToken)).status).toBe(200);
    for (const csrf of ['', sessionB.csrfToken]) {
      const res = await read(csrf);
      expect({ csrf, status: res.status, code: res.body?.error?.code }).toEqual({
        csrf,
        status: 403,
        code: 'CSRF_TOKEN_INVALID',
      });
    }
  });

  test("one account's session never reaches another's data", async () => {
    const contact = await request(gw, 'POST', '/v1/contacts', {
      apiKey: b.apiKey,
      headers: proxied,
      body: { phone: '+15550107788', firstName: 'Bea' },
    });
    expect(contact.status).toBe(201);
    const list = await request(gw, 'POST', '/v1/lists', {
      apiKey: b.apiKey,
      headers: proxied,
      body: { name: 'B only' },
    });
    expect(
      (await withSession(gw, sessionA, 'GET', `/v1/contacts/${contact.body.id}`, { headers: proxied })).status,
    ).toBe(404);
    expect(
      (
        await withSession(gw, sessionA, 'GET', '/v1/contacts', {
          query: { phoneNumber: '+15550107788' },
          headers: proxied,
        })
      ).status,
    ).toBe(404);
    const lists = await withSession(gw, sessionA, 'GET', '/v1/lists', { headers: proxied });
    expect(lists.body.data.map((l: { id: string }) => l.id)).not.toContain(list.body.id);
    const added = await withSession(gw, sessionA, 'POST', `/v1/lists/${list.body.id}/contacts`, {
      body: { contactId: contact.body.id },
      headers: proxied,
    });
    expect(added.status).toBe(404);
    const before = (await request(gw, 'GET', '/v1/settings', { apiKey: b.apiKey, headers: proxied })).body;
    await withSession(gw, sessionA, 'POST', '/v1/settings/webhook-secret', { headers: proxied });
    expect((await request(gw, 'GET', '/v1/settings', { apiKey: b.apiKey, headers: proxied })).body).toEqual(before);
  });

  test('an API key decides alone: it works beside any cookie, and a wrong key is refused whatever the cookie', async () => {
    const byKey = await request(gw, 'GET', '/v1/settings', {
      apiKey: b.apiKey,
      headers: { ...proxied, cookie: sessionA.cookie },
    });
    expect(byKey.status).toBe(200);
    const bSettings = await withSession(gw, sessionB, 'GET', '/v1/settings', { headers: proxied });
    expect(byKey.body).toEqual(bSettings.body);
    // A key needs no CSRF token, as before.
    expect(
      (await request(gw, 'POST', '/v1/lists', { apiKey: a.apiKey, body: { name: 'by key' }, headers: proxied })).status,
    ).toBe(201);
    expect(
      (
        await request(gw, 'GET', '/v1/settings', {
          apiKey: 'lck_wrong',
          headers: { ...proxied, cookie: sessionA.cookie },
        })
      ).status,
    ).toBe(401);
  });

  test('sign-out needs the CSRF token, ends the session everywhere and clears the cookie', async () => {
    const s = await signIn(gw, a.email, a.password, fromNewIp());
    expect((await withSession(gw, s, 'DELETE', '/console/api/session', { csrf: null, headers: proxied })).status).toBe(
      403,
    );
    expect((await withSession(gw, s, 'GET', '/v1/settings', { headers: proxied })).status).toBe(200);
    const out = await withSession(gw, s, 'DELETE', '/console/api/session', { headers: { ...proxied, origin: gw.url } });
    expect(out.status).toBe(204);
    expect([out.headers['set-cookie']].flat()[0]).toMatch(
      /^__Host-leadchat_session=; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=0$/,
    );
    const ended = await withSession(gw, s, 'GET', '/v1/settings', { headers: proxied });
    // Told what ended and what to do, not that an API key it never sent is wrong.
    expect(ended.status).toBe(401);
    expect(ended.body.error.message).toBe(
      'Not signed in to the console (the session ended) and no API key given: sign in again, or send the API key in the x-api-key header',
    );
    expect((await withSession(gw, s, 'GET', '/console/api/session', { headers: proxied })).status).toBe(401);
    const page = await withSession(gw, s, 'GET', '/console/settings/account', { headers: proxied });
    expect(page.status).toBe(302);
    // Other sessions of the same account go on.
    expect((await withSession(gw, sessionA, 'GET', '/v1/settings', { headers: proxied })).status).toBe(200);
  });
});

describe('passwords set by the operator', () => {
  test('a reset ends every session of the account; the old password stops, the new one works', async () => {
    const owner = await consoleAccount(gw);
    const s1 = await signIn(gw, owner.email, owner.password, fromNewIp());
    const s2 = await signIn(gw, owner.email, owner.password, fromNewIp());
    const reset = await setPassword(gw, owner.id, 'a brand new passphrase');
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual(
      expect.objectContaining({ id: owner.id, email: owner.email, passwordSet: true, sessionsEnded: 2 }),
    );
    expect(reset.text).not.toMatch(/Hash|brand new/);
    for (const s of [s1, s2])
      expect((await withSession(gw, s, 'GET', '/v1/settings', { headers: proxied })).status).toBe(401);
    expect((await signIn(gw, owner.email, owner.password, fromNewIp())).reply.status).toBe(401);
    expect((await signIn(gw, owner.email, 'a brand new passphrase', fromNewIp())).reply.status).toBe(200);
  });

  test('the admin route takes the admin token, a known account and a password of 12 characters or more that are not spaces', async () => {
    const owner = await createAccount(gw);
    const admin = { authorization: `Bearer ${gw.adminToken}`, ...proxied };
    expect(
      (
        await request(gw, 'PUT', `/admin/v1/accounts/${owner.id}/password`, {
          headers: proxied,
          body: { password: 'long enough password' },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await request(gw, 'PUT', `/admin/v1/accounts/${owner.id}/password`, {
          headers: { ...proxied, cookie: 'x' },
          body: { password: 'long enough password' },
        })
      ).status,
    ).toBe(401);
    const short = await request(gw, 'PUT', `/admin/v1/accounts/${owner.id}/password`, {
      headers: admin,
      body: { password: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toMatch(/^password: /);
    for (const spaced of [' '.repeat(12), ' a b c d e f g h i j k ', '\t\n'.repeat(8)]) {
      const refused = await request(gw, 'PUT', `/admin/v1/accounts/${owner.id}/password`, {
        headers: admin,
        body: { password: spaced },
      });
      expect({ status: refused.status, message: refused.body.error.message }).toEqual({
        status: 400,
        message: 'password: must hold at least 12 characters that are not spaces',
      });
    }
    expect(
      (
        await request(gw, 'PUT', '/admin/v1/accounts/acc_missing/password', {
          headers: admin,
          body: { password: 'long enough password' },
        })
      ).status,
    ).toBe(404);
  });
});

describe('console pages and assets', () => {
  const PAGES = [
    '/console/settings/account',
    '/console/settings/webhook',
    '/console/settings/bot',
    '/console/settings/channels',
    '/console/settings/members',
  ];
  let session: { cookie: string; csrfToken: string };
  beforeAll(async () => {
    const owner = await consoleAccount(gw);
    session = await signIn(gw, owner.email, owner.password, fromNewIp());
  });

  test.each(PAGES)('%s without a session leads to the sign-in page and back', async (page) => {
    const res = await request(gw, 'GET', page, { headers: proxied });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`/console/sign-in?next=${encodeURIComponent(page)}`);
    expectSecurityHeaders(res.headers);
  });

  test('an API key a link put in the query is not echoed in the way back to the page', async () => {
    const res = await request(gw, 'GET', '/console/contacts?apiKey=lck_secret&q=ann', { headers: proxied });
    expect(res.headers.location).toBe(`/console/sign-in?next=${encodeURIComponent('/console/contacts?q=ann')}`);
  });

  test.each(PAGES)('%s with a session is the app shell: no inline script, not stored', async (page) => {
    const res = await withSession(gw, session, 'GET', page, { headers: proxied });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expectSecurityHeaders(res.headers);
    const scripts = [...res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/src="\/console\/assets\//);
      expect(body).toBe('');
    }
    expect(res.text).not.toMatch(/\son\w+=|https?:\/\//);
  });

  test('the sign-in page is open; signed in, it and the bare address lead to the Inbox, the settings address to its first page', async () => {
    const open = await request(gw, 'GET', '/console/sign-in', { headers: proxied });
    expect(open.status).toBe(200);
    expect(open.headers['cache-control']).toBe('no-store');
    expectSecurityHeaders(open.headers);
    for (const [p, location] of [
      ['/console/sign-in', '/console/inbox'],
      ['/console', '/console/inbox'],
      ['/console/', '/console/inbox'],
      ['/console/settings', '/console/settings/account'],
    ]) {
      const res = await withSession(gw, session, 'GET', p, { headers: proxied });
      expect({ p, status: res.status, location: res.headers.location }).toEqual({ p, status: 302, location });
    }
  });

  test('an unknown console page is a 404 in the shell with a session, the sign-in page without', async () => {
    const res = await withSession(gw, session, 'GET', '/console/no-such-page', { headers: proxied });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expectSecurityHeaders(res.headers);
    expect((await request(gw, 'GET', '/console/no-such-page', { headers: proxied })).status).toBe(302);
  });
});
