import type { Browser, Page } from 'playwright-core';
import { incoming, request } from '../gateway/api-support';
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
import { acceptInvite, consoleAccount, type ConsoleAccount } from './support';

/**
 * The team's saved replies: **Saved replies** beside the reply box, or "/" typed in the empty box, opens a listbox
 * filtered as one types, worked by keyboard and mouse; the one chosen is put in the box filled in for the contact,
 * never sent by itself. Settings › Saved replies adds them, and changes and deletes them as the roles allow.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let conversationId: string;
/** Pat, an agent, and the owner, each in a browser of their own. */
let pat: Page;
let boss: Page;
const PAT = { email: 'pat.agent@replies.example', password: 'pat-agent-long-passphrase' };

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const messagesOf = async () =>
  (await api('GET', `/v1/conversations/${conversationId}`)).body.lastMessage?.body as string | undefined;
const replyBox = (p: Page) => p.getByLabel('Reply as your team');
const picker = (p: Page) => p.getByRole('combobox', { name: 'Find a saved reply' });
const options = (p: Page) => p.getByRole('listbox', { name: 'Saved replies' }).getByRole('option');

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Replies Dental' });
  const invited = await api('POST', '/v1/members', { email: PAT.email, name: 'Pat', role: 'agent' });
  expect((await acceptInvite(gw, invited.body.inviteUrl, PAT.password)).reply.status).toBe(200);
  const said = await api('POST', '/v1/incoming_custom_channel_message', {
    ...incoming({ fromId: 'visitor-ruth', firstName: 'Ruth', channel: 'web-chat', body: 'How much are braces?' }),
  });
  expect(said.status).toBe(200);
  conversationId = (await api('GET', `/v1/messages/${said.body.messageId}`)).body.conversationId;
  for (const body of [
    { name: 'Prices', text: 'Hi {{first_name|there}}, our prices are on example.com/prices' },
    { name: 'Book a call', text: 'Here is the link to book a call: cal.example.com' },
    { name: 'Address', text: `We are at 1 Main St ${HOSTILE}` },
  ])
    expect((await api('POST', '/v1/saved-replies', body)).status).toBe(201);
  ({ page: pat } = await openPage(browser));
  ({ page: boss } = await openPage(browser));
  await signInAt(pat, `${gw.url}/console/inbox?c=${conversationId}`, PAT);
  await pat.locator('.inbox-msg-body').filter({ hasText: 'How much are braces?' }).waitFor();
  await signInAt(boss, `${gw.url}/console/settings/saved-replies`, owner);
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

test('Saved replies lists them by name; a click puts one in the box filled in for the contact, and nothing is sent', async () => {
  const before = await messagesOf();
  const button = pat.getByRole('button', { name: 'Saved replies' });
  await button.click();
  expect(await button.getAttribute('aria-expanded')).toBe('true');
  await options(pat).first().waitFor();
  expect(await options(pat).locator('strong').allTextContents()).toEqual(['Address', 'Book a call', 'Prices']);
  // The focus is in the filter; the first option is the active one.
  expect(await picker(pat).evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await options(pat).first().getAttribute('aria-selected')).toBe('true');
  expect(await seriousViolations(pat)).toEqual([]);
  await screenshot(pat, 'inbox-saved-replies');

  await options(pat).filter({ hasText: 'Prices' }).click();
  await picker(pat).waitFor({ state: 'detached' });
  expect(await replyBox(pat).inputValue()).toBe('Hi Ruth, our prices are on example.com/prices');
  expect(await replyBox(pat).evaluate((el) => el === document.activeElement)).toBe(true);
  await pat.getByText('“Prices” is in the reply box, filled in for this contact').waitFor({ state: 'attached' });
  expect(await messagesOf()).toBe(before);

  // Edited, it is sent as any reply.
  await replyBox(pat).press('End');
  await replyBox(pat).pressSequentially(' - see you soon');
  await pat.getByRole('button', { name: 'Send reply' }).click();
  await pat.locator('.inbox-msg').filter({ hasText: 'see you soon' }).waitFor();
  expect(await messagesOf()).toBe('Hi Ruth, our prices are on example.com/prices - see you soon');
  expect(await scriptRan(pat)).toBe(false);
});

test('"/" in the empty box opens them; typing filters, arrows move, Enter takes one; Escape gives the "/" back', async () => {
  await replyBox(pat).fill('');
  await replyBox(pat).focus();
  await pat.keyboard.type('/');
  await picker(pat).waitFor();
  expect(await picker(pat).evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await replyBox(pat).inputValue()).toBe('');
  await options(pat).first().waitFor();
  await pat.keyboard.press('Escape');
  await picker(pat).waitFor({ state: 'detached' });
  expect(await replyBox(pat).inputValue()).toBe('/');
  // Not empty now: a second "/" is typed as any character.
  await replyBox(pat).press('End');
  await pat.keyboard.type('/');
  expect(await replyBox(pat).inputValue()).toBe('//');
  expect(await picker(pat).count()).toBe(0);

  await replyBox(pat).fill('');
  await pat.keyboard.type('/');
  await picker(pat).waitFor();
  await options(pat).first().waitFor();
  // Found by its text as well as by its name, case and accents aside.
  await pat.keyboard.type('CAL');
  await pat.waitForFunction(() => document.querySelectorAll('[role="option"]').length === 1);
  expect(await options(pat).locator('strong').allTextContents()).toEqual(['Book a call']);
  await picker(pat).fill('');
  await pat.waitForFunction(() => document.querySelectorAll('[role="option"]').length === 3);
  await pat.keyboard.press('ArrowDown');
  await pat.keyboard.press('ArrowDown');
  const active = await picker(pat).getAttribute('aria-activedescendant');
  expect(await pat.locator(`[id="${active}"] strong`).textContent()).toBe('Prices');
  await pat.keyboard.press('ArrowDown');
  expect(await options(pat).first().getAttribute('aria-selected')).toBe('true');
  await pat.keyboard.press('ArrowUp');
  await pat.keyboard.press('Enter');
  await picker(pat).waitFor({ state: 'detached' });
  expect(await replyBox(pat).inputValue()).toBe('Hi Ruth, our prices are on example.com/prices');
  expect(await replyBox(pat).evaluate((el) => el === document.activeElement)).toBe(true);
  // Enter took the option: nothing was sent.
  expect(await messagesOf()).toBe('Hi Ruth, our prices are on example.com/prices - see you soon');
  await replyBox(pat).fill('');
});

test('Settings › Saved replies: an agent adds one and changes their own, not a colleague’s; the owner changes any', async () => {
  await pat.goto(`${gw.url}/console/settings/saved-replies`);
  await pat.getByRole('heading', { name: 'Your team’s saved replies' }).waitFor();
  await pat.locator('#saved-reply-new-name').fill('Opening hours');
  await pat.locator('#saved-reply-new-text').fill('We open at 9, {{first_name|friend}}.');
  await pat.getByRole('button', { name: 'Save reply' }).click();
  await pat.getByText('“Opening hours” saved').waitFor();
  await pat.getByRole('heading', { name: 'Opening hours' }).waitFor();
  expect(await pat.locator('.saved-reply h3').allTextContents()).toEqual([
    'Address',
    'Book a call',
    'Opening hours',
    'Prices',
  ]);
  // Saved with the API key: no Edit nor Delete for an agent.
  expect(await pat.getByRole('button', { name: 'Edit Prices' }).count()).toBe(0);
  expect(await pat.getByRole('button', { name: 'Delete Prices' }).count()).toBe(0);
  // An unknown placeholder is refused, named.
  await pat.getByRole('button', { name: 'Edit Opening hours' }).click();
  await pat.locator('.saved-reply form textarea').fill('We open at {{hour}}');
  await pat.getByRole('button', { name: 'Save changes' }).click();
  await pat.getByRole('alert').filter({ hasText: 'unknown field {{hour}}' }).waitFor();
  await pat.locator('.saved-reply form textarea').fill('We open at 8, {{first_name|friend}}.');
  await pat.getByRole('button', { name: 'Save changes' }).click();
  await pat.getByText('We open at 8, {{first_name|friend}}.').waitFor();
  expect(await seriousViolations(pat)).toEqual([]);
  await screenshot(pat, 'settings-saved-replies');

  // The owner changes any, and deletes Pat's, asked a second time.
  await boss.reload();
  await boss.getByRole('button', { name: 'Edit Prices' }).waitFor();
  await boss.getByRole('button', { name: 'Delete Opening hours' }).click();
  await boss.getByRole('button', { name: 'Delete for the whole team' }).click();
  await boss.getByRole('heading', { name: 'Opening hours' }).waitFor({ state: 'detached' });
  const left = (await api('GET', '/v1/saved-replies')).body.data.map((s: any) => s.name);
  expect(left).toEqual(['Address', 'Book a call', 'Prices']);
});
