import type { Browser, BrowserContext, Page } from 'playwright-core';
import { advanceClock, incoming, poll, Receiver, request, untilIdle } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { newContext, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { notifySwitch, recordNotifications, told } from './notifications';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * Snooze in the open conversation: a ready choice (later today, tomorrow 09:00, next week) or a date and time, in the
 * member's time zone; the conversation leaves the Inbox's list unless its **Snoozed** filter asks for them, says until
 * when, and **Wake now** brings it back. At its time it comes back, and a member's console tells them.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let replies: Receiver;
let owner: ConsoleAccount;
const contexts: BrowserContext[] = [];
/** The owner at a desk with Ruth's conversation open, and in another browser with the Inbox's list alone. */
let desk: Page;
let list: Page;
let ruth: string;

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const write = async (fromId: string, firstName: string, body: string) => {
  const res = await api('POST', '/v1/incoming_custom_channel_message', {
    ...incoming({ fromId, firstName, channel: 'web-chat', body }),
  });
  expect(res.status).toBe(200);
  return (await api('GET', `/v1/messages/${res.body.messageId}`)).body as { conversationId: string; contactId: string };
};
/** A contact the team answered: nobody waits, so it may be snoozed. */
const answered = async (fromId: string, firstName: string) => {
  const written = await write(fromId, firstName, 'Call me back next month');
  expect((await api('POST', `/v1/contacts/${written.contactId}/messages`, { body: 'Sure, talk then!' })).status).toBe(
    201,
  );
  return written.conversationId;
};
const item = (p: Page, name: string) => p.getByRole('button', { name: new RegExp(`^${name} ?,`) });
const conversation = async (id: string) => (await api('GET', `/v1/conversations/${id}`)).body;

async function inbox(address: string): Promise<Page> {
  const context = await newContext(browser);
  contexts.push(context);
  await context.addInitScript(recordNotifications);
  const p = await context.newPage();
  await signInAt(p, address, owner);
  return p;
}

beforeAll(async () => {
  replies = await Receiver.start();
  [gw, browser] = await startConsole({ LEADCHAT_TEST_CLOCK: '1' });
  owner = await consoleAccount(gw, { name: 'Snooze Dental' });
  expect((await api('PUT', '/v1/settings', { customChannelWebhookUrl: replies.url })).status).toBe(200);
  ruth = await answered('visitor-ruth', 'Ruth');
  await answered('visitor-omar', 'Omar');
  desk = await inbox(`${gw.url}/console/inbox?c=${ruth}`);
  list = await inbox(`${gw.url}/console/inbox`);
  await notifySwitch(list).check();
  await item(list, 'Ruth').waitFor();
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await replies?.close();
  await stopConsole(gw, browser);
});

test('Tomorrow snoozes the conversation until 09:00 in the member’s time zone: out of the list, until Snoozed asks for it', async () => {
  const snooze = desk.getByLabel('Snooze', { exact: true });
  await snooze.selectOption({ label: (await snooze.locator('option', { hasText: 'Tomorrow' }).textContent())! });
  // The keyboard reaches every step: the choice, then its button.
  await desk.getByRole('button', { name: 'Snooze', exact: true }).focus();
  await desk.keyboard.press('Enter');
  await desk.locator('p.done', { hasText: /^Snoozed until .+\.$/ }).waitFor();
  const until = (await conversation(ruth)).snoozedUntil as string;
  const wall = await desk.evaluate((iso) => {
    const d = new Date(iso);
    const tomorrow = new Date();
    tomorrow.setDate(tomorrow.getDate() + 1);
    return [d.toDateString() === tomorrow.toDateString(), d.getHours(), d.getMinutes()];
  }, until);
  expect(wall).toEqual([true, 9, 0]);
  await desk.getByRole('button', { name: 'Wake now' }).waitFor();
  expect(await seriousViolations(desk)).toEqual([]);
  await screenshot(desk, 'inbox-thread-snoozed');

  // Gone from the list of the other browser, live; the Snoozed filter shows it, saying until when.
  await item(list, 'Ruth').waitFor({ state: 'detached' });
  await item(list, 'Omar').waitFor();
  await list.getByLabel('Snoozed').selectOption('Only snoozed');
  await list.getByRole('button', { name: /^Ruth ?, .*snoozed until .+, / }).waitFor();
  expect(await item(list, 'Omar').count()).toBe(0);
  await list.getByLabel('Snoozed').selectOption('Hidden');
  await item(list, 'Omar').waitFor();
});

test('Wake now brings it back to the list at once; a date and time typed snoozes it until then', async () => {
  await desk.getByRole('button', { name: 'Wake now' }).click();
  await desk.getByText('Back in the inbox.').waitFor();
  expect((await conversation(ruth)).snoozedUntil).toBeNull();
  await item(list, 'Ruth').waitFor();
  // The focus goes to the choice that replaces the button.
  await poll(
    () => desk.evaluate(() => document.activeElement?.id),
    (id) => id === 'thread-snooze',
  );

  await desk.getByLabel('Snooze', { exact: true }).selectOption('A date and time…');
  const at = await desk.evaluate(() => {
    // An hour on, to the minute: within the session's idle time, which the clock moved past it must not outrun.
    const d = new Date(Date.now() + 61 * 60 * 1000);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  });
  await desk.getByLabel('Until').fill(at);
  await desk.getByRole('button', { name: 'Snooze', exact: true }).click();
  await desk.locator('p.done', { hasText: /^Snoozed until .+\.$/ }).waitFor();
  const until = (await conversation(ruth)).snoozedUntil as string;
  expect(await desk.evaluate((iso) => new Date(iso).getTime(), until)).toBe(
    await desk.evaluate((local) => new Date(local).getTime(), at),
  );
  await item(list, 'Ruth').waitFor({ state: 'detached' });
});

test('a contact waiting for a reply cannot be snoozed: the conversation says to answer first', async () => {
  const { conversationId } = await write('visitor-zoe', 'Zoe', 'Can someone call me?');
  await desk.goto(`${gw.url}/console/inbox?c=${conversationId}`);
  await desk.getByText('Snooze: the contact waits for a reply. Answer them first.').waitFor();
  expect(await desk.getByLabel('Snooze', { exact: true }).count()).toBe(0);
});

test('at its time it comes back to the top of the list, and the member is told', async () => {
  await advanceClock(gw, '62m');
  await untilIdle(gw);
  await item(list, 'Ruth').waitFor();
  const told1 = await poll(
    () => told(list),
    (t) => t.some((n) => n.title === 'Snooze ended: Ruth'),
  );
  expect(told1.filter((n) => n.title === 'Snooze ended: Ruth')).toEqual([
    { title: 'Snooze ended: Ruth', body: 'Back in the inbox: the time it was snoozed until came.' },
  ]);
  expect((await conversation(ruth)).snoozedUntil).toBeNull();
});
