import { mkdirSync } from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Download, type Page } from 'playwright-core';
import { BROWSER_SERVER_VARIABLE, LAUNCH, SCREENSHOTS_VARIABLE } from '../helpers/chromium';
import { removeDir, startGateway, type TestGateway } from '../helpers/gateway';

/**
 * The browser side of the console tests: Debian's Chromium driven by playwright-core (no browser is ever
 * downloaded), an axe-core accessibility check, and screenshots kept for a human to look at (in the system tier).
 */
export const SCREENSHOTS = path.resolve(__dirname, 'screenshots');

/**
 * The run's browser server when the global setup started one (each file then only opens contexts of its own in it,
 * and closing it disconnects), else a Chromium of this file's own.
 */
export async function launchBrowser(): Promise<Browser> {
  const server = process.env[BROWSER_SERVER_VARIABLE];
  return server ? chromium.connect(server) : chromium.launch(LAUNCH);
}

/**
 * A fresh browser profile (no cookies) that trusts the gateway's self-signed certificate. Every request it makes
 * is recorded, to prove the console loads nothing from anywhere but the gateway.
 */
export async function newContext(
  browser: Browser,
  requests: string[] = [],
  viewport = { width: 1280, height: 900 },
): Promise<BrowserContext> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
  // A console step that takes seconds is a failure worth seeing at once, not after the test's whole time.
  context.setDefaultTimeout(5_000);
  context.on('request', (r) => void requests.push(r.url()));
  return context;
}

/** axe-core's violations on the page as it is now, each with where it is; `tags` keeps to the rules of those. */
async function violations(page: Page, tags?: string[]): Promise<axe.Result[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(axe.source);
  const result = await page.evaluate(
    (only) =>
      (window as unknown as { axe: typeof axe }).axe.run(document, {
        resultTypes: ['violations'],
        ...(only ? { runOnly: { type: 'tag', values: only } } : {}),
      }),
    tags,
  );
  return result.violations;
}

const described = (v: axe.Result) =>
  `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`;

/** Violations axe-core finds on the page as it is now, serious and critical ones only, each with where it is. */
export async function seriousViolations(page: Page): Promise<string[]> {
  return (await violations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical').map(described);
}

/**
 * Every violation axe-core finds on the page as it is now, whatever its impact (best practices such as
 * landmark-unique included), each with where it is.
 */
export async function allViolations(page: Page): Promise<string[]> {
  return (await violations(page)).map(described);
}

/** The success criteria of WCAG 2.0 and 2.1, levels A and AA, as axe-core tags its rules for them. */
export const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** Violations of WCAG 2.1 A and AA that axe-core finds on the page as it is now, whatever their impact. */
export async function wcagViolations(page: Page): Promise<string[]> {
  return (await violations(page, WCAG_21_AA)).map(described);
}

/**
 * Saves the whole page as test/console/screenshots/<name>.png, in the screenshots project only (or with
 * LEADCHAT_TEST_SCREENSHOTS=1): a picture proves nothing by itself, and the PostgreSQL repeat needs none.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!process.env[SCREENSHOTS_VARIABLE]) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * The text of a file the page downloaded, read through playwright (the browser server may keep the file where this
 * process cannot open it).
 */
export async function downloaded(download: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether any script smuggled into the page's data ran: the markers the hostile values would set. */
/** Waits until the console names the document after `title` (the shell does it in an effect, after drawing the page). */
export const untilTitled = (page: Page, title: string) =>
  page.waitForFunction((want) => document.title === want, `${title} · LeadChat console`);

export const scriptRan = (page: Page) => page.evaluate(() => Boolean((window as unknown as { __xss?: unknown }).__xss));

/** Markup the tests put in names, messages and settings: were it ever run as HTML, it would set the marker. */
export const HOSTILE = '<img src=x onerror="window.__xss=1">';

/**
 * Signs the page's browser profile in by cookie, then opens `address` (a gateway URL): the session API answers the
 * profile's own request with the session and known-browser cookies, as it answers the sign-in form, which is thus
 * not filled in for every test (browser.test.ts proves the form, the page it leads to and back).
 */
export async function signInAt(
  page: Page,
  address: string,
  account: { email: string; password: string },
): Promise<void> {
  const { origin } = new URL(address);
  const signedIn = await page.context().request.post(`${origin}/console/api/session`, {
    headers: { origin },
    data: { email: account.email, password: account.password },
  });
  if (!signedIn.ok())
    throw new Error(`signing ${account.email} in failed: ${signedIn.status()} ${await signedIn.text()}`);
  await page.goto(address);
}

/** A gateway (with `env`) and Debian's Chromium, started side by side for a file's browser tests. */
export function startConsole(env: Record<string, string> = {}): Promise<[TestGateway, Browser]> {
  return Promise.all([startGateway(env), launchBrowser()]);
}

/** Stops what startConsole started, as much of it as did start, and removes the gateway's data. */
export async function stopConsole(gw: TestGateway | undefined, browser: Browser | undefined): Promise<void> {
  await browser?.close();
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
}

/**
 * A page in a fresh browser profile (see newContext). A dialog would block the page, so it is dismissed: a script
 * smuggled into the data is caught by the marker scriptRan reads.
 */
export async function openPage(
  browser: Browser,
  requests: string[] = [],
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, requests);
  const page = await context.newPage();
  page.on('dialog', (d) => void d.dismiss());
  return { context, page };
}
