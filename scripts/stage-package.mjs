#!/usr/bin/env node
/**
 * Writes the n8n package as it is published into a directory, and prints that directory:
 * `node scripts/stage-package.mjs [dir]` (a new temporary directory when none is given).
 *
 * The repository root is both the n8n package and the npm workspace root: `npm ci` needs `workspaces` there, but a
 * published package.json must not carry it. So the package is published from a staged copy: the files `npm pack`
 * selects at the root (dist/, LICENSE, package.json) and a package.json without `workspaces`. Build first.
 *
 * The root README.md is the repository's front door; npm and n8n's community-node page show the package's own,
 * nodes/README.md (in the shape n8n's starter prescribes), so that one is staged as README.md.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The n8n package's README, in the repository. */
export const PACKAGE_README = 'nodes/README.md';

/** Fields of the root package.json that serve development only. */
const DEVELOPMENT_ONLY = ['workspaces'];

/** The package.json the n8n package is published with. */
export function publishedManifest(manifest) {
  const published = { ...manifest };
  for (const field of DEVELOPMENT_ONLY) delete published[field];
  return published;
}

/** Stages the n8n package into `dir` (created if missing) and returns `dir`. */
export function stagePackage(dir = mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-leadchat-'))) {
  // npm's own choice of files, so the staged package holds exactly what `npm pack` would take from the root.
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
  );
  mkdirSync(dir, { recursive: true });
  for (const { path: file } of packed.files) {
    if (file === 'package.json' || file === 'README.md') continue;
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(dir, file));
  }
  cpSync(path.join(ROOT, PACKAGE_README), path.join(dir, 'README.md'));
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = process.argv[2];
  process.stdout.write(`${stagePackage(target && path.resolve(target))}\n`);
}
