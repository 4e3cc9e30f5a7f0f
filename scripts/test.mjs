/**
 * `npm test -- [jest options]`, run after `npm run build`: jest's fast tier, with lint and the package checks
 * (`npm run checks`) beside it at the lowest CPU priority. jest keeps two files running, and part of their time
 * they wait on what they started (gateway processes, the browser, the database): the checks take the cores then,
 * rather than a minute of their own before jest. What the checks printed comes after jest's report; the run fails
 * when either does.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs a command to its end: its exit code, 1 when it could not start or a signal ended it. */
const finished = (child) =>
  new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });

// `nice` is POSIX; elsewhere the checks run at the usual priority.
const checksCommand = ['npm', 'run', '--silent', 'checks'];
const [command, ...args] = process.platform === 'win32' ? checksCommand : ['nice', '-n', '19', ...checksCommand];
const checks = spawn(command, args, {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  shell: process.platform === 'win32',
});
const said = [];
checks.stdout.on('data', (chunk) => said.push(chunk));
checks.stderr.on('data', (chunk) => said.push(chunk));
const checked = finished(checks);

const jest = spawn(
  process.execPath,
  ['--experimental-vm-modules', path.join(root, 'node_modules/jest/bin/jest.js'), ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
const tested = await finished(jest);

const checkedCode = await checked;
process.stdout.write(`\nLint and package checks (${checkedCode === 0 ? 'passed' : 'failed'}):\n`);
process.stdout.write(Buffer.concat(said));
process.exit(tested || checkedCode);
