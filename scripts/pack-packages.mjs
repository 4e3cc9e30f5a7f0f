#!/usr/bin/env node
/**
 * Packs both packages as they are published: `node scripts/pack-packages.mjs [dir]` writes
 * n8n-nodes-leadchat-<version>.tgz (from the staged copy, see stage-package.mjs) and leadchat-gateway-<version>.tgz
 * into `dir` (a new temporary directory when none is given) and prints their paths. Build first. The release
 * workflow publishes these very files; `npm run check:package` scans and dry-runs them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ROOT, stagePackage } from './stage-package.mjs';

/** `npm pack` of one package spec into `dir`; returns the tarball's path. */
function pack(args, dir) {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', ...args, '--json', '--ignore-scripts', '--pack-destination', dir], {
      cwd: ROOT,
      encoding: 'utf8',
    }),
  );
  return path.join(dir, packed.filename);
}

/** Packs both packages into `dir`; returns the tarballs' paths. */
export function packPackages(dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-packages-'))) {
  mkdirSync(dir, { recursive: true });
  const staged = stagePackage(mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-leadchat-')));
  try {
    return { n8n: pack([staged], dir), gateway: pack(['--workspace', 'leadchat-gateway'], dir) };
  } finally {
    rmSync(staged, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = process.argv[2];
  const { n8n, gateway } = packPackages(target && path.resolve(target));
  process.stdout.write(`${n8n}\n${gateway}\n`);
}
