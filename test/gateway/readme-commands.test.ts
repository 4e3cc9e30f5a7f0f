import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { removeDir, request, startGateway, tempDir, type TestGateway } from '../helpers/gateway';

/**
 * The README's operator commands, run exactly as printed from the repository root, the way a new user types them
 * right after `npm ci && npm start`.
 */

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** Runs one shell line as printed, in `cwd`. */
function sh(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { cwd, env, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The shell lines of the first ```sh block after a heading. */
function commandsUnder(heading: string): string[] {
  const section = README.slice(README.indexOf(heading));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({ LEADCHAT_ADMIN_TOKEN: '' });
});

afterAll(async () => {
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

test('npm links the command to a file of the repository, not to a build output that does not exist at install time', () => {
  const linked = realpathSync(path.join(ROOT, 'node_modules/.bin/leadchat-gateway'));
  const relative = path.relative(ROOT, linked);
  const staged = execFileSync('git', ['ls-files', '--stage', '--', relative], { cwd: ROOT, encoding: 'utf8' });
  expect({ relative, mode: staged.split(' ')[0] }).toEqual({
    relative: 'gateway/bin/leadchat-gateway.js',
    mode: '100755',
  });
});

test('the operator bootstrap commands work as printed', async () => {
  const commands = commandsUnder('## Operator bootstrap');
  expect(commands).toEqual([
    expect.stringMatching(/^npx leadchat-gateway account create .*--agency$/),
    expect.stringMatching(/^npx leadchat-gateway account create .*--parent /),
    expect.stringMatching(/^npx leadchat-gateway account rotate-key /),
    expect.stringMatching(/^npx leadchat-gateway member add /),
  ]);
  const env = { ...process.env, LEADCHAT_URL: gw.url, LEADCHAT_DATA_DIR: gw.dataDir, LEADCHAT_ADMIN_TOKEN: '' };
  const printed: any[] = [];
  for (const command of commands) {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('sh', ['-c', command], { cwd: ROOT, env, timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect({ command, code, stderr: stderr.replace(/npm warn.*\n/g, '') }).toEqual({ command, code: 0, stderr: '' });
    printed.push(JSON.parse(stdout));
  }
  const [agency, client, rotated, member] = printed;
  expect(agency).toEqual(
    expect.objectContaining({ email: 'ops@acme.example', type: 'agency', apiKey: expect.any(String) }),
  );
  expect(client).toEqual(
    expect.objectContaining({ email: 'client@example.com', type: 'standard', parentId: agency.id }),
  );
  expect(rotated).toEqual({ apiKey: expect.any(String) });
  expect((await request(gw, 'GET', '/v1/credits', { apiKey: rotated.apiKey })).status).toBe(200);
  expect((await request(gw, 'GET', '/v1/credits', { apiKey: client.apiKey })).status).toBe(401);
  expect(member).toEqual(
    expect.objectContaining({
      email: 'dana@example.com',
      role: 'agent',
      status: 'invited',
      inviteUrl: expect.stringContaining('/console/invite#'),
    }),
  );
  const team = await request(gw, 'GET', '/v1/members', { apiKey: rotated.apiKey });
  expect(team.body.data.map((m: { email: string }) => m.email)).toEqual(['client@example.com', 'dana@example.com']);
});

test('the embedded store backup and restore commands work as printed', async () => {
  const commands = commandsUnder('## Backups');
  expect(commands).toEqual([
    'npx leadchat-gateway backup --to leadchat-backup.tar.gz',
    'LEADCHAT_DATA_DIR=./data-restored npx leadchat-gateway restore --from leadchat-backup.tar.gz',
  ]);
  // Run in a folder of their own, where the command is installed as a package installs it: the files they name
  // land there, not in the repository.
  const folder = tempDir('leadchat-readme-backup-');
  try {
    mkdirSync(path.join(folder, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(
      path.join(ROOT, 'gateway', 'bin', 'leadchat-gateway.js'),
      path.join(folder, 'node_modules', '.bin', 'leadchat-gateway'),
    );
    const env = { ...process.env, LEADCHAT_URL: gw.url, LEADCHAT_DATA_DIR: gw.dataDir, LEADCHAT_ADMIN_TOKEN: '' };
    const printed: any[] = [];
    for (const command of commands) {
      const { code, stdout, stderr } = await sh(command, folder, env);
      expect({ command, code, stderr: stderr.replace(/npm warn.*\n/g, '') }).toEqual({ command, code: 0, stderr: '' });
      printed.push(JSON.parse(stdout));
    }
    const [backup, restore] = printed;
    expect(backup).toEqual(
      expect.objectContaining({
        backup: path.join(folder, 'leadchat-backup.tar.gz'),
        manifest: expect.objectContaining({ storeFormat: 3 }),
      }),
    );
    expect(restore).toEqual(expect.objectContaining({ restored: path.join(folder, 'data-restored') }));
    expect(
      ['admin-token', 'format', 'store', 'tls'].filter((name) => !existsSync(path.join(folder, 'data-restored', name))),
    ).toEqual([]);
  } finally {
    removeDir(folder);
  }
});
