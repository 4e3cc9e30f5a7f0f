import type { Browser, Page } from 'playwright-core';
import { incoming, Receiver, request, untilIdle } from '../gateway/api-support';
import { removeDir } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import { launchBrowser, openPage, screenshot, seriousViolations, signInAt } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

type Message = { id: string; body: string; conversationId: string };

/**
 * A contact who has written for months: a thread of thousands of messages opens on its newest page, newest at the
 * bottom, in one read; "Show earlier messages" reads the page before, added above without moving what the reader
 * sees or where the focus is; a message arriving reads what is new, not the whole history again. The history is
 * put in the store directly, as months of messages would have left it: writing 10,000 through the API takes minutes.
 */
jest.setTimeout(120_000);

/** More than the 50 pages of 200 the thread read on opening, and stopped at. */
const HISTORY = 10_050;

let gw: InProcessGateway;
let browser: Browser;
let hook: Receiver;
let owner: ConsoleAccount;
let page: Page;
/** Every request the page made to read a contact's messages. */
const reads: string[] = [];

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const write = async (fromId: string, body: string) => {
  const res = await api('POST', '/v1/incoming_custom_channel_message', incoming({ fromId, channel: 'web-chat', body }));
  expect(res.status).toBe(200);
  return (await api('GET', `/v1/messages/${res.body.messageId}`)).body as { conversationId: string; contactId: string };
};

/**
 * `count` messages of the conversation after those it holds, in and out by turns, a second apart, made as its first
 * message was (its channel, its ids), then the clock past them; `failed`: the numbers of those that failed to go.
 */
async function history(conversation: string, count: number, failed: number[] = []): Promise<void> {
  const from = gw.now();
  const at = (i: number) => new Date(from + i * 1_000).toISOString();
  await gw.engine.store.transact(async (tx) => {
    const [first] = (await tx.find<Message>('messages', 'contact', [
      (await tx.get<{ id: string; contactId: string }>('conversations', conversation))!.contactId,
    ])) as Message[];
    for (let i = 1; i <= count; i++) {
      const fromContact = i % 2 === 1;
      const fails = failed.includes(i);
      await tx.insert('messages', {
        ...first!,
        id: `msg_seed${conversation.slice(4)}${String(i).padStart(6, '0')}`,
        direction: fromContact ? 'incoming' : 'outgoing',
        body: `Message ${i} of the history`,
        status: fromContact ? 'received' : fails ? 'failed' : 'sent',
        error: fails ? 'The receiver answered HTTP 503' : null,
        errorCode: fails ? 'HTTP_503' : null,
        messageSid: null,
        author: fromContact ? null : 'team',
        authorName: fromContact ? null : 'Dr. Reyes',
        createdAt: at(i),
        updatedAt: at(i),
      });
    }
  });
  await gw.advance((count + 1) * 1_000);
}

const bodies = (p: Page) => p.locator('.inbox-thread .inbox-msg-body').allTextContents();
const shown = (p: Page, text: string) => p.locator('.inbox-thread .inbox-msg-body').getByText(text, { exact: true });
const earlier = (p: Page) => p.getByRole('button', { name: 'Show earlier messages' });
/** The bodies of the conversation's newest `count` messages as the store holds them, oldest first. */
const newest = async (conversation: string, count: number) => {
  const { contactId } = (await gw.engine.store.get<{ id: string; contactId: string }>('conversations', conversation))!;
  return (await gw.engine.store.find<Message>('messages', 'contact', [contactId], { order: 'desc' }))
    .filter((m) => m.conversationId === conversation)
    .slice(0, count)
    .map((m) => m.body)
    .reverse();
};
/**
 * What the page read of the messages since `reads` was emptied: the newest page, once for the news and once more
 * for the conversation marked read (it tells of a change too), and no page further back. `late`: reads of what came
 * before that may still be on their way then (the read for the thread marked read on opening, on a busy machine).
 */
function newestPageOnly(late = 0): void {
  expect(reads.length).toBeGreaterThanOrEqual(1);
  expect(reads.length).toBeLessThanOrEqual(2 + late);
  expect(reads.filter((r) => r.includes('cursor='))).toEqual([]);
}

/** Opens the conversation's thread, and waits until it shows its messages; signed in anew, the clock having run on. */
async function open(conversation: string): Promise<void> {
  await signInAt(page, `${gw.url}/console/inbox?c=${conversation}`, owner);
  await page.locator('.inbox-thread .inbox-msg').first().waitFor({ timeout: 30_000 });
  await untilIdle(gw);
}

beforeAll(async () => {
  [gw, browser] = await Promise.all([startInProcess(), launchBrowser()]);
  hook = await Receiver.start();
  owner = await consoleAccount(gw, { name: 'Months of Care Clinic' });
  expect((await api('PUT', '/v1/settings', { customChannelWebhookUrl: hook.url })).status).toBe(200);
  ({ page } = await openPage(browser));
  page.on('request', (r) => {
    const { pathname, search } = new URL(r.url());
    if (/^\/v1\/contacts\/[^/]+\/messages$/.test(pathname)) reads.push(pathname + search);
  });
});
afterAll(async () => {
  await hook?.close();
  await browser?.close();
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

describe('a thread of more than 10,000 messages', () => {
  let conversation: string;
  beforeAll(async () => {
    ({ conversationId: conversation } = await write('patient-ines', 'Hello, this is Ines, my first message'));
    await history(conversation, HISTORY);
    await write('patient-ines', 'Can I move Thursday to Friday?');
    await untilIdle(gw);
  });

  test('opens on its newest page, newest at the bottom, in one read', async () => {
    reads.length = 0;
    await open(conversation);
    const onScreen = await bodies(page);
    expect(onScreen.at(-1)).toBe('Can I move Thursday to Friday?');
    expect(onScreen.length).toBeLessThanOrEqual(200);
    expect(onScreen).toEqual(await newest(conversation, onScreen.length));
    newestPageOnly();
    await earlier(page).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'inbox-long-thread');
  });

  test('"Show earlier messages" adds the page before above, what is shown and the focus staying put', async () => {
    await open(conversation);
    const before = await bodies(page);
    const oldest = shown(page, before[0]!);
    await oldest.scrollIntoViewIfNeeded();
    await earlier(page).focus();
    const top = (await oldest.boundingBox())!.y;
    reads.length = 0;
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.querySelectorAll('.inbox-thread .inbox-msg').length > n, before.length);
    const after = await bodies(page);
    expect(after.slice(-before.length)).toEqual(before);
    expect(after).toEqual(await newest(conversation, after.length));
    expect(reads).toHaveLength(1);
    expect((await oldest.boundingBox())!.y).toBeCloseTo(top, 0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Show earlier messages');
  });
});

test('a message arriving is read with what is new, not the whole history again; what is shown stays', async () => {
  const { conversationId: conversation } = await write('patient-lucas', 'Lucas here, about my crown');
  await history(conversation, 450);
  await open(conversation);
  const arrives = async (body: string) => {
    const before = await bodies(page);
    reads.length = 0;
    await write('patient-lucas', body);
    await shown(page, body).waitFor();
    await untilIdle(gw);
    const after = await bodies(page);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.at(-1)).toBe(body);
    newestPageOnly(1);
  };
  await arrives('Can it be on Friday?');
  // The earlier messages read stay too.
  await earlier(page).click();
  await shown(page, 'Message 360 of the history').waitFor();
  await arrives('Or Saturday morning, if Friday is full');
});

test('a failed message among the earlier ones shown is sent again by its Retry, and says so', async () => {
  const { conversationId: conversation } = await write('patient-maria', 'Maria, about the invoice');
  await history(conversation, 200, [120]);
  await open(conversation);
  await shown(page, 'Message 120 of the history').waitFor({ state: 'detached' });
  await earlier(page).click();
  const failed = page
    .locator('.inbox-msg')
    .filter({ has: page.locator('.inbox-msg-body').getByText('Message 120 of the history', { exact: true }) });
  await failed.locator('.inbox-status').getByText('Failed', { exact: true }).waitFor();
  await failed.getByRole('button', { name: 'Retry' }).click();
  await untilIdle(gw);
  await failed.locator('.inbox-status').getByText('Sent', { exact: true }).waitFor();
  await failed.getByRole('button', { name: 'Retry' }).waitFor({ state: 'detached' });
});

test('the earliest page reached, the control goes and the focus is on the first message', async () => {
  const { conversationId: conversation } = await write('patient-omar', 'Hi, Omar here');
  await history(conversation, 70);
  await open(conversation);
  await shown(page, 'Message 70 of the history').waitFor();
  await shown(page, 'Hi, Omar here').waitFor({ state: 'detached' });
  await earlier(page).click();
  await shown(page, 'Hi, Omar here').waitFor();
  await earlier(page).waitFor({ state: 'detached' });
  expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toContain('Hi, Omar here');
});
