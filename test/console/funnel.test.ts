import type { Browser, BrowserContext, Page } from 'playwright-core';
import { request, type TestGateway } from '../helpers/gateway';
import { HOSTILE, openPage, screenshot, scriptRan, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * Funnel at a glance in a real browser: a campaign whose contacts went through the steps (opening sent, a reply, a
 * request for a person, STOP) shows those counts as a funnel, a chart over time and a table of the days, the
 * numbers the API gives; a campaign picker and a date range; names holding markup shown as text; axe-core.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let context: BrowserContext;
let page: Page;
let campaignId: string;
let quietId: string;

const api = (method: string, path: string, body?: unknown) =>
  request(gw, method, `/v1${path}`, { apiKey: owner.apiKey, body });
const url = (p: string) => `${gw.url}${p}`;

async function waitFor(read: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100 && !(await read()); i++) await new Promise((r) => setTimeout(r, 100));
}

beforeAll(async () => {
  [gw, browser] = await startConsole({ LEADCHAT_JOB_POLL: '100ms' });
  owner = await consoleAccount(gw, { name: 'Smile Dental' });
  const list = (await api('POST', '/lists', { name: 'Leads' })).body;
  // Its bot answers the question asked below: only the request for a person is handed off.
  const campaign = await api('POST', '/campaigns', {
    name: `Spring ${HOSTILE}`,
    channel: 'sms',
    listId: list.id,
    openingMessage: 'Hi {{first_name}}!',
    triggerOnNewContacts: true,
    status: 'live',
    bot: { faqs: [{ question: 'What time do you open?', answer: 'We open at 9 am.' }] },
  });
  expect(campaign.status).toBe(201);
  campaignId = campaign.body.id;
  quietId = (await api('POST', '/campaigns', { name: 'Quiet campaign', channel: 'sms' })).body.id;
  const phones = ['+15550101001', '+15550101002', '+15550101003', '+15550101004'];
  for (const phone of phones) {
    const contact = (await api('POST', '/contacts', { phone, firstName: 'Lee' })).body;
    expect((await api('POST', `/lists/${list.id}/contacts`, { contactId: contact.id })).status).toBe(201);
  }
  await waitFor(async () => (await api('GET', `/campaigns/${campaignId}/funnel`)).body.totals.openingSent === 4);
  for (const [phone, body] of [
    [phones[0], 'What time do you open?'],
    [phones[1], 'I want to talk to a person'],
    [phones[2], 'STOP'],
  ]) {
    expect((await api('POST', '/channels/sms/incoming', { phone, body })).status).toBe(200);
  }
  ({ context, page } = await openPage(browser));
  await signInAt(page, url('/console/funnel'), owner);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

const count = (p: Page, step: string) => p.locator(`.funnel-bars li[data-step="${step}"] .count`).textContent();

test("the first campaign's funnel: the counts of its steps, as the API has them", async () => {
  await page.locator('.funnel-bars').waitFor();
  const expected = {
    added: '4',
    openingSent: '4',
    replied: '2',
    handedOff: '1',
    optedOut: '1',
    goalReached: '0',
    failed: '0',
  };
  for (const [step, n] of Object.entries(expected)) expect({ step, n: await count(page, step) }).toEqual({ step, n });
  expect(await page.locator('.funnel-bars li[data-step="replied"] .share').textContent()).toBe(' (50% of added)');
  const timezone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const today = await page.evaluate(() => new Date().toLocaleDateString('en-CA'));
  const fromApi = (
    await api(
      'GET',
      `/campaigns/${campaignId}/funnel?from=${today}&to=${today}&timezone=${encodeURIComponent(timezone)}`,
    )
  ).body;
  expect(fromApi.totals).toEqual({
    added: 4,
    openingSent: 4,
    replied: 2,
    handedOff: 1,
    optedOut: 1,
    goalReached: 0,
    failed: 0,
  });
  // The campaign's name, markup and all, is text: in the picker and the heading.
  expect(await page.getByLabel('Campaign', { exact: true }).locator('option').first().textContent()).toBe(
    `Spring ${HOSTILE} (live)`,
  );
  expect(await page.locator('#funnel-totals-heading').textContent()).toMatch(
    /^Spring <img src=x onerror="window.__xss=1">: \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$/,
  );
  expect(await page.locator('main img').count()).toBe(0);
  expect(await scriptRan(page)).toBe(false);
});

/** The single day's bars as drawn: each step's height on screen, in pixels, and the count written above it. */
const dayBars = (p: Page) =>
  p.locator('.funnel-chart rect[data-step]').evaluateAll((bars) =>
    bars.map((bar) => ({
      step: bar.getAttribute('data-step'),
      height: Math.round(bar.getBoundingClientRect().height),
      count: bar.nextElementSibling?.textContent,
    })),
  );

test('over time: an SVG chart summarized for screen readers, a single day drawn as a bar per step, and a table of every day', async () => {
  const chart = page.getByRole('img', { name: /Funnel steps per day/ });
  // The campaign's lifetime is one day: a line per step would have no length, and the chart was empty.
  const bars = await dayBars(page);
  expect(bars.map((b) => [b.step, b.count])).toEqual([
    ['added', '4'],
    ['openingSent', '4'],
    ['replied', '2'],
    ['handedOff', '1'],
    ['optedOut', '1'],
    ['goalReached', '0'],
    ['failed', '0'],
  ]);
  const [added, , replied, handedOff, , goal] = bars.map((b) => b.height);
  expect(added).toBeGreaterThan(100);
  expect(Math.abs(replied! - added! / 2)).toBeLessThanOrEqual(2);
  expect(Math.abs(handedOff! - added! / 4)).toBeLessThanOrEqual(2);
  expect(goal).toBe(0);
  expect(await chart.locator('polyline').count()).toBe(0);
  // The campaign's lifetime: it was created today.
  const rows = page.locator('.funnel-table tbody tr');
  expect(await rows.count()).toBe(1);
  const today = await page.evaluate(() => new Date().toLocaleDateString('en-CA'));
  const row = page.locator('.funnel-table tbody tr', { has: page.locator(`th:text-is("${today}")`) });
  expect(await row.locator('td').allTextContents()).toEqual(['4', '4', '2', '1', '1', '0', '0']);
  await screenshot(page, 'funnel');
});

test('another campaign and another range: the picker and the dates ask the API again', async () => {
  await page.getByLabel('Campaign', { exact: true }).selectOption(quietId);
  await page.getByLabel('From', { exact: true }).fill('2024-02-01');
  await page.getByLabel('To', { exact: true }).fill('2024-02-29');
  await page.getByRole('button', { name: 'Show funnel' }).click();
  await page.locator('#funnel-totals-heading', { hasText: 'Quiet campaign: 2024-02-01 to 2024-02-29' }).waitFor();
  expect(await count(page, 'added')).toBe('0');
  expect(await page.locator('.funnel-table tbody tr').count()).toBe(29);
  // Many days: a line per step across them.
  expect(await page.locator('.funnel-chart polyline').count()).toBe(7);
  expect(await page.locator('.funnel-chart rect[data-step]').count()).toBe(0);

  // A range the API refuses: its reason is shown next to the form.
  await page.getByLabel('From', { exact: true }).fill('2022-01-01');
  await page.getByRole('button', { name: 'Show funnel' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /366 days/ })
    .waitFor();
});

test('the campaign and the days shown are in the address: a reload shows them again, Back the ones before', async () => {
  const totals = (name: string) => page.locator('#funnel-totals-heading').filter({ hasText: name });
  await page.goto(url('/console/funnel'));
  await totals('Spring').waitFor();
  await page.getByLabel('Campaign', { exact: true }).selectOption(quietId);
  await page.getByLabel('From', { exact: true }).fill('2024-02-01');
  await page.getByLabel('To', { exact: true }).fill('2024-02-29');
  await page.getByRole('button', { name: 'Show funnel' }).click();
  await totals('Quiet campaign: 2024-02-01 to 2024-02-29').waitFor();
  expect(new URL(page.url()).search).toBe(`?id=${quietId}&from=2024-02-01&to=2024-02-29`);

  await page.reload();
  await totals('Quiet campaign: 2024-02-01 to 2024-02-29').waitFor();
  expect(await page.getByLabel('Campaign', { exact: true }).inputValue()).toBe(quietId);
  expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('2024-02-01');
  expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('2024-02-29');

  await page.goBack();
  await totals('Spring').waitFor();
  expect(await page.getByLabel('Campaign', { exact: true }).inputValue()).toBe(campaignId);
  await page.goForward();
  await totals('Quiet campaign: 2024-02-01 to 2024-02-29').waitFor();
  expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('2024-02-01');
});

test('a year on, just after midnight on a day the clocks had not gone forward yet a year before: the last 366 days, no refusal', async () => {
  // 00:30 CEST on 2028-03-27; 365 days of 24 hours before, the clocks of 2027 still read CET: 23:30 on 2027-03-27.
  const berlin = await browser.newContext({ ignoreHTTPSErrors: true, timezoneId: 'Europe/Berlin' });
  berlin.setDefaultTimeout(5_000);
  await berlin.clock.setFixedTime(new Date('2028-03-26T22:30:00Z'));
  const later = await berlin.newPage();
  await signInAt(later, url('/console/funnel'), owner);
  await later.locator('#funnel-totals-heading', { hasText: 'Spring' }).waitFor();
  expect(await later.locator('#funnel-totals-heading').textContent()).toMatch(/: 2027-03-28 to 2028-03-27$/);
  expect(await later.getByLabel('From', { exact: true }).inputValue()).toBe('2027-03-28');
  expect(
    await later
      .getByRole('alert')
      .filter({ hasText: /366 days/ })
      .count(),
  ).toBe(0);
  await berlin.close();
});

test('readable at 390 px: nothing wider than the screen, the single day drawn, the table scrolls on its own', async () => {
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  await phone.goto(url('/console/funnel'));
  await phone.locator('.funnel-table').waitFor();
  expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // The single day's bars, smaller, all on screen.
  const bars = await dayBars(phone);
  expect(bars.map((b) => b.count)).toEqual(['4', '4', '2', '1', '1', '0', '0']);
  expect(bars[0]!.height).toBeGreaterThan(40);
  const right = await phone
    .locator('.funnel-chart rect[data-step="failed"]')
    .evaluate((e) => e.getBoundingClientRect().right);
  expect(right).toBeLessThanOrEqual(390);
  await screenshot(phone, 'funnel-phone');
  await phone.close();
});

test('the contacts of its list the campaign could not reach are counted beside its funnel, by reason', async () => {
  const lists = (await api('GET', '/lists')).body.data;
  const noPhone = (await api('POST', '/contacts', { email: 'no.phone@example.com', firstName: 'Nia' })).body;
  expect((await api('POST', `/lists/${lists[0].id}/contacts`, { contactId: noPhone.id })).status).toBe(201);
  expect((await api('GET', `/campaigns/${campaignId}`)).body.unreachable).toMatchObject({
    total: 1,
    byReason: { no_phone: 1 },
  });
  await page.goto(url('/console/funnel'));
  const notice = page.getByRole('status', { name: 'Contacts not reached' });
  // Named once their names are read, with a link to them on the campaign's page.
  await notice.filter({ hasText: 'Nia' }).waitFor();
  expect(await notice.innerText()).toBe(
    '1 contact of the list was not reached:\n\n1 contact: no phone number: Nia.\n\nSee this contact',
  );
  // Another campaign has its own: none here.
  await page.getByLabel('Campaign', { exact: true }).selectOption(quietId);
  await page.getByRole('button', { name: 'Show funnel' }).click();
  await page.locator('#funnel-totals-heading', { hasText: 'Quiet campaign' }).waitFor();
  expect(await notice.count()).toBe(0);
});

test("an archived campaign's funnel is read still: the picker offers it after the others, saying it is archived", async () => {
  expect((await api('PATCH', `/campaigns/${campaignId}`, { status: 'archived' })).status).toBe(200);
  await page.goto(url(`/console/funnel?id=${campaignId}`));
  await page.locator('#funnel-totals-heading', { hasText: 'Spring' }).waitFor();
  expect(await count(page, 'openingSent')).toBe('4');
  const options = await page.getByLabel('Campaign', { exact: true }).locator('option').allTextContents();
  expect(options.at(-1)).toMatch(/^Spring .*\(archived\)$/);
});
