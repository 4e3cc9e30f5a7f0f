#!/usr/bin/env node
/**
 * What `npm test` proves about a release, short of publishing (`npm run check:package`, after a build): both
 * packages pack, each with its own README (what npm and n8n's community-node page show), n8n's community package
 * scan passes on the n8n package's source and tarball, and npm accepts both tarballs (`npm publish --dry-run`: no
 * credentials needed, only the registry). What the tarballs hold is asserted by
 * test/nodes/package.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { packPackages } from './pack-packages.mjs';
import { PACKAGE_README, ROOT } from './stage-package.mjs';
import { scanPackage } from './scan-package.mjs';

// After a release, main carries the released versions until the next bump: npm's dry run refuses them, and that is
// no fault of the package.
const ALREADY_PUBLISHED = 'You cannot publish over the previously published versions';

/** `npm publish --dry-run` of a tarball; returns a problem, or undefined. */
function dryRunPublish(tarball) {
  const run = spawnSync('npm', ['publish', '--dry-run', '--access', 'public', tarball], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const name = path.basename(tarball);
  if (run.status === 0) {
    process.stdout.write(`npm publish --dry-run: ${name} accepted\n`);
    return undefined;
  }
  if (run.stderr.includes(ALREADY_PUBLISHED)) {
    process.stdout.write(
      `npm publish --dry-run: ${name} is already on npm (bump the version before the next release)\n`,
    );
    return undefined;
  }
  return `npm publish --dry-run refused ${name}:\n${run.stderr}`;
}

/** Each package's README as it must be published: the n8n package's own, and the gateway's self-hosting guide. */
const READMES = { n8n: PACKAGE_README, gateway: 'gateway/README.md' };

/** A problem when the tarball's README.md is not `source`, or undefined. */
function readmeProblem(tarball, source) {
  const run = spawnSync('tar', ['-xzOf', tarball, 'package/README.md'], { encoding: 'utf8' });
  if (run.status !== 0) return `${path.basename(tarball)} has no README.md`;
  if (run.stdout !== readFileSync(path.join(ROOT, source), 'utf8')) {
    return `${path.basename(tarball)}'s README.md is not ${source}`;
  }
  process.stdout.write(`${path.basename(tarball)}: README.md is ${source}\n`);
  return undefined;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-packages-'));
try {
  const tarballs = packPackages(dir);
  const problems = (await scanPackage(tarballs.n8n)).map((failure) => `n8n's community package scan: ${failure}`);
  if (problems.length === 0)
    process.stdout.write(`n8n's community package scan: ${path.basename(tarballs.n8n)} passed\n`);
  for (const [name, source] of Object.entries(READMES)) {
    const problem = readmeProblem(tarballs[name], source);
    if (problem) problems.push(problem);
  }
  for (const tarball of [tarballs.n8n, tarballs.gateway]) {
    const problem = dryRunPublish(tarball);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n`);
    process.exitCode = 1;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
