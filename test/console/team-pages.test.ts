import path from 'node:path';
import { removeDir, request, startGateway, type TestGateway } from '../helpers/gateway';
import {
  consoleAccount,
  expectSecurityHeaders,
  signIn,
  teamMember,
  withSession,
  type ConsoleAccount,
  type SignedIn,
} from './support';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * The console's pages for a team, over HTTP: the invitation page opens without a session (whoever holds the link is
 * not signed in yet), and a page above a member's role is answered 403, still with the app shell that tells them
 * why; a role changed counts on the next page.
 */
jest.setTimeout(60_000);

type PagesModule = typeof import('../../gateway/src/console/pages.js', { with: { 'resolution-mode': 'import' } });

let gw: TestGateway;
let owner: ConsoleAccount;
let ownerSession: SignedIn;
let pages: PagesModule['PAGES'];

beforeAll(async () => {
  pages = ((await gatewayModule(path.resolve(__dirname, '../../gateway/dist/console/pages.js'))) as PagesModule).PAGES;
  gw = await startGateway();
  owner = await consoleAccount(gw, { name: 'Team Dental' });
  ownerSession = await signIn(gw, owner.email, owner.password);
});
afterAll(async () => {
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

/** The app shell: the one HTML document every page is drawn into. */
const expectShell = (res: { headers: Record<string, unknown>; text: string }) => {
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.headers['cache-control']).toBe('no-store');
  expectSecurityHeaders(res.headers);
  expect(res.text).toContain('<script type="module" src="/console/assets/app.js"></script>');
};

test('an invitation link leads to the invitation page, which opens without a session and with one', async () => {
  const invited = await request(gw, 'POST', '/v1/members', {
    apiKey: owner.apiKey,
    body: { email: 'new.agent@team.example', name: 'New Agent', role: 'agent' },
  });
  expect(invited.status).toBe(201);
  const link = new URL(invited.body.inviteUrl);
  expect(link.pathname).toBe('/console/invite');
  expect(link.hash).toMatch(/^#[\w-]{20,}$/);

  const open = await request(gw, 'GET', link.pathname);
  expect(open.status).toBe(200);
  expectShell(open);
  // A browser sends no fragment: the token never reaches the server's page.
  const signedIn = await withSession(gw, ownerSession, 'GET', link.pathname);
  expect(signedIn.status).toBe(200);
  expectShell(signedIn);
});

test('an agent is answered 403 on the Settings and Agency pages, still the app shell; the pages of their work open', async () => {
  const agent = await teamMember(gw, owner, 'agent', 'Ana Agent');
  const adminOnly = pages.filter((p) => p.least === 'admin').map((p) => p.path);
  expect(adminOnly).toEqual(
    expect.arrayContaining([
      '/console/settings/account',
      '/console/settings/members',
      '/console/settings/bot',
      '/console/agency',
    ]),
  );
  for (const p of pages) {
    const res = await withSession(gw, agent, 'GET', p.path);
    expect({ page: p.path, status: res.status }).toEqual({
      page: p.path,
      status: adminOnly.includes(p.path) ? 403 : 200,
    });
    expectShell(res);
  }
  // The API agrees: what the pages would do is refused to an agent too.
  expect((await withSession(gw, agent, 'GET', '/v1/settings')).status).toBe(403);
  expect((await withSession(gw, agent, 'GET', '/v1/members')).status).toBe(200);
});

test('the owner and an admin open every page', async () => {
  const admin = await teamMember(gw, owner, 'admin', 'Adam Admin');
  for (const session of [ownerSession, admin]) {
    for (const p of pages)
      expect({ page: p.path, status: (await withSession(gw, session, 'GET', p.path)).status }).toEqual({
        page: p.path,
        status: 200,
      });
  }
});

test('a role changed counts on the next page: an agent made admin opens Settings, made agent again is refused', async () => {
  const member = await teamMember(gw, owner, 'agent', 'Rita Role');
  const settings = '/console/settings/webhook';
  expect((await withSession(gw, member, 'GET', settings)).status).toBe(403);
  expect(
    (await request(gw, 'PATCH', `/v1/members/${member.id}`, { apiKey: owner.apiKey, body: { role: 'admin' } })).status,
  ).toBe(200);
  expect((await withSession(gw, member, 'GET', settings)).status).toBe(200);
  expect(
    (await request(gw, 'PATCH', `/v1/members/${member.id}`, { apiKey: owner.apiKey, body: { role: 'agent' } })).status,
  ).toBe(200);
  expect((await withSession(gw, member, 'GET', settings)).status).toBe(403);
});
