import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserServer } from 'playwright-core';
import { BROWSER_SERVER_VARIABLE, LAUNCH, needsBrowser } from './chromium';
import chromiumSetup from './chromium-global-setup';
import { SEEN_DIR_ENV, VALIDATORS_ENV, validatorsFolder } from './contract';

/**
 * Once per run: the folder the contract check writes to, and its validators (written when the document changed); when
 * a browser test runs, Debian's Chromium (installed if missing) started once as a browser server that every file
 * connects to, instead of a Chromium started per file.
 */
export default async function setup(globalConfig: { testPathPattern?: string }): Promise<void> {
  process.env[SEEN_DIR_ENV] ??= mkdtempSync(path.join(os.tmpdir(), 'leadchat-contract-'));
  process.env[VALIDATORS_ENV] = validatorsFolder();
  await chromiumSetup(globalConfig);
  if (!needsBrowser(globalConfig.testPathPattern ?? '') || process.env[BROWSER_SERVER_VARIABLE]) return;
  const server = await chromium.launchServer(LAUNCH);
  process.env[BROWSER_SERVER_VARIABLE] = server.wsEndpoint();
  (globalThis as { leadchatBrowserServer?: BrowserServer }).leadchatBrowserServer = server;
}
