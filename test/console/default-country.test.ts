import type { Browser, Page } from 'playwright-core';
import { api } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { openPage, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * In a real browser: the Default country sits with the account's settings, on Settings › Account (defaultCountry of
 * /v1/settings); it is chosen by name, saved, shown again after a reload, cleared, and then read by the API for the
 * numbers a clinic types. The phone hints follow it: a phone field and the import say which country's numbers are
 * read as national, and ask for the country code only when no default country is set.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let page: Page;

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Three-chair Dental' });
  ({ page } = await openPage(browser));
  await signInAt(page, url('/console/settings/account'), owner);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

const url = (p: string) => `${gw.url}${p}`;
const field = () => page.getByLabel('Default country', { exact: true });
const settings = async () => (await api(gw, owner, 'GET', 'settings')).body;

const hint = () => page.locator('#add-phone-hint');
const importRule = () => page.getByRole('region', { name: 'Import contacts from a CSV file' }).locator('p').first();

test("the default country is on the Account page, with the account's facts; the API key is a section of it", async () => {
  await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
  expect(await page.getByRole('navigation').getByRole('link', { name: 'Account' }).getAttribute('aria-current')).toBe(
    'page',
  );
  expect(await page.getByRole('navigation').getByRole('link', { name: 'API key' }).count()).toBe(0);
  expect(await page.locator('main h2').allTextContents()).toEqual(['Account', 'Phone numbers', 'API key']);
});

test('none at first: phone hints ask for the country code and say where a default country is set', async () => {
  const list = (await api(gw, owner, 'POST', 'lists', { body: { name: 'Patients' } })).body;
  await page.goto(url(`/console/lists?id=${list.id}`));
  await hint().waitFor();
  expect(await hint().textContent()).toBe(
    'With the country code, such as +1 415 555 0123: no default country is set (an admin can set one in Settings › Account). A phone, an email or an external ID is needed.',
  );
  expect(await page.locator('#add-phone').getAttribute('placeholder')).toBe('+14155550123');
  expect(await importRule().textContent()).toContain(
    'Phones need their country code (+1 415 555 0123): no default country is set (an admin can set one in Settings › Account).',
  );
  await page.goto(url('/console/settings/account'));
});

test('none at first; choosing United States saves US, and a national number is then a contact', async () => {
  await field().waitFor();
  expect(await field().inputValue()).toBe('');
  expect(await page.locator('#default-country option:checked').textContent()).toMatch(/^None/);

  await field().selectOption({ label: 'United States (US)' });
  await page.getByRole('button', { name: 'Set default country' }).click();
  await page.getByRole('status').filter({ hasText: 'read as United States (US) numbers' }).waitFor();
  expect((await settings()).defaultCountry).toBe('US');
  const contact = await api(gw, owner, 'POST', 'contacts', { body: { phone: '(415) 555-0142', firstName: 'Pat' } });
  expect({ status: contact.status, phone: contact.body.phone }).toEqual({ status: 201, phone: '+14155550142' });
  await screenshot(page, 'settings-default-country');

  await page.reload();
  await field().waitFor();
  expect(await field().inputValue()).toBe('US');
});

test('with United States set, phone hints say national numbers are read as United States ones, without "the country code"', async () => {
  const list = (await api(gw, owner, 'POST', 'lists', { body: { name: 'Walk-ins' } })).body;
  // Reached through the navigation, as the page was left: no reload in between.
  await page.getByRole('navigation').getByRole('link', { name: 'Lists' }).click();
  await page.getByRole('link', { name: 'Walk-ins' }).click();
  await hint().waitFor();
  expect(await hint().textContent()).toBe(
    'Numbers without a country code are read as United States numbers; others start with + and their country code. A phone, an email or an external ID is needed.',
  );
  expect(await page.locator('#add-phone').getAttribute('placeholder')).toBeNull();
  expect(await importRule().textContent()).toContain(
    'Phones without a country code are read as United States numbers (the default country, Settings › Account)',
  );
  await page.locator('#add-phone').fill('(415) 555-0144');
  await page.getByRole('button', { name: 'Add to the list' }).click();
  await page.getByRole('status').filter({ hasText: 'was added to the list' }).waitFor();
  expect(
    (await api(gw, owner, 'GET', `lists/${list.id}/contacts`)).body.data.map((c: { phone: string }) => c.phone),
  ).toEqual(['+14155550144']);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'list-phone-hint-default-country');

  // A campaign's preview finds a contact by a national number as well, and says so.
  const campaign = (
    await api(gw, owner, 'POST', 'campaigns', {
      body: { name: 'Recall', channel: 'sms', openingMessage: 'Hi {{first_name|there}}!' },
    })
  ).body;
  await page.goto(url(`/console/campaigns?id=${campaign.id}`));
  const previewHint = page.locator('#preview-contact-hint');
  await previewHint.waitFor();
  expect(await previewHint.textContent()).toBe(
    'Numbers without a country code are read as United States numbers; others start with + and their country code.',
  );
  await page.getByLabel('Contact’s phone', { exact: true }).fill('(415) 555-0144');
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByRole('status').filter({ hasText: 'Preview ready.' }).waitFor();
});

test('at phone width the Account page reads in one column: every section, the country field whole', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(url('/console/settings/account'));
  await field().waitFor();
  const box = (await field().boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await screenshot(page, 'settings-account-phone');
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('None clears it: numbers need their country code again', async () => {
  await page.goto(url('/console/settings/account'));
  await field().waitFor();
  await field().selectOption('');
  await page.getByRole('button', { name: 'Set default country' }).click();
  await page.getByRole('status').filter({ hasText: 'needs its country code' }).waitFor();
  expect((await settings()).defaultCountry).toBeNull();
  expect((await api(gw, owner, 'POST', 'contacts', { body: { phone: '(415) 555-0143' } })).body.error.code).toBe(
    'INVALID_PHONE',
  );
});
