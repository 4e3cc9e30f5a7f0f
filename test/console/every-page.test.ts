import type { Browser, Page } from 'playwright-core';
import { request, type TestGateway } from '../helpers/gateway';
import { allViolations, newContext, screenshot, signInAt, startConsole, stopConsole } from './browser';
import { filledAccount } from './filled-account';
import type { ConsoleAccount } from './support';

/**
 * axe-core on every kind of console page, with data in it, at desktop width, and at 390 px those whose layout changes
 * most there (the inbox with its folded filters, the thread, tables, the funnel, the menu): no violation of any
 * impact, best practices included (each table's scrolling region named apart from its section, each landmark once).
 * Each kind of page is scanned here once per width, and only here: the other console tests scan (for serious
 * violations) only what these pages do not show, such as a dialog open, an error, a banner, or a page at phone width.
 */
jest.setTimeout(180_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let agency: ConsoleAccount;
let agent: ConsoleAccount;
let campaignId: string;
let listId: string;
let conversationId: string;

const url = (p: string) => `${gw.url}${p}`;
const api = (method: string, path: string, body?: unknown, who: ConsoleAccount = owner) =>
  request(gw, method, `/v1${path}`, { apiKey: who.apiKey, body });

beforeAll(async () => {
  [gw, browser] = await startConsole({ LEADCHAT_JOB_POLL: '100ms' });
  ({ owner, agency, agent, listId, campaignId, conversationId } = await filledAccount(gw));
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

/** What axe found on each kind of page, by name; a kind with nothing found is not listed. */
const found: Record<string, string[]> = {};

async function scan(page: Page, kind: string, ready: (p: Page) => Promise<unknown>): Promise<void> {
  await ready(page);
  const violations = await allViolations(page);
  if (violations.length) found[kind] = violations;
  await screenshot(page, `every-page-${kind}`);
}

const main = (p: Page) => p.locator('main').getByRole('button').first().waitFor();
const heading = (text: string) => (p: Page) => p.getByRole('heading', { level: 1, name: text }).waitFor();

test('no page of the console has an axe violation of any impact, at desktop width and at 390 px', async () => {
  for (const [width, height] of [
    [1280, 900],
    [390, 844],
  ] as const) {
    const at = width === 1280 ? 'desktop' : '390';
    const desktop = at === 'desktop';
    const context = await newContext(browser, [], { width, height });
    const page = await context.newPage();

    if (desktop) {
      await page.goto(url('/console/sign-in'));
      await scan(page, `sign-in-${at}`, (p) => p.getByRole('button', { name: 'Sign in' }).waitFor());
      const invited = await api('POST', '/members', { email: 'ivy@every.example', name: 'Ivy Invited', role: 'agent' });
      await page.goto(invited.body.inviteUrl.replace(/^https:\/\/[^/]+/, gw.url));
      await scan(page, `invite-${at}`, (p) => p.getByRole('button').first().waitFor());
    }

    await signInAt(page, url('/console/settings/members'), owner);
    await scan(page, `members-${at}`, (p) => p.getByText('Ada Agent').first().waitFor());
    if (desktop) {
      for (const path of ['account', 'webhook', 'bot', 'channels']) {
        await page.goto(url(`/console/settings/${path}`));
        await scan(page, `${path}-${at}`, main);
      }
      await page.goto(url('/console/settings/activity'));
      await scan(page, `activity-${at}`, (p) => p.locator('table.activity tbody tr').first().waitFor());
      await page.goto(url('/console/campaigns'));
      await scan(page, `campaigns-${at}`, (p) => p.getByRole('link', { name: 'Spring check-ups' }).waitFor());
      await page.goto(url(`/console/campaigns?id=${campaignId}`));
      await scan(page, `campaign-${at}`, heading('Spring check-ups'));
      await page.goto(url('/console/campaigns?id=new'));
      await scan(page, `new-campaign-${at}`, main);
      await page.goto(url('/console/lists'));
      await scan(page, `lists-${at}`, (p) => p.getByRole('link', { name: 'Patients' }).waitFor());
    }
    await page.goto(url(`/console/lists?id=${listId}`));
    await scan(page, `list-${at}`, (p) => p.locator('table.imports tbody tr').first().waitFor());
    await page.goto(url('/console/funnel'));
    await scan(page, `funnel-${at}`, (p) => p.locator('.funnel-table').waitFor());
    await page.goto(url('/console/inbox'));
    await scan(page, `inbox-${at}`, (p) => p.locator('.inbox-item').filter({ hasText: 'Fay' }).waitFor());
    if (at === '390') {
      await page.getByRole('button', { name: 'Filters' }).click();
      await scan(page, `inbox-filters-${at}`, (p) => p.getByLabel('Status', { exact: true }).waitFor());
    }
    await page.getByRole('searchbox', { name: 'Find a contact' }).fill('eve');
    await scan(page, `inbox-search-${at}`, (p) =>
      p.getByRole('region', { name: 'Contacts found' }).locator('.inbox-item').waitFor(),
    );
    await page.goto(url(`/console/inbox?c=${conversationId}`));
    await scan(page, `thread-${at}`, (p) => p.locator('.inbox-msg-body').filter({ hasText: 'My x-ray' }).waitFor());
    await page.goto(url('/console/settings/nothing-here'));
    await heading('Page not found')(page);
    if (desktop) await scan(page, `not-found-${at}`, heading('Page not found'));
    else {
      await page.getByRole('button', { name: /Menu/ }).click();
      await scan(page, `menu-${at}`, (p) => p.getByRole('navigation').getByRole('link', { name: 'Inbox' }).waitFor());
    }
    await context.close();
    if (!desktop) continue;

    const agentContext = await newContext(browser, [], { width, height });
    const agentPage = await agentContext.newPage();
    await signInAt(agentPage, url('/console/settings/account'), agent);
    await scan(agentPage, `refused-${at}`, (p) =>
      p.getByRole('alert').filter({ hasText: 'cannot open this page' }).waitFor(),
    );
    await agentPage.goto(url(`/console/campaigns?id=${campaignId}`));
    await scan(agentPage, `campaign-read-only-${at}`, heading('Spring check-ups'));
    await agentContext.close();

    const agencyContext = await newContext(browser, [], { width, height });
    const agencyPage = await agencyContext.newPage();
    await signInAt(agencyPage, url('/console/agency'), agency);
    await scan(agencyPage, `agency-${at}`, (p) => p.getByText('Smile Clinic').first().waitFor());
    await agencyContext.close();
  }
  expect(found).toEqual({});
});
