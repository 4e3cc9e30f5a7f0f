import type { BrowserServer } from 'playwright-core';

/** Stops the run's browser server, if the global setup started one. */
export default async function teardown(): Promise<void> {
  await (globalThis as { leadchatBrowserServer?: BrowserServer }).leadchatBrowserServer?.close();
}
