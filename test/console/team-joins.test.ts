import type { Browser, BrowserContext, Page } from 'playwright-core';
import { incoming, request } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { newContext, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, teamMember, type ConsoleAccount } from './support';

/**
 * The team grows while the owner's inbox is open: a member who joined since the page was opened is named on the
 * conversations given to them and offered in the Assigned to picker, without the page being opened again.
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
