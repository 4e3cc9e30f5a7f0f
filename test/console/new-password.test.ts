import path from 'node:path';
import { removeDir, request } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import { acceptInvite, consoleAccount, setPassword, signIn } from './support';
import { gatewayModule } from '../helpers/gateway-modules';

type SessionsModule = typeof import('../../gateway/src/domain/sessions.js', { with: { 'resolution-mode': 'import' } });
type SignInModule = typeof import('../../gateway/src/console/server/sign-in.js', {
  with: { 'resolution-mode': 'import' }
});
type GatewayContext = Parameters<SignInModule['checkSignIn']>[0];

/**
 * A new password ends the sessions of the old one, including a sign-in with the old one that was still being checked
 * when it was set: a check costs a password's hashing, and the new password can commit between it and the session
 * it opens. On both stores: on PostgreSQL the two take turns on the record that holds the password.
 */
jest.setTimeout(60_000);

let gw: InProcessGateway;
let sessions: SessionsModule;
let signInModule: SignInModule;
beforeAll(async () => {
  gw = await startInProcess();
  const dist = path.resolve(__dirname, '../../gateway/dist');
  sessions = (await gatewayModule(path.join(dist, 'domain/sessions.js'))) as SessionsModule;
  signInModule = (await gatewayModule(path.join(dist, 'console/server/sign-in.js'))) as SignInModule;
});
afterAll(async () => {
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

const context = () => gw.engine as unknown as GatewayContext;

/** Checks the password, lets `meanwhile` replace it, then opens the session the check was for, as sign-in does. */
async function signInAcross(email: string, password: string, meanwhile: () => Promise<void>) {
  const checked = await signInModule.checkSignIn(context(), { email, password, address: '127.0.0.1' });
  await meanwhile();
  return sessions.startSession(context(), checked.account.id, checked.actor.id, checked.passwordHash);
}

const sessionsOf = (accountId: string) =>
  gw.engine.store.find<{ id: string; memberId: string }>('sessions', 'account', [accountId]);

test("the owner's password reset by the operator leaves no session of the old password", async () => {
  const owner = await consoleAccount(gw);
  const started = await signInAcross(owner.email, owner.password, async () => {
    expect((await setPassword(gw, owner.id, 'a new password after a leak')).status).toBe(200);
  });
  expect(started).toBeUndefined();
  expect(await sessionsOf(owner.id)).toEqual([]);
  expect((await signIn(gw, owner.email, owner.password)).reply.status).toBe(401);
  expect((await signIn(gw, owner.email, 'a new password after a leak')).reply.status).toBe(200);
});

test("a member's password set anew through a new link leaves no session of the old one", async () => {
  const owner = await consoleAccount(gw);
  const email = 'sets-a-new-password@team.example';
  const invited = await request(gw, 'POST', '/v1/members', {
    apiKey: owner.apiKey,
    body: { email, name: 'Sam', role: 'agent' },
  });
  expect((await acceptInvite(gw, invited.body.inviteUrl, 'the first password')).reply.status).toBe(200);
  const started = await signInAcross(email, 'the first password', async () => {
    const link = await request(gw, 'POST', `/v1/members/${invited.body.id}/invite`, { apiKey: owner.apiKey });
    expect((await acceptInvite(gw, link.body.inviteUrl, 'the password chosen anew')).reply.status).toBe(200);
  });
  expect(started).toBeUndefined();
  // The session the new link opened, and no other.
  expect(await sessionsOf(owner.id)).toHaveLength(1);
});
