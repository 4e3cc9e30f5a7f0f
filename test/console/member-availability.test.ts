import type { Browser, Locator, Page } from 'playwright-core';
import { incoming, request } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { openPage, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { acceptInvite, consoleAccount, type ConsoleAccount } from './support';

/**
 * Away: a member sets themselves away from the frame of every page, with the keyboard and told by a screen reader;
 * the Members page shows who is away and sets a colleague's; the assignee picker names them "(agent, away)".
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let pat: { id: string; email: string; password: string };

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const availabilityOfPat = async () => (await api('GET', `/v1/members/${pat.id}`)).body.availability;

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Away Dental' });
  pat = { id: '', email: 'pat.agent@team.example', password: 'pat-agent-long-passphrase' };
  const invited = await api('POST', '/v1/members', { email: pat.email, name: 'Pat', role: 'agent' });
  pat.id = invited.body.id;
  expect((await acceptInvite(gw, invited.body.inviteUrl, pat.password)).reply.status).toBe(200);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

async function signedIn(who: { email: string; password: string }, path: string): Promise<Page> {
  const { page } = await openPage(browser);
  await signInAt(page, `${gw.url}${path}`, who);
  return page;
}

const focused = (target: Locator) => target.evaluate((e) => e === document.activeElement);

/** Presses Tab until `target` has the focus, as a keyboard user goes through the page; fails past 40 presses. */
async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let n = 0; n < 40; n++) {
    await page.keyboard.press('Tab');
    if (await focused(target)) return;
  }
  throw new Error(`Tab never reaches ${target.toString()}`);
}

test('a member sets themselves away and back from the frame, with the keyboard, and is told what it did', async () => {
  const page = await signedIn(pat, '/console/inbox');
  await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
  const away = page.getByRole('button', { name: 'Away', exact: true });
  expect(await away.getAttribute('aria-pressed')).toBe('false');

  await tabTo(page, away);
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'You are away' }).waitFor({ state: 'attached' });
  expect(await away.getAttribute('aria-pressed')).toBe('true');
  expect(await availabilityOfPat()).toBe('away');
  expect(await focused(away)).toBe(true);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'availability-away');

  // Another page keeps it: the frame says so wherever the member goes, and after a reload.
  await page.reload();
  await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
  expect(await away.getAttribute('aria-pressed')).toBe('true');

  await tabTo(page, away);
  await page.keyboard.press('Space');
  await page.getByRole('status').filter({ hasText: 'You are available' }).waitFor({ state: 'attached' });
  expect(await away.getAttribute('aria-pressed')).toBe('false');
  expect(await availabilityOfPat()).toBe('available');
  await page.context().close();
});

test('the Members page shows who is away, sets a colleague away or available, and follows the frame', async () => {
  await api('PUT', `/v1/members/${pat.id}/availability`, { availability: 'away' });
  const page = await signedIn(owner, '/console/settings/members');
  const row = page.locator(`tr[data-member="${pat.id}"]`);
  await row.getByText('Active; away').waitFor();
  await row.getByRole('button', { name: 'Set available: Pat' }).click();
  await page.getByRole('status').filter({ hasText: 'Pat is available' }).waitFor();
  await row.getByText('Active', { exact: true }).waitFor();
  expect(await availabilityOfPat()).toBe('available');
  expect(await seriousViolations(page)).toEqual([]);

  // The owner's own row changes with the frame's Away button, and offers no button of its own.
  const mine = page.locator('tr[data-member]').first();
  expect(await mine.getByRole('button', { name: /^Set / }).count()).toBe(0);
  await page.getByRole('button', { name: 'Away', exact: true }).click();
  await mine.getByText('Active; away').waitFor();
  await page.getByRole('button', { name: 'Away', exact: true }).click();
  await mine.getByText('Active', { exact: true }).waitFor();

  // Pat going away elsewhere shows at once, without a reload (the stream's member.updated).
  await api('PUT', `/v1/members/${pat.id}/availability`, { availability: 'away' });
  await row.getByText('Active; away').waitFor();
  await page.context().close();
});

test('the assignee picker names an away member, and says when the conversation waits on them', async () => {
  await api('PUT', `/v1/members/${pat.id}/availability`, { availability: 'away' });
  const body = incoming({ fromId: 'visitor-lou', body: 'I want to talk to a human please' });
  expect((await api('POST', '/v1/incoming_custom_channel_message', body)).status).toBe(200);
  const [conversation] = (await api('GET', '/v1/conversations')).body.data;
  const page = await signedIn(owner, `/console/inbox?c=${conversation.id}`);
  const picker = page.getByLabel('Assigned to', { exact: true });
  await picker.waitFor();
  expect(await picker.locator('option').allTextContents()).toContain('Pat (agent, away)');
  await picker.selectOption({ label: 'Pat (agent, away)' });
  await page.getByRole('button', { name: 'Assign', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Assigned to Pat.' }).waitFor();
  expect((await api('GET', `/v1/conversations/${conversation.id}`)).body.assigneeId).toBe(pat.id);
  await page.getByText('Pat is away: the contact waits until they are back, or until someone else takes it.').waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'availability-picker');

  // Back, elsewhere: the picker and the note follow at once.
  await api('PUT', `/v1/members/${pat.id}/availability`, { availability: 'available' });
  await picker.locator('option', { hasText: 'Pat (agent)' }).waitFor({ state: 'attached' });
  expect(await page.getByText('Pat is away').count()).toBe(0);
  await page.context().close();
});
