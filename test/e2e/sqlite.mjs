/**
 * n8n's default database needs the native `sqlite3` package, which n8n's `--ignore-scripts` install leaves unbuilt.
 *
 * Its install script (`prebuild-install -r napi || node-gyp rebuild`) needs scripts enabled, which `npm run`'s
 * exported `npm_config_ignore_scripts=true` turns off unless overridden. Its prebuilt binaries come from GitHub,
 * which not every machine reaches, so it is built from source (C/C++ compiler, make, Python 3) against the headers
 * of the Node 24 that runs n8n, which its npm package ships: node-gyp then downloads nothing either.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** The folders of every sqlite3 copy in the n8n install. */
function sqlite3Copies(node, npm, dir) {
  const res = spawnSync(node.bin, [npm, 'query', '#sqlite3'], { cwd: dir, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`npm query #sqlite3 exited ${res.status}\n${res.stderr}`);
  return JSON.parse(res.stdout).map((pkg) => pkg.path);
}

/** True when every sqlite3 copy n8n may load opens an in-memory database under Node 24. */
export function sqlite3Loads(node, npm, dir) {
  const copies = sqlite3Copies(node, npm, dir);
  if (!copies.length) throw new Error(`no sqlite3 package in ${dir}: the n8n install is incomplete`);
  const probe = (copy) =>
    `const s = require(${JSON.stringify(copy)}); new s.Database(':memory:', (e) => { if (e) { console.error(e); process.exit(1); } });`;
  return copies.every((copy) => spawnSync(node.bin, ['-e', probe(copy)], { stdio: 'ignore' }).status === 0);
}

function missingTools() {
  const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
  const missing = [];
  if (!has('c++') && !has('g++') && !has('clang++')) missing.push('a C++ compiler (g++ or clang++)');
  if (!has('make')) missing.push('make');
  if (!has('python3')) missing.push('python3');
  return missing;
}

export function buildSqlite3(node, npm, dir, log) {
  const missing = missingTools();
  if (missing.length) {
    throw new Error(
      `building sqlite3 for n8n needs ${missing.join(', ')}; install them (Debian: apt-get install -y build-essential python3) and run again`,
    );
  }
  log(`building sqlite3 from source for Node ${node.version} (a few minutes)…`);
  const env = {
    ...process.env,
    // The install script runs `node`, `prebuild-install` and `node-gyp`: Node 24 first on the PATH.
    PATH: `${path.dirname(node.bin)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_ignore_scripts: 'false',
    // prebuild-install: no download attempt, straight to node-gyp.
    npm_config_build_from_source: 'true',
    // node-gyp: Node 24's own headers (a user `nodedir` may point at another Node's), no header download.
    npm_config_nodedir: node.nodedir,
    JOBS: 'max',
  };
  const res = spawnSync(node.bin, [npm, 'rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'], {
    cwd: dir,
    env,
    stdio: 'inherit',
  });
  if (res.status !== 0) throw new Error(`npm rebuild sqlite3 exited ${res.status}: see the build output above`);
  if (!sqlite3Loads(node, npm, dir))
    throw new Error(`sqlite3 was rebuilt in ${dir} but still does not load under Node ${node.version}`);
  log('sqlite3 built');
}
