import { spawnSync } from 'node:child_process';
import { CHROMIUM, ensureChromium, needsBrowser } from './chromium';

/**
 * Before the tests run: when they include a browser test and Debian's Chromium is missing, installs it if this
 * process can (root, apt-get), or stops the run at once with the command to type.
 */
export default async function setup(globalConfig: { testPathPattern?: string }): Promise<void> {
  if (!needsBrowser(globalConfig.testPathPattern ?? '')) return;
  ensureChromium({
    executable: CHROMIUM,
    canInstall:
      process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0,
    run: (command) =>
      spawnSync('sh', ['-c', command], {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      }).status === 0,
    log: (line) => void process.stderr.write(`${line}\n`),
  });
}
