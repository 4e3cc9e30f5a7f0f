import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Reply } from './gateway';

const run = promisify(execFile);
const REPOSITORY = path.resolve(__dirname, '../..');

export interface Releases {
  previous: { version: string; commit: string; why: string };
  releases: Record<string, string>;
}

/** The releases the upgrade tests start from, by commit (test/gateway/releases.json). */
export const releases: Releases = JSON.parse(
  readFileSync(path.join(REPOSITORY, 'test/gateway/releases.json'), 'utf8'),
) as Releases;

/**
 * The gateway of an earlier release, built from the repository's own history: `git archive` of its commit, its own
 * `npm ci` (scripts off, as the repository installs) and its own build. Kept under the system's temp dir by commit,
 * so that only the first run pays for it; a build cut short leaves no cache behind (it is renamed into place whole).
 * Answers the path of its `leadchat-gateway` command (dist/cli/main.js).
 */
export async function builtRelease(commit: string): Promise<string> {
  const home = path.join(os.tmpdir(), `leadchat-release-${commit}`);
  const main = path.join(home, 'gateway/dist/cli/main.js');
  if (existsSync(path.join(home, '.built'))) return main;
  try {
    await run('git', ['-C', REPOSITORY, 'cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    throw new Error(
      `commit ${commit} is not in this clone's history: the upgrade tests build earlier releases from it (a shallow clone lacks it: git fetch --unshallow)`,
    );
  }
  const work = mkdtempSync(path.join(os.tmpdir(), `leadchat-release-build-`));
  try {
    await run('sh', ['-c', 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"', 'sh', REPOSITORY, commit, work]);
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
 * An HTTPS request held to no OpenAPI document: an earlier release answers in the words of its own. JSON in and out,
 * the account's key in x-api-key, or the admin token when `admin` is given.
 */
export function plainRequest(
  gw: { url: string; ca: string },
  method: string,
  pathname: string,
  auth: { apiKey?: string; admin?: string },
  body?: unknown,
): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = payload ? { 'content-type': 'application/json' } : {};
  if (auth.apiKey) headers['x-api-key'] = auth.apiKey;
  if (auth.admin) headers.authorization = `Bearer ${auth.admin}`;
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(pathname, gw.url), { method, headers, ca: gw.ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: the text stays
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
