import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { trusting, type Reply } from './gateway';

type ReleaseBuildModule = typeof import('../../gateway/src/bench/release-build.js', {
  with: { 'resolution-mode': 'import' }
});
export type Releases = import('../../gateway/src/bench/release-build.js', {
  with: { 'resolution-mode': 'import' }
}).Releases;

const REPOSITORY = path.resolve(__dirname, '../..');
/** The gateway's own builder of earlier releases, as the build left it (the benchmarks run it beside this build). */
const RELEASE_BUILD = path.join(REPOSITORY, 'gateway/dist/bench/release-build.js');

/** The releases the upgrade tests start from, by commit (test/gateway/releases.json). */
export const releases: Releases = JSON.parse(
  readFileSync(path.join(REPOSITORY, 'test/gateway/releases.json'), 'utf8'),
) as Releases;

/**
 * The gateway of an earlier release, built from the repository's own history and kept under the system's temp dir
 * by commit (gateway/src/bench/release-build.ts). Answers the path of its `leadchat-gateway` command.
 */
export async function builtRelease(commit: string): Promise<string> {
  const { builtRelease: build } = (await import(RELEASE_BUILD)) as ReleaseBuildModule;
  return build(commit, REPOSITORY);
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
    const req = https.request(
      new URL(pathname, gw.url),
      { method, headers, ...trusting(gw.ca), agent: false },
      (res) => {
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
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
