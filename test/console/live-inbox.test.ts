import type { Browser, BrowserContext, Page } from 'playwright-core';
import { incoming, poll, Receiver, request, untilIdle } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import {
  newContext,
  openPage,
  screenshot,
  seriousViolations,
  signInAt,
  startConsole,
  stopConsole,
  untilTitled,
} from './browser';
import { chimes, notifySwitch, permissionAsked, recordNotifications, told } from './notifications';
import { consoleAccount, teamMember, withSession, type ConsoleAccount } from './support';

/**
 * The console lives on its stream (GET /console/api/stream): a contact's message shows in the open inbox and thread
 * within a second, with no reload and no request at all while nothing changes; the tab's title counts the
 * conversations waiting for the member's reply (theirs, and those nobody has); a desktop notification and a sound tell of a conversation assigned
 * to the member or a contact writing in one of theirs, once asked for by a click. With the stream down, the inbox
 * reads every 3 s until it is back. The browser's clock is Playwright's: time runs, and a test moves it on at once
 * where it proves what many seconds would (no poll comes).
 */
jest.setTimeout(60_000);

/** What the page asked the gateway for: the API and the console's own API, the stream included. */
type Asked = { path: string };

let gw: TestGateway;
let browser: Browser;
let hook: Receiver;
let owner: ConsoleAccount;
let ownerId: string;
let context: BrowserContext;
let page: Page;
const asked: Asked[] = [];
/** Lena's conversation, open in the thread; Nadia's, a new one. */
let lena: string;
let nadia: string;

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const write = async (fromId: string, firstName: string, body: string) => {
  const res = await api(
    'POST',
    '/v1/incoming_custom_channel_message',
    incoming({ fromId, firstName, channel: 'web-chat', body }),
  );
  expect(res.status).toBe(200);
  return (await api('GET', `/v1/messages/${res.body.messageId}`)).body.conversationId as string;
};
const item = (p: Page, name: string) => p.locator('.inbox-item').filter({ hasText: name });
const threadShows = (p: Page, text: string) => p.locator('.inbox-thread .inbox-msg-body').filter({ hasText: text });

/** Watches what `p` asks of the API and the console's API, and how many of those requests are still under way. */
function watch(p: Page, into: Asked[]): { inFlight: () => number } {
  let inFlight = 0;
  const ours = (url: string) => {
    const { pathname, search } = new URL(url);
    return pathname.startsWith('/v1/') || pathname.startsWith('/console/api/') ? pathname + search : undefined;
  };
  p.on('request', (r) => {
    const path = ours(r.url());
    if (!path) return;
    into.push({ path });
    if (!path.startsWith('/console/api/stream')) inFlight += 1;
  });
  const done = (r: { url: () => string }) => {
    const path = ours(r.url());
    if (path && !path.startsWith('/console/api/stream')) inFlight -= 1;
  };
  p.on('requestfinished', done);
  p.on('requestfailed', done);
  return { inFlight: () => inFlight };
}

/**
 * The requests `p` makes while its clock runs `ms` on (every timer due meanwhile fires), counted up to a marker
 * request made afterwards: the browser reports requests in order, so none made in that time comes later.
 */
async function requestsWhileClockRuns(p: Page, into: Asked[], ms: number): Promise<Asked[]> {
  const from = into.length;
  await p.clock.runFor(ms);
  const marker = p.waitForRequest((r) => r.url().includes('marker='));
  await p.evaluate(() => void fetch('/console/assets/app.css?marker=1'));
  await marker;
  return into.slice(from);
}

/** Nothing under way: the gateway's jobs done, the page's timers of the moment run, and none of its requests open. */
async function settled(p: Page, inFlight: () => number): Promise<void> {
  await untilIdle(gw);
  await p.clock.runFor(1_000);
  await poll(
    async () => inFlight(),
    (n) => n === 0,
  );
}

let watcher: { inFlight: () => number };

beforeAll(async () => {
  hook = await Receiver.start();
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Live Dental' });
  ownerId = (await api('GET', '/v1/members')).body.data[0].id;
  expect((await api('PUT', '/v1/settings', { customChannelWebhookUrl: hook.url })).status).toBe(200);
  lena = await write('visitor-lena', 'Lena', 'Are you open today?');
  context = await newContext(browser);
  await context.addInitScript(recordNotifications);
  // One clock for the context's pages, which runs as time does until a test moves it on.
  await context.clock.install();
  page = await context.newPage();
  watcher = watch(page, asked);
  await signInAt(page, `${gw.url}/console/inbox?c=${lena}`, owner);
  await threadShows(page, 'Are you open today?').waitFor();
  // The thread marks Lena's message read; the stream tells the list, which drops its unread count.
  await item(page, 'Lena').waitFor();
  await item(page, 'Lena').locator('.inbox-count').filter({ hasText: 'unread' }).waitFor({ state: 'detached' });
});
afterAll(async () => {
  await hook?.close();
  await stopConsole(gw, browser);
});

test('the page opens one stream and, while nothing changes, asks nothing more: no request in 30 s', async () => {
  await settled(page, watcher.inFlight);
  expect(asked.filter((a) => a.path.startsWith('/console/api/stream'))).toHaveLength(1);
  expect(await requestsWhileClockRuns(page, asked, 30_000)).toEqual([]);
  expect(await page.locator('.live-status').textContent()).toBe('');
});

test("a contact's message shows in the open inbox and the open thread within 1 s, without a reload", async () => {
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  const from = asked.length;
  const written = write('visitor-lena', 'Lena', 'Can I come at 5?');
  await written;
  const started = Date.now();
  await Promise.all([
    threadShows(page, 'Can I come at 5?').waitFor({ timeout: 1_000 }),
    item(page, 'Lena').locator('.inbox-item-last').filter({ hasText: 'Can I come at 5?' }).waitFor({ timeout: 1_000 }),
  ]);
  expect(Date.now() - started).toBeLessThan(1_000);
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  // What the event named was read, through /v1; the stream was not opened again.
  expect(asked.slice(from).some((a) => a.path.startsWith(`/v1/conversations/${lena}`))).toBe(true);
  expect(asked.slice(from).filter((a) => a.path.startsWith('/console/api/stream'))).toEqual([]);

  // A new conversation too, at the top of the list; and then quiet again.
  nadia = await write('visitor-nadia', 'Nadia', 'Hi, a new lead here');
  await item(page, 'Nadia').waitFor({ timeout: 1_000 });
  expect(await page.locator('.inbox-item-name').first().textContent()).toBe('Nadia');
  await settled(page, watcher.inFlight);
  expect(await requestsWhileClockRuns(page, asked, 30_000)).toEqual([]);
});

test("the tab's title counts the conversations waiting for the member's reply: theirs and those nobody has", async () => {
  // Lena's and Nadia's: nobody has them, no campaign answers them, and their message is the latest.
  await untilTitled(page, '(2) Inbox');
  // Lena's is assigned to the owner (by a workflow, with the API key): it still needs their reply.
  expect((await api('POST', `/v1/conversations/${lena}/assign`, { memberId: ownerId })).status).toBe(200);
  await page.getByLabel('Reply as your team').fill('Yes, see you at 5');
  await page.getByRole('button', { name: 'Send reply' }).click();
  await page.waitForFunction(() => document.title === '(1) Inbox · LeadChat console', undefined, { timeout: 2_000 });
  await write('visitor-lena', 'Lena', 'Thanks!');
  await page.waitForFunction(() => document.title === '(2) Inbox · LeadChat console', undefined, { timeout: 2_000 });
});

describe('notifications', () => {
  /** A second tab of the same member, on another page. */
  let other: Page;
  let otherWatcher: { inFlight: () => number };
  const both = async () => [...(await told(page)), ...(await told(other))];
  /** Both tabs done with what the gateway told them. */
  const bothSettled = async () => {
    await settled(page, watcher.inFlight);
    await poll(
      async () => otherWatcher.inFlight(),
      (n) => n === 0,
    );
  };

  beforeAll(async () => {
    other = await context.newPage();
    otherWatcher = watch(other, []);
    await other.goto(`${gw.url}/console/lists`);
    await other.getByRole('heading', { level: 1, name: 'Lists' }).waitFor();
    // Nadia's conversation is the owner's too, before notifications are on: nothing is told of it.
    expect((await api('POST', `/v1/conversations/${nadia}/assign`, { memberId: ownerId })).status).toBe(200);
    await page.waitForFunction(() => document.title === '(2) Inbox · LeadChat console', undefined, { timeout: 2_000 });
    await bothSettled();
    expect(await both()).toEqual([]);
  });

  test('asked for on a click only; a contact writing in a conversation of mine is told once for all tabs, unless a tab shows it', async () => {
    expect(await permissionAsked(page)).toBe(0);
    await notifySwitch(page).check();
    await page.getByText('On, in this browser: a desktop notification and a sound.').waitFor();
    expect(await permissionAsked(page)).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'inbox-notifications-on');

    // Lena's conversation is on screen in this tab: her message is seen there, and no tab tells of it.
    await write('visitor-lena', 'Lena', 'One more thing');
    await threadShows(page, 'One more thing').waitFor();
    // Nadia's is on no screen: her message is told, by one tab of the two, with a sound.
    await write('visitor-nadia', 'Nadia', 'Is parking free?');
    await poll(both, (t) => t.length > 0);
    await bothSettled();
    expect(await both()).toEqual([{ title: 'Nadia', body: 'Is parking free?' }]);
    expect((await chimes(page)) + (await chimes(other))).toBe(1);
  });

  test('a conversation another member assigns to me is told; one I take myself is not, in any tab', async () => {
    const agent = await teamMember(gw, owner, 'agent', 'Agent Ana');
    const sam = await write('visitor-sam', 'Sam', 'Is there a waiting list?');
    await write('visitor-omar', 'Omar', 'Do you take walk-ins?');
    await item(page, 'Omar').click();
    await page.locator('#thread-heading').filter({ hasText: 'Omar' }).waitFor();
    await bothSettled();
    const [fromPage, fromOther] = [(await told(page)).length, (await told(other)).length];
    const news = async () => [...(await told(page)).slice(fromPage), ...(await told(other)).slice(fromOther)];

    // Sam's and Omar's came in nobody's, and were told: the next news of them is told again after a few seconds.
    await Promise.all([page.clock.runFor(5_000), other.clock.runFor(5_000)]);
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await page.getByRole('status').filter({ hasText: 'Assigned to you.' }).waitFor();
    // Ana gives Sam's conversation to the owner, who is told, Sam's message and all (it was not theirs when it came).
    expect(
      (await withSession(gw, agent, 'POST', `/v1/conversations/${sam}/assign`, { body: { memberId: ownerId } })).status,
    ).toBe(200);
    await poll(news, (t) => t.length > 0);
    await bothSettled();
    expect(await news()).toEqual([{ title: 'Assigned to you: Sam', body: 'Is there a waiting list?' }]);
    await page.waitForFunction(() => document.title === '(4) Inbox · LeadChat console', undefined, { timeout: 2_000 });
  });
});

test('with the stream down, the inbox says so and reads every 3 s until it is back, then asks nothing more', async () => {
  const { context: downContext, page: down } = await openPage(browser);
  const seen: Asked[] = [];
  const downWatcher = watch(down, seen);
  await down.clock.install();
  await down.route('**/console/api/stream*', (route) => route.abort());
  await signInAt(down, `${gw.url}/console/inbox`, owner);
  await item(down, 'Lena').waitFor();
  await down
    .getByText('Live updates are interrupted: the inbox reads again every 3 seconds until they are back.')
    .waitFor();
  expect(await seriousViolations(down)).toEqual([]);
  await screenshot(down, 'inbox-live-down');

  await write('visitor-ruth', 'Ruth', 'Do you open on Saturdays?');
  const polled = await requestsWhileClockRuns(down, seen, 3_000);
  expect(polled.some((a) => a.path.startsWith('/v1/conversations?'))).toBe(true);
  await item(down, 'Ruth').waitFor();

  // Back: the warning goes, and the polling stops.
  await down.unroute('**/console/api/stream*');
  await down.clock.runFor(15_000);
  await down.getByText('Live updates are interrupted').waitFor({ state: 'detached', timeout: 10_000 });
  await settled(down, downWatcher.inFlight);
  expect(await requestsWhileClockRuns(down, seen, 30_000)).toEqual([]);
  await downContext.close();
});

test('a contact erased elsewhere leaves the open inbox within 1 s, and its open thread shows nothing of it', async () => {
  const omar = await write('visitor-omar', 'Omar', 'Is the parking free?');
  await item(page, 'Omar').click();
  await threadShows(page, 'Is the parking free?').waitFor();
  const contactId = (await api('GET', `/v1/conversations/${omar}`)).body.contact.id;
  expect((await api('DELETE', `/v1/contacts/${contactId}`)).status).toBe(204);
  await Promise.all([
    item(page, 'Omar').waitFor({ state: 'detached', timeout: 1_000 }),
    threadShows(page, 'Is the parking free?').waitFor({ state: 'detached', timeout: 1_000 }),
  ]);
  await page.locator('.inbox-thread [role="alert"]').waitFor();
  expect(await item(page, 'Lena').count()).toBe(1);
});

test("a contact erased from its thread's own panel: the panel says so until closed, then the thread closes", async () => {
  await write('visitor-pia', 'Pia', 'Please forget me');
  await item(page, 'Pia').click();
  await threadShows(page, 'Please forget me').waitFor();
  await page.getByRole('button', { name: 'Contact details' }).click();
  const dialog = page.getByRole('dialog', { name: 'Pia' });
  await dialog.getByLabel('Type Pia to confirm', { exact: true }).fill('Pia');
  await dialog.getByRole('button', { name: 'Erase this contact' }).click();
  const erased = page.getByRole('dialog', { name: 'Contact erased' });
  await erased.getByRole('status').filter({ hasText: 'Pia was erased' }).waitFor();
  // The stream's word that the conversation is gone comes meanwhile: the panel stays until it is closed.
  await item(page, 'Pia').waitFor({ state: 'detached', timeout: 1_000 });
  await page.clock.runFor(1_000);
  expect(await erased.getByRole('status').filter({ hasText: 'Pia was erased' }).count()).toBe(1);
  await erased.getByRole('button', { name: 'Close' }).click();
  await page.getByText('Choose a conversation to read it and reply.').waitFor();
});

test("switching a campaign's bot off or on counts at once, in every tab, the conversations it leaves to a person", async () => {
  const campaign = await api('POST', '/v1/campaigns', {
    name: 'Live Dental chat',
    channel: 'custom',
    customChannel: 'web-chat',
    bot: { faqs: [{ question: 'What are your opening hours?', answer: 'Monday to Friday, 9am to 6pm.' }] },
  });
  expect(campaign.status).toBe(201);
  const campaignId = campaign.body.id as string;
  // Vera's "ok" is one the bot chooses not to answer: it needs a reply, and the bot answers her next message.
  const said = await api(
    'POST',
    '/v1/incoming_custom_channel_message',
    incoming({ fromId: 'visitor-vera', firstName: 'Vera', channel: 'web-chat', body: 'ok', campaignId }),
  );
  expect(said.status).toBe(200);
  await untilIdle(gw);
  const vera = (await api('GET', `/v1/messages/${said.body.messageId}`)).body.conversationId as string;
  expect((await api('GET', `/v1/conversations/${vera}`)).body).toMatchObject({
    needsReply: true,
    assigneeId: null,
    bot: { answers: true },
  });
  const other = await context.newPage();
  // Its stream is open once its answer's headers are in: any change committed after that reaches it.
  const otherListens = other.waitForResponse((r) => new URL(r.url()).pathname === '/console/api/stream');
  await other.goto(`${gw.url}/console/lists`);
  await other.getByRole('heading', { level: 1, name: 'Lists' }).waitFor();
  expect((await otherListens).status()).toBe(200);
  await settled(page, watcher.inFlight);
  const before = Number(/^\((\d+)\) /.exec(await page.title())?.[1] ?? 0);
  const counted = (p: Page, n: number) =>
    p.waitForFunction((want) => Number(/^\((\d+)\) /.exec(document.title)?.[1] ?? 0) === want, n, { timeout: 2_000 });
  // The new tab reads its count once its page is up: it shows the same as the first.
  await counted(other, before);

  // Off: nothing answers Vera now, and nobody has her conversation. No conversation changed; both tabs count it.
  expect((await api('PATCH', `/v1/campaigns/${campaignId}`, { bot: { active: false } })).status).toBe(200);
  await Promise.all([counted(page, before + 1), counted(other, before + 1)]);
  // On again: the bot answers her next message, and she waits for no one.
  expect((await api('PATCH', `/v1/campaigns/${campaignId}`, { bot: { active: true } })).status).toBe(200);
  await Promise.all([counted(page, before), counted(other, before)]);
  await other.close();
});
