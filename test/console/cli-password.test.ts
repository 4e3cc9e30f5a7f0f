import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  createAccount,
  GATEWAY_MAIN,
  removeDir,
  runCli as cli,
  startGateway,
  type TestGateway,
} from '../helpers/gateway';
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
  expect(missing.stderr).toContain('account password needs --email and --password-stdin (or --password)');
});

describe('--password-stdin: the password from standard input, never from the command line', () => {
  test('piped in (from a secret store or a file), its one last line break left out', async () => {
    const admin = await startedAccount();
    const set = await cli(
      ['account', 'password', '--email', admin.email, '--password-stdin'],
      env,
      'a piped console password\n',
    );
    expect(set.code).toBe(0);
    expect(set.json).toEqual(expect.objectContaining({ id: admin.id, passwordSet: true }));
    expect(set.stderr).toBe('');
    expect((await signIn(gw, admin.email, 'a piped console password')).reply.status).toBe(200);

    const email = `piped-owner-${process.pid}@clinic.example`;
    const created = await cli(
      ['account', 'create', '--name', 'Piped', '--email', email, '--password-stdin'],
      env,
      'a first piped password\r\n',
    );
    expect(created.code).toBe(0);
    expect((await signIn(gw, email, 'a first piped password')).reply.status).toBe(200);
  });

  test('typed at a terminal, where it is not shown', async () => {
    const admin = await startedAccount();
    // `script` gives the command a terminal of its own, its input what the operator types.
    const command = [process.execPath, GATEWAY_MAIN, 'account', 'password', '--email', admin.email, '--password-stdin']
      .map((word) => `'${word}'`)
      .join(' ');
    const typed = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], { env: { PATH: process.env.PATH ?? '', ...env } });
      let output = '';
      let typedIn = false;
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        // Typed once asked, as a person does: the terminal shows what is typed before the prompt turns that off.
        if (!typedIn && output.includes('Password: ')) {
          typedIn = true;
          child.stdin.write('a typed console password\r');
        }
      });
      child.on('error', (err) => resolve({ code: null, output: String(err) }));
      child.on('close', (code) => resolve({ code, output }));
    });
    expect(typed.code).toBe(0);
    expect(typed.output).toContain('Password: ');
    expect(typed.output).not.toContain('a typed console password');
    expect(typed.output).toContain('"passwordSet": true');
    expect((await signIn(gw, admin.email, 'a typed console password')).reply.status).toBe(200);
  });

  test('a password on the command line still works, with a warning; both, or an empty input, are refused', async () => {
    const admin = await startedAccount();
    const argv = await cli(
      ['account', 'password', '--email', admin.email, '--password', 'an argv console password'],
      env,
    );
    expect(argv.code).toBe(0);
    expect(argv.stderr).toMatch(/warning: a password on the command line .* --password-stdin reads it/);
    expect(argv.stderr).not.toContain('an argv console password');

    const both = await cli(
      ['account', 'password', '--email', admin.email, '--password', 'an argv console password', '--password-stdin'],
      env,
      'a piped console password',
    );
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--password-stdin or --password, not both');
    const empty = await cli(['account', 'password', '--email', admin.email, '--password-stdin'], env, '\n');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('--password-stdin read no password from standard input');
    expect((await signIn(gw, admin.email, 'an argv console password')).reply.status).toBe(200);
  });
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
