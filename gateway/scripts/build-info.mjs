/**
 * Records which commit the gateway was built from in dist/build-info.json, so that `--version`, the start-up line
 * and `leadchat_build_info` name it wherever the build goes (a packed tarball has no git). LEADCHAT_BUILD_COMMIT
 * names it when the build runs outside a git checkout; with neither, the commit is unknown (null).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function commitOf() {
  if (process.env.LEADCHAT_BUILD_COMMIT) return process.env.LEADCHAT_BUILD_COMMIT.trim();
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
    return /^[0-9a-f]{7,40}$/.test(commit) ? commit : null;
  } catch {
    return null;
  }
}

mkdirSync(path.join(root, 'dist'), { recursive: true });
writeFileSync(path.join(root, 'dist/build-info.json'), `${JSON.stringify({ commit: commitOf() })}\n`);
