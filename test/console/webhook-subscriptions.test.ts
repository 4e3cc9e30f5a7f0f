import type { Browser, Page } from 'playwright-core';
import { api, incoming, Receiver } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { openPage, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * In a real browser: a webhook subscription disabled by its receiver (410 Gone) is told on every page of the owner and
 * admins as it happens, with no page change; the Custom Channel Webhook page lists the subscriptions with their
 * health, and Enable starts a disabled one again, the banner going with it.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let page: Page;
let status = 200;
let hook: Receiver;
let quiet: Receiver;

beforeAll(async () => {
  [gw, browser] = await startConsole();
  hook = await Receiver.start(() => ({ status }));
  quiet = await Receiver.start();
  owner = await consoleAccount(gw, { name: 'Three-chair Dental' });
  ({ page } = await openPage(browser));
});
afterAll(async () => {
  await hook?.close();
  await quiet?.close();
  await stopConsole(gw, browser);
});

const url = (p: string) => `${gw.url}${p}`;
const banner = () => page.locator('main p.banner[data-banner="webhooks"]');
const rowOf = (id: string) => page.locator(`tr[data-webhook="${id}"]`);

test('a subscription disabled by a 410 is told on every page at once; the webhook page shows its health, and Enable starts it again', async () => {
  const sub = (await api(gw, owner, 'POST', 'webhooks', { body: { url: hook.url, events: ['message_received'] } }))
    .body;
  // Events nothing in this test makes: never posted.
  const other = (await api(gw, owner, 'POST', 'webhooks', { body: { url: quiet.url, events: ['goal_reached'] } })).body;
  await signInAt(page, url('/console/inbox'), owner);
  await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
  expect(await banner().count()).toBe(0);

  // The receiver asks for no more: the open page says so, with no page change.
  status = 410;
  expect((await api(gw, owner, 'POST', 'incoming_custom_channel_message', { body: incoming() })).status).toBe(200);
  await banner().waitFor();
  expect(await banner().textContent()).toBe(
    `A webhook subscription is disabled: no event is posted to ${hook.url} any more, since its receiver answered 410 Gone, asking for no more events. Fix its receiver, then enable it again. See webhook subscriptions`,
  );
  expect(await seriousViolations(page)).toEqual([]);

  await banner().getByRole('link', { name: 'See webhook subscriptions' }).click();
  await page.waitForURL(url('/console/settings/webhook'));
  const table = page.getByRole('region', { name: 'Table of webhook subscriptions' });
  await rowOf(sub.id).waitFor();
  expect(await table.locator('th').allTextContents()).toEqual([
    'URL',
    'Events',
    'Status',
    'Last success',
    'Last failure',
    'Failures in a row',
  ]);
  const cells = await rowOf(sub.id).locator('td').allTextContents();
  expect(cells[0]).toBe(hook.url);
  expect(cells[1]).toBe('message_received');
  expect(cells[2]).toMatch(/^Disabled .+: its receiver answered 410 Gone, asking for no more events Enable$/);
  expect(cells[3]).toBe('None yet');
  expect(cells[4]).toMatch(/: HTTP 410$/);
  expect(cells[5]).toBe('1');
  expect(await rowOf(other.id).locator('td').allTextContents()).toEqual([
    quiet.url,
    'goal_reached',
    'Enabled',
    'None yet',
    'None',
    '0',
  ]);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'settings-webhook-subscriptions');

  status = 200;
  await rowOf(sub.id).getByRole('button', { name: 'Enable' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Events are posted to ${hook.url} again.` })
    .waitFor();
  await rowOf(sub.id)
    .locator('td')
    .nth(2)
    .filter({ hasText: /^Enabled$/ })
    .waitFor();
  await banner().waitFor({ state: 'detached' });
  expect((await api(gw, owner, 'GET', `webhooks/${sub.id}`)).body).toMatchObject({ status: 'enabled' });
});
