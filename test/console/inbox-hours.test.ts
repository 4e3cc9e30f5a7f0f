import type { Browser, BrowserContext, Page } from 'playwright-core';
import { request } from '../gateway/api-support';
import { advanceClock, clockOf, type TestGateway } from '../helpers/gateway';
import { newContext, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { acceptInvite, consoleAccount, type ConsoleAccount } from './support';

/**
 * The Inbox says, quietly, while the team is out of its business hours, what a contact handed off now is told and
 * until when reminders wait; nothing in hours or without hours. An agent sees it too, who may not read the settings.
 * It follows the hours as they open and close (the gateway's clock moved, the page's run on as far) and as an admin
 * changes them elsewhere (the stream's hours.updated), without a reload.
 */
jest.setTimeout(60_000);

const MINUTE = 60_000;
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const PAT = { email: 'pat.agent@hours.example', password: 'pat-agent-long-passphrase' };

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let context: BrowserContext;
let page: Page;

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
/** Waits until the inbox's status of the hours says `text` ('' for nothing). */
const shows = (text: string) =>
  page.waitForFunction((want) => document.querySelector('.hours-status')?.textContent === want, text);
/** "Tue 14:20": an instant as the team's clocks in UTC read it. */
const dayAndTime = (at: number) => `${DAYS[new Date(at).getUTCDay()]} ${new Date(at).toISOString().slice(11, 16)}`;
const outUntil = (at: number) =>
  `Out of business hours: contacts handed off now are told the away message; reminders wait until ${dayAndTime(at)}.`;

/** Moves the gateway's clock and the page's as far, past `at` by a few seconds: the page's timers due then run. */
async function until(at: number): Promise<void> {
  const by = Math.ceil((at - clockOf(gw)) / 1000) + 5;
  await advanceClock(gw, `${by}s`);
  await page.clock.runFor(by * 1000);
}

beforeAll(async () => {
  [gw, browser] = await startConsole({ LEADCHAT_TEST_CLOCK: '1' });
  owner = await consoleAccount(gw, { name: 'Hours Dental' });
  const invited = await api('POST', '/v1/members', { email: PAT.email, name: 'Pat', role: 'agent' });
  expect((await acceptInvite(gw, invited.body.inviteUrl, PAT.password)).reply.status).toBe(200);
  context = await newContext(browser);
  await context.clock.install();
  page = await context.newPage();
});

afterAll(() => stopConsole(gw, browser));

test('nothing without hours; out of them, the status, live as they open, close, and as the hours and reminders are changed elsewhere', async () => {
  const read = page.waitForResponse((r) => r.url().endsWith('/console/api/business-hours'));
  await signInAt(page, `${gw.url}/console/inbox`, PAT);
  expect((await read).status()).toBe(200);
  await page.getByRole('heading', { name: 'Conversations' }).waitFor();
  await shows('');

  // Hours of ten minutes, from ten minutes on: the team is out until they open.
  const opens = Math.ceil((clockOf(gw) + 10 * MINUTE) / MINUTE) * MINUTE;
  const closes = opens + 10 * MINUTE;
  const hhmm = (at: number) => new Date(at).toISOString().slice(11, 16);
  const hours = { start: hhmm(opens), end: hhmm(closes), timezone: 'UTC' };
  expect((await api('PUT', '/v1/settings', { businessHours: hours })).status).toBe(200);
  await shows(outUntil(opens));
  await screenshot(page, 'inbox-out-of-hours');
  expect(await seriousViolations(page)).toEqual([]);

  await until(opens);
  await shows('');
  // Closed again, until the same time the next day.
  await until(closes);
  await shows(outUntil(opens + 24 * 60 * MINUTE));

  // Without reminders, none is said to wait.
  expect((await api('PUT', '/v1/settings', { handoffReminderAfter: null })).status).toBe(200);
  await shows(
    `Out of business hours until ${dayAndTime(opens + 24 * 60 * MINUTE)}: contacts handed off now are told the away message.`,
  );
  expect((await api('PUT', '/v1/settings', { businessHours: null })).status).toBe(200);
  await shows('');
});
