import type { Browser, Page } from 'playwright-core';
import { request } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import {
  HOSTILE,
  openPage,
  screenshot,
  scriptRan,
  seriousViolations,
  signInAt,
  startConsole,
  stopConsole,
} from './browser';
import { acceptInvite, consoleAccount, type ConsoleAccount } from './support';

/**
 * Settings › Activity: the account's audit log as a table (when, who, what, on what), newest first, 50 at a time
 * with **Show more**, filtered by action and by who.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let page: Page;
const GRACE = { email: 'grace.admin@team.example', password: 'grace-admin-long-passphrase' };

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const rows = () => page.locator('table.activity tbody tr');

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Activity Dental' });
  const invited = await api('POST', '/v1/members', { email: GRACE.email, name: 'Grace', role: 'admin' });
  expect((await acceptInvite(gw, invited.body.inviteUrl, GRACE.password)).reply.status).toBe(200);
  const list = await api('POST', '/v1/lists', { name: `Old leads ${HOSTILE}` });
  expect((await api('DELETE', `/v1/lists/${list.body.id}`)).status).toBe(204);
  // More than a page: 50 entries, then Show more.
  for (let i = 0; i < 50; i += 1)
    expect((await api('PUT', '/v1/settings', { helpText: `Help ${i}` })).status).toBe(200);
  ({ page } = await openPage(browser));
  await signInAt(page, `${gw.url}/console/settings/activity`, owner);
  await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

test('the table shows who did what, newest first, 50 at a time; Show more adds the older ones', async () => {
  await rows().first().waitFor();
  expect(await rows().count()).toBe(50);
  // Newest first: the owner's own sign-in, then the API key's changes of the settings.
  const first = await rows().first().locator('td').allTextContents();
  expect(first.slice(1, 3)).toEqual([expect.any(String), expect.stringContaining('Signed in to the console')]);
  expect(first[2]).toContain('from 127.0.0.1');
  const second = await rows().nth(1).locator('td').allTextContents();
  expect(second.slice(1)).toEqual(['API key', 'Changed settings (helpText)', '']);
  await page.getByRole('button', { name: 'Show more' }).click();
  await rows().nth(50).waitFor();
  // 1 sign-in of the owner, 50 changes, the list deleted, Grace's sign-in, her invitation.
  expect(await rows().count()).toBe(54);
  expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
  const last = await rows().last().locator('td').allTextContents();
  expect(last.slice(1)).toEqual(['API key', 'Invited a member (as admin)', 'member Grace']);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'settings-activity-entries');
});

test('filtered by action, then by member, it shows only those', async () => {
  // The whole log holds the list's deletion too: the filtered answer is the table of one row.
  await page.getByLabel('Action').selectOption({ label: 'Deleted a list' });
  await page.waitForFunction(() => document.querySelectorAll('table.activity tbody tr').length === 1);
  expect(await rows().count()).toBe(1);
  expect(await rows().first().getAttribute('data-action')).toBe('list.deleted');
  const deleted = await rows().first().locator('td').allTextContents();
  expect(deleted.slice(1)).toEqual(['API key', 'Deleted a list', `list Old leads ${HOSTILE}`]);
  expect(await scriptRan(page)).toBe(false);

  // Every action's read answers late, after Grace's: what it answers is no longer what the filters ask.
  const unfiltered = (url: URL) => url.pathname === '/v1/audit-log' && !url.search.includes('actorId');
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(unfiltered, async (route) => {
    await held;
    await route.continue();
  });
  const late = page.waitForResponse((r) => unfiltered(new URL(r.url())));
  await page.getByLabel('Action').selectOption({ label: 'Every action' });
  await page.getByLabel('Member').selectOption({ label: 'Grace' });
  await page.locator('table.activity tbody tr[data-action="console.signed_in"]').waitFor();
  release();
  await (await late).finished();
  await page.unroute(unfiltered);
  // The page has read that answer once a request of its own, sent after it, came back.
  await page.evaluate(async () => void (await fetch('/console/api/session')).ok);
  expect(await rows().count()).toBe(1);
  const grace = await rows().first().locator('td').allTextContents();
  expect(grace[1]).toBe('Grace');
  expect(grace[2]).toContain('Signed in to the console');

  await page.getByLabel('Action').selectOption({ label: 'Generated a new API key' });
  await page.getByText('Nothing of this kind yet.').waitFor();
});

test('Refresh shows what was done since the page was read', async () => {
  await page.getByLabel('Action').selectOption({ label: 'Every action' });
  await page.getByLabel('Member').selectOption({ label: 'Everyone' });
  await rows().nth(49).waitFor();
  expect((await api('POST', '/v1/api-key')).status).toBe(200);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.locator('table.activity tbody tr:first-child[data-action="api_key.rotated"]').waitFor();
  expect((await rows().first().locator('td').allTextContents()).slice(1)).toEqual([
    'API key',
    'Generated a new API key',
    '',
  ]);
});
