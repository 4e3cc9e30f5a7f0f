import type { Browser, Page } from 'playwright-core';
import { api, HANDOFF_NOTICE, incoming, poll, Receiver, uniquePhone } from '../gateway/api-support';
import { createAccount, type TestAccount, type TestGateway } from '../helpers/gateway';
import { openPage, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * A sales team's first day, end to end, in the browser, on both backends: a new sub-account of an agency imports a
 * CSV with an external-ID column into the list of a Live custom-channel campaign. Every reachable contact gets its
 * opening message (3 at once, the rest paced), and the rows it cannot reach are counted in the import report and on
 * the campaign. A contact writes with their phone as fromId: the same contact, and the bot cannot answer for want of
 * credits: the contact is told a person will answer, free, and the team has the conversation, first in the inbox,
 * with why, under the balance banner; the agency grants credits, the team turns the bot on again, and it answers.
 */
jest.setTimeout(120_000);

/** 60 a minute: the paced opening messages go one a second after the first three. */
const INTERVAL_MS = 1_000;
const FAQ = { question: 'How much does a teeth cleaning cost?', answer: 'A cleaning costs $90.' };

let gw: TestGateway;
let browser: Browser;
let hook: Receiver;
let agency: TestAccount;
let team: ConsoleAccount;
let page: Page;

beforeAll(async () => {
  [[gw, browser], hook] = await Promise.all([
    startConsole({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '200ms' }),
    Receiver.start(),
  ]);
  agency = await createAccount(gw, { type: 'agency', name: 'Growth Agency' });
  team = await consoleAccount(gw, { name: 'Smile Dental', parentEmail: agency.email });
  expect((await v1('PUT', 'settings', { customChannelWebhookUrl: hook.url })).status).toBe(200);
  ({ page } = await openPage(browser));
});
afterAll(async () => {
  await hook?.close();
  await stopConsole(gw, browser);
});

const v1 = (method: string, path: string, body?: unknown, who: TestAccount = team) =>
  api(gw, who, method, path, body === undefined ? {} : { body });
const url = (p: string) => `${gw.url}${p}`;
const openings = () => hook.requests.filter((r) => r.body?.messageId && r.body.body.startsWith('Hi '));

test('import, paced openings, the unreachable counted, a contact known by phone, credits run out, granted, the bot on again', async () => {
  // The list and its Live custom-channel campaign.
  await signInAt(page, url('/console/lists'), team);
  const banner = page.getByRole('alert').filter({ hasText: 'Your balance is 0 credits' });
  await banner.waitFor();
  await page.getByLabel('List name', { exact: true }).fill('Spring leads');
  await page.getByRole('button', { name: 'Create list' }).click();
  await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Spring leads' }).waitFor();
  const listId = new URL(page.url()).searchParams.get('id')!;
  const campaign = (
    await v1('POST', 'campaigns', {
      name: 'Spring chat',
      channel: 'custom',
      customChannel: 'chat',
      listId,
      openingMessage: 'Hi {{first_name|there}}, thanks for your interest!',
      triggerOnNewContacts: true,
      status: 'live',
      sendRate: '60/m',
      bot: { faqs: [FAQ] },
    })
  ).body;
  expect(campaign.status).toBe('live');

  // Six rows with a visitor ID, two without: those cannot be reached on the chat.
  const alicePhone = uniquePhone();
  const rows = [
    ['Alice', alicePhone, 'visitor-alice'],
    ...['Ben', 'Cleo', 'Dan', 'Eve', 'Finn'].map((name) => [name, uniquePhone(), `visitor-${name.toLowerCase()}`]),
    ['Gus', uniquePhone(), ''],
    ['Hana', uniquePhone(), ''],
  ];
  const csv = ['First name,Phone,Visitor ID', ...rows.map((r) => r.join(','))].join('\n');
  await page
    .getByLabel('CSV file', { exact: true })
    .setInputFiles({ name: 'spring.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
  await page.getByLabel('External ID column', { exact: true }).selectOption('Visitor ID');
  await page.locator('#map-external-label').fill('chat');
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const report = page.getByRole('region', { name: 'Import report' }).first();
  await report.waitFor({ timeout: 30_000 });
  const count = (name: string) => report.locator(`[data-count="${name}"]`).textContent();
  expect({
    added: await count('added'),
    rejected: await count('rejected'),
    unreachable: await count('unreachable'),
  }).toEqual({ added: '8', rejected: '0', unreachable: '2' });
  await screenshot(page, 'first-day-import');

  // Every reachable contact gets its opening message: 3 at once, then one per interval.
  const [first] = (await v1('GET', `lists/${listId}/contacts?limit=1`)).body.data;
  const addedAt = Date.parse(first.addedAt);
  await poll(
    async () => openings(),
    (o) => o.length === 6,
    30_000,
  );
  expect(
    openings()
      .map((r) => r.body.toId)
      .sort(),
  ).toEqual(
    rows
      .slice(0, 6)
      .map((r) => r[2])
      .sort(),
  );
  const sentAt = (
    await Promise.all(
      openings().map(async (r) => Date.parse((await v1('GET', `messages/${r.body.messageId}`)).body.createdAt)),
    )
  ).sort((a, b) => a - b);
  expect(sentAt.slice(0, 3).every((t) => t - addedAt < 3_000)).toBe(true);
  // Each paced one waits for its slot: the k-th (from 0) goes no sooner than k - 2 intervals after the list grew.
  expect(sentAt.slice(3).filter((t, i) => t - addedAt < (i + 1) * INTERVAL_MS)).toEqual([]);

  // The campaign counts the two it cannot reach, by reason, in the API and on its page.
  expect((await v1('GET', `campaigns/${campaign.id}`)).body.unreachable).toMatchObject({ total: 2 });
  await page.goto(url(`/console/campaigns?id=${campaign.id}`));
  const notice = page.getByRole('status', { name: 'Contacts not reached' });
  await notice.waitFor();
  expect(await notice.innerText()).toMatch(
    /^2 contacts of the list were not reached:\n\n2 contacts: no external ID on the custom channel “chat”/,
  );

  // Alice writes from the chat with her phone as fromId: she is the imported contact, in the campaign's conversation.
  const alice = (await v1('GET', `contacts?phoneNumber=${encodeURIComponent(alicePhone)}`)).body;
  const wrote = await v1(
    'POST',
    'incoming_custom_channel_message',
    incoming({ fromId: alicePhone, channel: 'chat', body: 'How much is a teeth cleaning?' }),
  );
  expect(wrote.status).toBe(200);
  const incomingMessage = (await v1('GET', `messages/${wrote.body.messageId}`)).body;
  expect(incomingMessage.contactId).toBe(alice.id);

  // The bot cannot answer: the balance is 0. Alice is told a person will answer, free, and the team has her
  // conversation: first in the inbox, waiting for a reply, with why, under the banner.
  const told = await poll(
    async () => hook.requests.find((r) => r.body?.toId === alicePhone && r.body.body === HANDOFF_NOTICE),
    (r) => r !== undefined,
  );
  expect(told!.body.messageId).toEqual(expect.any(String));
  expect((await v1('GET', `conversations/${incomingMessage.conversationId}`)).body).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    failed: 0,
    handoff: { reason: 'no_credits', message: 'How much is a teeth cleaning?' },
  });
  await page.goto(url('/console/inbox'));
  await banner.waitFor();
  const aliceItem = page.locator('.inbox-item').first().filter({ hasText: 'Alice' });
  await aliceItem.locator('.inbox-handoff').waitFor();
  await aliceItem.click();
  await page
    .locator('.inbox-handoff-why')
    .filter({ hasText: 'The account had no credits for the bot to answer this' })
    .waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'first-day-no-credits');

  // The agency grants credits; the team turns the bot on again for Alice, and it answers her next question.
  expect((await v1('POST', 'subaccounts/credits', { email: team.email, amount: 10 }, agency)).status).toBe(200);
  await page.reload();
  expect(await banner.count()).toBe(0);
  await page.locator('.inbox-item').filter({ hasText: 'Alice' }).click();
  await page.getByRole('button', { name: 'Turn the bot on' }).click();
  await page.getByRole('status').filter({ hasText: 'The bot is on again for this contact.' }).waitFor();
  await v1(
    'POST',
    'incoming_custom_channel_message',
    incoming({ fromId: alicePhone, channel: 'chat', body: 'So how much is a cleaning?' }),
  );
  const answered = await poll(
    async () => hook.requests.find((r) => r.body?.toId === alicePhone && r.body.body === FAQ.answer),
    (r) => r !== undefined,
  );
  expect(
    (
      await poll(
        async () => (await v1('GET', `messages/${answered!.body.messageId}`)).body,
        (m) => m.status !== 'pending',
      )
    ).status,
  ).toBe('sent');
  expect((await v1('GET', 'credits')).body.balance).toBe(9);
});

/**
 * A three-person dental clinic's first day, in the order a team does it: patients imported before any campaign
 * exists, a campaign created Live in the console, which asks whether the patients already on the list get its
 * opening message (yes: each gets it once, paced); then someone no campaign answers writes in, and the team sees
 * the conversation waiting for a reply, handed to them, and why.
 */
test('contacts imported first; a campaign made Live messages them when asked; a message no campaign answers goes to the team, with why', async () => {
  const clinic = await consoleAccount(gw, { name: 'Bright Smile Dental' });
  const as = (method: string, path: string, body?: unknown) =>
    api(gw, clinic, method, path, body === undefined ? {} : { body });
  const { context, page: p } = await openPage(browser);
  await signInAt(p, url('/console/lists'), clinic);
  await p.getByLabel('List name', { exact: true }).fill('Patients');
  await p.getByRole('button', { name: 'Create list' }).click();
  await p.getByRole('heading', { level: 1 }).filter({ hasText: 'Patients' }).waitFor();
  const names = ['Ada', 'Bo', 'Cy', 'Di', 'Ed', 'Flo', 'Gil', 'Hal'];
  const csv = ['First name,Phone', ...names.map((name) => `${name},${uniquePhone()}`)].join('\n');
  await p
    .getByLabel('CSV file', { exact: true })
    .setInputFiles({ name: 'patients.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
  await p.getByRole('button', { name: 'Import', exact: true }).click();
  const report = p.getByRole('region', { name: 'Import report' }).first();
  await report.waitFor({ timeout: 30_000 });
  expect(await report.locator('[data-count="added"]').textContent()).toBe('8');

  // The campaign, created Live in the console: the patients already on the list are asked about.
  await p.goto(url('/console/campaigns'));
  await p.getByRole('button', { name: 'New campaign' }).click();
  const label = (text: string) => p.getByLabel(text, { exact: true });
  await label('Name').fill('Check-up reminders');
  await label('List').selectOption({ label: 'Patients' });
  await label('Channel').selectOption('sms');
  await label('Opening message').fill('Hi {{first_name}}, time for your check-up! Reply to book.');
  await label('Send rate').fill('60/m');
  await p.getByRole('radio', { name: 'Live' }).check();
  await p.getByRole('button', { name: 'Create campaign' }).click();
  const question = p.getByRole('alertdialog', { name: 'Also message the 8 contacts already on the list?' });
  await question.waitFor();
  expect(await question.textContent()).toContain('paced like new contacts: under a minute at 60 per minute.');
  expect(await seriousViolations(p)).toEqual([]);
  await screenshot(p, 'first-day-reach-question');
  await question.getByRole('button', { name: 'Go Live and message them' }).click();
  await p
    .getByRole('status', { name: 'Contacts already on the list' })
    .filter({ hasText: 'Opening messages queued for 8 contacts already on the list: under a minute at 60 per minute.' })
    .waitFor();
  const campaignId = new URL(p.url()).searchParams.get('id')!;
  expect((await as('GET', `campaigns/${campaignId}`)).body).toMatchObject({
    status: 'live',
    unreachable: { total: 0 },
  });

  // The openings go, each patient's once, paced: 3 at once, then one a second.
  const openings = async () =>
    ((await as('GET', `conversations?campaignId=${campaignId}&limit=50`)).body.data as any[]).filter(
      (c) => c.lastMessage?.author === 'campaign',
    );
  const sent = await poll(openings, (o) => o.length === 8 && o.every((c) => c.lastMessage.status === 'sent'), 30_000);
  expect(sent.map((c) => c.contact.firstName).sort()).toEqual([...names].sort());
  const times = sent.map((c) => Date.parse(c.lastMessage.createdAt)).sort((a, b) => a - b);
  expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(4 * INTERVAL_MS);
  expect((await as('POST', `campaigns/${campaignId}/reach-existing`)).body).toEqual({ queued: 0, unreachable: {} });
  const ada = sent.find((c) => c.contact.firstName === 'Ada');
  await p.goto(url(`/console/inbox?c=${ada.id}`));
  const opening = p.locator('.inbox-msg').filter({ hasText: 'Hi Ada, time for your check-up! Reply to book.' });
  await opening.locator('.inbox-status').filter({ hasText: 'Sent' }).waitFor();
  expect(await opening.locator('.inbox-msg-meta span').first().textContent()).toBe('Campaign');

  // A walk-in writes on the web chat, where no campaign answers: the team gets it, needing a reply, and is told why.
  const wrote = await as(
    'POST',
    'incoming_custom_channel_message',
    incoming({ fromId: 'visitor-walter', firstName: 'Walter', channel: 'web-chat', body: 'Do you take new patients?' }),
  );
  expect(wrote.status).toBe(200);
  const { conversationId } = (await as('GET', `messages/${wrote.body.messageId}`)).body;
  expect((await as('GET', `conversations/${conversationId}`)).body).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    handoff: { reason: 'no_campaign' },
  });
  await p.goto(url('/console/inbox'));
  // Those that need a reply come first: Walter, before the patients who have not answered yet.
  await p.locator('.inbox-item-name').first().filter({ hasText: 'Walter' }).waitFor();
  const walter = p.locator('.inbox-item').filter({ hasText: 'Walter' });
  expect(await walter.locator('.inbox-handoff').textContent()).toBe('Handed off');
  await p.getByLabel('Status', { exact: true }).selectOption('handed_off');
  await walter.click();
  await p
    .locator('.inbox-handoff-why')
    .filter({
      hasText: 'No campaign answered this contact: handed to the team. They wrote: “Do you take new patients?”',
    })
    .waitFor();
  expect(await seriousViolations(p)).toEqual([]);
  await screenshot(p, 'first-day-no-campaign');
  await context.close();
});
