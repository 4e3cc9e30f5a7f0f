import type { Browser, Locator, Page } from 'playwright-core';
import { incoming, Receiver } from '../gateway/api-support';
import { request, type TestGateway } from '../helpers/gateway';
import { newContext, signInAt, startConsole, stopConsole, wcagViolations } from './browser';
import { filledAccount, type FilledAccount } from './filled-account';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * The console held to WCAG 2.1 A and AA where every-page.test.ts does not look: the states a page reaches by being
 * used (a dialog open, a confirmation asked, a file chosen for import, a preview and the bot's answer, a form's
 * problems, a sub-account chosen) and the pages as an agent sees them. axe-core checks what it can check; the tests
 * after it check with the keyboard alone what it cannot (focus, live regions).
 */
jest.setTimeout(180_000);

let gw: TestGateway;
let browser: Browser;
let filled: FilledAccount;
/** A sub-account of the agency, granted credits: its Credits page has a history. */
let clinic: ConsoleAccount;

const url = (p: string) => `${gw.url}${p}`;

beforeAll(async () => {
  [gw, browser] = await startConsole({ LEADCHAT_JOB_POLL: '100ms' });
  filled = await filledAccount(gw);
  clinic = await consoleAccount(gw, { parentEmail: filled.agency.email, name: 'Bright Clinic' });
  const body = { email: clinic.email, amount: 5 };
  expect((await request(gw, 'POST', '/v1/subaccounts/credits', { apiKey: filled.agency.apiKey, body })).status).toBe(
    200,
  );
});
afterAll(async () => {
  await stopConsole(gw, browser);
});

/** A signed-in page of `who`'s, at desktop width, opened at `path`. */
async function signedIn(who: ConsoleAccount, path: string): Promise<Page> {
  const page = await (await newContext(browser)).newPage();
  await signInAt(page, url(path), who);
  return page;
}

const h1 = (p: Page, name: string) => p.getByRole('heading', { level: 1, name }).waitFor();

test('axe finds no WCAG 2.1 A or AA violation on any page in use, as owner, agent and agency', async () => {
  const found: Record<string, string[]> = {};
  const scan = async (page: Page, state: string) => {
    const violations = await wcagViolations(page);
    if (violations.length) found[state] = violations;
  };
  const { owner, agent, agency, listId, campaignId, conversationId } = filled;

  const clinicPage = await signedIn(clinic, '/console/credits');
  await clinicPage.getByRole('button', { name: 'Save warning' }).waitFor();
  await clinicPage.getByRole('table').first().waitFor();
  await scan(clinicPage, "a sub-account's credits");
  await clinicPage.context().close();

  const page = await signedIn(owner, `/console/inbox?c=${conversationId}`);
  await page.getByRole('button', { name: 'Contact details' }).click();
  await page.getByRole('dialog', { name: 'Eve' }).getByLabel('First name').waitFor();
  await scan(page, 'thread, the contact panel open');

  await page.goto(url(`/console/lists?id=${listId}`));
  await page.getByRole('button', { name: 'Add to the list' }).click();
  await page.getByRole('alert').filter({ hasText: /\w/ }).first().waitFor();
  await scan(page, 'list, a contact added with nothing in it');
  await page.locator('input[type=file]').setInputFiles({
    name: 'more.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('Name,Phone,City\nGil,+15550102009,Rome\n'),
  });
  await page.getByLabel('Custom field for the column “City”').waitFor();
  await scan(page, 'list, a file chosen for import');
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByRole('region', { name: 'Import report' }).waitFor();
  await scan(page, 'list, the import done');

  await page.goto(url(`/console/campaigns?id=${campaignId}`));
  await h1(page, 'Spring check-ups');
  await page.getByLabel('Contact’s phone').fill('+15550102001');
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByRole('region', { name: 'Opening message preview' }).waitFor();
  await page.getByLabel('Question', { exact: true }).fill('When do you open?');
  await page.getByRole('button', { name: 'Ask the bot' }).click();
  await page.getByText('At 9 am.').last().waitFor();
  await scan(page, 'campaign, a preview and the bot answering');

  await page.goto(url('/console/settings/members'));
  await page.getByRole('button', { name: 'Remove Ada Agent' }).click();
  await page.getByRole('group', { name: 'Remove Ada Agent' }).waitFor();
  await scan(page, 'members, a removal asked');

  await page.goto(url('/console/settings/account'));
  await page.getByRole('button', { name: 'Generate new API key' }).click();
  await page.getByRole('button', { name: 'Generate and replace the current key' }).waitFor();
  await scan(page, 'account, a new key asked');
  await page.context().close();

  const agentPage = await signedIn(agent, '/console/inbox');
  for (const [state, path, ready] of [
    ['inbox', '/console/inbox', (p: Page) => p.locator('.inbox-item').filter({ hasText: 'Fay' }).waitFor()],
    ['thread', `/console/inbox?c=${conversationId}`, (p: Page) => p.getByText('My x-ray', { exact: true }).waitFor()],
    ['lists', '/console/lists', (p: Page) => p.getByRole('link', { name: 'Patients' }).waitFor()],
    ['list', `/console/lists?id=${listId}`, (p: Page) => p.locator('table.imports tbody tr').first().waitFor()],
    ['campaigns', '/console/campaigns', (p: Page) => p.getByRole('link', { name: 'Spring check-ups' }).waitFor()],
    ['funnel', '/console/funnel', (p: Page) => p.locator('.funnel-table').waitFor()],
    ['credits', '/console/credits', (p: Page) => h1(p, 'Credits')],
  ] as const) {
    await agentPage.goto(url(path));
    await ready(agentPage);
    await scan(agentPage, `agent's ${state}`);
  }
  await agentPage.goto(url(`/console/inbox?c=${conversationId}`));
  await agentPage.getByRole('button', { name: 'Contact details' }).click();
  await agentPage.getByRole('dialog', { name: 'Eve' }).getByLabel('First name').waitFor();
  await scan(agentPage, "agent's thread, the contact panel open");
  await agentPage.context().close();

  const agencyPage = await signedIn(agency, '/console/agency');
  await agencyPage.getByRole('button', { name: 'Credit history of Smile Clinic' }).click();
  await agencyPage.getByRole('button', { name: 'Credit history of Smile Clinic', pressed: true }).waitFor();
  await scan(agencyPage, 'agency, a sub-account chosen');
  await agencyPage.context().close();

  expect(found).toEqual({});
});

/** Presses `key` until `target` has the focus, as a keyboard user goes through the page; fails past 40 presses. */
async function pressUntilFocused(page: Page, target: Locator, key = 'Tab'): Promise<void> {
  for (let n = 0; n < 40; n++) {
    await page.keyboard.press(key);
    if (await focused(target)) return;
  }
  throw new Error(`${key} never reaches ${target.toString()}`);
}
const focused = (target: Locator) => target.evaluate((e) => e === document.activeElement);

test('a conversation is opened, answered and handed back with the keyboard alone', async () => {
  const members = await request(gw, 'GET', '/v1/members', { apiKey: filled.owner.apiKey });
  const agentId = members.body.data.find((m: { email: string }) => m.email === filled.agent.email).id;
  const page = await signedIn(filled.agent, '/console/inbox');
  const fay = page.getByRole('button', { name: /^Fay\b/ });
  await fay.waitFor();
  await pressUntilFocused(page, fay);
  await page.keyboard.press('Enter');
  const thread = page.getByRole('region', { name: 'Fay' });
  const fayConversation = new URL(page.url()).searchParams.get('c');
  expect(await focused(thread.getByRole('heading', { name: 'Fay' }))).toBe(true);

  // The web chat takes replies while Fay is answered: a reply sent reaches her.
  const chat = await Receiver.start(() => ({ status: 200 }));
  const takes = async (url: string | null) =>
    expect(
      (
        await request(gw, 'PUT', '/v1/settings', {
          apiKey: filled.owner.apiKey,
          body: { customChannelWebhookUrl: url },
        })
      ).status,
    ).toBe(200);
  await takes(chat.url);
  await pressUntilFocused(page, thread.getByLabel('Reply as your team'));
  await page.keyboard.type('We can see you at 10.');
  await page.keyboard.press('Tab');
  const send = thread.getByRole('button', { name: 'Send reply' });
  expect(await focused(send)).toBe(true);
  await page.keyboard.press('Enter');
  await thread.getByRole('status').filter({ hasText: 'Reply sent.' }).waitFor();
  await chat.waitFor(1);
  await takes(null);
  await chat.close();
  // The focus stays where the reply was sent from: the next Tab goes on from there, not from the page's top.
  expect(await focused(send)).toBe(true);

  // Handed back to the bot.
  const botOn = thread.getByRole('button', { name: 'Turn the bot on' });
  await pressUntilFocused(page, botOn, 'Shift+Tab');
  await page.keyboard.press('Enter');
  await thread.getByRole('status').filter({ hasText: 'The bot is on again for this contact.' }).waitFor();
  expect(await focused(thread.getByRole('button', { name: 'Turn the bot off' }))).toBe(true);

  // And to nobody of the team: the arrow keys go through the members without giving it to each on the way.
  const picker = thread.getByLabel('Assigned to', { exact: true });
  await pressUntilFocused(page, picker, 'Shift+Tab');
  await page.keyboard.press('End');
  await page.keyboard.press('Home');
  const assignee = async () =>
    (await request(gw, 'GET', `/v1/conversations/${fayConversation}`, { apiKey: filled.owner.apiKey })).body.assigneeId;
  expect(await assignee()).toBe(agentId);
  await page.keyboard.press('Tab');
  expect(await focused(thread.getByRole('button', { name: 'Assign', exact: true }))).toBe(true);
  await page.keyboard.press('Enter');
  await thread.getByRole('status').filter({ hasText: 'Assigned to nobody.' }).waitFor();
  expect(await assignee()).toBeNull();
  expect(await focused(picker)).toBe(true);
  await page.context().close();
});

test('the focus goes on from what was used when it goes: a thread closed, a question answered, Assign to me', async () => {
  const page = await signedIn(filled.owner, '/console/inbox');
  await page.setViewportSize({ width: 390, height: 844 });
  const eve = page.getByRole('button', { name: /^Eve\b/ });
  await eve.focus();
  await page.keyboard.press('Enter');
  const thread = page.getByRole('region', { name: 'Eve' });
  const assignToMe = thread.getByRole('button', { name: 'Assign to me' });
  await pressUntilFocused(page, assignToMe);
  await page.keyboard.press('Enter');
  await thread.getByRole('status').filter({ hasText: 'Assigned to you.' }).waitFor();
  expect(await focused(thread.getByLabel('Assigned to', { exact: true }))).toBe(true);
  // At phone width the thread fills the screen; closed, the focus is back on its conversation in the list.
  await pressUntilFocused(page, thread.getByRole('button', { name: 'All conversations' }), 'Shift+Tab');
  await page.keyboard.press('Enter');
  await thread.waitFor({ state: 'detached' });
  expect(await focused(eve)).toBe(true);

  await page.goto(url('/console/settings/members'));
  const remove = page.getByRole('button', { name: 'Remove New Agent' });
  await remove.focus();
  // The focus moves in the same render as the question appears, not a frame later: nothing reads the page between.
  const focusedOnceShown = await remove.evaluate(async (button: HTMLElement) => {
    button.click();
    await Promise.resolve();
    return document.activeElement?.textContent;
  });
  expect(focusedOnceShown).toBe('Remove from the team');
  const question = page.getByRole('group', { name: 'Remove New Agent' });
  expect(await focused(question.getByRole('button', { name: 'Remove from the team' }))).toBe(true);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await question.waitFor({ state: 'detached' });
  expect(await focused(remove)).toBe(true);
  await page.context().close();
});

test("a contact's message coming into the open thread is told to a screen reader", async () => {
  const page = await signedIn(filled.agent, `/console/inbox?c=${filled.conversationId}`);
  const thread = page.getByRole('region', { name: 'Eve' });
  await thread.getByText('My x-ray', { exact: true }).waitFor();
  const told = thread.getByRole('status').filter({ hasText: 'Eve wrote:' });
  expect(await told.count()).toBe(0);

  const body = incoming({ fromId: 'visitor-eve', channel: 'web-chat', body: 'Is Saturday free?' });
  expect(
    (await request(gw, 'POST', '/v1/incoming_custom_channel_message', { apiKey: filled.owner.apiKey, body })).status,
  ).toBe(200);
  await thread.getByText('Is Saturday free?', { exact: true }).waitFor();
  await told.waitFor({ state: 'attached' });
  expect(await told.textContent()).toBe('Eve wrote: Is Saturday free?');
  await page.context().close();
});

test('what the contact search found is told by a live region there before it answers', async () => {
  const page = await signedIn(filled.agent, '/console/inbox');
  const told = page.getByRole('search', { name: 'Contacts' }).getByRole('status');
  const box = page.getByRole('searchbox', { name: 'Find a contact' });
  await box.waitFor();
  // A screen reader reads a live region's changes, not one that comes with its text.
  expect(await told.count()).toBe(1);
  const before = await told.elementHandle();
  await box.fill('eve');
  await told.filter({ hasText: 'Contacts matching “eve”:' }).waitFor();
  expect(await before!.evaluate((e) => e.isConnected && e.textContent)).toBe('Contacts matching “eve”:');
  await page.context().close();
});

test('retried, the failed messages of a thread are told and the focus stays in the thread', async () => {
  const page = await signedIn(filled.owner, `/console/inbox?c=${filled.conversationId}`);
  const thread = page.getByRole('region', { name: 'Eve' });
  const retry = thread.getByRole('button', { name: /^Retry the \d+ failed/ });
  await retry.waitFor();
  // The receiver is there now: the retry sends them all.
  const hook = await Receiver.start(() => ({ status: 200 }));
  try {
    const settings = { customChannelWebhookUrl: hook.url };
    expect((await request(gw, 'PUT', '/v1/settings', { apiKey: filled.owner.apiKey, body: settings })).status).toBe(
      200,
    );
    await retry.focus();
    await page.keyboard.press('Enter');
    // Nothing failed is left to retry: the button goes, what it did stays told, and the focus stays where it was.
    await retry.waitFor({ state: 'detached' });
    const told = thread.getByRole('status').filter({ hasText: /^\d+ messages? sent again\.$/ });
    expect(await told.count()).toBe(1);
    expect(await told.evaluate((e) => e.parentElement === document.activeElement)).toBe(true);

    // One message retried: its Retry goes, and the focus goes to the message, now being sent.
    await page.getByRole('button', { name: /^Fay\b/ }).click();
    const fayThread = page.getByRole('region', { name: 'Fay' });
    const retryOne = page.getByRole('button', { name: 'Retry', exact: true });
    const message = (await fayThread.locator('.inbox-msg').filter({ has: retryOne }).first().elementHandle())!;
    await (await message.$('button'))!.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((m) => !m.querySelector('button'), message);
    expect(await message.evaluate((m) => m === document.activeElement)).toBe(true);
  } finally {
    await page.context().close();
    await hook.close();
  }
});
