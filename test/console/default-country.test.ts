import type { Browser, Page } from 'playwright-core';
import { api } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { openPage, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * In a real browser: the Default country of Settings › API key (defaultCountry of /v1/settings) is chosen by name,
 * saved, shown again after a reload, cleared, and then read by the API for the numbers a clinic types.
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

test('none at first; choosing United States saves US, and a national number is then a contact', async () => {
  await field().waitFor();
  expect(await field().inputValue()).toBe('');
  expect(await page.locator('#default-country option:checked').textContent()).toMatch(/^None/);
  expect(await seriousViolations(page)).toEqual([]);

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

test('None clears it: numbers need their country code again', async () => {
  await page.goto(url('/console/settings/account'));
  await field().waitFor();
  await field().selectOption('');
  await page.getByRole('button', { name: 'Set default country' }).click();
  await page.getByRole('status').filter({ hasText: 'needs its country code' }).waitFor();
  expect((await settings()).defaultCountry).toBeNull();
  expect((await api(gw, owner, 'POST', 'contacts', { body: { phone: '(415) 555-0143' } })).body.error.code).toBe('INVALID_PHONE');
});
