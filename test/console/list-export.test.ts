import { buffer } from 'node:stream/consumers';
import type { Browser, Page } from 'playwright-core';
import { api, uniquePhone } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { openPage, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * A list's Download CSV in a real browser: the file arrives named after the list with its contacts, and chosen in
 * another list's import it is offered with every column already mapped.
 */
jest.setTimeout(120_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let page: Page;

beforeAll(async () => {
  [gw, browser] = await startConsole({ LEADCHAT_JOB_POLL: '200ms' });
  owner = await consoleAccount(gw, { name: 'Export Owner' });
  ({ page } = await openPage(browser));
  await signInAt(page, `${gw.url}/console/lists`, owner);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

const v1 = (method: string, path: string, body?: unknown) =>
  api(gw, owner, method, path, body === undefined ? {} : { body });

test("Download CSV saves the list's contacts as <list name>.csv, which another list's import takes with every column mapped", async () => {
  const list = (await v1('POST', 'lists', { name: 'Leads Zürich' })).body;
  const phone = uniquePhone();
  const contacts = [
    { phone, firstName: 'Zoë', lastName: '=1+1', customFields: { city: 'Lyon, "centre"' } },
    { email: 'bo@example.com', firstName: 'Bo', externalIds: { livechat: 'v-1' } },
  ];
  for (const body of contacts) {
    const made = (await v1('POST', 'contacts', body)).body;
    expect((await v1('POST', `lists/${list.id}/contacts`, { contactId: made.id })).status).toBe(201);
  }

  await page.goto(`${gw.url}/console/lists?id=${list.id}`);
  const link = page.getByRole('link', { name: 'Download CSV' });
  // Named by the link too: a browser may name the download before the gateway's answer says how.
  expect(await link.getAttribute('download')).toBe('Leads Zürich.csv');
  const downloading = page.waitForEvent('download');
  await link.click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('Leads Zürich.csv');
  const bytes = await buffer(await download.createReadStream());
  // The UTF-8 BOM Excel needs to read the accents right, as the file arrived.
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const text = bytes.toString('utf8');
  const lines = text.split('\r\n');
  expect(lines[0]).toBe(
    '\ufeffPhone,First name,Last name,Email,External ID (livechat),city,Contact ID,Added to list,Opted out',
  );
  expect(lines[1]).toMatch(new RegExp(`^\\${phone},Zoë,'=1\\+1,,,"Lyon, ""centre""",ct_`));
  expect(lines[2]).toMatch(/^,Bo,,bo@example.com,v-1,,ct_/);

  // Imported into another list as it is: nothing to map by hand, the facts left out.
  const copy = (await v1('POST', 'lists', { name: 'Copy' })).body;
  await page.goto(`${gw.url}/console/lists?id=${copy.id}`);
  await page
    .getByLabel('CSV file', { exact: true })
    .setInputFiles({ name: 'Leads Zürich.csv', mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });
  expect(await page.locator('#map-phone').inputValue()).toBe('Phone');
  expect(await page.locator('#map-firstName').inputValue()).toBe('First name');
  expect(await page.locator('#map-lastName').inputValue()).toBe('Last name');
  expect(await page.locator('#map-email').inputValue()).toBe('Email');
  expect(await page.locator('#map-external-id').inputValue()).toBe('External ID (livechat)');
  expect(await page.locator('#map-external-label').inputValue()).toBe('livechat');
  const custom = (column: string) => page.getByLabel(`Custom field for the column “${column}”`, { exact: true });
  expect(await custom('city').inputValue()).toBe('city');
  for (const fact of ['Contact ID', 'Added to list', 'Opted out']) expect(await custom(fact).inputValue()).toBe('');
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const report = page.getByRole('region', { name: 'Import report' }).first();
  await report.waitFor({ timeout: 30_000 });
  expect(await report.locator('[data-count="added"]').textContent()).toBe('2');
  const held = (await v1('GET', `lists/${copy.id}/contacts`)).body.data;
  expect(held.map((c: any) => [c.phone, c.firstName, c.lastName, c.email, c.customFields, c.externalIds])).toEqual([
    [phone, 'Zoë', '=1+1', '', { city: 'Lyon, "centre"' }, undefined],
    ['', 'Bo', '', 'bo@example.com', undefined, { livechat: 'v-1' }],
  ]);
});
