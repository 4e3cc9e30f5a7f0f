import type { Browser, BrowserContext, Page } from 'playwright-core';
import { incoming, poll, Receiver, request } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { newContext, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * Labels in the open conversation: chips, each with a button that removes it, and a field that adds one, suggesting
 * the account's labels. The Inbox's list shows each conversation's labels and filters by one; another member's change
 * shows live. A label is text, whatever it holds.
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
let omar: string;

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const write = async (fromId: string, firstName: string) => {
  const res = await api('POST', '/v1/incoming_custom_channel_message', {
    ...incoming({ fromId, firstName, channel: 'web-chat', body: 'How much is it?' }),
  });
  expect(res.status).toBe(200);
  return (await api('GET', `/v1/messages/${res.body.messageId}`)).body.conversationId as string;
};
const item = (p: Page, name: string) => p.getByRole('button', { name: new RegExp(`^${name} ?,`) });
const labelsOf = async (id: string) => (await api('GET', `/v1/conversations/${id}`)).body.labels as string[];

async function inbox(address: string): Promise<Page> {
  const context = await newContext(browser);
  contexts.push(context);
  const p = await context.newPage();
  await signInAt(p, address, owner);
  return p;
}

beforeAll(async () => {
  replies = await Receiver.start();
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Label Dental' });
  expect((await api('PUT', '/v1/settings', { customChannelWebhookUrl: replies.url })).status).toBe(200);
  ruth = await write('visitor-ruth', 'Ruth');
  omar = await write('visitor-omar', 'Omar');
  expect((await api('POST', `/v1/conversations/${omar}/labels`, { labels: ['Pricing'] })).status).toBe(200);
  desk = await inbox(`${gw.url}/console/inbox?c=${ruth}`);
  list = await inbox(`${gw.url}/console/inbox`);
  await item(list, 'Ruth').waitFor();
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await replies?.close();
  await stopConsole(gw, browser);
});

test("a label typed, or one of the account's suggested, is added by keyboard; the list shows it live", async () => {
  const field = desk.getByLabel('Add a label');
  await field.waitFor();
  // The account's labels are suggested.
  await poll(
    () =>
      desk
        .locator('#thread-label-suggestions option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
    (values) => values.join() === 'Pricing',
  );
  await field.focus();
  await desk.keyboard.type('Hot lead');
  await desk.keyboard.press('Enter');
  await desk.locator('p.done', { hasText: 'Labelled Hot lead.' }).waitFor();
  await field.fill('pricing');
  await desk.getByRole('button', { name: 'Add label' }).click();
  await desk.getByRole('button', { name: 'Remove label pricing' }).waitFor();
  expect(await labelsOf(ruth)).toEqual(['Hot lead', 'pricing']);
  const chips = desk.getByRole('list', { name: 'Labels' }).getByRole('listitem');
  expect(await chips.allTextContents()).toEqual(['Hot lead×', 'pricing×']);
  expect(await seriousViolations(desk)).toEqual([]);
  await screenshot(desk, 'inbox-thread-labels');

  // The other browser's list hears it, and names the labels to a screen reader.
  await list.getByRole('button', { name: /^Ruth ?, .*labels: Hot lead, pricing, / }).waitFor();
  expect(await seriousViolations(list)).toEqual([]);
});

test('the Label filter lists the conversations carrying it, case aside', async () => {
  const filter = list.getByLabel('Label', { exact: true });
  await poll(
    () => filter.locator('option').allTextContents(),
    (options) => options.join('|') === 'All|Hot lead (1)|Pricing (2)',
  );
  await filter.selectOption('Hot lead');
  await item(list, 'Omar').waitFor({ state: 'detached' });
  await item(list, 'Ruth').waitFor();
  await filter.selectOption({ label: 'Pricing (2)' });
  await item(list, 'Omar').waitFor();
  await item(list, 'Ruth').waitFor();
  await filter.selectOption('');
});

test('Remove label takes one off, the focus back in the field; a change elsewhere shows live', async () => {
  await desk.getByRole('button', { name: 'Remove label Hot lead' }).focus();
  await desk.keyboard.press('Enter');
  await desk.getByRole('button', { name: 'Remove label Hot lead' }).waitFor({ state: 'detached' });
  expect(await labelsOf(ruth)).toEqual(['pricing']);
  await poll(
    () => desk.evaluate(() => document.activeElement?.id),
    (id) => id === 'thread-label-new',
  );
  // A workflow labels the conversation: the open conversation shows it within a second.
  expect((await api('POST', `/v1/conversations/${ruth}/labels`, { labels: ['Demo booked'] })).status).toBe(200);
  await desk.getByRole('button', { name: 'Remove label Demo booked' }).waitFor();
});

test('a label holding markup is shown as its text', async () => {
  const hostile = '<img src=x onerror=alert(1)>';
  expect((await api('POST', `/v1/conversations/${ruth}/labels`, { labels: [hostile] })).status).toBe(200);
  await desk.getByRole('button', { name: `Remove label ${hostile}` }).waitFor();
  expect(await desk.locator('.inbox-labels img').count()).toBe(0);
  await list.locator('.inbox-badge.inbox-label', { hasText: hostile }).waitFor();
  expect(await list.locator('.inbox-item img').count()).toBe(0);
});
