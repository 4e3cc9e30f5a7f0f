/**
 * Bundles the web console (src/console/client/main.tsx and all it imports) into dist/console/public with esbuild,
 * then prints each asset's size. It bundles again only when something went into the bundle changed: the record
 * beside the bundle holds the esbuild version, the options, and a digest of every input and output file, so a
 * start on a built tree skips it (about 0.1 s instead of 1 s). `--force` bundles anyway.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const record = path.join(root, 'dist/console/bundle.json');
const options = {
  entryPoints: ['src/console/client/main.tsx'],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  charset: 'utf8',
  entryNames: 'app',
  outdir: 'dist/console/public',
  logLevel: 'warning',
};

/** Digests of files named relative to the gateway's folder; null for one that does not exist. */
function digests(files) {
  return Object.fromEntries(
    files.map((file) => {
      const full = path.join(root, file);
      return [file, existsSync(full) ? createHash('sha256').update(readFileSync(full)).digest('hex') : null];
    }),
  );
}

function upToDate() {
  if (process.argv.includes('--force') || !existsSync(record)) return false;
  const last = JSON.parse(readFileSync(record, 'utf8'));
  if (last.esbuild !== esbuild.version || JSON.stringify(last.options) !== JSON.stringify(options)) return false;
  const files = { ...last.inputs, ...last.outputs };
  const now = digests(Object.keys(files));
  return Object.entries(files).every(([file, digest]) => digest !== null && now[file] === digest);
}

if (!upToDate()) {
  const { metafile } = await esbuild.build({ ...options, absWorkingDir: root, metafile: true });
  const inputs = digests(Object.keys(metafile.inputs));
  const outputs = digests(Object.keys(metafile.outputs));
  writeFileSync(record, `${JSON.stringify({ esbuild: esbuild.version, options, inputs, outputs }, null, 2)}\n`);
  await import(pathToFileURL(path.join(root, 'dist/console/asset-sizes.js')).href);
}
