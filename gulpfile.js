/**
 * Build steps of the n8n package that tsc does not do: clear dist/ before a build, and copy the icons and codex
 * files next to the compiled nodes and credentials, where n8n looks for them.
 */
const fs = require('node:fs');
const path = require('node:path');
const { src, dest, series } = require('gulp');

const DIST = path.join(__dirname, 'dist');

function clean(done) {
  fs.rmSync(DIST, { recursive: true, force: true });
  done();
}

function copyNodeAssets() {
  return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.node.json'], {
    base: '.',
    encoding: false,
  }).pipe(dest(DIST));
}

function copyCredentialAssets() {
  return src(['credentials/**/*.svg', 'credentials/**/*.png'], {
    base: '.',
    encoding: false,
    allowEmpty: true,
  }).pipe(dest(DIST));
}

/** Fails the build when a node or credential points at an icon or codex file that did not make it into dist/. */
function checkAssets(done) {
  const missing = [];
  for (const file of walk(DIST).filter((f) => /\.(node|credentials)\.js$/.test(f))) {
    const code = fs.readFileSync(file, 'utf8');
    for (const [, icon] of code.matchAll(/['"]file:([^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(file), icon);
      if (!fs.existsSync(target)) missing.push(`${path.relative(__dirname, file)} -> ${icon}`);
    }
    if (file.endsWith('.node.js')) {
      const codex = file.replace(/\.js$/, '.json');
      if (!fs.existsSync(codex)) missing.push(`${path.relative(__dirname, file)} -> codex ${path.basename(codex)}`);
    }
  }
  done(missing.length ? new Error(`Missing build assets:\n  ${missing.join('\n  ')}`) : undefined);
}

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

exports.clean = clean;
exports.assets = series(copyNodeAssets, copyCredentialAssets, checkAssets);
