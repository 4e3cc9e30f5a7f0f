import {
  createAccount,
  request,
  type Reply,
  type RequestOptions,
  type TestAccount,
  type TestGateway,
} from '../helpers/gateway';

/** Shared pieces of the web console tests: accounts with a console password, and signed-in HTTP requests. */

export interface ConsoleAccount extends TestAccount {
  password: string;
}

const admin = (gw: TestGateway) => ({ authorization: `Bearer ${gw.adminToken}` });

/** Sets an account's console password through the admin API, as the operator does. */
export async function setPassword(gw: TestGateway, accountId: string, password: string): Promise<Reply> {
  return request(gw, 'PUT', `/admin/v1/accounts/${accountId}/password`, { headers: admin(gw), body: { password } });
}

/** The gateway's count of password derivations with this outcome (`derived`, `busy`), from its /metrics. */
export async function passwordDerivations(gw: TestGateway, outcome: 'derived' | 'busy' = 'derived'): Promise<number> {
  const res = await request(gw, 'GET', '/metrics', { headers: admin(gw) });
  const sample = new RegExp(`^leadchat_password_derivations_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(
    res.text,
  );
  return Number(sample?.[1] ?? 0);
}

let counter = 0;
export async function consoleAccount(
  gw: TestGateway,
  opts: Parameters<typeof createAccount>[1] = {},
): Promise<ConsoleAccount> {
  counter += 1;
  const account = await createAccount(gw, opts);
  const password = `pass-${counter}-${process.pid}-long-enough`;
  const res = await setPassword(gw, account.id, password);
  if (res.status !== 200) throw new Error(`setting the password failed: ${res.status} ${res.text}`);
  return { ...account, password };
}

export interface SignedIn {
  cookie: string;
  csrfToken: string;
  /** The known-browser cookie (`name=value`) the sign-in left: the browser's proof of it at the next sign-in. */
  browser: string;
  reply: Reply;
}

/** The session an answer of the session API started: its cookie and CSRF token, and the known-browser cookie. */
function sessionStarted(reply: Reply): SignedIn {
  const [session = '', browser = ''] = [reply.headers['set-cookie'] ?? []].flat().map((c) => c.split(';')[0]!);
  return { cookie: session, csrfToken: reply.body?.csrfToken, browser, reply };
}

/** POST /console/api/session as the console's sign-in form sends it; `headers` add e.g. X-Forwarded-For or a Cookie. */
export async function signIn(
  gw: TestGateway,
  email: string,
  password: string,
  headers: Record<string, string> = {},
  localAddress?: string,
): Promise<SignedIn> {
  return sessionStarted(
    await request(gw, 'POST', '/console/api/session', {
      headers: { origin: gw.url, ...headers },
      body: { email, password },
      localAddress,
    }),
  );
}

/** POST /console/api/session naming the account to open, as the console's Switch account sends it. */
export async function signInTo(
  gw: TestGateway,
  email: string,
  password: string,
  accountId: string,
  headers: Record<string, string> = {},
): Promise<SignedIn> {
  return sessionStarted(
    await request(gw, 'POST', '/console/api/session', {
      headers: { origin: gw.url, ...headers },
      body: { email, password, accountId },
    }),
  );
}

/** Accepts an invitation as its page does (the token from the link's fragment, a password): the member's session. */
export async function acceptInvite(gw: TestGateway, inviteUrl: string, password: string): Promise<SignedIn> {
  const token = new URL(inviteUrl).hash.slice(1);
  return sessionStarted(
    await request(gw, 'POST', `/console/api/invites/${token}`, { headers: { origin: gw.url }, body: { password } }),
  );
}

/** Invites a member with the account's API key (which acts as the owner) and accepts at once: their session. */
export async function teamMember(
  gw: TestGateway,
  owner: TestAccount,
  role: 'admin' | 'agent',
  name = `A ${role}`,
): Promise<SignedIn & { id: string }> {
  counter += 1;
  const email = `${role}-${counter}-${process.pid}@team.example`;
  const invited = await request(gw, 'POST', '/v1/members', { apiKey: owner.apiKey, body: { email, name, role } });
  if (invited.status !== 201) throw new Error(`inviting failed: ${invited.status} ${invited.text}`);
  const session = await acceptInvite(gw, invited.body.inviteUrl, `member-${counter}-${process.pid}-long-enough`);
  if (session.reply.status !== 200) throw new Error(`accepting failed: ${session.reply.status} ${session.reply.text}`);
  return { ...session, id: invited.body.id };
}

/** A request with a session's cookie, and its CSRF token unless `csrf` says otherwise (`null`: none). */
export function withSession<T = any>(
  gw: TestGateway,
  session: Pick<SignedIn, 'cookie' | 'csrfToken'>,
  method: string,
  path: string,
  opts: RequestOptions & { csrf?: string | null } = {},
): Promise<Reply<T>> {
  const csrf = opts.csrf === undefined ? session.csrfToken : opts.csrf;
  return request<T>(gw, method, path, {
    ...opts,
    headers: { cookie: session.cookie, ...(csrf === null ? {} : { 'x-csrf-token': csrf }), ...opts.headers },
  });
}

/** The headers every console response carries: a strict Content-Security-Policy, no framing, no sniffing. */
export function expectSecurityHeaders(headers: Record<string, unknown>): void {
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("media-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe');
  expect(headers['referrer-policy']).toBe('same-origin');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
}
