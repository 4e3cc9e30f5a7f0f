import { rmSync } from 'node:fs';
import type { BrowserServer } from 'playwright-core';
import { SEEN_DIR_ENV } from './contract';

/**
 * Stops the run's browser server, if the global setup started one, and removes the contract check's folder (after the
 * reporters read it; the system tier has no contract report to do so).
 */
export default async function teardown(): Promise<void> {
  await (globalThis as { leadchatBrowserServer?: BrowserServer }).leadchatBrowserServer?.close();
  const seen = process.env[SEEN_DIR_ENV];
  if (seen) rmSync(seen, { recursive: true, force: true });
}
