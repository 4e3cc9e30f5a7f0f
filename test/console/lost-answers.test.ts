import type { Browser, Page } from 'playwright-core';
import type { TestGateway } from '../helpers/gateway';
import { api, incoming, Receiver } from '../gateway/api-support';
import { openPage, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * A change whose answer never reaches the page (the connection dropped, the gateway restarted under it): the member
 * is told so, and sending it again makes the change once, never twice.
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
const sentBodies = async () =>
  (await api(gw, owner, 'GET', `/v1/contacts/${contactId}/messages`)).body.data
    .filter((m: { author: string }) => m.author === 'team')
    .map((m: { body: string }) => m.body);

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Lost Answers Dental' });
  // The web chat takes the account's replies: a reply sent reaches the contact.
  chat = await Receiver.start();
  const settings = { customChannelWebhookUrl: chat.url };
  expect((await api(gw, owner, 'PUT', '/v1/settings', { body: settings })).status).toBe(200);
  const written = await api(gw, owner, 'POST', '/v1/incoming_custom_channel_message', {
    body: incoming({ fromId: 'visitor-noor', firstName: 'Noor', body: 'Can I move my cleaning to Friday?' }),
  });
  ({ conversationId, contactId } = (await api(gw, owner, 'GET', `/v1/messages/${written.body.messageId}`)).body);
  ({ page } = await openPage(browser));
  await signInAt(page, url(`/console/inbox?c=${conversationId}`), owner);
});
afterAll(async () => {
  await chat?.close();
  await stopConsole(gw, browser);
});

/**
 * Creates through the console's form whose first try reaches the gateway but whose answer never reaches the page,
 * then (after `between`, what the test reads of the page meanwhile) submits it again: answers the Idempotency-Key of
 * each try.
 */
async function createdAfterLostAnswer(
  path: string,
  submit: () => Promise<void>,
  between: () => Promise<void> = async () => undefined,
): Promise<string[]> {
  const keys: string[] = [];
  await page.route(
    `**${path}`,
    async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      keys.push(route.request().headers()['idempotency-key']!);
      await route.fetch();
      await route.abort('connectionreset');
    },
    { times: 1 },
  );
  await submit();
  await page.getByRole('alert').filter({ hasText: 'cannot be reached' }).waitFor();
  await between();
  const again = page.waitForRequest((r) => r.url().endsWith(path) && r.method() === 'POST');
  await submit();
  keys.push((await again).headers()['idempotency-key']!);
  return keys;
}

test('a reply whose answer was lost is sent again with its Idempotency-Key and reaches the contact once; the next reply is another', async () => {
  const reply = page.getByLabel('Reply as your team', { exact: true });
  const form = page.locator('.inbox-reply');
  await reply.fill('Friday at 10 is free: shall I book it?');
  // The first try reaches the gateway, which sends the reply, but its answer never reaches the page.
  const keys = await createdAfterLostAnswer(
    `/v1/contacts/${contactId}/messages`,
    () => page.getByRole('button', { name: 'Send reply' }).click(),
    async () => {
      await form.getByRole('alert').filter({ hasText: 'cannot be reached' }).waitFor();
      expect(await reply.inputValue()).toBe('Friday at 10 is free: shall I book it?');
      expect(await sentBodies()).toEqual(['Friday at 10 is free: shall I book it?']);
    },
  );
  await form.getByRole('status').filter({ hasText: 'Reply sent.' }).waitFor();
  expect(await sentBodies()).toEqual(['Friday at 10 is free: shall I book it?']);
  expect(await reply.inputValue()).toBe('');
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);

  // The same words again, sent on purpose, are another reply.
  await reply.fill('Friday at 10 is free: shall I book it?');
  const next = page.waitForRequest(
    (r) => r.url().endsWith(`/v1/contacts/${contactId}/messages`) && r.method() === 'POST',
  );
  await page.getByRole('button', { name: 'Send reply' }).click();
  expect((await next).headers()['idempotency-key']).not.toBe(keys[0]);
  await form.getByRole('status').filter({ hasText: 'Reply sent.' }).waitFor();
  expect(await sentBodies()).toEqual([
    'Friday at 10 is free: shall I book it?',
    'Friday at 10 is free: shall I book it?',
  ]);
});

test('a new campaign whose answer was lost is created once when created again: no second campaign to open twice', async () => {
  const name = 'Spring check-ups';
  await page.goto(url('/console/campaigns'));
  await page.getByRole('button', { name: 'New campaign' }).click();
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Opening message', { exact: true }).fill('Hi {{first_name|there}}, time for a check-up?');
  const keys = await createdAfterLostAnswer('/v1/campaigns', () =>
    page.getByRole('button', { name: 'Create campaign' }).click(),
  );
  await page.getByRole('status').filter({ hasText: 'Campaign created.' }).waitFor();
  const named = (await api(gw, owner, 'GET', '/v1/campaigns')).body.data.filter(
    (c: { name: string }) => c.name === name,
  );
  expect(named).toHaveLength(1);
  expect(new URL(page.url()).searchParams.get('id')).toBe(named[0].id);
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);
});

test('a new list whose answer was lost is created once when created again', async () => {
  const name = 'Autumn recalls';
  await page.goto(url('/console/lists'));
  await page.getByLabel('List name', { exact: true }).fill(name);
  const keys = await createdAfterLostAnswer('/v1/lists', () =>
    page.getByRole('button', { name: 'Create list' }).click(),
  );
  await page.waitForURL(/[?&]id=/);
  const named = (await api(gw, owner, 'GET', '/v1/lists')).body.data.filter((l: { name: string }) => l.name === name);
  expect(named).toHaveLength(1);
  expect(new URL(page.url()).searchParams.get('id')).toBe(named[0].id);
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);
});

test('an import whose answer was lost is sent again and runs once', async () => {
  const listId = (await api(gw, owner, 'POST', '/v1/lists', { body: { name: 'Imported once' } })).body.id;
  await page.goto(url(`/console/lists?id=${listId}`));
  await page.getByLabel('CSV file', { exact: true }).setInputFiles({
    name: 'patients.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('Phone,First name\n+14155550191,Rosa\n', 'utf8'),
  });
  const path = `/v1/lists/${listId}/imports`;
  const keys = await createdAfterLostAnswer(path, () =>
    page.getByRole('button', { name: 'Import', exact: true }).click(),
  );
  await page.getByRole('status').filter({ hasText: 'patients.csv was accepted' }).waitFor();
  expect((await api(gw, owner, 'GET', path)).body.data).toHaveLength(1);
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);
});

test('a page opened while the gateway cannot be reached says so and offers to try again, rather than asking to sign in', async () => {
  await page.route('**/console/api/session', (route) => route.abort('connectionrefused'), { times: 1 });
  await page.goto(url('/console/inbox'));
  await page.getByRole('alert').filter({ hasText: 'The gateway cannot be reached' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/console/inbox');
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Try again' }).click();
  await page.locator('.inbox-item-name').filter({ hasText: 'Noor' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/console/inbox');
});
