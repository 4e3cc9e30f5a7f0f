import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import chromiumSetup from './chromium-global-setup';
import { SEEN_DIR_ENV } from './contract';

/** Once per run: Debian's Chromium when a browser test needs it, and the folder the contract check writes to. */
export default async function setup(globalConfig: { testPathPattern?: string }): Promise<void> {
  process.env[SEEN_DIR_ENV] ??= mkdtempSync(path.join(os.tmpdir(), 'leadchat-contract-'));
  await chromiumSetup(globalConfig);
}
