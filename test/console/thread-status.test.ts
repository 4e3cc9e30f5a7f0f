import type { Browser, Page } from 'playwright-core';
import { advanceClock, incoming, poll, Receiver, request } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { openPage, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * A thread's delivery statuses follow the API's without a reload: each failed attempt of a reply still being sent
 * changes its delivery, not the message, and the open thread counts it and names the next attempt's time as
 * GET /v1/messages/{id} does; once delivered, it says Sent. The gateway's test clock decides when attempts run.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let page: Page;
let receiverUp = false;
let hook: Receiver;

beforeAll(async () => {
  hook = await Receiver.start(() => (receiverUp ? { status: 200 } : { status: 503, body: 'receiver down' }));
  [gw, browser] = await startConsole({
    LEADCHAT_TEST_CLOCK: '1',
    LEADCHAT_WEBHOOK_RETRIES: '1m,1m,1m',
    LEADCHAT_JOB_POLL: '100ms',
  });
  owner = await consoleAccount(gw, { name: 'Status Dental' });
  ({ page } = await openPage(browser));
});
afterAll(async () => {
  await hook?.close();
  await stopConsole(gw, browser);
});

const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const attemptsOf = async (id: string) =>
  ((await api('GET', `/v1/messages/${id}`)).body.deliveries as Array<{ attempts: unknown[] }>).flatMap(
    (d) => d.attempts,
  ).length;

test('each failed attempt of a reply shows in the open thread as the API has it, then Sent', async () => {
  const wrote = await api(
    'POST',
    '/v1/incoming_custom_channel_message',
    incoming({ fromId: 'visitor-lena', firstName: 'Lena', channel: 'web-chat', body: 'Are you open today?' }),
  );
  const { conversationId } = (await api('GET', `/v1/messages/${wrote.body.messageId}`)).body;
  // The receiver set only now: the hand-off's notice to Lena failed at once, and holds no turn before the reply (a
  // conversation's replies go one after the other).
  expect((await api('PUT', '/v1/settings', { customChannelWebhookUrl: hook.url })).status).toBe(200);
  const sent = await api('POST', '/v1/send_custom_channel_message', {
    customData: { fromId: 'visitor-lena', customChannel: 'web-chat', body: 'Yes, until 6 pm' },
  });
  const id = sent.body.messageId;
  await poll(
    () => attemptsOf(id),
    (n) => n === 1,
  );

  await signInAt(page, `${gw.url}/console/inbox?c=${conversationId}`, owner);
  const status = page.locator('.inbox-msg').filter({ hasText: 'Yes, until 6 pm' }).locator('.inbox-status');
  await status.filter({ hasText: /^Retrying: 1 failed attempt, next at / }).waitFor();

  // The second attempt fails too: the message is still being sent, its delivery holds one more attempt.
  await advanceClock(gw, '61s');
  await poll(
    () => attemptsOf(id),
    (n) => n === 2,
  );
  expect((await api('GET', `/v1/messages/${id}`)).body.status).toBe('pending');
  await status.filter({ hasText: /^Retrying: 2 failed attempts, next at / }).waitFor();

  receiverUp = true;
  await advanceClock(gw, '61s');
  await poll(
    async () => (await api('GET', `/v1/messages/${id}`)).body.status,
    (s) => s === 'sent',
  );
  await status.filter({ hasText: /^Sent$/ }).waitFor();
});

test('a team reply that could not go says so where it was sent, with why and what to do, not "Reply sent."', async () => {
  const clinic = await consoleAccount(gw, { name: 'Quiet Dental' });
  const wrote = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
    apiKey: clinic.apiKey,
    body: incoming({ fromId: 'visitor-omar', firstName: 'Omar', channel: 'web-chat', body: 'Can I book for Monday?' }),
  });
  const { conversationId } = (
    await request(gw, 'GET', `/v1/messages/${wrote.body.messageId}`, { apiKey: clinic.apiKey })
  ).body;
  const { page: tab } = await openPage(browser);
  await signInAt(tab, `${gw.url}/console/inbox?c=${conversationId}`, clinic);
  // The web chat has no receiver of replies set: the reply is stored, failed (NO_RECEIVER), and nothing went.
  await tab.getByLabel('Reply as your team').fill('Yes, 10 am works.');
  await tab.getByRole('button', { name: 'Send reply' }).click();
  const form = tab.locator('form.inbox-reply');
  await form
    .getByRole('alert')
    .filter({ hasText: /Not sent/ })
    .waitFor();
  const said = await form.getByRole('alert').innerText();
  expect(said).toContain('No Custom Channel Webhook URL');
  expect(said).toContain('Retry');
  expect(await form.locator('.done').innerText()).toBe('');
  await tab
    .locator('.inbox-msg')
    .filter({ hasText: 'Yes, 10 am works.' })
    .locator('.inbox-status')
    .filter({ hasText: /^Failed$/ })
    .waitFor();
  await tab.close();
});

test('a WhatsApp reply box says until when WhatsApp takes a reply, and once past, that nothing would go', async () => {
  const phone = '+14155550147';
  expect(
    (await api('POST', '/v1/channels/whatsapp/incoming', { phone, body: 'Is there a slot on Friday?' })).status,
  ).toBe(200);
  const [conversation] = (await api('GET', '/v1/conversations?channel=whatsapp')).body.data;
  const until = new Date(Date.parse(conversation.lastIncomingAt) + 24 * 60 * 60 * 1000);
  const { page: tab } = await openPage(browser);
  // The browser's clock an hour after the contact wrote, then a day and an hour.
  await tab.clock.install({ time: Date.parse(conversation.lastIncomingAt) + 60 * 60 * 1000 });
  await signInAt(tab, `${gw.url}/console/inbox?c=${conversation.id}`, owner);
  const hint = tab.locator('form.inbox-reply .hint');
  // As the page writes a time: alone today, with its date otherwise.
  const time = await tab.evaluate((iso) => {
    const at = new Date(iso);
    return at.toDateString() === new Date().toDateString()
      ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
      : at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }, until.toISOString());
  await hint
    .filter({ hasText: `WhatsApp takes replies within 24 hours of the contact’s last message: until ${time}.` })
    .waitFor();
  await tab.clock.setSystemTime(until.getTime() + 60 * 60 * 1000);
  await tab.reload();
  await hint
    .filter({
      hasText: 'The contact last wrote more than 24 hours ago: WhatsApp takes no reply until they write again',
    })
    .waitFor();
  await tab.close();
});
