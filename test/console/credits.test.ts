import type { Browser, Page } from 'playwright-core';
import { request, untilIdle, type TestGateway } from '../helpers/gateway';
import { uniquePhone } from '../gateway/api-support';
import {
  newContext,
  openPage,
  screenshot,
  seriousViolations,
  signInAt,
  startConsole,
  stopConsole,
  untilTitled,
} from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * Credits in sight, in a real browser: the Credits page (balance, prices, history by message kind, the low-balance
 * threshold), the banner following grants as they are made with no page change, the warning before going Live when
 * the balance cannot pay for the openings, and a campaign's failed openings counted and retried; at desktop width
 * and at 390 px.
 */
jest.setTimeout(90_000);

let gw: TestGateway;
let browser: Browser;
let agency: ConsoleAccount;

const url = (p: string) => `${gw.url}${p}`;
const v1 = (account: ConsoleAccount, method: string, path: string, body?: unknown) =>
  request(gw, method, `/v1/${path}`, { apiKey: account.apiKey, ...(body === undefined ? {} : { body }) });
const grant = (sub: ConsoleAccount, amount: number) =>
  v1(agency, 'POST', 'subaccounts/credits', { email: sub.email, amount });
const banner = (page: Page) => page.locator('main p.banner');

beforeAll(async () => {
  [gw, browser] = await startConsole();
  agency = await consoleAccount(gw, { type: 'agency', name: 'Growth Agency' });
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

test('the Credits page and the banner follow grants as they are made; the low-balance threshold warns on every page', async () => {
  const sub = await consoleAccount(gw, { parentEmail: agency.email, name: 'Smile Dental' });
  const { page } = await openPage(browser);
  await signInAt(page, url('/console/inbox'), sub);
  // At 0 every page says messages fail; the Credits page is one click away.
  await banner(page).filter({ hasText: 'Your balance is 0 credits' }).waitFor();
  await page.getByRole('navigation').getByRole('link', { name: 'Credits' }).click();
  await page.waitForURL(url('/console/credits'));
  await untilTitled(page, 'Credits');
  await page.locator('[data-balance]').filter({ hasText: '0 credits' }).waitFor();
  // The history comes in its own reading, after the balance may have.
  await page.getByText('No credits granted or spent yet.').waitFor();
  expect(await page.getByText('No credits granted or spent yet.').count()).toBe(1);

  // A grant made elsewhere: the banner goes and the page shows it, with no page change.
  await grant(sub, 3);
  await page.locator('[data-balance]').filter({ hasText: '3 credits' }).waitFor();
  await banner(page).waitFor({ state: 'detached' });
  const history = page.getByRole('region', { name: 'History' });
  await history.locator('tbody tr').first().waitFor();
  expect((await history.locator('tbody tr').first().locator('td').allTextContents()).slice(1)).toEqual([
    'Grant',
    '+3',
    '3',
    '',
  ]);

  // The threshold: under it, every page warns.
  const warning = page.getByRole('form', { name: 'Low-balance warning' });
  await warning.getByLabel('Warn me under').fill('5');
  await warning.getByRole('button', { name: 'Save warning' }).click();
  await warning.getByRole('status').filter({ hasText: 'Saved: the team is warned under 5 credits.' }).waitFor();
  await banner(page).filter({ hasText: 'Your balance is 3 credits, under your warning threshold of 5.' }).waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'credits-low-balance');

  await page.getByRole('navigation').getByRole('link', { name: 'Campaigns' }).click();
  await page.waitForURL(url('/console/campaigns'));
  await banner(page).filter({ hasText: 'under your warning threshold of 5' }).waitFor();
  // The agency grants while the team is on another page: the warning goes at once.
  await grant(sub, 10);
  await banner(page).waitFor({ state: 'detached' });
  await page.getByRole('navigation').getByRole('link', { name: 'Credits' }).click();
  await page.locator('[data-balance]').filter({ hasText: '13 credits' }).waitFor();
  // The history is read after the balance: both grants are listed once it is.
  const kinds = page.getByRole('region', { name: 'History' }).locator('tbody tr td:nth-child(2)');
  await kinds.nth(1).waitFor();
  expect(await kinds.allTextContents()).toEqual(['Grant', 'Grant']);
  expect((await v1(sub, 'GET', 'credits')).body).toMatchObject({
    balance: 13,
    lowBalanceThreshold: 5,
    lowBalance: false,
  });
});

test("an agency's Credits page lists the grants it made, one kind at a time, and names the time zone of its times", async () => {
  const sub = await consoleAccount(gw, { parentEmail: agency.email, name: 'Bright Smiles' });
  await grant(sub, 4);
  const { page } = await openPage(browser);
  await signInAt(page, url('/console/credits'), agency);
  await untilTitled(page, 'Credits');
  const history = page.getByRole('region', { name: 'History' });
  const first = history.locator('tbody tr').first();
  await first.waitFor();
  expect((await first.locator('td').allTextContents()).slice(1, 4)).toEqual(['Granted to Bright Smiles', '-4', '']);
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  expect(await history.locator('[data-time-zone]').textContent()).toBe(`Times in ${zone}.`);

  // One kind at a time: the agency received no grant itself.
  await history.getByLabel('Show').selectOption('grant');
  await history.getByText('No entries of this kind yet.').waitFor();
  await history.getByLabel('Show').selectOption('granted');
  await first.waitFor();
  expect(await history.locator('tbody tr td:nth-child(2)').first().textContent()).toBe('Granted to Bright Smiles');
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'credits-agency-granted');
});

test('going Live warns when the balance cannot pay for the openings, with the numbers; the campaign counts those that failed, and retries them once credits are granted', async () => {
  const sub = await consoleAccount(gw, { parentEmail: agency.email, name: 'Bright Clinic' });
  await grant(sub, 1);
  const list = (await v1(sub, 'POST', 'lists', { name: 'Patients' })).body;
  for (let i = 0; i < 3; i++) {
    const contact = (await v1(sub, 'POST', 'contacts', { phone: uniquePhone(), firstName: `Patient ${i}` })).body;
    await v1(sub, 'POST', `lists/${list.id}/contacts`, { contactId: contact.id });
  }
  const campaign = (
    await v1(sub, 'POST', 'campaigns', {
      name: 'Recall',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name}}!',
      triggerOnNewContacts: true,
    })
  ).body;
  const { page } = await openPage(browser);
  await signInAt(page, url(`/console/campaigns?id=${campaign.id}`), sub);
  await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Recall' }).waitFor();

  await page.getByRole('radio', { name: 'Live' }).check();
  await page.getByRole('button', { name: 'Save campaign' }).click();
  const question = page.getByRole('alertdialog', { name: 'Also message the 3 contacts already on the list?' });
  await question.waitFor();
  expect(await question.locator('[data-warning="credits"]').innerText()).toBe(
    'Your balance, 1 credit, cannot pay for these opening messages: 3 contacts × 1 credit = 3 credits. Only 1 opening can be paid for: the others fail until credits are granted; then retry them from this campaign’s page. See your credits',
  );
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'campaign-live-credits-warning');

  await question.getByRole('button', { name: 'Go Live and message them' }).click();
  const failed = page.getByRole('group', { name: 'Failed opening messages' });
  await failed
    .locator('[data-count="opening-failed"]')
    .filter({ hasText: '2 opening messages failed and were not sent:' })
    .waitFor({ timeout: 15_000 });
  expect(await failed.locator('li').allTextContents()).toEqual(['2 openings for want of credits']);
  expect(await failed.getByRole('link', { name: 'See your credits' }).getAttribute('href')).toBe('/console/credits');
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'campaign-failed-openings');

  await grant(sub, 5);
  await failed.getByRole('button', { name: 'Retry failed openings' }).click();
  await failed
    .getByRole('status')
    .filter({ hasText: '2 opening messages queued again: they go at the campaign’s pace, within its sending window.' })
    .waitFor();
  await page.locator('[data-count="opening-failed"]').waitFor({ state: 'detached' });
  // Each is paid for as it goes, in its turn of the campaign's queue.
  await untilIdle(gw);
  expect((await v1(sub, 'GET', `campaigns/${campaign.id}/openings`)).body).toMatchObject({
    balance: 3,
    failed: { count: 0 },
  });

  // The Credits page lists each opening's cost by its kind.
  await page.getByRole('navigation').getByRole('link', { name: 'Credits' }).click();
  const rows = page.getByRole('region', { name: 'History' }).locator('tbody tr td:nth-child(2)');
  await rows.first().waitFor();
  expect(await rows.allTextContents()).toEqual([
    'Opening message on SMS',
    'Opening message on SMS',
    'Grant',
    'Opening message on SMS',
    'Grant',
  ]);
});

test('going Live with an empty list at a balance that pays for no opening warns first; saving again goes Live', async () => {
  const sub = await consoleAccount(gw, { parentEmail: agency.email, name: 'Quiet Clinic' });
  const list = (await v1(sub, 'POST', 'lists', { name: 'Empty' })).body;
  const campaign = (
    await v1(sub, 'POST', 'campaigns', {
      name: 'Welcome',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hello!',
      triggerOnNewContacts: true,
    })
  ).body;
  const { page } = await openPage(browser);
  await signInAt(page, url(`/console/campaigns?id=${campaign.id}`), sub);
  await page.getByRole('radio', { name: 'Live' }).check();
  await page.getByRole('button', { name: 'Save campaign' }).click();
  await page
    .getByRole('alert')
    .filter({
      hasText:
        'Your balance, 0 credits, cannot pay for an opening message (1 credit each): the openings of contacts added to the list fail until credits are granted. Save again to go Live anyway.',
    })
    .waitFor();
  expect((await v1(sub, 'GET', `campaigns/${campaign.id}`)).body.status).toBe('draft');
  await page.getByRole('button', { name: 'Go Live anyway' }).click();
  await page.getByRole('status').filter({ hasText: 'Campaign saved.' }).waitFor();
  expect((await v1(sub, 'GET', `campaigns/${campaign.id}`)).body.status).toBe('live');
});

describe('at phone width (390 px)', () => {
  test("the Credits page, its warning and history fit; the banner follows a grant; a campaign's failed openings show with their retry", async () => {
    const sub = await consoleAccount(gw, { parentEmail: agency.email, name: 'Pocket Dental' });
    await grant(sub, 2);
    await v1(sub, 'PUT', 'credits/low-balance', { threshold: 4 });
    const list = (await v1(sub, 'POST', 'lists', { name: 'Leads' })).body;
    const campaign = (
      await v1(sub, 'POST', 'campaigns', {
        name: 'Phone',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hi!',
        triggerOnNewContacts: true,
        status: 'live',
      })
    ).body;
    for (let i = 0; i < 3; i++) {
      const contact = (await v1(sub, 'POST', 'contacts', { phone: uniquePhone() })).body;
      await v1(sub, 'POST', `lists/${list.id}/contacts`, { contactId: contact.id });
    }
    const context = await newContext(browser, [], { width: 390, height: 800 });
    const page = await context.newPage();
    await signInAt(page, url('/console/credits'), sub);
    await banner(page).filter({ hasText: 'Your balance is 0 credits' }).waitFor();
    await page.getByRole('region', { name: 'History' }).locator('tbody tr').nth(2).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'credits-390');

    await page.goto(url(`/console/campaigns?id=${campaign.id}`));
    const failed = page.getByRole('group', { name: 'Failed opening messages' });
    await failed
      .locator('[data-count="opening-failed"]')
      .filter({ hasText: '1 opening message failed and was not sent:' })
      .waitFor();
    expect(await failed.getByRole('button', { name: 'Retry failed openings' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'campaign-failed-openings-390');

    // The grant shows at once, under the threshold still: the warning says so.
    await grant(sub, 1);
    await banner(page).filter({ hasText: 'Your balance is 1 credit, under your warning threshold of 4.' }).waitFor();
    await context.close();
  });
});
