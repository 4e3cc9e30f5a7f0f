import type { Browser, BrowserContext, Page } from 'playwright-core';
import { advanceClock, request, type TestGateway } from '../helpers/gateway';
import { dataUri, HANDOFF_NOTICE, incoming, png, poll, Receiver } from '../gateway/api-support';
import {
  HOSTILE,
  newContext,
  openPage,
  screenshot,
  scriptRan,
  seriousViolations,
  signInAt,
  startConsole,
  stopConsole,
} from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * The console's Inbox in a real browser against a real gateway: conversations with their channel, last message,
 * hand-off badge and unread count; a thread with each message's status, media and errors; a failed delivery (the
 * Custom Channel Webhook receiver answers 500, then recovers) shown with its error and turned into sent by Retry;
 * markup in a contact's name or a message shown as text and never run; news arriving without a reload; a team
 * reply; the bot turned off and on; filters; keyboard, phone width and axe-core.
 */
jest.setTimeout(60_000);

const HOSTILE_NAME = '<script>window.__xss=1</script>Mallory';

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let other: ConsoleAccount;
let context: BrowserContext;
let page: Page;
let receiverUp = false;
let hook: Receiver;
/** The hostile contact's conversation, its failed reply, and the contact. */
let conversationId: string;
let failedId: string;
let contactId: string;
const fromId = 'visitor-mallory';

const api = (method: string, path: string, body?: unknown, who: ConsoleAccount = owner) =>
  request(gw, method, path, { apiKey: who.apiKey, body });
const write = (customData: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  api('POST', '/v1/incoming_custom_channel_message', incoming({ fromId, channel: 'web-chat', ...customData }, extra));
const url = (p: string) => `${gw.url}${p}`;
const heading = (p: Page) => p.getByRole('heading', { level: 1 });
const conversationButton = (p: Page, name: string) => p.locator('.inbox-item').filter({ hasText: name });
/** Waits until the list shows exactly these names, in any order: a count alone is also met by the list just left. */
const listShows = (p: Page, names: string[]) =>
  p.waitForFunction((want) => {
    const shown = [...document.querySelectorAll('.inbox-item-name')].map((e) => e.textContent).sort();
    return JSON.stringify(shown) === JSON.stringify([...want].sort());
  }, names);

/** Waits until the contact's hand-off notice is sent. */
const told = (id: string) =>
  poll(
    () => api('GET', `/v1/contacts/${id}/messages`),
    (r) => r.body.data.some((m: { author: string; status: string }) => m.author === 'system' && m.status === 'sent'),
  );

beforeAll(async () => {
  receiverUp = true;
  hook = await Receiver.start(() => (receiverUp ? { status: 200 } : { status: 500, body: 'receiver down' }));
  [gw, browser] = await startConsole({
    LEADCHAT_WEBHOOK_RETRIES: '100ms,100ms',
    LEADCHAT_JOB_POLL: '100ms',
    LEADCHAT_TEST_CLOCK: '1',
  });
  owner = await consoleAccount(gw, { name: 'Inbox Dental' });
  other = await consoleAccount(gw, { name: 'Other Business' });
  expect((await api('PUT', '/v1/settings', { customChannelWebhookUrl: hook.url })).status).toBe(200);

  const first = await write({ body: HOSTILE, firstName: HOSTILE_NAME });
  const message = (await api('GET', `/v1/messages/${first.body.messageId}`)).body;
  conversationId = message.conversationId;
  contactId = message.contactId;
  await write({ body: 'Here is my x-ray', mediaUrl: dataUri('image/png', png(8, 8)), mediaContentType: 'image/png' });
  // A javascript: address never gets in: the gateway refuses it, and the message comes again without it.
  expect(
    (await write({ body: 'And the form', mediaUrl: 'javascript:window.__xss=1', mediaContentType: 'application/pdf' }))
      .status,
  ).toBe(400);
  await write({ body: 'And the form' });
  await write({
    body: 'Also this',
    mediaUrl: 'https://files.example.com/quote.pdf',
    mediaContentType: 'application/pdf',
  });
  // No campaign answers Mallory: the gateway's hand-off notice reaches the receiver before it goes down.
  await told(contactId);
  receiverUp = false;
  const sent = await api('POST', '/v1/send_custom_channel_message', {
    customData: { fromId, customChannel: 'web-chat', body: 'Thanks, we will call you' },
  });
  failedId = sent.body.messageId;
  const failed = await poll(
    () => api('GET', `/v1/messages/${failedId}`),
    (r) => r.body.status !== 'pending',
  );
  expect(failed.body).toMatchObject({ status: 'failed', error: 'Receiver answered HTTP 500' });
  // A second conversation, on which the filters work.
  receiverUp = true;
  const ruth = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
    apiKey: owner.apiKey,
    body: incoming({
      fromId: 'visitor-ruth',
      firstName: 'Ruth',
      channel: 'web-chat',
      body: 'Do you open on Saturdays?',
    }),
  });
  await told((await api('GET', `/v1/messages/${ruth.body.messageId}`)).body.contactId);
  receiverUp = false;

  ({ context, page } = await openPage(browser));
  await signInAt(page, url('/console/inbox'), owner);
});
afterAll(async () => {
  await hook?.close();
  await stopConsole(gw, browser);
});

test('the conversations: contact, channel, last message, unread; a name holding a script is text', async () => {
  await heading(page).filter({ hasText: 'Inbox' }).waitFor();
  const mallory = conversationButton(page, 'Mallory');
  await mallory.waitFor();
  expect(await mallory.locator('.inbox-item-name').textContent()).toBe(HOSTILE_NAME);
  expect(await mallory.locator('.inbox-item-meta').textContent()).toContain('Custom: web-chat');
  expect(await mallory.locator('.inbox-count').textContent()).toBe('4 unread');
  // Who wrote the last message: here a workflow through the API.
  expect(await mallory.locator('.inbox-item-last').textContent()).toBe('API: Thanks, we will call you');
  // Newest activity first: Ruth wrote last.
  expect(await page.locator('.inbox-item-name').allTextContents()).toEqual(['Ruth', HOSTILE_NAME]);
  expect(await scriptRan(page)).toBe(false);
  expect(await page.getByRole('navigation').getByRole('link', { name: 'Inbox' }).getAttribute('aria-current')).toBe(
    'page',
  );
  await screenshot(page, 'inbox');
});

test('opening a conversation shows its thread, marks it read, and shows every message and its media as text', async () => {
  await conversationButton(page, 'Mallory').click();
  await page.locator('#thread-heading').filter({ hasText: 'Mallory' }).waitFor();
  expect(new URL(page.url()).searchParams.get('c')).toBe(conversationId);
  await page.waitForFunction(() => document.activeElement?.id === 'thread-heading');

  const bodies = page.locator('.inbox-msg-body');
  await bodies.first().waitFor();
  // No campaign answers here: the gateway told the contact a person will.
  expect(await bodies.allTextContents()).toEqual([
    HOSTILE,
    HANDOFF_NOTICE,
    'Here is my x-ray',
    'And the form',
    'Also this',
    'Thanks, we will call you',
  ]);
  expect(await page.locator('.inbox-msg-body img, .inbox-item img').count()).toBe(0);
  // The image the gateway keeps is shown; another site's file is only a link.
  const image = page.locator('.inbox-media img');
  await page.waitForFunction(
    () => (document.querySelector('.inbox-media img') as HTMLImageElement | null)?.naturalWidth === 8,
  );
  expect(await image.getAttribute('src')).toMatch(/^\/v1\/media\/med_/);
  expect(await page.locator('.inbox-media a[href^="javascript"]').count()).toBe(0);
  expect(await page.getByRole('link', { name: /Open the attached file/ }).getAttribute('href')).toBe(
    'https://files.example.com/quote.pdf',
  );
  expect(await page.locator('.inbox-msg.inbox-in .inbox-status').first().textContent()).toBe('Received');
  expect(await scriptRan(page)).toBe(false);

  const read = await poll(
    () => api('GET', `/v1/conversations/${conversationId}`),
    (r) => r.body.unread === 0,
  );
  expect(read.body.unread).toBe(0);
  // Read, and still waiting: the team's reply failed, so nothing answered Mallory yet.
  await page
    .locator('.inbox-item')
    .filter({ hasText: 'Mallory' })
    .locator('.inbox-count')
    .filter({ hasText: 'Needs reply' })
    .waitFor();
});

test('a failed delivery shows its error and attempts; Retry sends it again and it turns Sent without a reload', async () => {
  const failed = page.locator('.inbox-msg').filter({ hasText: 'Thanks, we will call you' });
  expect(await failed.locator('.inbox-status').textContent()).toBe('Failed');
  expect(await failed.locator('.inbox-msg-error').textContent()).toBe('Receiver answered HTTP 500');
  await failed.locator('summary').click();
  expect(await failed.locator('.inbox-attempts li').allTextContents()).toEqual(
    Array(3).fill(expect.stringMatching(/: Receiver answered HTTP 500$/)),
  );
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'inbox-thread-failed');

  receiverUp = true;
  await failed.getByRole('button', { name: 'Retry' }).click();
  await failed.locator('.inbox-status').filter({ hasText: 'Sent' }).waitFor();
  expect(await failed.getByRole('button', { name: 'Retry' }).count()).toBe(0);
  expect(await failed.locator('.inbox-msg-error').count()).toBe(0);
  expect((await api('GET', `/v1/messages/${failedId}`)).body.status).toBe('sent');
  expect(hook.requests.at(-1)!.body).toMatchObject({ messageId: failedId, body: 'Thanks, we will call you' });
  // The reply reached Mallory at last: nothing waits for the team there any more.
  await page
    .locator('.inbox-item')
    .filter({ hasText: 'Mallory' })
    .locator('.inbox-count')
    .waitFor({ state: 'detached' });
  await screenshot(page, 'inbox-retried');
});

test('a new message from the contact appears in the open thread, and a new conversation in the list, without a reload', async () => {
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  await write({ body: 'Great, talk soon' });
  await page.locator('.inbox-msg-body').filter({ hasText: 'Great, talk soon' }).waitFor();
  await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
    apiKey: owner.apiKey,
    body: incoming({
      fromId: 'visitor-newcomer',
      firstName: 'Nadia',
      channel: 'web-chat',
      body: 'Hi, a new lead here',
    }),
  });
  const nadia = conversationButton(page, 'Nadia');
  await nadia.waitFor();
  expect(await nadia.locator('.inbox-count').textContent()).toBe('1 unread');
  expect(await page.locator('.inbox-item-name').first().textContent()).toBe('Nadia');
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  // The open conversation's new message was read as it arrived.
  await poll(
    () => api('GET', `/v1/conversations/${conversationId}`),
    (r) => r.body.unread === 0,
  );
});

test("a team reply goes out on the conversation's channel and hands it off; the bot is turned on and off", async () => {
  await page.getByLabel('Reply as your team').fill('A person here: see you Monday');
  await page.getByRole('button', { name: 'Send reply' }).click();
  const reply = page.locator('.inbox-msg').filter({ hasText: 'A person here: see you Monday' });
  await reply.waitFor();
  expect(await reply.locator('.inbox-msg-meta span').first().textContent()).toBe('Team');
  await reply.locator('.inbox-status').filter({ hasText: 'Sent' }).waitFor();
  expect(await page.getByLabel('Reply as your team').inputValue()).toBe('');
  await page.locator('.inbox-facts .inbox-handoff').waitFor();
  await conversationButton(page, 'Mallory').locator('.inbox-handoff').waitFor();
  // The list names who of the team replied, as the thread does, not "You".
  const author = (await api('GET', `/v1/conversations/${conversationId}`)).body.lastMessage.authorName;
  expect(author).toBe('Inbox Dental');
  await conversationButton(page, 'Mallory')
    .locator('.inbox-item-last')
    .filter({ hasText: 'Inbox Dental: A person here: see you Monday' })
    .waitFor();
  expect(hook.requests.at(-1)!.body).toMatchObject({
    body: 'A person here: see you Monday',
    toId: fromId,
    channel: 'web-chat',
  });
  await screenshot(page, 'inbox-handed-off');

  await page.getByRole('button', { name: 'Turn the bot on' }).click();
  await page.getByRole('status').filter({ hasText: 'The bot is on again for this contact.' }).waitFor();
  expect((await api('GET', `/v1/conversations/${conversationId}`)).body).toMatchObject({
    status: 'active',
    bot: { active: true },
  });
  await page.getByRole('button', { name: 'Turn the bot off' }).click();
  await page.getByRole('status').filter({ hasText: 'The bot is off' }).waitFor();
  expect((await api('GET', `/v1/conversations/${conversationId}`)).body).toMatchObject({
    status: 'handed_off',
    bot: { active: false },
  });

  // An opted-out contact gets no reply: the thread says so and offers no reply box, as the API would refuse it.
  await write({ body: 'STOP' });
  await page.locator('.inbox-msg-body').filter({ hasText: 'STOP' }).waitFor();
  const notice = page.getByRole('status').filter({ hasText: 'This contact opted out' });
  await notice.waitFor();
  expect(await notice.textContent()).toMatch(
    /^This contact opted out \(“STOP”, .+\): nothing is sent to them, by the bot or by your team, until they write START\.$/,
  );
  expect(await page.getByLabel('Reply as your team').count()).toBe(0);
  expect(await page.getByRole('button', { name: /Turn the bot/ }).count()).toBe(0);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'inbox-opted-out');
});

test('filters: status, channel and campaign, as the API filters', async () => {
  const campaign = (
    await api('POST', '/v1/campaigns', { name: 'Spring <b>offer</b>', channel: 'custom', customChannel: 'web-chat' })
  ).body;
  await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
    apiKey: owner.apiKey,
    body: incoming({
      fromId: 'visitor-spring',
      firstName: 'Sam',
      channel: 'web-chat',
      campaignId: campaign.id,
      body: 'About the offer',
    }),
  });
  // Its bot has no FAQs to answer from: it hands Sam to the team. Nadia and Ruth wrote with no campaign to answer
  // them: they went to the team at once.
  await poll(
    async () => (await api('GET', '/v1/conversations?status=handed_off')).body.data.length,
    (n) => n === 3,
  );
  await page.reload();
  await conversationButton(page, 'Sam').waitFor();
  await page.getByLabel('Campaign').selectOption({ label: 'Spring <b>offer</b>' });
  await listShows(page, ['Sam']);
  await page.getByLabel('Campaign').selectOption('');
  await page.getByLabel('Status').selectOption('opted_out');
  await listShows(page, [HOSTILE_NAME]);
  await page.getByLabel('Status').selectOption('handed_off');
  await listShows(page, ['Sam', 'Nadia', 'Ruth']);
  await page.getByLabel('Status').selectOption('active');
  await page.getByText('No conversation matches these filters.').waitFor();
  await page.getByLabel('Status').selectOption('');
  await listShows(page, ['Sam', HOSTILE_NAME, 'Nadia', 'Ruth']);
  await page.getByLabel('Channel').selectOption('sms');
  await page.getByText('No conversation matches these filters.').waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByLabel('Channel').selectOption('');
  await listShows(page, ['Sam', HOSTILE_NAME, 'Nadia', 'Ruth']);

  // An archived campaign's conversations stay, and are found by it, named as archived.
  expect((await api('PATCH', `/v1/campaigns/${campaign.id}`, { status: 'archived' })).status).toBe(200);
  await page.reload();
  await conversationButton(page, 'Sam').waitFor();
  await page.getByLabel('Campaign').selectOption({ label: 'Spring <b>offer</b> (archived)' });
  await listShows(page, ['Sam']);
  await page.getByLabel('Campaign').selectOption('');
  expect((await api('PATCH', `/v1/campaigns/${campaign.id}`, { status: 'draft' })).status).toBe(200);
});

test('usable by keyboard: a conversation opens with Enter and its heading takes focus', async () => {
  await page.goto(url('/console/inbox'));
  await conversationButton(page, 'Ruth').waitFor();
  await conversationButton(page, 'Ruth').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    () => document.activeElement?.id === 'thread-heading' && document.activeElement.textContent === 'Ruth',
  );
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.id === 'reply-body')) break;
  }
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('reply-body');
});

test('readable at phone width: the list, then the thread alone with a way back', async () => {
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 375, height: 740 });
  await phone.goto(url('/console/inbox'));
  await conversationButton(phone, 'Mallory').waitFor();
  expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await screenshot(phone, 'inbox-phone');
  await conversationButton(phone, 'Mallory').click();
  await phone.locator('.inbox-msg').first().waitFor();
  expect(await phone.locator('.inbox-list').isVisible()).toBe(false);
  expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await screenshot(phone, 'inbox-thread-phone');
  await phone.getByRole('button', { name: 'All conversations' }).click();
  await conversationButton(phone, 'Mallory').waitFor();
  await phone.close();
});

test("at phone width the browser's Back leaves a conversation for the conversations, still on the Inbox; Forward opens it again", async () => {
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 375, height: 740 });
  await phone.goto(url('/console/lists'));
  await heading(phone).filter({ hasText: 'Lists' }).waitFor();
  await phone.goto(url('/console/inbox'));
  await conversationButton(phone, 'Mallory').click();
  await phone.locator('.inbox-msg').first().waitFor();
  expect(new URL(phone.url()).search).toBe(`?c=${conversationId}`);

  await phone.goBack();
  await conversationButton(phone, 'Mallory').waitFor();
  expect(new URL(phone.url()).pathname + new URL(phone.url()).search).toBe('/console/inbox');
  expect(await phone.locator('.inbox-msg').count()).toBe(0);

  await phone.goForward();
  await phone.locator('.inbox-msg').first().waitFor();
  expect(await phone.locator('.inbox-list').isVisible()).toBe(false);
  await phone.close();
});

test("another account's session sees none of these conversations, and cannot open one by its address", async () => {
  const theirs = await newContext(browser);
  const p = await theirs.newPage();
  await signInAt(p, url('/console/inbox'), other);
  await p.getByText(/No conversations yet/).waitFor();
  await p.goto(url(`/console/inbox?c=${conversationId}`));
  await p.locator('.inbox-thread .error').filter({ hasText: 'Conversation not found' }).waitFor();
  expect(await p.locator('.inbox-msg').count()).toBe(0);
  await theirs.close();
  expect((await api('GET', `/v1/conversations/${conversationId}`)).body.contactId).toBe(contactId);
});

test('the Failed filter lists the conversations holding a failed message; Retry all failed sends them again', async () => {
  receiverUp = false;
  const sent = await api('POST', '/v1/send_custom_channel_message', {
    customData: { fromId: 'visitor-ruth', customChannel: 'web-chat', body: 'We open at 9 on Saturdays' },
  });
  await poll(
    () => api('GET', `/v1/messages/${sent.body.messageId}`),
    (r) => r.body.status === 'failed',
  );
  await page.goto(url('/console/inbox'));
  await page.getByLabel('Messages', { exact: true }).selectOption('true');
  await listShows(page, ['Ruth']);
  const ruth = conversationButton(page, 'Ruth');
  expect(await ruth.locator('.inbox-failed').textContent()).toBe('1 failed');
  await ruth.click();
  await page.getByRole('button', { name: 'Retry the 1 failed message' }).waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'inbox-failed-filter');

  receiverUp = true;
  await page.getByRole('button', { name: 'Retry all failed messages' }).click();
  await page.getByRole('status').filter({ hasText: '1 message sent again.' }).waitFor();
  await poll(
    () => api('GET', `/v1/messages/${sent.body.messageId}`),
    (r) => r.body.status === 'sent',
  );
  await page.getByText('No conversation matches these filters.').waitFor();
  expect(hook.requests.at(-1)!.body).toMatchObject({
    messageId: sent.body.messageId,
    body: 'We open at 9 on Saturdays',
  });
});

test('a question the bot handed off, answered by the team, is saved as an FAQ of its campaign, edited first; the bot then answers it', async () => {
  receiverUp = true;
  const faqs = [{ question: 'What are your opening hours?', answer: 'Monday to Saturday, 9 to 5.' }];
  const campaign = (
    await api('POST', '/v1/campaigns', {
      name: 'Web chat',
      channel: 'custom',
      customChannel: 'web-chat',
      bot: { faqs },
    })
  ).body;
  await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
    apiKey: owner.apiKey,
    body: incoming({
      fromId: 'visitor-gina',
      firstName: 'Gina',
      channel: 'web-chat',
      body: 'do you sell gift cards?',
      campaignId: campaign.id,
    }),
  });
  const handedOff = await poll(
    async () =>
      (await api('GET', '/v1/conversations', undefined)).body.data.find(
        (c: { contact: { firstName: string } }) => c.contact?.firstName === 'Gina',
      ),
    (c) => c?.status === 'handed_off',
    15_000,
  );
  await page.goto(url(`/console/inbox?c=${handedOff.id}`));
  await page
    .getByLabel('Reply as your team')
    .fill(
      'Hi Gina, thanks for reaching out!\n\nYes! Gift cards from $25, at the front desk.\n\nThanks, Dana at Inbox Dental',
    );
  await page.getByRole('button', { name: 'Send reply' }).click();

  // The answer without what was said to Gina alone: her greeting, the thanks, and Dana's sign-off with the clinic's name.
  const form = page.getByRole('form', { name: 'Save as FAQ' });
  await form.waitFor();
  expect(await form.getByLabel('FAQ question').inputValue()).toBe('do you sell gift cards?');
  expect(await form.getByLabel('FAQ answer').inputValue()).toBe('Yes! Gift cards from $25, at the front desk.');
  expect(await form.getByRole('status').filter({ hasText: 'The answer names' }).count()).toBe(0);
  // A name written back in is pointed out: every contact who asks would read it.
  await form.getByLabel('FAQ answer').fill('Yes Gina! Gift cards from $25, at the front desk.');
  await form
    .getByRole('status')
    .filter({ hasText: 'The answer names “Gina”: the bot would say it to every contact who asks.' })
    .waitFor();
  await form.getByLabel('FAQ question').fill('Do you sell gift cards?');
  await form.getByLabel('FAQ answer').fill('Yes: gift cards from $25, at the front desk.');
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'inbox-save-faq');
  await form.getByRole('button', { name: 'Save as FAQ' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved as an FAQ of “Web chat”' }).waitFor();
  expect(await page.getByRole('form', { name: 'Save as FAQ' }).count()).toBe(0);

  expect((await api('GET', `/v1/campaigns/${campaign.id}`)).body.bot.faqs).toEqual([
    ...faqs,
    { question: 'Do you sell gift cards?', answer: 'Yes: gift cards from $25, at the front desk.' },
  ]);
  const tried = await api('POST', `/v1/campaigns/${campaign.id}/bot/test`, { message: 'do you sell gift cards?' });
  expect(tried.body.reply).toMatchObject({ kind: 'reply', body: 'Yes: gift cards from $25, at the front desk.' });
});

test("the list tells the bot's answer as the bot's", async () => {
  const campaign = (await api('GET', '/v1/campaigns')).body.data.find((c: { name: string }) => c.name === 'Web chat');
  await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
    apiKey: owner.apiKey,
    body: incoming({
      fromId: 'visitor-omar',
      firstName: 'Omar',
      channel: 'web-chat',
      body: 'What are your opening hours?',
      campaignId: campaign.id,
    }),
  });
  await page.goto(url('/console/inbox'));
  await conversationButton(page, 'Omar')
    .locator('.inbox-item-last')
    .filter({ hasText: 'Bot: Monday to Saturday, 9 to 5.' })
    .waitFor({ timeout: 15_000 });
});

test('a contact found by the search box leads to their conversation: the only one at once, several by channel, none said so', async () => {
  // Ruth writes on a second channel too; Zed is a contact nobody wrote to yet.
  await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
    apiKey: owner.apiKey,
    body: incoming({ fromId: 'visitor-ruth', channel: 'email-desk', body: 'Also by email' }),
  });
  await api('POST', '/v1/contacts', { firstName: 'Zed', lastName: 'Nobody', email: 'zed@example.com' });
  await page.goto(url('/console/inbox'));
  const search = page.getByRole('searchbox', { name: 'Find a contact' });
  const found = page.getByRole('region', { name: 'Contacts found' });
  const searchStatus = page.getByRole('search', { name: 'Contacts' }).getByRole('status');

  await search.fill('nad');
  await found.locator('.inbox-item-name').filter({ hasText: 'Nadia' }).click();
  await page.locator('#thread-heading').filter({ hasText: 'Nadia' }).waitFor();

  await search.fill('visitor-ruth');
  await found.locator('.inbox-item-name').filter({ hasText: 'Ruth' }).click();
  const choices = page.getByRole('list', { name: 'Conversations with Ruth' });
  await choices.getByRole('button', { name: 'Open on Custom: email-desk' }).click();
  await page.locator('.inbox-msg-body').filter({ hasText: 'Also by email' }).waitFor();
  expect(await page.locator('.inbox-msg-body').allTextContents()).toEqual(['Also by email', HANDOFF_NOTICE]);

  await search.fill('ZED@example');
  await found.locator('.inbox-item-name').filter({ hasText: 'Zed Nobody' }).click();
  await found.getByText('No conversation with Zed Nobody yet').waitFor();
  await search.fill('nobody-matches-this');
  await searchStatus.filter({ hasText: 'No contact matches “nobody-matches-this”.' }).waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'inbox-contact-search');

  // Too short to look for, or a phone number too short to be found by: the box says why, not just "no match".
  await search.fill('555');
  await searchStatus
    .filter({
      hasText: 'No contact has a name or an ID matching “555”: a phone number is found by its last 4 digits or more.',
    })
    .waitFor();
  await search.fill('r');
  await page
    .getByRole('status')
    .filter({
      hasText:
        'Type more: a search must hold a word of 2 letters or digits or more, or the last 4 digits or more of a phone number.',
    })
    .waitFor();
  expect(await found.count()).toBe(0);
  // Punctuation does not matter: "o'neil" is found by "oneil".
  await api('POST', '/v1/contacts', { firstName: 'Sean', lastName: "O'Neil", email: 'sean@example.com' });
  await search.fill('oneil');
  await found.locator('.inbox-item-name').filter({ hasText: "Sean O'Neil" }).waitFor();
});

test('at 390 px the first conversation is on the first screen, the filters folded behind one button; at desktop width all are in view', async () => {
  /** Where the first conversation of the list starts and ends, from the top of the page. */
  const firstRow = (p: Page) =>
    p
      .locator('.inbox-list .inbox-item')
      .first()
      .evaluate((e) => {
        const box = e.getBoundingClientRect();
        return { top: box.top + window.scrollY, bottom: box.bottom + window.scrollY };
      });
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  await phone.goto(url('/console/inbox'));
  await conversationButton(phone, 'Ruth').first().waitFor();
  // It used to start 730 px down, below the header, the switch, the search and four filters.
  const row = await firstRow(phone);
  expect(row.bottom).toBeLessThanOrEqual(844);
  expect(row.top).toBeLessThan(650);
  expect(await phone.getByLabel('Status').isVisible()).toBe(false);
  const toggle = phone.getByRole('button', { name: 'Filters' });
  expect(await toggle.getAttribute('aria-expanded')).toBe('false');
  expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await screenshot(phone, 'inbox-390');

  // Unfolded, they filter as ever; folded again, the button says how many are set.
  await toggle.click();
  expect(await toggle.getAttribute('aria-expanded')).toBe('true');
  await phone.getByLabel('Channel').selectOption('sms');
  await phone.getByText('No conversation matches these filters.').waitFor();
  expect(await seriousViolations(phone)).toEqual([]);
  await screenshot(phone, 'inbox-390-filters');
  await toggle.click();
  expect(await phone.getByLabel('Channel').isVisible()).toBe(false);
  expect(await phone.getByRole('button', { name: 'Filters (1 set)' }).getAttribute('aria-expanded')).toBe('false');
  await phone.close();

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(url('/console/inbox'));
  await conversationButton(page, 'Ruth').first().waitFor();
  expect((await firstRow(page)).bottom).toBeLessThanOrEqual(900);
  for (const label of ['Status', 'Messages', 'Channel', 'Campaign'])
    expect({ label, shown: await page.getByLabel(label, { exact: true }).isVisible() }).toEqual({ label, shown: true });
  expect(await page.getByRole('button', { name: 'Filters' }).isVisible()).toBe(false);
});

test("a conversation's accessible name is short (contact, state, time); the rest of its row describes it", async () => {
  await page.goto(url('/console/inbox'));
  const ruth = conversationButton(page, 'Ruth').filter({ hasText: 'Custom: web-chat' });
  await ruth.waitFor();
  // Read as "Ruth, handed off, 10:42", with "1 unread" or "needs reply" after the status while either holds (the team
  // answered her above; a space may come before the first comma: the state is a box of its own). The name is read from
  // the row as assistive technology computes it.
  const name = async () => (await ruth.ariaSnapshot()).split('\n')[0];
  const pattern = /^- button "Ruth ?, handed off, (needs reply, |\d+ unread, )?\d{1,2}:\d{2}( [AP]M)?"/;
  expect(await poll(name, (n) => pattern.test(n), 5_000)).toMatch(pattern);
  const described = await ruth.evaluate((e) =>
    (e.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent),
  );
  expect(described).toEqual([expect.stringContaining('Custom: web-chat'), expect.any(String)]);
  // Its name is its text, as a voice control user says it: no aria-label standing in for what is seen.
  expect(await ruth.getAttribute('aria-label')).toBeNull();
});

test("each channel's reply box says how the reply is sent; why a conversation was handed off is told as it was then", async () => {
  const replyHint = () => page.locator('#reply-body-hint');
  const why = () => page.locator('.inbox-handoff-why');
  // SMS: from the business's number, the text alone; no campaign answered this patient.
  const phone = '+15550107777';
  expect(
    (await api('POST', '/v1/channels/sms/incoming', { phone, body: 'I chipped a tooth, can someone see me today?' }))
      .status,
  ).toBe(200);
  const sms = await poll(
    async () => (await api('GET', '/v1/conversations?channel=sms')).body.data[0],
    (c) => c?.status === 'handed_off',
    15_000,
  );
  await page.goto(url(`/console/inbox?c=${sms.id}`));
  await replyHint().waitFor();
  expect(await replyHint().textContent()).toMatch(
    /^Sent by SMS from your business’s number: the contact gets the text alone, not your name \(your team sees it under your name\)\. /,
  );
  expect(await replyHint().textContent()).not.toContain('signed');
  expect(await why().textContent()).toBe(
    'No campaign answered this contact: handed to the team. They wrote: “I chipped a tooth, can someone see me today?”',
  );

  // A custom channel: its receiver is given the author's name beside the text.
  const ruth = (await api('GET', '/v1/conversations?channel=custom')).body.data.find(
    (c: { contact: { firstName: string }; customChannel: string }) =>
      c.contact?.firstName === 'Ruth' && c.customChannel === 'web-chat',
  );
  await page.goto(url(`/console/inbox?c=${ruth.id}`));
  await replyHint().filter({ hasText: 'Custom Channel Webhook' }).waitFor();
  expect(await replyHint().textContent()).toMatch(
    /^Sent on Custom: web-chat to your Custom Channel Webhook, with your name beside the text \(authorName\) for your chat to show if it wants\. /,
  );

  // A campaign without FAQs hands off; FAQs added since do not turn the explanation into a falsehood.
  const bare = (
    await api('POST', '/v1/campaigns', {
      name: 'Bare',
      channel: 'custom',
      customChannel: 'web-chat',
      bot: { faqs: [] },
    })
  ).body;
  await api(
    'POST',
    '/v1/incoming_custom_channel_message',
    incoming({
      fromId: 'visitor-omar',
      firstName: 'Omar',
      channel: 'web-chat',
      body: 'Do you whiten teeth?',
      campaignId: bare.id,
    }),
  );
  const omar = await poll(
    async () =>
      (await api('GET', '/v1/conversations')).body.data.find(
        (c: { contact: { firstName: string } }) => c.contact?.firstName === 'Omar',
      ),
    (c) => c?.status === 'handed_off',
    15_000,
  );
  expect(omar.handoff.reason).toBe('bot_no_knowledge');
  expect(
    (
      await api('PATCH', `/v1/campaigns/${bare.id}`, {
        bot: { faqs: [{ question: 'Do you whiten teeth?', answer: 'Yes, from $200.' }] },
      })
    ).status,
  ).toBe(200);
  await page.goto(url(`/console/inbox?c=${omar.id}`));
  await why().waitFor();
  expect(await why().textContent()).toBe(
    'When this came in, the campaign had no FAQs for the bot to answer from: “Do you whiten teeth?”',
  );
  expect(await seriousViolations(page)).toEqual([]);
});

test('a conversation the bot had answered as often in an hour as the settings allow says so', async () => {
  const faq = (
    await api('POST', '/v1/campaigns', {
      name: 'Implants',
      channel: 'custom',
      customChannel: 'web-chat',
      bot: { faqs: [{ question: 'Do you do implants?', answer: 'Yes, from $900.' }] },
    })
  ).body;
  expect((await api('PUT', '/v1/settings', { botReplyLimit: 1 })).status).toBe(200);
  const ask = async (body: string) => {
    const data = { fromId: 'visitor-ivan', firstName: 'Ivan', channel: 'web-chat', body, campaignId: faq.id };
    expect((await api('POST', '/v1/incoming_custom_channel_message', incoming(data))).status).toBe(200);
    // Past the bot's wait for more of a burst (LEADCHAT_BOT_DEBOUNCE).
    await advanceClock(gw, '5s');
  };
  const ivan = async () =>
    (await api('GET', '/v1/conversations')).body.data.find(
      (c: { contact: { firstName: string } }) => c.contact?.firstName === 'Ivan',
    );
  await ask('Do you do implants?');
  await poll(ivan, (c) => c?.lastMessage?.author === 'bot', 15_000);
  await ask('Do you do implants? How long does it take?');
  const handedOff = await poll(ivan, (c) => c?.status === 'handed_off', 15_000);
  expect(handedOff.handoff.reason).toBe('bot_reply_limit');
  expect((await api('PUT', '/v1/settings', { botReplyLimit: 30 })).status).toBe(200);

  await page.goto(url(`/console/inbox?c=${handedOff.id}`));
  const why = page.locator('.inbox-handoff-why');
  await why.waitFor();
  expect(await why.textContent()).toBe(
    'The bot had answered this conversation as many times in an hour as the settings allow: “Do you do implants? How long does it take?”',
  );
});

test('more conversations needing a reply than one page holds: "Show more conversations" shows the rest', async () => {
  const busy = await consoleAccount(gw, { name: 'Busy Clinic' });
  // The web chat's receiver of replies: the team's reply reaches the visitor it answers.
  const chat = await Receiver.start();
  expect(
    (await request(gw, 'PUT', '/v1/settings', { apiKey: busy.apiKey, body: { customChannelWebhookUrl: chat.url } }))
      .status,
  ).toBe(200);
  const name = (n: number) => `Visitor ${String(n).padStart(2, '0')}`;
  const say = (n: number) =>
    request(gw, 'POST', '/v1/incoming_custom_channel_message', {
      apiKey: busy.apiKey,
      body: incoming({ fromId: `visitor-${n}`, firstName: name(n), channel: 'web-chat', body: 'Hello?' }),
    });
  // 26 wait for a reply (no campaign answers them), one more than the page's 25; one was answered, and needs none.
  for (let n = 1; n <= 27; n++) expect((await say(n)).status).toBe(200);
  const answered = (await request(gw, 'GET', '/v1/conversations?limit=200', { apiKey: busy.apiKey })).body.data.find(
    (c: { contact: { firstName: string } }) => c.contact.firstName === name(1),
  );
  const reply = await request(gw, 'POST', `/v1/contacts/${answered.contactId}/messages`, {
    apiKey: busy.apiKey,
    body: { body: 'We open at nine' },
  });
  expect(reply.status).toBe(201);
  await poll(
    () => request(gw, 'GET', `/v1/messages/${reply.body.id}`, { apiKey: busy.apiKey }),
    (r) => r.body.status === 'sent',
  );

  const { context: mine, page: busyPage } = await openPage(browser);
  try {
    await signInAt(busyPage, url('/console/inbox'), busy);
    const items = busyPage.locator('.inbox-item');
    // The newest 25 of those waiting, then the answered one; the one that waits longest is on the next page.
    await conversationButton(busyPage, name(1)).waitFor();
    expect(await items.count()).toBe(26);
    expect(await conversationButton(busyPage, name(2)).count()).toBe(0);
    await busyPage.getByRole('button', { name: 'Show more conversations' }).click();
    await conversationButton(busyPage, name(2)).waitFor();
    expect(await items.count()).toBe(27);
  } finally {
    await mine.close();
    await chat.close();
  }
});

test('Save as FAQ is not offered for a question its campaign holds in other case, accents or punctuation, which the API would refuse', async () => {
  receiverUp = true;
  const campaign = (
    await api('POST', '/v1/campaigns', { name: 'Hours chat', channel: 'custom', customChannel: 'web-chat' })
  ).body;
  // No FAQ yet: the bot hands the question off for want of one.
  await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
    apiKey: owner.apiKey,
    body: incoming({
      fromId: 'visitor-hugo',
      firstName: 'Hugo',
      channel: 'web-chat',
      body: 'Opening hóurs',
      campaignId: campaign.id,
    }),
  });
  const handedOff = await poll(
    async () =>
      (await api('GET', '/v1/conversations', undefined)).body.data.find(
        (c: { contact: { firstName: string } }) => c.contact?.firstName === 'Hugo',
      ),
    (c) => c?.status === 'handed_off' && c.handoff?.reason.startsWith('bot_'),
    15_000,
  );
  // Meanwhile the question is saved, in other words: the API takes no other wording of it.
  const faq = { question: 'Opening hours?', answer: 'Monday to Saturday, 9 to 5.' };
  const path = `/v1/campaigns/${campaign.id}`;
  expect((await api('PATCH', path, { bot: { faqs: [faq] } })).status).toBe(200);
  for (const question of ['opening hours', 'Opening hóurs'])
    expect((await api('PATCH', path, { bot: { faqs: [faq, { question, answer: 'Nine to five.' }] } })).status).toBe(
      400,
    );

  await page.goto(url(`/console/inbox?c=${handedOff.id}`));
  await page.getByLabel('Reply as your team').fill('We open at 9, Monday to Saturday.');
  // Answered, the conversation reads its campaign to know whether it holds the question already.
  const read = page.waitForResponse((r) => r.request().method() === 'GET' && new URL(r.url()).pathname === path);
  await page.getByRole('button', { name: 'Send reply' }).click();
  await read;
  await page.locator('.inbox-thread .inbox-msg-body').filter({ hasText: 'We open at 9' }).waitFor();
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  expect(await page.getByRole('form', { name: 'Save as FAQ' }).count()).toBe(0);
});
