import type { Browser, BrowserContext, Page } from 'playwright-core';
import { removeDir, request, startGateway, type TestGateway } from '../helpers/gateway';
import { incoming } from '../gateway/api-support';
import { openPage, screenshot, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, signIn, withSession, type ConsoleAccount } from './support';

/**
 * The console's rate budget is its own: its polling never costs the account's integration its API key's rate, a
 * session's budget is counted apart from another's, and a page refused for its rate (or while the store is away)
 * says so and reads again.
 * Over HTTP the budgets are small (5 per key, 8 per session), so that they are reached in a few requests.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let small: TestGateway;
beforeAll(async () => {
  [[gw, browser], small] = await Promise.all([
    startConsole(),
    startGateway({ LEADCHAT_RATE_LIMIT_PER_MINUTE: '5', LEADCHAT_CONSOLE_RATE_LIMIT_PER_MINUTE: '8' }),
  ]);
});
afterAll(async () => {
  await stopConsole(gw, browser);
  await small?.stop();
  if (small) removeDir(small.dataDir);
});

test("a session spends its own budget, never the key's; each session has its own", async () => {
  const gw = small;
  const withKey = (account: ConsoleAccount, path: string) => request(gw, 'GET', path, { apiKey: account.apiKey });
  const owner = await consoleAccount(gw);
  const first = await signIn(gw, owner.email, owner.password);
  for (let i = 0; i < 8; i++) {
    const read = await withSession(gw, first, 'GET', '/v1/conversations');
    expect(read.status).toBe(200);
    expect(read.headers['ratelimit-policy']).toMatch(/^"per-session"; q=8; w=60; pk=:/);
  }
  const refused = await withSession(gw, first, 'GET', '/v1/conversations');
  expect(refused.status).toBe(429);
  expect(refused.body.error.code).toBe('RATE_LIMITED');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

  // The integration's key still has its whole budget, and spending it leaves the sessions' alone.
  for (let i = 0; i < 5; i++) {
    const read = await withKey(owner, '/v1/lists');
    expect(read.status).toBe(200);
    expect(read.headers['ratelimit-policy']).toMatch(/^"per-key"; q=5;/);
  }
  expect((await withKey(owner, '/v1/lists')).status).toBe(429);
  const second = await signIn(gw, owner.email, owner.password);
  expect((await withSession(gw, second, 'GET', '/v1/conversations')).status).toBe(200);
});

describe('in the browser', () => {
  let owner: ConsoleAccount;
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    owner = await consoleAccount(gw, { name: 'Budget Dental' });
    const write = (fromId: string, firstName: string, body: string) =>
      request(gw, 'POST', '/v1/incoming_custom_channel_message', {
        apiKey: owner.apiKey,
        body: incoming({ fromId, firstName, channel: 'chat', body }),
      });
    expect((await write('lead-alice', 'Alice', 'How much is a cleaning?')).status).toBe(200);
    ({ context, page } = await openPage(browser));
  });
  afterAll(async () => {
    await context?.close();
  });

  test('a page refused for its rate says so calmly, waits as told and reads again by itself', async () => {
    let refusals = 0;
    // The gateway's own 429, as the console would meet it: the first two reads of the list are refused.
    await page.route('**/v1/conversations?*', async (route) => {
      if (refusals >= 2) return route.continue();
      refusals += 1;
      await route.fulfill({
        status: 429,
        headers: { 'retry-after': '1', 'content-type': 'application/json' },
        body: JSON.stringify({
          error: { code: 'RATE_LIMITED', message: 'Rate limit of 8 requests per minute exceeded; retry after 1 s' },
        }),
      });
    });
    await signInAt(page, `${gw.url}/console/inbox`, owner);
    await page.getByText('Many requests at once: the console waits 1 s and reads this page again.').waitFor();
    await screenshot(page, 'rate-limited');
    await page.locator('.inbox-item-name').filter({ hasText: 'Alice' }).waitFor();
    await page.getByText('Many requests at once').waitFor({ state: 'detached' });
    expect(await page.locator('.error').filter({ hasText: /./ }).count()).toBe(0);
    await page.unroute('**/v1/conversations?*');
  });

  test('a page whose reads find the store away for a moment (503) says so, waits as told and reads again by itself', async () => {
    const { context: away, page: p } = await openPage(browser);
    await p.clock.install();
    let refusals = 0;
    // The gateway's own 503 while its store is away: both first reads of the list are refused.
    await p.route('**/v1/conversations?*', async (route) => {
      if (refusals >= 2) return route.continue();
      refusals += 1;
      await route.fulfill({
        status: 503,
        headers: { 'retry-after': '5', 'content-type': 'application/json' },
        body: JSON.stringify({
          error: { code: 'STORE_UNAVAILABLE', message: 'The store is unavailable; retry later' },
        }),
      });
    });
    await signInAt(p, `${gw.url}/console/inbox`, owner);
    await p
      .getByText('The gateway is unavailable for a moment: the console waits 5 s and reads this page again.')
      .waitFor();
    expect(await p.locator('.error').filter({ hasText: /./ }).count()).toBe(0);
    await p.clock.runFor(5_000);
    await p.locator('.inbox-item-name').filter({ hasText: 'Alice' }).waitFor();
    await p.getByText('The gateway is unavailable').waitFor({ state: 'detached' });
    expect(await p.locator('.error').filter({ hasText: /./ }).count()).toBe(0);
    expect(refusals).toBe(2);
    await away.close();
  });

  test('a page whose reads find the gateway restarting (nothing answers, its proxy answers 502) waits and reads again by itself', async () => {
    const { context: restarting, page: p } = await openPage(browser);
    await p.clock.install();
    let refusals = 0;
    // While the gateway restarts behind a proxy: the inbox's read finds the connection refused, then the proxy's own
    // page.
    const inboxRead = (url: URL) =>
      url.pathname === '/v1/conversations' && url.search === '?limit=25&snoozed=false&needsReply=true';
    await p.route(inboxRead, async (route) => {
      refusals += 1;
      if (refusals === 1) return route.abort('connectionrefused');
      if (refusals === 2)
        return route.fulfill({ status: 502, contentType: 'text/html', body: '<html><h1>502 Bad Gateway</h1></html>' });
      return route.continue();
    });
    await signInAt(p, `${gw.url}/console/inbox`, owner);
    const notice = p.getByText(
      'The gateway is unavailable for a moment: the console waits 3 s and reads this page again.',
    );
    await notice.waitFor();
    expect(await p.locator('.error').filter({ hasText: /./ }).count()).toBe(0);
    await p.clock.runFor(3_000);
    // The notice is cleared while the read is asked again, and said again once the proxy's page has answered it.
    while (refusals < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    await notice.waitFor();
    await p.clock.runFor(3_000);
    await p.locator('.inbox-item-name').filter({ hasText: 'Alice' }).waitFor();
    await notice.waitFor({ state: 'detached' });
    expect(await p.locator('.error').filter({ hasText: /./ }).count()).toBe(0);
    expect(refusals).toBe(3);
    await restarting.close();
  });
});
