import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAccount, removeDir, runCli as cli, startGateway, type TestGateway } from '../helpers/gateway';
import { signIn } from './support';

/** `leadchat-gateway account password` and `account create --password`: the operator sets a console password from the command line. */
jest.setTimeout(60_000);

let gw: TestGateway;
let env: Record<string, string>;
beforeAll(async () => {
  gw = await startGateway({ LEADCHAT_ADMIN_TOKEN: '' });
  env = { LEADCHAT_URL: gw.url, LEADCHAT_DATA_DIR: gw.dataDir };
});
afterAll(async () => {
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

test('sets the password the console signs in with, and a second run replaces it', async () => {
  const admin = await startedAccount();
  const set = await cli(
    ['account', 'password', '--email', admin.email.toUpperCase(), '--password', 'first console password'],
    env,
  );
  expect(set.code).toBe(0);
  const printed = JSON.parse(set.stdout);
  expect(printed).toEqual(
    expect.objectContaining({ id: admin.id, email: admin.email, passwordSet: true, sessionsEnded: 0 }),
  );
  expect(set.stdout).not.toContain('first console password');
  const session = await signIn(gw, admin.email, 'first console password');
  expect(session.reply.status).toBe(200);

  const reset = await cli(
    ['account', 'password', '--email', admin.email, '--password', 'second console password'],
    env,
  );
  expect(reset.code).toBe(0);
  expect(JSON.parse(reset.stdout).sessionsEnded).toBe(1);
  expect((await signIn(gw, admin.email, 'first console password')).reply.status).toBe(401);
  expect((await signIn(gw, admin.email, 'second console password')).reply.status).toBe(200);
});

test("refuses a short password with the API's message, an unknown email, and missing options", async () => {
  const admin = await startedAccount();
  const short = await cli(['account', 'password', '--email', admin.email, '--password', 'short'], env);
  expect(short.code).toBe(1);
  expect(JSON.parse(short.stdout).error.message).toMatch(/^password: must be at least 12 characters/);
  const unknown = await cli(
    ['account', 'password', '--email', 'nobody@example.com', '--password', 'long enough password'],
    env,
  );
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('No account with email nobody@example.com');
  const missing = await cli(['account', 'password', '--email', admin.email], env);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('account password needs --email and --password');
});

/** An account made with the admin token the gateway generated into its data dir, as the CLI finds it. */
function startedAccount() {
  const token = readFileSync(path.join(gw.dataDir, 'admin-token'), 'utf8').trim();
  return createAccount({ ...gw, adminToken: token });
}

test('account create --password: the owner signs in to the console at once, the password never printed', async () => {
  const email = `new-owner-${process.pid}@clinic.example`;
  const created = await cli(
    ['account', 'create', '--name', 'Bright Smile', '--email', email, '--password', 'first day passphrase'],
    env,
  );
  expect(created.code).toBe(0);
  expect(JSON.parse(created.stdout)).toEqual(
    expect.objectContaining({ email, type: 'standard', apiKey: expect.any(String) }),
  );
  expect(created.stdout).not.toContain('first day passphrase');
  const session = await signIn(gw, email, 'first day passphrase');
  expect(session.reply.status).toBe(200);
  expect(session.reply.body.account).toMatchObject({ email, name: 'Bright Smile' });

  const short = await cli(
    [
      'account',
      'create',
      '--name',
      'Too Short',
      '--email',
      `short-${process.pid}@clinic.example`,
      '--password',
      'short',
    ],
    env,
  );
  expect(short.code).toBe(1);
  expect(JSON.parse(short.stdout).error.message).toMatch(/^password: must be at least 12 characters/);
});
