import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  freePort,
  removeDir,
  request,
  runCli as cli,
  startGateway,
  tempDir,
  type GatewayProcess,
} from '../helpers/gateway';

/** `leadchat-gateway account …` against a running gateway, as an operator types it. */

jest.setTimeout(60_000);

let gw: GatewayProcess;
let env: Record<string, string>;

beforeAll(async () => {
  // No LEADCHAT_ADMIN_TOKEN: the CLI finds the generated token, and the self-signed certificate, in the data dir.
  gw = await startGateway({ LEADCHAT_ADMIN_TOKEN: '' });
  env = { LEADCHAT_URL: gw.url, LEADCHAT_DATA_DIR: gw.dataDir };
});

afterAll(async () => {
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

const works = async (apiKey: string) => (await request(gw, 'GET', '/v1/credits', { apiKey })).status;

describe('account create', () => {
  test('creates a standard account and prints it as JSON with a working API key', async () => {
    const res = await cli(['account', 'create', '--name', 'Acme Dental', '--email', 'Owner@Acme.example'], env);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    expect(res.json).toEqual({
      id: expect.any(String),
      name: 'Acme Dental',
      email: 'owner@acme.example',
      type: 'standard',
      parentId: null,
      apiKey: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(await works(res.json.apiKey)).toBe(200);
  });

  test('--agency makes an agency; --parent makes a sub-account of it', async () => {
    const agency = await cli(
      ['account', 'create', '--name', 'Growth Agency', '--email', 'boss@agency.example', '--agency'],
      env,
    );
    expect(agency.code).toBe(0);
    expect(agency.json).toEqual(expect.objectContaining({ type: 'agency', parentId: null }));

    const sub = await cli(
      [
        'account',
        'create',
        '--name',
        'Client One',
        '--email',
        'client1@agency.example',
        '--parent',
        'boss@agency.example',
      ],
      env,
    );
    expect(sub.code).toBe(0);
    expect(sub.json).toEqual(
      expect.objectContaining({ type: 'standard', parentId: agency.json.id, email: 'client1@agency.example' }),
    );

    // The agency can grant the sub-account credits: the relation is real.
    const grant = await request(gw, 'POST', '/v1/subaccounts/credits', {
      apiKey: agency.json.apiKey,
      body: { email: 'client1@agency.example', amount: 5 },
    });
    expect(grant.status).toBe(200);
    expect(grant.body).toEqual(expect.objectContaining({ success: true, sub_account_id: sub.json.id, new_balance: 5 }));
  });

  test('a refusal from the gateway is printed as JSON with a non-zero exit', async () => {
    const plain = await cli(['account', 'create', '--name', 'Plain', '--email', 'plain@example.com'], env);
    expect(plain.code).toBe(0);

    const notAgency = await cli(
      ['account', 'create', '--name', 'Child', '--email', 'child@example.com', '--parent', 'plain@example.com'],
      env,
    );
    expect(notAgency.code).not.toBe(0);
    expect(notAgency.json).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });

    const duplicate = await cli(['account', 'create', '--name', 'Again', '--email', 'plain@example.com'], env);
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.json).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });

    const badEmail = await cli(['account', 'create', '--name', 'Bad', '--email', 'not-an-email'], env);
    expect(badEmail.code).not.toBe(0);
    expect(badEmail.json.error.message).toMatch(/email/);
  });

  test('--agency with --parent is refused as the admin API refuses it, and nothing is created', async () => {
    const boss = await cli(
      ['account', 'create', '--name', 'Top Agency', '--email', 'top@agency.example', '--agency'],
      env,
    );
    expect(boss.code).toBe(0);
    const nested = await cli(
      [
        'account',
        'create',
        '--name',
        'Nested',
        '--email',
        'nested@agency.example',
        '--agency',
        '--parent',
        'top@agency.example',
      ],
      env,
    );
    expect(nested.code).not.toBe(0);
    expect(nested.json).toEqual({
      error: {
        code: 'AGENCY_CANNOT_HAVE_PARENT',
        message: expect.stringMatching(/^parentEmail: an agency cannot be a sub-account/),
      },
    });
    const list = await request(gw, 'GET', '/admin/v1/accounts', {
      headers: { authorization: `Bearer ${adminToken()}` },
      query: { email: 'nested@agency.example' },
    });
    expect(list.body.data).toEqual([]);
  });

  test('missing options are named without calling the gateway', async () => {
    const res = await cli(['account', 'create', '--email', 'nameless@example.com'], env);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('--name');
    const list = await request(gw, 'GET', '/admin/v1/accounts', {
      headers: { authorization: `Bearer ${adminToken()}` },
      query: { email: 'nameless@example.com' },
    });
    expect(list.body.data).toEqual([]);
  });
});

describe('account list', () => {
  test('prints every account, or the one of an email, as the admin API lists them, without a key', async () => {
    const made = await cli(['account', 'create', '--name', 'Listed Clinic', '--email', 'listed@clinic.example'], env);
    expect(made.code).toBe(0);
    const all = await cli(['account', 'list'], env);
    expect(all.code).toBe(0);
    expect(all.json.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: made.json.id, email: 'listed@clinic.example' })]),
    );
    const one = await cli(['account', 'list', '--email', 'LISTED@clinic.example'], env);
    expect(one.json).toEqual({ data: [expect.objectContaining({ id: made.json.id, name: 'Listed Clinic' })] });
    expect(one.stdout).not.toContain(made.json.apiKey);
    expect(one.json.data[0]).not.toHaveProperty('apiKey');
    const none = await cli(['account', 'list', '--email', 'nobody@clinic.example'], env);
    expect(none).toEqual(expect.objectContaining({ code: 0, json: { data: [] } }));
  });
});

describe('account delete', () => {
  const listed = async (email: string) => (await cli(['account', 'list', '--email', email], env)).json.data;

  test('asks for the email again: typed otherwise, nothing is deleted; typed, the account goes and what went is printed', async () => {
    const created = await cli(
      ['account', 'create', '--name', 'Leaving Dental', '--email', 'leaving@dental.example'],
      env,
    );
    const { id, apiKey } = created.json;
    expect((await request(gw, 'POST', '/v1/contacts', { apiKey, body: { phone: '+14155550187' } })).status).toBe(201);

    const mistyped = await cli(
      ['account', 'delete', '--email', 'leaving@dental.example'],
      env,
      'leaving@dental.exampel\n',
    );
    expect(mistyped.code).toBe(1);
    expect(mistyped.stderr).toContain('Leaving Dental');
    expect(mistyped.stderr).toContain("the email typed is not the account's: nothing was deleted");
    expect(await works(apiKey)).toBe(200);
    expect(await listed('leaving@dental.example')).toHaveLength(1);

    const typed = await cli(
      ['account', 'delete', '--email', 'leaving@dental.example'],
      env,
      'Leaving@Dental.example\n',
    );
    expect({ code: typed.code, json: typed.json }).toEqual({
      code: 0,
      json: {
        accountId: id,
        status: 'done',
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
        removed: expect.objectContaining({ accounts: 1, contacts: 1 }),
      },
    });
    expect(await works(apiKey)).toBe(401);
    expect(await listed('leaving@dental.example')).toEqual([]);
  });

  test('--yes asks nothing, for scripts; an agency with sub-accounts is refused, naming them; an unknown email is named', async () => {
    const agency = await cli(
      ['account', 'create', '--name', 'Agency', '--email', 'boss@leaving.example', '--agency'],
      env,
    );
    const sub = await cli(
      [
        'account',
        'create',
        '--name',
        'Client',
        '--email',
        'client@leaving.example',
        '--parent',
        'boss@leaving.example',
      ],
      env,
    );
    const refused = await cli(['account', 'delete', '--email', 'boss@leaving.example', '--yes'], env);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toEqual({
      code: 'ACCOUNT_HAS_SUBACCOUNTS',
      message: expect.stringContaining('client@leaving.example'),
    });
    expect(await works(agency.json.apiKey)).toBe(200);

    const scripted = await cli(['account', 'delete', '--email', 'client@leaving.example', '--yes'], env);
    expect(scripted.json).toMatchObject({ accountId: sub.json.id, status: 'done' });
    expect((await cli(['account', 'delete', '--email', 'boss@leaving.example', '--yes'], env)).code).toBe(0);
    expect(await works(agency.json.apiKey)).toBe(401);

    const unknown = await cli(['account', 'delete', '--email', 'nobody@leaving.example', '--yes'], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('No account with email nobody@leaving.example');
    const help = await cli(['help'], env);
    expect(help.stdout).toContain('leadchat-gateway account delete --email EMAIL [--yes]');
  });
});

describe('account rotate-key', () => {
  test('prints a new key that works; the old one gets 401 at once', async () => {
    const created = await cli(['account', 'create', '--name', 'Rotating', '--email', 'rotate@example.com'], env);
    const oldKey: string = created.json.apiKey;
    expect(await works(oldKey)).toBe(200);

    const rotated = await cli(['account', 'rotate-key', '--email', 'rotate@example.com'], env);
    expect(rotated.code).toBe(0);
    expect(rotated.json).toEqual({ apiKey: expect.any(String) });
    expect(rotated.json.apiKey).not.toBe(oldKey);
    expect(await works(rotated.json.apiKey)).toBe(200);

    const old = await request(gw, 'GET', '/v1/credits', { apiKey: oldKey });
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  test('an unknown email is a clear error with a non-zero exit', async () => {
    const res = await cli(['account', 'rotate-key', '--email', 'nobody@example.com'], env);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('No account with email nobody@example.com');
  });
});

describe('member add', () => {
  test('invites a member to an account and prints the link, which opens and signs them in', async () => {
    const owner = await cli(['account', 'create', '--name', 'Team Co', '--email', 'owner@team-co.example'], env);
    const res = await cli(
      [
        'member',
        'add',
        '--account',
        'owner@team-co.example',
        '--email',
        'Ada@team-co.example',
        '--role',
        'agent',
        '--name',
        'Ada',
      ],
      env,
    );
    expect(res.code).toBe(0);
    expect(res.json).toEqual(
      expect.objectContaining({
        email: 'ada@team-co.example',
        name: 'Ada',
        role: 'agent',
        status: 'invited',
        inviteUrl: expect.stringContaining('/console/invite#'),
      }),
    );
    const token = new URL(res.json.inviteUrl).hash.slice(1);
    expect(
      (await request(gw, 'POST', `/console/api/invites/${token}`, { body: { password: 'a-long-enough-password' } }))
        .status,
    ).toBe(200);
    const team = await request(gw, 'GET', '/v1/members', { apiKey: owner.json.apiKey });
    expect(team.body.data.map((m: { email: string; status: string }) => `${m.email} ${m.status}`)).toEqual([
      'owner@team-co.example active',
      'ada@team-co.example active',
    ]);
  });

  test('a bad role is refused as the API refuses it; missing options and unknown accounts are named', async () => {
    await cli(['account', 'create', '--name', 'Other Co', '--email', 'owner@other-co.example'], env);
    const bad = await cli(
      ['member', 'add', '--account', 'owner@other-co.example', '--email', 'x@other-co.example', '--role', 'boss'],
      env,
    );
    expect(bad.code).not.toBe(0);
    expect(bad.json.error.code).toBe('VALIDATION_ERROR');
    const missing = await cli(['member', 'add', '--account', 'owner@other-co.example'], env);
    expect(missing.stderr).toContain('member add needs --account, --email and --role');
    const unknown = await cli(
      ['member', 'add', '--account', 'nobody@example.com', '--email', 'x@y.example', '--role', 'agent'],
      env,
    );
    expect(unknown.stderr).toContain('No account with email nobody@example.com');
  });
});

describe('where the CLI finds the gateway and the token', () => {
  test('LEADCHAT_ADMIN_TOKEN overrides the file: a wrong one is refused with 401 JSON', async () => {
    const res = await cli(['account', 'create', '--name', 'Nope', '--email', 'nope@example.com'], {
      ...env,
      LEADCHAT_ADMIN_TOKEN: 'a-wrong-admin-token-of-some-length',
    });
    expect(res.code).not.toBe(0);
    expect(res.json).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  test('without a token anywhere, it says how to get one', async () => {
    const empty = tempDir();
    try {
      const res = await cli(['account', 'create', '--name', 'N', '--email', 'n@example.com'], {
        LEADCHAT_URL: gw.url,
        LEADCHAT_DATA_DIR: empty,
      });
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain('LEADCHAT_ADMIN_TOKEN');
    } finally {
      removeDir(empty);
    }
  });

  test('a gateway run with other settings than the command is named, with the settings to give it', async () => {
    // The gateway runs on a port of its own; the command, typed in another terminal, was given no LEADCHAT_PORT.
    const port = await freePort();
    const res = await cli(['account', 'rotate-key', '--email', 'rotate@example.com'], {
      LEADCHAT_DATA_DIR: gw.dataDir,
      LEADCHAT_PORT: String(port),
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toBe(
      `leadchat-gateway: Cannot reach the gateway at https://localhost:${port}: connect ECONNREFUSED 127.0.0.1:${port}; ` +
        `a gateway (pid ${gw.process.pid}) runs on the data dir ${gw.dataDir}: run this command with the settings it ` +
        'runs with (LEADCHAT_HOST and LEADCHAT_PORT, or LEADCHAT_URL)\n',
    );
  });

  test('a gateway not started yet is reported with how to start it, not a stack trace', async () => {
    const stopped = tempDir();
    try {
      // A data dir a gateway made and no longer runs on: its admin token and certificate are there, its lock is not.
      writeFileSync(path.join(stopped, 'admin-token'), readFileSync(path.join(gw.dataDir, 'admin-token')));
      const port = await freePort();
      const res = await cli(
        ['member', 'add', '--account', 'a@example.com', '--email', 'b@example.com', '--role', 'agent'],
        {
          LEADCHAT_DATA_DIR: stopped,
          LEADCHAT_PORT: String(port),
        },
      );
      expect(res.code).not.toBe(0);
      expect(res.stderr).toBe(
        `leadchat-gateway: Cannot reach the gateway at https://localhost:${port}: connect ECONNREFUSED 127.0.0.1:${port}; ` +
          `no gateway runs on the data dir ${stopped} (LEADCHAT_DATA_DIR): start it (npm start in the repository, ` +
          'leadchat-gateway serve where it is installed) and run this command again, or set LEADCHAT_URL to the ' +
          'address of one that runs\n',
      );
    } finally {
      removeDir(stopped);
    }
  });

  test('an unknown command prints the usage', async () => {
    const res = await cli(['account', 'erase', '--email', 'x@example.com'], env);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('usage: account create|list|rotate-key|password|delete');
    const help = await cli(['help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('account create --name NAME --email EMAIL');
  });
});

test('serve refuses arguments, pointing at the settings, and starts nothing', async () => {
  const dataDir = path.join(tempDir('leadchat-cli-serve-'), 'data');
  const res = await cli(['serve', '--port', '9000'], {
    LEADCHAT_HOST: '127.0.0.1',
    LEADCHAT_PORT: String(await freePort()),
    LEADCHAT_DATA_DIR: dataDir,
  });
  expect({ code: res.code, stdout: res.stdout, stderr: res.stderr }).toEqual({
    code: 1,
    stdout: '',
    stderr:
      'leadchat-gateway: serve takes no arguments (--port 9000): it is configured by LEADCHAT_* environment variables, such as LEADCHAT_PORT=9000 (see the README)\n',
  });
  expect(existsSync(dataDir)).toBe(false);
  removeDir(path.dirname(dataDir));
});

test('a token set with a line end after it, as a secret made from a file gives it, opens the admin API', async () => {
  const token = `file-token-${process.pid}-0123456789\n`;
  const own = await startGateway({ LEADCHAT_ADMIN_TOKEN: token });
  try {
    const created = await cli(
      ['account', 'create', '--name', 'From a file', '--email', `file-token-${process.pid}@example.com`],
      { LEADCHAT_URL: own.url, LEADCHAT_DATA_DIR: own.dataDir, LEADCHAT_ADMIN_TOKEN: token },
    );
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
    const jobs = await request(own, 'GET', '/admin/v1/jobs', { headers: { authorization: `Bearer ${token.trim()}` } });
    expect(jobs.status).toBe(200);
  } finally {
    await own.stop();
    removeDir(own.dataDir);
  }
});

describe('backup and restore', () => {
  test('are in the usage, and name a missing option without calling the gateway', async () => {
    const help = await cli(['help'], env);
    expect(help.stdout).toContain('leadchat-gateway backup --to FILE');
    expect(help.stdout).toContain('leadchat-gateway restore --from FILE');
    const backup = await cli(['backup'], env);
    expect({ code: backup.code, stderr: backup.stderr }).toEqual({
      code: 1,
      stderr: 'leadchat-gateway: backup needs --to FILE\n',
    });
    const restore = await cli(['restore'], env);
    expect({ code: restore.code, stderr: restore.stderr }).toEqual({
      code: 1,
      stderr: 'leadchat-gateway: restore needs --from FILE\n',
    });
  });
});

function adminToken(): string {
  return readFileSync(path.join(gw.dataDir, 'admin-token'), 'utf8').trim();
}
