import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The web console's browser tests drive Debian's Chromium through playwright-core, which never downloads a browser.
 * The global setup (chromium-global-setup.ts) makes sure it is there before tests that need it run.
 */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * The address of the browser server the global setup starts for the run (global-setup.ts): every test file connects
 * to it instead of starting a Chromium of its own.
 */
export const BROWSER_SERVER_VARIABLE = 'LEADCHAT_TEST_BROWSER_SERVER';

/** Set (to 1) in the screenshots project: the browser tests save what they see (console/browser.ts). */
export const SCREENSHOTS_VARIABLE = 'LEADCHAT_TEST_SCREENSHOTS';

/** The sandbox needs user namespaces, which containers running as root rarely grant. */
export const LAUNCH = { executablePath: CHROMIUM, chromiumSandbox: false };

/** Debian's package, as root installs it. */
export const INSTALL = ['apt-get update', 'apt-get install -y chromium'];

export interface ChromiumNeeds {
  /** Where the browser tests look for it. */
  executable: string;
  /** Whether this process may install Debian's package: root, with apt-get on the PATH. */
  canInstall: boolean;
  /** Runs one shell command, its output shown as it comes; true when it succeeded. */
  run: (command: string) => boolean;
  log: (line: string) => void;
}

/** Installs Debian's Chromium when it is missing and that is possible here; otherwise says at once what to type. */
export function ensureChromium({ executable, canInstall, run, log }: ChromiumNeeds): void {
  if (existsSync(executable)) return;
  if (!canInstall) {
    throw new Error(
      `The web console's browser tests drive Debian's Chromium at ${executable}, which is missing. Install it, then run the tests again:\n` +
        `  sudo sh -c '${INSTALL.join(' && ')}'`,
    );
  }
  log(`Chromium is missing at ${executable}: installing Debian's (${INSTALL.join(' && ')})`);
  for (const command of INSTALL) {
    if (!run(command))
      throw new Error(`\`${command}\` failed: the web console's browser tests need Debian's Chromium at ${executable}`);
  }
  if (!existsSync(executable))
    throw new Error(`Debian's chromium package is installed, but ${executable} is still missing`);
}

const TESTS = path.resolve(__dirname, '..');

/** The test files that open a browser: they import the console's browser helpers or playwright-core. */
export function browserTests(dir = TESTS): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join(dir, file))
    .filter((file) => /from '(\.\.\/console|\.)\/browser'|from 'playwright-core'/.test(readFileSync(file, 'utf8')));
}

/**
 * Whether the run takes in a browser test: the tier (LEADCHAT_TEST_TIER, jest.config.js) has some, as every tier but
 * the fast one has, and jest's path pattern (built from the files or pattern it was given; empty: every test) takes
 * in one of them.
 */
export function needsBrowser(
  testPathPattern: string,
  tests = browserTests(),
  tier = process.env.LEADCHAT_TEST_TIER ?? 'fast',
): boolean {
  if (tier === 'fast') return false;
  if (!testPathPattern) return true;
  const pattern = new RegExp(testPathPattern, 'i');
  return tests.some((file) => pattern.test(file));
}
