import type { Browser, Page } from 'playwright-core';
import type { TestGateway } from '../helpers/gateway';
import { api, incoming, Receiver } from '../gateway/api-support';
import { openPage, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { acceptInvite, consoleAccount, setPassword, withSession, type ConsoleAccount } from './support';

/**
 * A session that ends while a page is open (its twelve hours up, a password reset, a sign-out in another tab): the
 * page stays as it was, what was typed in it too, and asks for the password again where it is. Signed in again,
 * the change goes through.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let page: Page;
let conversationId: string;
let contactId: string;
let chat: Receiver;

const url = (p: string) => `${gw.url}${p}`;
const reply = () => page.getByLabel('Reply as your team', { exact: true });
const signInAgain = () => page.getByRole('region', { name: 'Sign in again' });
/** The web chat of the account takes its replies: a reply sent reaches the contact. */
const takesReplies = async (account: ConsoleAccount) =>
  expect((await api(gw, account, 'PUT', '/v1/settings', { body: { customChannelWebhookUrl: chat.url } })).status).toBe(
    200,
  );
/** The operator resets the owner's password: every session of the account ends at once. */
const endSessions = async (password: string) => {
  expect((await setPassword(gw, owner.id, password)).status).toBe(200);
  owner.password = password;
};

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Session Dental' });
  chat = await Receiver.start();
  await takesReplies(owner);
  const written = await api(gw, owner, 'POST', '/v1/incoming_custom_channel_message', {
    body: incoming({ fromId: 'visitor-ines', firstName: 'Ines', body: 'Are you open on Saturday?' }),
  });
  ({ conversationId, contactId } = (await api(gw, owner, 'GET', `/v1/messages/${written.body.messageId}`)).body);
  ({ page } = await openPage(browser));
});
afterAll(async () => {
  await chat?.close();
  await stopConsole(gw, browser);
});

test('a reply sent after the session ended stays typed on its page, which asks for the password; signed in again, it goes', async () => {
  await signInAt(page, url(`/console/inbox?c=${conversationId}`), owner);
  const text = 'We are open on Saturday from 9 to 1: shall I book you in? مرحبا 😀';
  await reply().fill(text);
  await endSessions('a new long passphrase for the owner');

  await page.getByRole('button', { name: 'Send reply' }).click();
  await signInAgain().waitFor();
  expect(await page.locator('.inbox-reply .error').textContent()).toBe(
    'Your session has ended: sign in again at the top of the page, then try again.',
  );
  expect(page.url()).toBe(url(`/console/inbox?c=${conversationId}`));
  expect(await reply().inputValue()).toBe(text);
  expect(await page.getByRole('button', { name: 'Send reply' }).isEnabled()).toBe(true);
  expect(await signInAgain().textContent()).toContain(
    `Your session has ended. Sign in again as ${owner.email} to go on: what you typed on this page stays.`,
  );
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'session-ended');

  const password = signInAgain().getByLabel('Password', { exact: true });
  await password.fill('not the password at all');
  await signInAgain().getByRole('button', { name: 'Sign in' }).click();
  await signInAgain()
    .getByRole('alert')
    .filter({ hasText: /not right/ })
    .waitFor();
  await password.fill(owner.password);
  await signInAgain().getByRole('button', { name: 'Sign in' }).click();
  await signInAgain().waitFor({ state: 'detached' });
  expect(await reply().inputValue()).toBe(text);

  await page.getByRole('button', { name: 'Send reply' }).click();
  await page.getByRole('status').filter({ hasText: 'Reply sent.' }).waitFor();
  expect(await reply().inputValue()).toBe('');
  const sent = await api(gw, owner, 'GET', `/v1/contacts/${contactId}/messages`);
  expect(sent.body.data.map((m: { body: string }) => m.body)).toContain(text);
});

test("signing in as someone else leaves for the sign-in page, which leads back to the page's address, query and all", async () => {
  await page.goto(url(`/console/inbox?c=${conversationId}`));
  await reply().waitFor();
  await endSessions('yet another long passphrase');
  await reply().fill('Typed after the end');
  await page.getByRole('button', { name: 'Send reply' }).click();
  await signInAgain().getByRole('link', { name: 'Sign in as someone else' }).click();
  await page.waitForURL((u) => u.pathname === '/console/sign-in');
  expect(new URL(page.url()).searchParams.get('next')).toBe(`/console/inbox?c=${conversationId}`);
  await page.getByLabel('Email', { exact: true }).fill(owner.email);
  await page.getByLabel('Password', { exact: true }).fill(owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(url(`/console/inbox?c=${conversationId}`));
  await reply().waitFor();
});

test('signed out and in again in one tab, another tab of the browser goes on: its change is sent, not refused', async () => {
  const address = url(`/console/inbox?c=${conversationId}`);
  await signInAt(page, address, owner);
  await reply().waitFor();
  const other = await page.context().newPage();
  await other.goto(address);
  await other.getByLabel('Reply as your team', { exact: true }).fill('Sent from the other tab');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL((u) => u.pathname === '/console/sign-in');
  await page.getByLabel('Email', { exact: true }).fill(owner.email);
  await page.getByLabel('Password', { exact: true }).fill(owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/console/inbox');

  await other.getByRole('button', { name: 'Send reply' }).click();
  await other.getByRole('status').filter({ hasText: 'Reply sent.' }).waitFor();
  expect(await other.getByRole('region', { name: 'Sign in again' }).count()).toBe(0);
  const sent = await api(gw, owner, 'GET', `/v1/contacts/${contactId}/messages`);
  expect(sent.body.data.map((m: { body: string }) => m.body)).toContain('Sent from the other tab');
  await other.close();
});

test("a contact's details edited in its panel when the session ended stay typed; the panel asks for the password, and signed in again they are saved", async () => {
  await signInAt(page, url(`/console/inbox?c=${conversationId}`), owner);
  await page.getByRole('button', { name: 'Contact details' }).click();
  const panel = page.getByRole('dialog');
  const lastName = panel.getByLabel('Last name', { exact: true });
  await lastName.fill('Ortega Ruiz');
  await endSessions('a passphrase set while the panel was open');

  await panel.getByRole('button', { name: 'Save contact' }).click();
  // The page beneath the panel is inert: the panel itself asks for the password.
  const again = panel.getByRole('region', { name: 'Sign in again' });
  await again.waitFor();
  expect(await page.getByRole('region', { name: 'Sign in again' }).count()).toBe(1);
  expect(await lastName.inputValue()).toBe('Ortega Ruiz');
  expect(await seriousViolations(page)).toEqual([]);
  await again.getByLabel('Password', { exact: true }).fill(owner.password);
  await again.getByRole('button', { name: 'Sign in' }).click();
  await again.waitFor({ state: 'detached' });
  expect(await lastName.inputValue()).toBe('Ortega Ruiz');

  await panel.getByRole('button', { name: 'Save contact' }).click();
  await panel.getByRole('status').filter({ hasText: /saved/i }).waitFor();
  expect((await api(gw, owner, 'GET', `/v1/contacts/${contactId}`)).body.lastName).toBe('Ortega Ruiz');
  await panel.getByRole('button', { name: 'Close' }).click();
});

test('signed in as someone else in another tab, a tab of the member before shows nothing of theirs: it says to reload', async () => {
  const stranger = await consoleAccount(gw, { name: 'Other Clinic' });
  await api(gw, stranger, 'POST', '/v1/incoming_custom_channel_message', {
    body: incoming({ fromId: 'visitor-olaf', firstName: 'Olaf', body: 'Is this the other clinic?' }),
  });
  await signInAt(page, url('/console/inbox'), owner);
  const names = page.locator('.inbox-item-name');
  await names.filter({ hasText: 'Ines' }).waitFor();

  const other = await page.context().newPage();
  await other.goto(url('/console/inbox'));
  await other.getByRole('button', { name: 'Sign out' }).click();
  await other.waitForURL((u) => u.pathname === '/console/sign-in');
  await other.getByLabel('Email', { exact: true }).fill(stranger.email);
  await other.getByLabel('Password', { exact: true }).fill(stranger.password);
  await other.getByRole('button', { name: 'Sign in' }).click();
  await other.waitForURL((u) => u.pathname === '/console/inbox');
  await other.locator('.inbox-item-name').filter({ hasText: 'Olaf' }).waitFor();

  // The first tab reads its list again: the browser's session is now the other member's.
  await page.getByRole('radio', { name: 'Unassigned' }).check();
  await page
    .getByRole('alert')
    .filter({ hasText: 'Someone else signed in in another tab of this browser: reload the page to go on as them.' })
    .first()
    .waitFor();
  expect(await names.filter({ hasText: 'Olaf' }).count()).toBe(0);
  await other.close();
});

test("signed in again from the page, a member of several teams with one password goes on in the page's account, not the first", async () => {
  // The owner of Session Dental is on Second Clinic's team too, with the same password: the password opens both.
  const second = await consoleAccount(gw, { name: 'Second Clinic' });
  await takesReplies(second);
  const invited = await api(gw, second, 'POST', '/v1/members', {
    body: { email: owner.email, name: 'Dana Ortiz', role: 'agent' },
  });
  expect(invited.status).toBe(201);
  const session = await acceptInvite(gw, invited.body.inviteUrl, owner.password);
  expect(session.reply.status).toBe(200);
  const written = await api(gw, second, 'POST', '/v1/incoming_custom_channel_message', {
    body: incoming({ fromId: 'visitor-pia', firstName: 'Pia', body: 'Do you have a slot on Monday?' }),
  });
  const there = (await api(gw, second, 'GET', `/v1/messages/${written.body.messageId}`)).body;
  const [name, value] = session.cookie.split('=') as [string, string];
  await page.context().clearCookies();
  await page.context().addCookies([{ name, value, url: gw.url, secure: true, httpOnly: true, sameSite: 'Strict' }]);
  await page.goto(url(`/console/inbox?c=${there.conversationId}`));
  await reply().fill('Monday at 9 is free.');

  // Signed out in another tab: the page asks for the password again.
  expect(
    (await withSession(gw, session, 'DELETE', '/console/api/session', { headers: { origin: gw.url } })).status,
  ).toBe(204);
  await page.getByRole('button', { name: 'Send reply' }).click();
  await signInAgain().getByLabel('Password', { exact: true }).fill(owner.password);
  await signInAgain().getByRole('button', { name: 'Sign in' }).click();
  await signInAgain().waitFor({ state: 'detached' });
  expect(page.url()).toBe(url(`/console/inbox?c=${there.conversationId}`));
  expect(await reply().inputValue()).toBe('Monday at 9 is free.');
  await page.getByRole('button', { name: 'Send reply' }).click();
  await page.getByRole('status').filter({ hasText: 'Reply sent.' }).waitFor();
  const sent = await api(gw, second, 'GET', `/v1/contacts/${there.contactId}/messages`);
  expect(sent.body.data.map((m: { body: string }) => m.body)).toContain('Monday at 9 is free.');
});
