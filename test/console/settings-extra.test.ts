import type { Browser, Page } from 'playwright-core';
import { api, Receiver, verifyStandardWebhook } from '../gateway/api-support';
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
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * In a real browser: "Send test event" on the Custom Channel Webhook page (the receiver's answer shown, the event
 * really signed), the HELP answer saved and reset there, the business hours and away message under Bot provider, and a
 * list opened by its address read with GET /v1/lists/{id} alone.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let receiver: Receiver;
let failing = false;
let page: Page;
const requests: string[] = [];

beforeAll(async () => {
  [[gw, browser], receiver] = await Promise.all([
    startConsole(),
    Receiver.start(() => (failing ? { status: 500, body: 'down for maintenance' } : { status: 200 })),
  ]);
  owner = await consoleAccount(gw, { name: 'Settings Owner' });
  ({ page } = await openPage(browser, requests));
  await signInAt(page, url('/console/settings/webhook'), owner);
});
afterAll(async () => {
  await receiver?.close();
  await stopConsole(gw, browser);
});

const url = (p: string) => `${gw.url}${p}`;
const heading = (p: Page) => p.getByRole('heading', { level: 1 });
const v1 = (method: string, path: string, body?: unknown) =>
  api(gw, owner, method, path, body === undefined ? {} : { body });
const outcome = () => page.locator('.webhook-test-outcome');

describe('Send test event', () => {
  test('with no URL saved, the API refusal is shown next to the button and nothing is posted', async () => {
    await heading(page).filter({ hasText: 'Custom Channel Webhook' }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const error = page.locator('#webhook-test-heading ~ .error');
    await error.filter({ hasText: /\S/ }).waitFor();
    expect(await error.textContent()).toBe('No Custom Channel Webhook URL is set: save one first');
    expect(receiver.requests).toHaveLength(0);
  });

  test('the receiver gets one signed event and the page shows what it answered; a failing receiver is shown as not delivered', async () => {
    const hookUrl = `${receiver.url}?note=${encodeURIComponent(HOSTILE)}`;
    await page.getByLabel('Webhook URL', { exact: true }).fill(hookUrl);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook URL saved.' }).waitFor();

    await page.getByRole('button', { name: 'Send test event' }).click();
    await outcome().filter({ hasText: 'Delivered: your receiver answered HTTP 200.' }).waitFor();
    expect(receiver.requests).toHaveLength(1);
    const secret = (await v1('GET', 'settings')).body.webhookSecret;
    expect(verifyStandardWebhook(secret, receiver.requests[0]!)).toBe(true);
    expect(receiver.requests[0]!.body.type).toBe('test');
    expect(await outcome().locator('dd').first().textContent()).toBe(hookUrl);
    expect(await outcome().locator('code').textContent()).toBe(receiver.requests[0]!.headers['webhook-id']);
    expect(await page.locator('#webhook-test-heading ~ .error').textContent()).toBe('');
    expect(await scriptRan(page)).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'settings-webhook-test-sent');

    failing = true;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await outcome().filter({ hasText: 'Not delivered: Receiver answered HTTP 500.' }).waitFor();
    expect(receiver.requests).toHaveLength(2);
    expect(await outcome().locator('dd').nth(1).textContent()).toBe('500');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'settings-webhook-test-failed');
    failing = false;
  });

  test('reached by keyboard: Enter on the focused button sends the test', async () => {
    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Send test event' }).focus();
    await page.keyboard.press('Enter');
    await outcome().filter({ hasText: 'Delivered' }).waitFor();
    expect(receiver.requests).toHaveLength(before + 1);
  });
});

describe('HELP answer', () => {
  test('shows the default, saves a new answer (markup kept as text), and goes back to the default', async () => {
    const field = page.getByLabel('HELP answer', { exact: true });
    const initial = (await v1('GET', 'settings')).body.helpText;
    expect(await field.inputValue()).toBe(initial);
    expect(initial).toMatch(/STOP/);

    const answer = `Write STOP to stop ${HOSTILE}`;
    await field.fill(answer);
    await page.getByRole('button', { name: 'Set HELP answer' }).click();
    await page.getByRole('status').filter({ hasText: 'HELP answer saved.' }).waitFor();
    expect((await v1('GET', 'settings')).body.helpText).toBe(answer);
    await page.reload();
    expect(await page.getByLabel('HELP answer', { exact: true }).inputValue()).toBe(answer);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await scriptRan(page)).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'settings-help-text');

    await page.getByRole('button', { name: 'Use the default' }).click();
    await page.getByRole('status').filter({ hasText: 'The default HELP answer is in use.' }).waitFor();
    expect((await v1('GET', 'settings')).body.helpText).toBe(initial);
    expect(await page.getByLabel('HELP answer', { exact: true }).inputValue()).toBe(initial);
  });

  test('at phone width nothing is wider than the screen', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.getByRole('button', { name: 'Send test event' }).click();
    await outcome().filter({ hasText: 'Delivered' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'settings-webhook-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});

describe('Business hours', () => {
  test('always open until set: the days, hours and zone saved by their button, the away message by its own', async () => {
    await page.goto(url('/console/settings/bot'));
    const now = page.locator('#business-hours-now');
    const on = page.getByLabel('The team works set hours');
    const save = page.getByRole('button', { name: 'Save business hours' });
    await now.filter({ hasText: 'Now: always open' }).waitFor();
    expect(await on.isChecked()).toBe(false);
    expect(await page.getByLabel('Time zone', { exact: true }).count()).toBe(0);

    await on.check();
    const zone = page.getByLabel('Time zone', { exact: true });
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('09:00');
    expect(await page.getByLabel('Until', { exact: true }).inputValue()).toBe('18:00');
    expect(await page.getByLabel('Friday').isChecked()).toBe(true);
    expect(await page.getByLabel('Saturday').isChecked()).toBe(false);
    await zone.fill('Paris');
    await save.click();
    await page
      .getByRole('alert')
      .filter({ hasText: /^Business hours: time zone must be an IANA time zone/ })
      .waitFor();
    expect((await v1('GET', 'settings')).body.businessHours).toBeNull();

    await zone.fill('Europe/Paris');
    await page.getByLabel('Until', { exact: true }).fill('17:30');
    await page.getByLabel('Friday').uncheck();
    await save.click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Business hours saved: Mon–Thu, 09:00–17:30 (Europe/Paris).' })
      .waitFor();
    await now.filter({ hasText: 'Now: Mon–Thu, 09:00–17:30 (Europe/Paris)' }).waitFor();
    expect((await v1('GET', 'settings')).body.businessHours).toEqual({
      start: '09:00',
      end: '17:30',
      timezone: 'Europe/Paris',
      days: ['mon', 'tue', 'wed', 'thu'],
    });

    const away = page.getByLabel('Away message', { exact: true });
    const awayNow = page.locator('#away-message-now');
    const builtIn = (await v1('GET', 'settings')).body.defaultAwayMessage;
    expect(await awayNow.textContent()).toBe(`Now: the built-in message, ${builtIn}`);
    expect(await away.getAttribute('placeholder')).toBe(builtIn);
    const own = `We are out until 9 tomorrow ${HOSTILE}`;
    await away.fill(own);
    await page.getByRole('button', { name: 'Save away message' }).click();
    await page.getByRole('status').filter({ hasText: 'Away message saved.' }).waitFor();
    expect(await awayNow.textContent()).toBe(`Now: your message, ${own}`);
    expect((await v1('GET', 'settings')).body).toMatchObject({
      awayMessage: own,
      businessHours: { days: ['mon', 'tue', 'wed', 'thu'] },
    });
    expect(await scriptRan(page)).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'settings-business-hours');

    await page.reload();
    expect(await page.getByLabel('The team works set hours').isChecked()).toBe(true);
    expect(await page.getByLabel('Until', { exact: true }).inputValue()).toBe('17:30');
    expect(await page.getByLabel('Away message', { exact: true }).inputValue()).toBe(own);

    await page.getByLabel('The team works set hours').uncheck();
    await page.getByRole('button', { name: 'Save business hours' }).click();
    await page.getByRole('status').filter({ hasText: 'Always open.' }).waitFor();
    await page.locator('#business-hours-now').filter({ hasText: 'Now: always open' }).waitFor();
    expect((await v1('GET', 'settings')).body).toMatchObject({ businessHours: null, awayMessage: own });
  });
});

describe('a list opened by its address', () => {
  test('is read with GET /v1/lists/{id}, not by reading every list; another account’s is not found', async () => {
    const list = (await v1('POST', 'lists', { name: `Reopened ${HOSTILE}` })).body;
    requests.length = 0;
    await page.goto(url(`/console/lists?id=${list.id}`));
    await heading(page)
      .filter({ hasText: `Reopened ${HOSTILE}` })
      .waitFor();
    const reads = requests.map((r) => new URL(r).pathname).filter((p) => /^\/v1\/lists(\/[^/]+)?$/.test(p));
    expect(reads).toEqual([`/v1/lists/${list.id}`]);
    expect(await scriptRan(page)).toBe(false);

    const stranger = await consoleAccount(gw, { name: 'Stranger' });
    const theirs = (await api(gw, stranger, 'POST', 'lists', { body: { name: 'Not yours' } })).body;
    await page.goto(url(`/console/lists?id=${theirs.id}`));
    await heading(page).filter({ hasText: 'List not found' }).waitFor();
    expect(await page.content()).not.toContain('Not yours');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
