import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { browserTests, ensureChromium, INSTALL, needsBrowser } from '../helpers/chromium';

/**
 * The tests need nothing installed by hand: the global setup installs Debian's Chromium when the browser tests (the
 * system tier's) would miss it and it can, and otherwise stops at once with the command to type. Here the browser is a file in a
 * temporary folder and apt-get a stand-in, so nothing is installed.
 */
let dir: string;
let executable: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-chromium-'));
  executable = path.join(dir, 'chromium');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a browser that is there is used as it is', () => {
  writeFileSync(executable, '');
  const ran: string[] = [];
  ensureChromium({ executable, canInstall: true, run: (command) => Boolean(ran.push(command)), log: () => undefined });
  expect(ran).toEqual([]);
});

test('missing, it is installed from Debian when this process can', () => {
  const ran: string[] = [];
  const logged: string[] = [];
  const run = (command: string) => {
    ran.push(command);
    if (command.startsWith('apt-get install')) writeFileSync(executable, '');
    return true;
  };
  ensureChromium({ executable, canInstall: true, run, log: (line) => void logged.push(line) });
  expect(ran).toEqual(['apt-get update', 'apt-get install -y chromium']);
  expect(logged).toEqual([expect.stringContaining(`Chromium is missing at ${executable}: installing`)]);
});

test('missing and not installable here, the run stops at once with the command to type', () => {
  const ran: string[] = [];
  expect(() =>
    ensureChromium({
      executable,
      canInstall: false,
      run: (command) => Boolean(ran.push(command)),
      log: () => undefined,
    }),
  ).toThrow(`Install it, then run the tests again:\n  sudo sh -c '${INSTALL.join(' && ')}'`);
  expect(ran).toEqual([]);
});

test('a failed install stops the run, saying which command failed', () => {
  expect(() =>
    ensureChromium({
      executable,
      canInstall: true,
      run: (command) => command !== 'apt-get update',
      log: () => undefined,
    }),
  ).toThrow('`apt-get update` failed');
  expect(() => ensureChromium({ executable, canInstall: true, run: () => true, log: () => undefined })).toThrow(
    `${executable} is still missing`,
  );
});

test('only a run that takes in a browser test needs the browser: none of the fast tier does', () => {
  const tests = browserTests();
  expect(tests).toContain(path.resolve(__dirname, '../console/browser.test.ts'));
  expect(tests).not.toContain(path.resolve(__dirname, '../console/assets.test.ts'));
  for (const tier of ['system', 'all']) {
    expect(needsBrowser('', tests, tier)).toBe(true);
    expect(needsBrowser('console', tests, tier)).toBe(true);
    expect(needsBrowser('test/console/inbox.test.ts', tests, tier)).toBe(true);
    expect(needsBrowser('test/gateway/api-bot.test.ts', tests, tier)).toBe(false);
    expect(needsBrowser('test/console/assets.test.ts|nodes/', tests, tier)).toBe(false);
  }
  expect(needsBrowser('', tests, 'fast')).toBe(false);
  expect(needsBrowser('console', tests, 'fast')).toBe(false);
});
