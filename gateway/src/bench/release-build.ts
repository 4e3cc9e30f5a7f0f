/**
 * The gateway of an earlier commit, built from the repository's own history: what the upgrade tests start from
 * (test/helpers/release.ts) and what `npm run bench` runs beside this build (LEADCHAT_BENCH_BASELINE).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** The repository this file was built in: gateway/dist/bench/ → the root. */
export const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface Releases {
  previous: { version: string; commit: string; why: string };
  releases: Record<string, string>;
}

/** The earlier releases, by commit (test/gateway/releases.json: the repository has no tags). */
export function releases(repository = REPOSITORY): Releases {
  return JSON.parse(readFileSync(path.join(repository, 'test/gateway/releases.json'), 'utf8')) as Releases;
}

/**
 * `git archive` of the commit, its own `npm ci` (scripts off, as the repository installs) and its own build. Kept
 * under the system's temp dir by commit, so that only the first run pays for it; a build cut short leaves no cache
 * behind (it is renamed into place whole). Answers the path of its `leadchat-gateway` command (dist/cli/main.js).
 */
export async function builtRelease(commit: string, repository = REPOSITORY): Promise<string> {
  const home = path.join(os.tmpdir(), `leadchat-release-${commit}`);
  const main = path.join(home, 'gateway/dist/cli/main.js');
  if (existsSync(path.join(home, '.built'))) return main;
  try {
    await run('git', ['-C', repository, 'cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    throw new Error(
      `commit ${commit} is not in this clone's history: earlier releases are built from it (a shallow clone lacks it: git fetch --unshallow)`,
    );
  }
  const work = mkdtempSync(path.join(os.tmpdir(), `leadchat-release-build-`));
  try {
    await run('sh', ['-c', 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"', 'sh', repository, commit, work]);
    const npm = { cwd: work, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_ignore_scripts: 'true' } };
    await run('npm', ['ci', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], npm);
    await run('npm', ['run', 'build', '-w', 'leadchat-gateway'], npm);
    writeFileSync(path.join(work, '.built'), `${new Date().toISOString()}\n`);
    try {
      renameSync(work, home);
    } catch (err) {
      // Another run built it meanwhile: theirs is as good.
      if (!existsSync(path.join(home, '.built'))) throw err;
      rmSync(work, { recursive: true, force: true });
    }
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
  return main;
}

/**
 * The `leadchat-gateway` command a benchmark's baseline names: a directory holding a build (a checkout, or a
 * gateway/ folder), a version of releases.json (`0.2.0`, or `previous`), or any git ref of this repository, built
 * from its commit. Answers the command's path and a name for it.
 */
export async function baselineGateway(given: string): Promise<{ main: string; name: string }> {
  for (const candidate of [path.join(given, 'gateway/dist/cli/main.js'), path.join(given, 'dist/cli/main.js')]) {
    if (existsSync(candidate)) return { main: candidate, name: given };
  }
  const known = releases();
  const version = given === 'previous' ? known.previous.version : given;
  const commit =
    given === 'previous'
      ? known.previous.commit
      : (known.releases[given] ??
        (await run('git', ['-C', REPOSITORY, 'rev-parse', '--verify', `${given}^{commit}`])).stdout.trim());
  const name =
    known.releases[version] || given === 'previous' ? `release ${version}` : `${given} (${commit.slice(0, 7)})`;
  return { main: await builtRelease(commit), name };
}
