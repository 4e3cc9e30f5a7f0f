import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, request, type TestAccount, type TestGateway } from '../helpers/gateway';
import {
  HOSTILE,
  newContext,
  openPage,
  screenshot,
  scriptRan,
  seriousViolations,
  signInAt,
  startConsole,
  stopConsole,
  untilTitled,
} from './browser';
import { consoleAccount, signIn, withSession, type ConsoleAccount } from './support';

/**
 * The Agency page in a real browser: an agency's sub-accounts with balances and auto-recharge rules; credits granted
 * and a rule set from the page, which the history and the API then show; a sub-account deleted once its email is
 * typed; a standard account has no such page in its navigation and the API refuses it; names holding markup shown
 * as text; axe-core and screenshots.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let agency: ConsoleAccount;
let standard: ConsoleAccount;
let subs: TestAccount[];
let context: BrowserContext;
let page: Page;

const url = (p: string) => `${gw.url}${p}`;

beforeAll(async () => {
  [gw, browser] = await startConsole();
  agency = await consoleAccount(gw, { type: 'agency', name: 'Growth Agency' });
  standard = await consoleAccount(gw, { name: 'Solo Shop' });
  subs = [
    await createAccount(gw, { parentEmail: agency.email, name: `Smile ${HOSTILE}` }),
    await createAccount(gw, { parentEmail: agency.email, name: 'Bright Realty' }),
  ];
  ({ context, page } = await openPage(browser));
  await signInAt(page, url('/console/settings/account'), agency);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

const row = (p: Page, id: string) => p.locator(`tr[data-sub="${id}"]`);

test('an agency reaches Agency from the navigation: its sub-accounts with balances, names shown as text', async () => {
  await page.getByRole('navigation').getByRole('link', { name: 'Agency' }).click();
  await page.waitForURL(url('/console/agency'));
  await row(page, subs[1]!.id).waitFor();
  expect(await row(page, subs[0]!.id).locator('th').textContent()).toBe(`Smile ${HOSTILE}`);
  expect(await row(page, subs[0]!.id).locator('td').allTextContents()).toEqual([
    subs[0]!.email,
    '0.00',
    'Off',
    'History',
    'Delete sub-account',
  ]);
  expect(await page.locator('main img').count()).toBe(0);
  expect(await scriptRan(page)).toBe(false);
  await untilTitled(page, 'Agency');
});

test('credits granted from the page: the balance, the history and the API show them', async () => {
  const grant = page.getByRole('region', { name: 'Grant credits' });
  await grant.getByLabel('Sub-account').selectOption(subs[1]!.email);
  await grant.getByLabel('Amount').fill('12.5');
  await grant.getByLabel('Description (optional)').fill(`Welcome ${HOSTILE}`);
  await grant.getByRole('button', { name: 'Grant credits' }).click();
  await grant.getByRole('status').filter({ hasText: '12.50 credits granted.' }).waitFor();
  await row(page, subs[1]!.id).locator('td', { hasText: '12.50' }).waitFor();

  const history = page.getByRole('region', { name: 'Credit history' });
  await history.locator('tbody tr').first().waitFor();
  expect(await history.locator('[data-balance]').textContent()).toBe('12.50');
  expect((await history.locator('tbody tr').first().locator('td').allTextContents()).slice(1)).toEqual([
    'Grant',
    '+12.50',
    '12.50',
    `Welcome ${HOSTILE}`,
  ]);
  expect(await scriptRan(page)).toBe(false);

  const fromApi = await request(gw, 'GET', `/v1/subaccounts/${subs[1]!.id}/credits`, { apiKey: agency.apiKey });
  expect(fromApi.body).toMatchObject({
    balance: 12.5,
    transactions: [{ kind: 'grant', amount: 12.5, description: `Welcome ${HOSTILE}` }],
  });

  // The API's own rules, shown as it words them: a third decimal is refused and nothing is granted.
  await grant.getByLabel('Sub-account').selectOption(subs[1]!.email);
  await grant.getByLabel('Amount').fill('1.005');
  await page.evaluate(() => document.querySelector<HTMLInputElement>('#grant-amount')!.setAttribute('step', 'any'));
  await grant.getByRole('button', { name: 'Grant credits' }).click();
  await grant
    .getByRole('alert')
    .filter({ hasText: 'Amount must be a whole number of hundredths (at most 2 decimal places)' })
    .waitFor();
  expect((await request(gw, 'GET', '/v1/credits', { apiKey: subs[1]!.apiKey })).body.balance).toBe(12.5);
});

test('a grant whose answer was lost is sent again with its Idempotency-Key and granted once; the next grant is another', async () => {
  const grant = page.getByRole('region', { name: 'Grant credits' });
  const balance = async () =>
    (await request(gw, 'GET', '/v1/credits', { apiKey: subs[0]!.apiKey })).body.balance as number;
  const before = await balance();
  const keys: string[] = [];
  // The first try reaches the gateway, but its answer never reaches the page.
  await page.route(
    '**/v1/subaccounts/credits',
    async (route) => {
      keys.push(route.request().headers()['idempotency-key']!);
      await route.fetch();
      await route.abort('connectionreset');
    },
    { times: 1 },
  );
  await grant.getByLabel('Sub-account').selectOption(subs[0]!.email);
  await grant.getByLabel('Amount').fill('3');
  await grant.getByRole('button', { name: 'Grant credits' }).click();
  await grant.getByRole('alert').filter({ hasText: 'cannot be reached' }).waitFor();
  expect(await balance()).toBe(before + 3);

  const sent = page.waitForRequest((r) => r.url().endsWith('/v1/subaccounts/credits'));
  await grant.getByRole('button', { name: 'Grant credits' }).click();
  keys.push((await sent).headers()['idempotency-key']!);
  await grant.getByRole('status').filter({ hasText: '3.00 credits granted.' }).waitFor();
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);
  expect(await balance()).toBe(before + 3);

  await grant.getByLabel('Sub-account').selectOption(subs[0]!.email);
  await grant.getByLabel('Amount').fill('3');
  const next = page.waitForRequest((r) => r.url().endsWith('/v1/subaccounts/credits'));
  await grant.getByRole('button', { name: 'Grant credits' }).click();
  expect((await next).headers()['idempotency-key']).not.toBe(keys[0]);
  await grant.getByRole('status').filter({ hasText: '3.00 credits granted.' }).waitFor();
  expect(await balance()).toBe(before + 6);
});

test("a sub-account's history a page at a time, each entry as the sub-account's own Credits page words it", async () => {
  const sub = await createAccount(gw, { parentEmail: agency.email, name: 'Busy Clinic' });
  for (let i = 1; i <= 51; i++)
    await request(gw, 'POST', '/v1/subaccounts/credits', {
      apiKey: agency.apiKey,
      body: { email: sub.email, amount: i, description: `Grant ${i}` },
    });
  await page.reload();
  await row(page, sub.id).getByRole('button', { name: 'Credit history of Busy Clinic' }).click();
  const history = page.getByRole('region', { name: 'Credit history' });
  await history.locator('tbody tr td', { hasText: 'Grant 51' }).waitFor();
  expect(await history.locator('[data-balance]').textContent()).toBe('1,326.00');
  expect(await history.locator('tbody tr').count()).toBe(50);
  await history.getByRole('button', { name: 'Show older entries' }).click();
  await history.locator('tbody tr').nth(50).waitFor();
  expect(await history.locator('tbody tr').count()).toBe(51);
  expect((await history.locator('tbody tr').last().locator('td').allTextContents()).slice(1)).toEqual([
    'Grant',
    '+1.00',
    '1.00',
    'Grant 1',
  ]);
});

test("auto-recharge set from the page shows in the table; the form shows the chosen sub-account's rule as it is", async () => {
  const recharge = page.getByRole('region', { name: 'Auto-recharge' });
  const on = recharge.getByRole('checkbox', { name: 'On' });
  await recharge.getByLabel('Sub-account').selectOption(subs[0]!.email);
  // No rule yet: off.
  expect(await on.isChecked()).toBe(false);
  await on.check();
  await recharge.getByLabel('When the balance is below').fill('5');
  await recharge.getByLabel('Add', { exact: true }).fill('20');
  await recharge.getByRole('button', { name: 'Save auto-recharge' }).click();
  await recharge.getByRole('status').filter({ hasText: 'Auto-recharge saved.' }).waitFor();
  await row(page, subs[0]!.id).locator('td', { hasText: 'Below 5.00, add 20.00' }).waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'agency');
  // Another sub-account's rule, then this one's again: the form follows the choice.
  await recharge.getByLabel('Sub-account').selectOption(subs[1]!.email);
  await page.waitForFunction(
    () => !(document.querySelector('input[name="recharge-enabled"]') as HTMLInputElement).checked,
  );
  expect(await recharge.getByLabel('When the balance is below').inputValue()).toBe('');
  await recharge.getByLabel('Sub-account').selectOption(subs[0]!.email);
  await page.waitForFunction(
    () => (document.querySelector('input[name="recharge-enabled"]') as HTMLInputElement).checked,
  );
  expect(await recharge.getByLabel('When the balance is below').inputValue()).toBe('5');
});

test("a sub-account deleted from its row once its email is typed: gone from the page and the API, its credits back in the agency's history", async () => {
  const leaving = await consoleAccount(gw, { parentEmail: agency.email, name: 'Leaving Optics' });
  await request(gw, 'POST', '/v1/subaccounts/credits', {
    apiKey: agency.apiKey,
    body: { email: leaving.email, amount: 4.5 },
  });
  // One deleted elsewhere (another admin, a call of the agency's own) goes from the page as it is shown.
  const quiet = await createAccount(gw, { parentEmail: agency.email, name: 'Quiet Studio' });
  await page.goto(url('/console/agency'));
  await row(page, quiet.id).waitFor();
  expect((await request(gw, 'DELETE', `/v1/subaccounts/${quiet.id}`, { apiKey: agency.apiKey })).status).toBe(202);
  await row(page, quiet.id).waitFor({ state: 'detached' });

  const contact = await request(gw, 'POST', '/v1/contacts', {
    apiKey: leaving.apiKey,
    body: { firstName: 'Lena', email: 'lena@optics.example' },
  });
  expect(contact.status).toBe(201);
  await page.goto(url('/console/agency'));
  const leavingRow = row(page, leaving.id);
  const deleteButton = leavingRow.getByRole('button', { name: 'Delete sub-account Leaving Optics' });
  const asked = page.getByRole('group', { name: 'Delete sub-account Leaving Optics' });
  // Cancelled, the question goes and the focus is back on the row's button.
  await deleteButton.click();
  await asked.getByRole('button', { name: 'Cancel' }).click();
  await asked.waitFor({ state: 'detached' });
  expect(await deleteButton.evaluate((el) => el === document.activeElement)).toBe(true);
  await deleteButton.click();
  expect(await asked.textContent()).toContain('Its unspent 4.50 credits come back to your credit history.');
  const typed = asked.getByLabel(`Type ${leaving.email} to confirm`);
  // The field to type in has the focus; the button does nothing until it holds the email.
  expect(await typed.evaluate((el) => el === document.activeElement)).toBe(true);
  const confirm = asked.getByRole('button', { name: 'Delete it and all its data' });
  await typed.fill(subs[1]!.email);
  // Pressed anyway (a button said unavailable is still pressed by a mouse): nothing happens.
  await confirm.click({ force: true });
  await typed.press('Enter');
  expect(await confirm.getAttribute('aria-disabled')).toBe('true');
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'agency-delete-sub-account');
  expect((await request(gw, 'GET', `/v1/contacts/${contact.body.id}`, { apiKey: leaving.apiKey })).status).toBe(200);
  expect((await request(gw, 'GET', '/v1/credits', { apiKey: subs[1]!.apiKey })).status).toBe(200);

  // Case and spaces aside, the email it is.
  await typed.fill(` ${leaving.email.toUpperCase()} `);
  await confirm.click();
  await page
    .getByRole('region', { name: 'Sub-accounts' })
    .getByRole('status')
    .filter({ hasText: `Leaving Optics (${leaving.email}) is deleted: its data is being removed.` })
    .waitFor();
  await leavingRow.waitFor({ state: 'detached' });
  expect(await row(page, subs[0]!.id).count()).toBe(1);
  expect((await request(gw, 'GET', `/v1/contacts/${contact.body.id}`, { apiKey: leaving.apiKey })).status).toBe(401);
  expect(
    (await request(gw, 'GET', '/v1/subaccounts', { apiKey: agency.apiKey })).body.data.map((s: { id: string }) => s.id),
  ).not.toContain(leaving.id);

  // The agency's own Credits page: the balance come back, naming the sub-account by its id.
  await page.getByRole('navigation').getByRole('link', { name: 'Credits' }).click();
  const history = page.getByRole('region', { name: 'History' });
  await history.getByLabel('Show').selectOption('returned');
  const line = history.locator('tbody tr', { hasText: 'returned by deleted sub-account' });
  await line.waitFor();
  expect((await line.locator('td').allTextContents()).slice(1, 3)).toEqual([
    `Unspent, returned by deleted sub-account ${leaving.id}`,
    '+4.5',
  ]);
  await page.getByRole('navigation').getByRole('link', { name: 'Agency' }).click();
  await row(page, subs[0]!.id).waitFor();
});

test('readable at phone width', async () => {
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 375, height: 740 });
  await phone.goto(url('/console/agency'));
  await row(phone, subs[0]!.id).waitFor();
  expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await seriousViolations(phone)).toEqual([]);
  await screenshot(phone, 'agency-phone');
  await phone.close();
});

test('a standard account gets no Agency page in its navigation, and the API says 403 NOT_AGENCY', async () => {
  const own = await newContext(browser);
  const p = await own.newPage();
  await signInAt(p, url('/console/settings/account'), standard);
  await p.getByRole('navigation').getByRole('link', { name: 'Account' }).waitFor();
  expect(await p.getByRole('navigation').getByRole('link', { name: 'Agency' }).count()).toBe(0);
  await p.goto(url('/console/agency'));
  await p.getByRole('alert').filter({ hasText: 'Only agency accounts have sub-accounts' }).waitFor();
  expect(await seriousViolations(p)).toEqual([]);
  await screenshot(p, 'agency-refused');
  await own.close();

  const session = await signIn(gw, standard.email, standard.password);
  const refused = await withSession(gw, session, 'GET', '/v1/subaccounts');
  expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 403, code: 'NOT_AGENCY' });
});

test('a sub-account whose balance pays for none of its messages is told so on every page, with the agency that grants credits', async () => {
  const sub = await consoleAccount(gw, { parentEmail: agency.email, name: 'Zero Credits Dental' });
  const own = await newContext(browser);
  const p = await own.newPage();
  await signInAt(p, url('/console/inbox'), sub);
  const banner = p.getByRole('alert').filter({ hasText: 'Your balance is 0 credits' });
  await banner.waitFor();
  expect(await banner.textContent()).toContain(
    `Credits are granted by your agency, Growth Agency (${agency.email}): ask for them`,
  );
  expect(await banner.textContent()).toContain(
    'SMS (1 a segment), WhatsApp (1 a message), Messenger (1) and Instagram messages (1) fail until credits are granted',
  );
  expect(await banner.textContent()).toContain(
    'the bot, whose replies cost 1 each, hands the contacts who write to your team instead of answering',
  );
  expect(await seriousViolations(p)).toEqual([]);
  await screenshot(p, 'balance-banner');
  await p.getByRole('navigation').getByRole('link', { name: 'Campaigns' }).click();
  await p.waitForURL(url('/console/campaigns'));
  await banner.waitFor();

  // Granted: the next page shows no banner.
  await request(gw, 'POST', '/v1/subaccounts/credits', {
    apiKey: agency.apiKey,
    body: { email: sub.email, amount: 5 },
  });
  await p.getByRole('navigation').getByRole('link', { name: 'Lists' }).click();
  await p.getByRole('heading', { level: 1, name: 'Lists' }).waitFor();
  await p.waitForFunction(() => !document.body.textContent?.includes('Your balance is'));
  await own.close();
});
