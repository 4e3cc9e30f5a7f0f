/**
 * `npm run test:quick -- <test files or a path pattern> [jest options]`, run after `npm run build:changed`: the tests
 * of one area on the embedded store only (jest's lowdb project, and the console's browser tests in the screenshots
 * one), unless an option picks the projects, of either tier (`--selectProjects postgres`, or `postgres-system`,
 * `system`, `screenshots`, given last). No lint, no clean build:
 * `npm test` does both and runs the fast tier, `npm run test:system` the system tier (docs/testing.md).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
// Last: jest reads every word after --selectProjects as one more project's name, paths included.
const projects = args.some((arg) => arg.startsWith('--selectProjects'))
  ? []
  : ['--selectProjects', 'lowdb', 'screenshots'];
const jest = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', path.join(root, 'node_modules/jest/bin/jest.js'), ...args, ...projects],
  {
    cwd: root,
    stdio: 'inherit',
    // Every project of both tiers, so that --selectProjects can pick any.
    env: { ...process.env, LEADCHAT_TEST_TIER: process.env.LEADCHAT_TEST_TIER ?? 'all' },
  },
);
process.exit(jest.status ?? 1);
