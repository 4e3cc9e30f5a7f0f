import type { Browser, BrowserContext, Page } from 'playwright-core';
import { incoming, request } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { newContext, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { acceptInvite, consoleAccount, teamMember, type ConsoleAccount } from './support';

/**
 * The team grows while the owner's inbox is open: a member who joined since the page was opened is named on the
 * conversations given to them and offered in the Assigned to picker, without the page being opened again. One
 * person on several teams switches between them from the header.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let context: BrowserContext;
let desk: Page;

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Bright Dental' });
  context = await newContext(browser);
  desk = await context.newPage();
});
afterAll(async () => {
  await context?.close();
  await stopConsole(gw, browser);
});

test('a member who joined after the inbox opened is named on the conversation given to them, and offered', async () => {
  const wrote = await api(
    'POST',
    '/v1/incoming_custom_channel_message',
    incoming({ fromId: 'visitor-pat', firstName: 'Pat', channel: 'web-chat', body: 'Hello, Pat here' }),
  );
  const conversationId = (await api('GET', `/v1/messages/${wrote.body.messageId}`)).body.conversationId as string;
  await signInAt(desk, `${gw.url}/console/inbox`, owner);
  const pat = desk.locator('.inbox-item').filter({ hasText: 'Pat' });
  await pat.waitFor();

  const agent = await teamMember(gw, owner, 'agent', 'Nia Newcomer');
  expect((await api('POST', `/v1/conversations/${conversationId}/assign`, { memberId: agent.id })).status).toBe(200);
  await pat.locator('.inbox-assignee').filter({ hasText: 'Assigned to Nia Newcomer' }).waitFor();

  await pat.click();
  const picker = desk.getByLabel('Assigned to', { exact: true });
  expect(await picker.inputValue()).toBe(agent.id);
  expect(await picker.locator('option').allTextContents()).toEqual([
    'Nobody',
    'Bright Dental (you)',
    'Nia Newcomer (agent)',
  ]);
});

test("a member of two teams switches from the header to the other's Inbox, with that account's password asked again", async () => {
  const email = `sam-${process.pid}@agency.example`;
  const password = 'the same password on both teams';
  const agency = await consoleAccount(gw, { type: 'agency', name: 'Growth Agency' });
  for (const account of [agency, owner]) {
    const invited = await request(gw, 'POST', '/v1/members', {
      apiKey: account.apiKey,
      body: { email, name: 'Sam Staff', role: 'agent' },
    });
    expect((await acceptInvite(gw, invited.body.inviteUrl, password)).reply.status).toBe(200);
  }
  const own = await newContext(browser);
  const page = await own.newPage();
  await signInAt(page, `${gw.url}/console/inbox`, { email, password });
  const header = page.getByRole('banner');
  await header.getByText('Growth Agency').waitFor();

  await header.getByRole('button', { name: 'Switch account' }).click();
  const dialog = page.getByRole('dialog', { name: 'Switch account' });
  expect(await dialog.getByRole('radio', { name: 'Bright Dental' }).isChecked()).toBe(true);
  const field = dialog.getByLabel('Password', { exact: true });
  expect(await field.inputValue()).toBe('');
  expect(await seriousViolations(page)).toEqual([]);

  await field.fill('not the password at all');
  await dialog.getByRole('button', { name: 'Switch', exact: true }).click();
  await dialog.getByRole('alert').filter({ hasText: 'The email or the password is not right' }).waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'switch-account');
  const still = await own.request.get(`${gw.url}/console/api/session`);
  expect((await still.json()).account.name).toBe('Growth Agency');

  await field.fill(password);
  await dialog.getByRole('button', { name: 'Switch', exact: true }).click();
  await page.waitForURL(`${gw.url}/console/inbox`);
  await header.locator('.name').filter({ hasText: 'Bright Dental' }).waitFor();
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Inbox');
  await header.getByRole('button', { name: 'Switch account' }).click();
  const back = page.getByRole('dialog', { name: 'Switch account' });
  // Counted once the dialog shows its choice: a count does not wait for it.
  expect(await back.getByRole('radio', { name: 'Growth Agency' }).isChecked()).toBe(true);
  expect(await back.getByRole('radio').count()).toBe(1);
  await page.keyboard.press('Escape');
  await back.waitFor({ state: 'detached' });
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Switch account');
  await own.close();
});
