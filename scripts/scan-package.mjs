#!/usr/bin/env node
/**
 * n8n's community package scan, on a package that is not published yet:
 * `node scripts/scan-package.mjs <tarball.tgz | unpacked directory>`.
 *
 * `npx @n8n/scan-community-package <name>` works on a published version only: it checks its npm provenance, fetches
 * the commit the provenance names, then lints that source (package.json, nodes/, credentials/) and the tarball
 * (compiled .js and package.json) with n8n's rules, inline eslint-disable comments ignored. The provenance check needs
 * a publish from GitHub Actions (the release workflow does it); the two analyses are run here, with the scanner's own
 * code: the source at the repository root, and the given tarball.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCANNER = import.meta.resolve('@n8n/scan-community-package/scanner/scanner.mjs');
/** What the scanner lints in a downloaded tarball. */
const TARBALL_PATTERNS = ['**/*.js', 'package.json'];

/** Unpacks a .tgz the way the scanner does (without npm's `package/` folder) and returns the directory. */
function unpack(tarball) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'n8n-scan-'));
  execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
  return dir;
}

/** Runs both analyses; resolves to the failures' reports (none when the package passes). */
export async function scanPackage(tarballOrDir) {
  // The scanner makes a temporary directory as it loads (for downloads, unused here): let it go at exit.
  createRequire(fileURLToPath(SCANNER))('tmp').setGracefulCleanup();
  const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(SCANNER);
  const unpacked = statSync(tarballOrDir).isDirectory() ? undefined : unpack(tarballOrDir);
  try {
    const legs = [
      ['source', await analyzePackage(ROOT, SOURCE_FILE_PATTERNS)],
      ['tarball', await analyzePackage(unpacked ?? tarballOrDir, TARBALL_PATTERNS)],
    ];
    return legs
      .filter(([, result]) => !result.passed)
      .map(([leg, result]) => `${leg}: ${result.message}${result.details ? `\n${result.details}` : ''}`);
  } finally {
    if (unpacked) rmSync(unpacked, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = process.argv[2];
  if (!target) {
    process.stderr.write('usage: node scripts/scan-package.mjs <tarball.tgz | unpacked directory>\n');
    process.exit(2);
  }
  const failures = await scanPackage(path.resolve(target));
  if (failures.length > 0) {
    process.stderr.write(`n8n's community package scan failed\n${failures.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write("n8n's community package scan passed: the source and the tarball\n");
}
