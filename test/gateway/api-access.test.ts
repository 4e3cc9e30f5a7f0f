import path from 'node:path';
import { consoleAccount, signIn, teamMember } from '../console/support';
import { openStream } from '../helpers/event-stream';
import { request, useGateway, type Reply } from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

type AccessModule = typeof import('../../gateway/src/http/access.js', { with: { 'resolution-mode': 'import' } });
type RouteModule = typeof import('../../gateway/src/http/route.js', { with: { 'resolution-mode': 'import' } });
type Access = keyof AccessModule['ACCESS_LEVELS'];

/**
 * Every route of the access table (gateway/src/http/access.ts), called as every kind of caller: each answer must be
 * what the table declares. A route the table does not list cannot even be registered (the last test), so walking
 * the table walks every route the gateway serves; a route the table lists but the gateway lacks answers 404
 * NOT_FOUND, which fails here too.
 */
const ctx = useGateway({ LEADCHAT_TEST_CLOCK: '1', LEADCHAT_CONSOLE_RATE_LIMIT_PER_MINUTE: '1000000' });
const dist = path.resolve(__dirname, '../../gateway/dist/http');

type Caller = 'anonymous' | 'apiKey' | 'owner' | 'admin' | 'agent' | 'adminToken';
const CALLERS: Caller[] = ['anonymous', 'apiKey', 'owner', 'admin', 'agent', 'adminToken'];

/** Who gets in at each level; everyone else is refused: an agent with 403 FORBIDDEN where admins may, the rest 401. */
const ADMITTED: Record<Access, Caller[]> = {
  public: CALLERS,
  team: ['apiKey', 'owner', 'admin', 'agent'],
  admins: ['apiKey', 'owner', 'admin'],
  'signed-in': ['owner', 'admin', 'agent'],
  operator: ['adminToken'],
  scraper: ['adminToken'],
};

/** Each request from an address of its own, so that the refusals of this walk add up to no address's limit. */
let addresses = 0;
const nextAddress = () => {
  addresses += 1;
  return `127.1.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};

const outcome = (reply: Reply): string => {
  const code = typeof reply.body?.error === 'object' ? reply.body.error.code : undefined;
  if (reply.status === 401) return 'refused 401';
  if (reply.status === 403 && code === 'FORBIDDEN') return 'refused 403';
  if (reply.status === 404 && code === 'NOT_FOUND') return 'no such route';
  if (reply.status >= 500) return `failed ${reply.status}`;
  return 'admitted';
};

test('every route answers each kind of caller as its access level says', async () => {
  const { ROUTE_ACCESS } = (await gatewayModule(path.join(dist, 'access.js'))) as AccessModule;
  const gw = ctx.gw;
  const owner = await consoleAccount(gw, { type: 'agency' });
  const sessions = {
    owner: await signIn(gw, owner.email, owner.password, {}, nextAddress()),
    admin: await teamMember(gw, owner, 'admin'),
    agent: await teamMember(gw, owner, 'agent'),
  };
  let apiKey = owner.apiKey;
  const headersOf = (caller: Caller): Record<string, string> => {
    if (caller === 'apiKey') return { 'x-api-key': apiKey };
    if (caller === 'adminToken') return { authorization: `Bearer ${gw.adminToken}` };
    if (caller === 'anonymous') return {};
    const session = sessions[caller];
    return { cookie: session.cookie, 'x-csrf-token': session.csrfToken, origin: gw.url };
  };

  const routes = Object.entries(ROUTE_ACCESS).flatMap(([route, methods]) =>
    Object.entries(methods).map(([method, access]) => ({ method, route, access: access as Access })),
  );
  // Signing out ends the caller's session: it comes last.
  routes.sort(
    (a, b) =>
      Number(a.route === '/console/api/session' && a.method === 'DELETE') -
      Number(b.route === '/console/api/session' && b.method === 'DELETE'),
  );
  expect(routes.length).toBeGreaterThan(90);

  const mismatches: string[] = [];
  for (const { method, route, access } of routes) {
    const pathname = route.replace(/:\w+/g, 'zz_missing');
    for (const caller of CALLERS) {
      // The console's event stream never ends by itself: its answer is judged by its status, then it is closed.
      const reply =
        pathname === '/console/api/stream'
          ? await streamReply(gw, headersOf(caller))
          : await request(gw, method, pathname, {
              headers: headersOf(caller),
              body: method === 'GET' || method === 'DELETE' ? undefined : {},
              localAddress: nextAddress(),
            });
      // A new key, from the owner's or an admin's rotation, is the key from now on.
      if (route === '/v1/api-key' && reply.status === 200) apiKey = reply.body.apiKey;
      const expected = ADMITTED[access].includes(caller)
        ? 'admitted'
        : caller === 'agent' && access === 'admins'
          ? 'refused 403'
          : 'refused 401';
      const got = outcome(reply);
      if (got !== expected)
        mismatches.push(
          `${method} ${route} (${access}) as ${caller}: expected ${expected}, got ${got} ${reply.status} ${reply.text.slice(0, 120)}`,
        );
    }
  }
  expect(mismatches).toEqual([]);
  // Some 600 requests, each on a connection of its own: more than the usual 30 s on a busy machine.
}, 120_000);

async function streamReply(gw: Parameters<typeof openStream>[0], headers: Record<string, string>): Promise<Reply> {
  const stream = await openStream(gw, '/console/api/stream', headers);
  stream.close();
  return { status: stream.status, headers: stream.headers, body: stream.body, text: JSON.stringify(stream.body ?? '') };
}

test("agents are refused every change kept for admins, the agency's credits among them, and nothing changes", async () => {
  const gw = ctx.gw;
  const agency = await consoleAccount(gw, { type: 'agency' });
  const sub = await consoleAccount(gw, { parentEmail: agency.email });
  const agent = await teamMember(gw, agency, 'agent');
  const before = (await request(gw, 'GET', '/v1/credits', { apiKey: agency.apiKey })).body.balance;
  const asAgent = (method: string, pathname: string, body: unknown) =>
    request(gw, method, pathname, { headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrfToken }, body });
  for (const [method, pathname, body] of [
    ['POST', '/v1/subaccounts/credits', { email: sub.email, amount: 1_000_000 }],
    ['PUT', '/v1/subaccounts/auto-recharge', { email: sub.email, threshold: 10, amount: 100 }],
    ['DELETE', `/v1/subaccounts/${sub.id}`, undefined],
  ] as const) {
    const res = await asAgent(method, pathname, body);
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
  }
  expect((await request(gw, 'GET', '/v1/credits', { apiKey: sub.apiKey })).body.balance).toBe(0);
  expect((await request(gw, 'GET', '/v1/credits', { apiKey: agency.apiKey })).body.balance).toBe(before);
  expect((await request(gw, 'GET', '/v1/subaccounts', { apiKey: agency.apiKey })).body.data).toHaveLength(1);
});

test('a route the access table does not list cannot be registered', async () => {
  const { route } = (await gatewayModule(path.join(dist, 'route.js'))) as RouteModule;
  const registered: string[] = [];
  const target = {
    route: (p: string) => ({ get: () => registered.push(p), all: () => undefined, options: () => undefined }) as never,
  };
  const routes = { prefix: '/v1', guards: { team: [] }, route: target.route };
  expect(() => route(routes, '/undeclared', { get: () => undefined })).toThrow(
    'GET /v1/undeclared has no access level in http/access.ts',
  );
  expect(() => route(routes, '/openapi.json', { get: () => undefined })).toThrow(
    'GET /v1/openapi.json is "public", which /v1 cannot check',
  );
  route(routes, '/contacts', { get: () => undefined });
  expect(registered).toEqual(['/contacts']);
});
