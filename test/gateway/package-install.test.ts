import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, removeDir, request, tempDir } from '../helpers/gateway';

/**
 * The gateway as an operator installs it on a machine without this repository: `npm pack -w leadchat-gateway`, then
 * `npm install -g` of the tarball, then `leadchat-gateway serve` from any folder, the console's assets inside.
 */
jest.setTimeout(180_000);
const run = promisify(execFile);
const REPOSITORY = path.resolve(__dirname, '../..');

let root: string;
let bin: string;
let tarball: string;

beforeAll(async () => {
  root = tempDir('leadchat-install-');
  const { stdout } = await run('npm', ['pack', '-w', 'leadchat-gateway', '--pack-destination', root, '--silent'], {
    cwd: REPOSITORY,
  });
  tarball = path.join(root, stdout.trim().split('\n').at(-1)!);
  const prefix = path.join(root, 'prefix');
  // Its dependencies come from npm's cache when `npm ci` already fetched them, else from the registry.
  await run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: root,
  });
  bin = path.join(prefix, 'bin', 'leadchat-gateway');
});

afterAll(() => removeDir(root));

test('the tarball holds the built gateway and its console, not the benchmarks or build state', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout.split('\n').filter(Boolean);
  expect(files).toEqual(
    expect.arrayContaining([
      'package/alerts/leadchat.rules.yml',
      'package/bin/leadchat-gateway.js',
      'package/dist/cli/main.js',
      'package/dist/console/public/app.js',
      'package/package.json',
      // The self-hoster's guide, which npm shows on the package's page.
      'package/README.md',
    ]),
  );
  expect(files.filter((f) => f.includes('/bench/') || f.endsWith('.tsbuildinfo') || f.includes('/src/'))).toEqual([]);
});

test('installed with npm install -g, it serves from any folder: API, console and the operator commands', async () => {
  const elsewhere = path.join(root, 'elsewhere');
  mkdirSync(elsewhere);
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: root,
    LEADCHAT_PORT: String(port),
    LEADCHAT_HOST: '127.0.0.1',
    LEADCHAT_LOG_LEVEL: 'warn',
  };
  const child = spawn(bin, ['serve'], { cwd: elsewhere, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let apiKey = '';
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => out.includes('listening on') && resolve());
      child.once('exit', (code) => reject(new Error(`the installed gateway exited with ${code}:\n${out}`)));
    });
    // Its data dir defaults to ./data of the folder it runs in.
    expect(readdirSync(path.join(elsewhere, 'data')).sort()).toEqual(
      expect.arrayContaining(['admin-token', 'store', 'tls']),
    );
    const gw = {
      url: `https://127.0.0.1:${port}`,
      ca: readFileSync(path.join(elsewhere, 'data', 'tls', 'cert.pem'), 'utf8'),
    };

    expect((await request(gw, 'GET', '/healthz')).status).toBe(200);
    const script = await request(gw, 'GET', '/console/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.text.length).toBeGreaterThan(10_000);

    // gateway/README.md's operator command, typed in the same folder as `serve`.
    const created = await run(bin, ['account', 'create', '--name', 'Installed', '--email', 'installed@example.com'], {
      cwd: elsewhere,
      env,
    });
    ({ apiKey } = JSON.parse(created.stdout) as { apiKey: string });
    expect((await request(gw, 'GET', '/v1/credits', { apiKey })).status).toBe(200);
    // gateway/README.md's nightly backup, while it serves.
    await run(bin, ['backup', '--to', path.join(root, 'online.tgz')], { cwd: elsewhere, env });
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);

  // gateway/README.md's upgrade steps. 1. Stopped, 2. it names its build and is backed up offline; each backup restores.
  const version = await run(bin, ['--version'], { cwd: elsewhere, env });
  const { version: packed } = JSON.parse(readFileSync(path.join(REPOSITORY, 'gateway/package.json'), 'utf8')) as {
    version: string;
  };
  expect(version.stdout).toMatch(
    new RegExp(`^leadchat-gateway ${packed.replaceAll('.', '\\.')}( \\(commit [0-9a-f]{7,40}\\))?\n$`),
  );
  await run(bin, ['backup', '--to', path.join(root, 'offline.tgz')], { cwd: elsewhere, env });
  for (const name of ['online', 'offline']) {
    const restored = await run(bin, ['restore', '--from', path.join(root, `${name}.tgz`)], {
      cwd: root,
      env: { ...env, LEADCHAT_DATA_DIR: path.join(root, `restored-${name}`) },
    });
    expect(JSON.parse(restored.stdout)).toMatchObject({ manifest: { gatewayVersion: packed } });
    expect(readdirSync(path.join(root, `restored-${name}`, 'store')).length).toBeGreaterThan(0);
  }

  // 3. Install the new version (here the same build under the next version number), over the old one. 4. Start it:
  // the same data dir, the account and its key still there, the new version named.
  const next = `${packed}-next.0`;
  await run(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      path.join(root, 'prefix'),
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      await repacked(next),
    ],
    { cwd: root },
  );
  expect((await run(bin, ['--version'], { cwd: elsewhere, env })).stdout).toMatch(
    new RegExp(`^leadchat-gateway ${next.replaceAll('.', '\\.')}`),
  );
  const upgraded = spawn(bin, ['serve'], { cwd: elsewhere, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const upgradedExit = new Promise<number | null>((resolve) => upgraded.once('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      let log = '';
      upgraded.stdout.on('data', (c) => (log += c) && log.includes('listening on') && resolve());
      upgraded.once('exit', (code) => reject(new Error(`the upgraded gateway exited with ${code}:\n${log}`)));
    });
    const gw = {
      url: `https://127.0.0.1:${port}`,
      ca: readFileSync(path.join(elsewhere, 'data', 'tls', 'cert.pem'), 'utf8'),
    };
    const credits = await request(gw, 'GET', '/v1/credits', { apiKey });
    expect(credits.status).toBe(200);
  } finally {
    upgraded.kill('SIGTERM');
  }
  expect(await upgradedExit).toBe(0);
});

/** The packed gateway under another version number: its package.json changed, the rest as built. */
async function repacked(version: string): Promise<string> {
  const unpacked = path.join(root, `unpacked-${version}`);
  mkdirSync(unpacked);
  await run('tar', ['-xzf', tarball, '-C', unpacked]);
  const manifest = path.join(unpacked, 'package', 'package.json');
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), version }, null, 2));
  const out = path.join(root, `leadchat-gateway-${version}.tgz`);
  await run('tar', ['-czf', out, '-C', unpacked, 'package']);
  return out;
}
