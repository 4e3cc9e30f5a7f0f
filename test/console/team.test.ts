import type { Browser, BrowserContext, Page } from 'playwright-core';
import { advanceClock, request, untilIdle, type TestGateway } from '../helpers/gateway';
import { incoming, poll, Receiver } from '../gateway/api-support';
import {
  HOSTILE,
  newContext,
  screenshot,
  scriptRan,
  seriousViolations,
  signInAt,
  startConsole,
  stopConsole,
} from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * The team inbox in a real browser: the owner invites an agent from the Members page and copies the link; the agent
 * opens it in a browser of their own, sets a password and is signed in; Settings are nowhere in their navigation and
 * their addresses refuse them; campaigns are theirs to read; they take a conversation from Unassigned and reply, and
 * the owner sees the reply under the agent's name. Then roles, new links and removal on the Members page, the
 * hand-off assignment and message settings, and a link that expired.
 */
jest.setTimeout(90_000);

const AGENT = { email: 'ana.agent@team.example', name: `Ana ${HOSTILE}`, password: 'ana-agent-long-passphrase' };

let gw: TestGateway;
let browser: Browser;
let hook: Receiver;
let owner: ConsoleAccount;
let ownerContext: BrowserContext;
let ownerPage: Page;
let agentContext: BrowserContext;
let agentPage: Page;
let inviteUrl: string;
let agentId: string;
let campaignId: string;
/** Ruth's conversation nobody has; Sam's, which the owner took. */
let ruthConversation: string;

const url = (p: string) => `${gw.url}${p}`;
const api = (method: string, path: string, body?: unknown) => request(gw, method, path, { apiKey: owner.apiKey, body });
const heading = (p: Page) => p.getByRole('heading', { level: 1 });
const status = (p: Page, text: string | RegExp) => p.getByRole('status').filter({ hasText: text });
const conversationButton = (p: Page, name: string) => p.locator('.inbox-item').filter({ hasText: name });
/** Waits until the conversation list shows exactly these names, in any order. */
const listShows = (p: Page, names: string[]) =>
  p.waitForFunction((want) => {
    const shown = [...document.querySelectorAll('.inbox-item-name')].map((e) => e.textContent).sort();
    return JSON.stringify(shown) === JSON.stringify([...want].sort());
  }, names);
const navLinks = (p: Page) => p.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
const teamRow = (p: Page, name: string) => p.locator('table.team tbody tr').filter({ hasText: name });

/** The first conversation of a contact who writes on the chat. */
async function conversationOf(fromId: string, firstName: string): Promise<string> {
  const wrote = await api(
    'POST',
    '/v1/incoming_custom_channel_message',
    incoming({ fromId, firstName, channel: 'web-chat', body: `Hello, ${firstName} here` }),
  );
  expect(wrote.status).toBe(200);
  return (await api('GET', `/v1/messages/${wrote.body.messageId}`)).body.conversationId;
}

beforeAll(async () => {
  hook = await Receiver.start();
  [gw, browser] = await startConsole({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_TEST_CLOCK: '1' });
  owner = await consoleAccount(gw, { name: 'Team Dental' });
  expect((await api('PUT', '/v1/settings', { customChannelWebhookUrl: hook.url })).status).toBe(200);
  campaignId = (
    await api('POST', '/v1/campaigns', {
      name: 'Spring chat',
      channel: 'custom',
      customChannel: 'web-chat',
      bot: { faqs: [{ question: 'Do you open on Saturdays?', answer: 'Yes, from 9 to 1.' }] },
    })
  ).body.id;
  ruthConversation = await conversationOf('visitor-ruth', 'Ruth');
  const sam = await conversationOf('visitor-sam', 'Sam');
  expect((await api('POST', `/v1/conversations/${sam}/assign`, { memberId: 'me' })).body.assigneeId).toBe(
    `mem_${owner.id.replace('_', '')}`,
  );

  ownerContext = await newContext(browser);
  await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
  ownerPage = await ownerContext.newPage();
  agentContext = await newContext(browser);
  agentPage = await agentContext.newPage();
  for (const p of [ownerPage, agentPage]) p.on('dialog', (d) => void d.dismiss());
});
afterAll(async () => {
  await hook?.close();
  await stopConsole(gw, browser);
});

test('the owner invites an agent from the Members page and copies the invitation link', async () => {
  await signInAt(ownerPage, url('/console/settings/members'), owner);
  await heading(ownerPage).filter({ hasText: 'Members' }).waitFor();
  expect(await ownerPage.locator('header .member').textContent()).toBe('Team Dental');
  expect(await ownerPage.locator('header .role').textContent()).toBe('Owner');
  const ownerRow = teamRow(ownerPage, owner.email);
  await ownerRow.waitFor();
  expect(await ownerRow.locator('td').allTextContents()).toEqual([
    'Team Dental (you)',
    owner.email,
    'Owner',
    'Active',
    'Cannot be removed',
  ]);

  await ownerPage.getByLabel('Email', { exact: true }).fill(AGENT.email);
  await ownerPage.getByLabel('Name', { exact: true }).fill(AGENT.name);
  // Most of a team answers the inbox: the form invites an agent unless told otherwise.
  expect(await ownerPage.getByLabel('Role', { exact: true }).inputValue()).toBe('agent');
  await ownerPage.getByRole('button', { name: 'Invite', exact: true }).click();
  await status(ownerPage, `${AGENT.name} is invited as an agent: send them the link below.`).waitFor();
  const link = ownerPage.getByLabel('Invitation link', { exact: true });
  inviteUrl = await link.inputValue();
  expect(inviteUrl).toMatch(new RegExp(`^${gw.url}/console/invite#[\\w-]{20,}$`));
  // The link takes focus wherever it was asked for, ready to copy.
  await ownerPage.waitForFunction(() => document.activeElement?.id === 'invite-link');
  await ownerPage.getByRole('button', { name: 'Copy Invitation link' }).click();
  await status(ownerPage, 'Copied.').waitFor();
  expect(await ownerPage.evaluate(() => navigator.clipboard.readText())).toBe(inviteUrl);

  const row = teamRow(ownerPage, AGENT.email);
  await row.waitFor();
  expect(await row.locator('td').nth(3).textContent()).toMatch(/^Invited; the link opens until /);
  agentId = (await api('GET', '/v1/members')).body.data.find((m: { email: string }) => m.email === AGENT.email).id;
  // The form is empty again for the next one.
  expect(await ownerPage.getByLabel('Email', { exact: true }).inputValue()).toBe('');
  expect(await scriptRan(ownerPage)).toBe(false);
  expect(await seriousViolations(ownerPage)).toEqual([]);
  await screenshot(ownerPage, 'members');
});

test('the agent opens the link in a browser of their own, sets a password twice and is signed in to the inbox', async () => {
  await agentPage.goto(inviteUrl);
  await heading(agentPage)
    .filter({ hasText: `Join Team Dental as ${AGENT.name}` })
    .waitFor();
  expect(await agentPage.getByLabel('Email', { exact: true }).inputValue()).toBe(AGENT.email);
  await screenshot(agentPage, 'invite');

  const refusal = agentPage.getByRole('alert').filter({ hasText: /\S/ });
  await agentPage.getByLabel('Password', { exact: true }).fill(AGENT.password);
  await agentPage.getByLabel('Password again', { exact: true }).fill(`${AGENT.password}!`);
  await agentPage.getByRole('button', { name: 'Join Team Dental' }).click();
  await refusal.filter({ hasText: 'The two passwords differ' }).waitFor();
  await agentPage.getByLabel('Password', { exact: true }).fill('too short');
  await agentPage.getByLabel('Password again', { exact: true }).fill('too short');
  await agentPage.getByRole('button', { name: 'Join Team Dental' }).click();
  await refusal.filter({ hasText: /^Password / }).waitFor();

  await agentPage.getByLabel('Password', { exact: true }).fill(AGENT.password);
  await agentPage.getByLabel('Password again', { exact: true }).fill(AGENT.password);
  await agentPage.getByRole('button', { name: 'Join Team Dental' }).click();
  await agentPage.waitForURL(url('/console/inbox'));
  await heading(agentPage).filter({ hasText: 'Inbox' }).waitFor();
  expect(await agentPage.locator('header .member').textContent()).toBe(AGENT.name);
  expect(await agentPage.locator('header .role').textContent()).toBe('Agent');
  expect(await agentPage.locator('header .name').textContent()).toBe('Team Dental');
  expect(await scriptRan(agentPage)).toBe(false);

  // The link opened once: opened again, it says so.
  const again = await (await newContext(browser)).newPage();
  await again.goto(inviteUrl);
  await heading(again).filter({ hasText: 'This invitation link does not open' }).waitFor();
  expect(await again.getByRole('alert').textContent()).toMatch(
    /^This invitation link is not valid: it was used already/,
  );
  expect(await seriousViolations(again)).toEqual([]);
  await again.context().close();
});

test("the agent's Settings hold Saved replies alone; an admin's Settings address answers 403 with a plain refusal", async () => {
  const agentLinks = ['Saved replies', 'Campaigns', 'Lists', 'Funnel', 'Inbox', 'Credits'];
  expect(await navLinks(agentPage)).toEqual(agentLinks);
  expect(await agentPage.locator('.nav-section').allTextContents()).toEqual([
    'Settings',
    'Campaigns',
    'Inbox',
    'Account',
  ]);
  for (const [path, title] of [
    ['/console/settings/members', 'Members'],
    ['/console/settings/webhook', 'Custom Channel Webhook'],
    ['/console/settings/activity', 'Activity'],
  ]) {
    const res = await agentPage.goto(url(path));
    expect(res!.status()).toBe(403);
    await heading(agentPage).filter({ hasText: title }).waitFor();
    expect(await agentPage.getByRole('alert').filter({ hasText: /\S/ }).textContent()).toMatch(
      /^Your role \(agent\) cannot open this page: it needs an admin or the account's owner\./,
    );
    expect(await agentPage.getByLabel('Webhook URL').count()).toBe(0);
    expect(await navLinks(agentPage)).toEqual(agentLinks);
  }
  await screenshot(agentPage, 'refused-agent');
});

test('the agent reads campaigns without the controls to change them, and tries the bot', async () => {
  await agentPage.goto(url('/console/campaigns'));
  await agentPage.getByRole('link', { name: 'Spring chat' }).waitFor();
  expect(await agentPage.getByRole('button', { name: 'New campaign' }).count()).toBe(0);
  await agentPage.getByRole('link', { name: 'Spring chat' }).click();
  await heading(agentPage).filter({ hasText: 'Spring chat' }).waitFor();
  expect(await agentPage.getByRole('button', { name: /Save campaign|Go Live/ }).count()).toBe(0);
  // Read as text: no input that would do nothing.
  expect(await agentPage.getByRole('region', { name: 'Settings' }).locator('input, select, textarea').count()).toBe(0);
  expect(await agentPage.getByRole('radio', { name: 'Live' }).count()).toBe(0);
  await agentPage.locator('.campaign-facts dd').filter({ hasText: 'Spring chat' }).waitFor();
  await agentPage.getByLabel('Question', { exact: true }).fill('Do you open on Saturdays?');
  await agentPage.getByRole('button', { name: 'Ask the bot' }).click();
  await agentPage.getByRole('region', { name: 'The bot’s answer' }).filter({ hasText: 'Yes, from 9 to 1.' }).waitFor();
  expect(await seriousViolations(agentPage)).toEqual([]);
  await screenshot(agentPage, 'campaign-read-only');
  expect((await api('GET', `/v1/campaigns/${campaignId}`)).body.status).toBe('draft');
});

test('the agent takes a conversation from Unassigned, and replies under their name', async () => {
  await agentPage.goto(url('/console/inbox'));
  await listShows(agentPage, ['Ruth', 'Sam']);
  expect(await conversationButton(agentPage, 'Sam').locator('.inbox-assignee').textContent()).toBe(
    'Assigned to Team Dental',
  );
  await agentPage.getByRole('radio', { name: 'Mine' }).check();
  await agentPage.getByText('No conversation matches these filters.').waitFor();
  await agentPage.getByRole('radio', { name: 'Unassigned' }).check();
  await listShows(agentPage, ['Ruth']);
  expect(await seriousViolations(agentPage)).toEqual([]);

  await conversationButton(agentPage, 'Ruth').click();
  await agentPage.locator('#thread-heading').filter({ hasText: 'Ruth' }).waitFor();
  expect(await agentPage.getByLabel('Assigned to', { exact: true }).inputValue()).toBe('');
  await agentPage.getByRole('button', { name: 'Assign to me' }).click();
  await status(agentPage, 'Assigned to you.').waitFor();
  // The thread reads the conversation again on the assignment's news: the picker follows.
  expect(
    await poll(
      () => agentPage.getByLabel('Assigned to', { exact: true }).inputValue(),
      (v) => v === agentId,
      5_000,
    ),
  ).toBe(agentId);
  // The button goes with the conversation read again, which may land after the picker shows the choice applied.
  await agentPage.getByRole('button', { name: 'Assign to me' }).waitFor({ state: 'detached' });
  expect((await api('GET', `/v1/conversations/${ruthConversation}`)).body.assigneeId).toBe(agentId);
  // Ruth leaves Unassigned and is under Mine.
  await agentPage.getByText('No conversation matches these filters.').waitFor();
  await agentPage.getByRole('radio', { name: 'Mine' }).check();
  await listShows(agentPage, ['Ruth']);
  expect(await conversationButton(agentPage, 'Ruth').locator('.inbox-assignee').textContent()).toBe('Assigned to you');

  await agentPage.getByLabel('Reply as your team').fill('Hi Ruth, Ana here: we open at 9 on Saturdays.');
  await agentPage.getByRole('button', { name: 'Send reply' }).click();
  const reply = agentPage.locator('.inbox-msg').filter({ hasText: 'Hi Ruth, Ana here' });
  await reply.waitFor();
  expect(await reply.locator('.inbox-msg-author').textContent()).toBe(AGENT.name);
  await reply.locator('.inbox-status').filter({ hasText: 'Sent' }).waitFor();
  const sent = hook.requests.find((r) => r.body?.body === 'Hi Ruth, Ana here: we open at 9 on Saturdays.');
  expect(sent!.body).toMatchObject({ toId: 'visitor-ruth', channel: 'web-chat' });
  const stored = (await api('GET', `/v1/messages/${sent!.body.messageId}`)).body;
  expect(stored).toMatchObject({ author: 'team', authorId: agentId, authorName: AGENT.name });
  expect(await scriptRan(agentPage)).toBe(false);
  expect(await seriousViolations(agentPage)).toEqual([]);
  await screenshot(agentPage, 'inbox-agent');
});

test('two taking a conversation at once: the second is told who took it, and it stays theirs', async () => {
  const tom = await conversationOf('visitor-tom', 'Tom');
  await agentPage.goto(url('/console/inbox'));
  await agentPage.getByRole('radio', { name: 'Unassigned' }).check();
  await listShows(agentPage, ['Tom']);
  await conversationButton(agentPage, 'Tom').click();
  await agentPage.locator('#thread-heading').filter({ hasText: 'Tom' }).waitFor();
  // The owner takes it just before the agent's click lands.
  let ownerId = '';
  await agentPage.route(
    '**/assign',
    async (route) => {
      ownerId = (await api('POST', `/v1/conversations/${tom}/assign`, { memberId: 'me' })).body.assigneeId;
      await route.continue();
    },
    { times: 1 },
  );
  await agentPage.getByRole('button', { name: 'Assign to me' }).click();
  await agentPage
    .getByRole('alert')
    .filter({ hasText: `${owner.name} has had this conversation since it was read: it was not reassigned` })
    .waitFor();
  expect(ownerId).toMatch(/^mem_/);
  expect((await api('GET', `/v1/conversations/${tom}`)).body.assigneeId).toBe(ownerId);
  expect(await seriousViolations(agentPage)).toEqual([]);
});

test("the owner sees the reply under the agent's name, and that the conversation is theirs", async () => {
  await ownerPage.goto(url('/console/inbox'));
  const ruth = conversationButton(ownerPage, 'Ruth');
  await ruth
    .locator('.inbox-assignee')
    .filter({ hasText: `Assigned to ${AGENT.name}` })
    .waitFor();
  await ruth.click();
  const reply = ownerPage.locator('.inbox-msg').filter({ hasText: 'Hi Ruth, Ana here' });
  await reply.waitFor();
  expect(await reply.locator('.inbox-msg-meta span').first().textContent()).toBe('Team');
  expect(await reply.locator('.inbox-msg-author').textContent()).toBe(AGENT.name);
  const picker = ownerPage.getByLabel('Assigned to', { exact: true });
  expect(await picker.inputValue()).toBe(agentId);
  expect(await picker.locator('option').allTextContents()).toEqual([
    'Nobody',
    'Team Dental (you)',
    `${AGENT.name} (agent)`,
  ]);
  expect(await scriptRan(ownerPage)).toBe(false);
  await screenshot(ownerPage, 'inbox-owner-sees-agent');

  // The owner gives it back to nobody: Unassigned again.
  await picker.selectOption('');
  await ownerPage.getByRole('button', { name: 'Assign', exact: true }).click();
  await status(ownerPage, 'Assigned to nobody.').waitFor();
  expect((await api('GET', `/v1/conversations/${ruthConversation}`)).body.assigneeId).toBeNull();
  await ruth.locator('.inbox-assignee').waitFor({ state: 'detached' });

  await ownerPage.goto(url('/console/settings/members'));
  await teamRow(ownerPage, AGENT.email)
    .locator('td')
    .nth(3)
    .filter({ hasText: /^Active$/ })
    .waitFor();
});

test('Members: a role changed counts at once, a new link replaces the last, a member removed is gone', async () => {
  // Made an admin, the agent opens Settings at once; made an agent again, not.
  await ownerPage.getByLabel(`Role of ${AGENT.name}`).selectOption('admin');
  await ownerPage.getByRole('button', { name: `Save the role of ${AGENT.name}` }).click();
  await status(ownerPage, `${AGENT.name} is now an admin.`).waitFor();
  expect((await agentPage.goto(url('/console/settings/members')))!.status()).toBe(200);
  await teamRow(agentPage, AGENT.email).waitFor();
  expect(await navLinks(agentPage)).toContain('Members');
  await ownerPage.getByLabel(`Role of ${AGENT.name}`).selectOption('agent');
  await ownerPage.getByRole('button', { name: `Save the role of ${AGENT.name}` }).click();
  await status(ownerPage, `${AGENT.name} is now an agent.`).waitFor();
  expect((await agentPage.goto(url('/console/settings/members')))!.status()).toBe(403);

  // A second member, invited as an admin: a new link replaces the first, which no longer opens.
  await ownerPage.getByLabel('Email', { exact: true }).fill('bo.admin@team.example');
  await ownerPage.getByLabel('Name', { exact: true }).fill('Bo Admin');
  await ownerPage.getByLabel('Role', { exact: true }).selectOption('admin');
  await ownerPage.getByRole('button', { name: 'Invite', exact: true }).click();
  await status(ownerPage, 'Bo Admin is invited as an admin').waitFor();
  // The emptied form is back to Agent.
  expect(await ownerPage.getByLabel('Role', { exact: true }).inputValue()).toBe('agent');
  const first = await ownerPage.getByLabel('Invitation link', { exact: true }).inputValue();
  await ownerPage.getByRole('button', { name: 'New link for Bo Admin' }).click();
  await status(ownerPage, 'A new link for Bo Admin is shown above').waitFor();
  const second = await ownerPage.getByLabel('Invitation link', { exact: true }).inputValue();
  expect(second).not.toBe(first);
  await ownerPage.waitForFunction(() => document.activeElement?.id === 'invite-link');
  expect((await request(gw, 'GET', `/console/api/invites/${new URL(first).hash.slice(1)}`)).status).toBe(404);
  expect((await request(gw, 'GET', `/console/api/invites/${new URL(second).hash.slice(1)}`)).body.member).toMatchObject(
    { name: 'Bo Admin', role: 'admin' },
  );

  // The same email again is refused as the API words it.
  await ownerPage.getByLabel('Email', { exact: true }).fill('bo.admin@team.example');
  await ownerPage.getByLabel('Name', { exact: true }).fill('Bo Again');
  await ownerPage.getByRole('button', { name: 'Invite', exact: true }).click();
  await ownerPage
    .getByRole('alert')
    .filter({ hasText: "bo.admin@team.example is already on this account's team" })
    .waitFor();

  await ownerPage.getByRole('button', { name: 'Remove Bo Admin' }).click();
  await ownerPage.getByRole('button', { name: 'Remove from the team' }).click();
  await status(ownerPage, 'Bo Admin is no longer on the team.').waitFor();
  await teamRow(ownerPage, 'bo.admin@team.example').waitFor({ state: 'detached' });
  // The link shown for Bo goes with them.
  expect(await ownerPage.getByLabel('Invitation link', { exact: true }).count()).toBe(0);
  expect((await api('GET', '/v1/members')).body.data.map((m: { name: string }) => m.name)).toEqual([
    'Team Dental',
    AGENT.name,
  ]);
  expect(await seriousViolations(ownerPage)).toEqual([]);
});

test('Bot provider: hand-offs go to nobody or to the agents in turn', async () => {
  await ownerPage.goto(url('/console/settings/bot'));
  const roundRobin = ownerPage.getByRole('radio', { name: /^The agents in turn/ });
  await roundRobin.waitFor();
  expect(await ownerPage.getByRole('radio', { name: /^Nobody/ }).isChecked()).toBe(true);
  // The default leaves no hand-off unseen, and says how the team hears of one.
  const now = ownerPage.locator('#handoff-assignment-now');
  expect(await now.textContent()).toBe(
    'Now: nobody. A conversation handed over counts in every member’s tab title and, for those who turned ' +
      'notifications on in the inbox, brings a desktop notification and a sound, until someone takes it (replying takes it too). Then only they are told of it, ' +
      'unless nobody answers in time (below).',
  );
  await roundRobin.check();
  await ownerPage.getByRole('button', { name: 'Set hand-off assignment' }).click();
  await status(ownerPage, 'Hand-off assignment saved.').waitFor();
  expect((await api('GET', '/v1/settings')).body.handoffAssignment).toBe('round_robin');
  await now
    .filter({ hasText: /^Now: the agents in turn\. Each conversation handed over is the next agent’s/ })
    .waitFor();
  expect(await seriousViolations(ownerPage)).toEqual([]);
  await screenshot(ownerPage, 'settings-bot-handoff');
});

test("Bot provider: what the contact is told at a hand-off, the built-in message in the account's language until one is set", async () => {
  await ownerPage.goto(url('/console/settings/bot'));
  const field = ownerPage.getByLabel('Hand-off message', { exact: true });
  const language = ownerPage.getByLabel('Language', { exact: true });
  const save = ownerPage.getByRole('button', { name: 'Save hand-off message' });
  const now = ownerPage.locator('#handoff-message-now');
  await field.waitFor();
  expect(await field.inputValue()).toBe('');
  expect(await field.getAttribute('placeholder')).toBe(
    'Thanks for your message! A member of our team will get back to you shortly.',
  );
  expect(await now.textContent()).toBe(
    'Now: the built-in message, Thanks for your message! A member of our team will get back to you shortly.',
  );
  expect(await language.inputValue()).toBe('en');

  await language.fill('not a language');
  await save.click();
  await ownerPage
    .getByRole('alert')
    .filter({ hasText: /^Language must be a BCP 47 language tag/ })
    .waitFor();
  await language.fill('es');
  await save.click();
  await status(ownerPage, 'The built-in hand-off message is in use.').waitFor();
  expect(await field.getAttribute('placeholder')).toBe(
    '¡Gracias por tu mensaje! Una persona de nuestro equipo te responderá en breve.',
  );
  expect((await api('GET', '/v1/settings')).body).toMatchObject({ language: 'es', handoffMessage: null });

  const own = 'Thanks! Dana or Sam from Smile Dental will answer within the hour.';
  await field.fill(own);
  await save.click();
  await status(ownerPage, 'Hand-off message saved.').waitFor();
  expect(await now.textContent()).toBe(`Now: your message, ${own}`);
  expect((await api('GET', '/v1/settings')).body.handoffMessage).toBe(own);
  // A contact no campaign answers is handed to the team, and told it.
  const kim = await conversationOf('visitor-kim', 'Kim');
  await untilIdle(gw);
  expect((await api('GET', `/v1/conversations/${kim}`)).body.lastMessage).toMatchObject({
    direction: 'outgoing',
    body: own,
  });
  expect(await seriousViolations(ownerPage)).toEqual([]);

  // Emptied: the built-in message again.
  await field.fill('');
  await save.click();
  await status(ownerPage, 'The built-in hand-off message is in use.').waitFor();
  expect((await api('GET', '/v1/settings')).body.handoffMessage).toBeNull();
});

test('Bot provider: the team is reminded when a contact handed over waits 15 minutes, unless changed or turned off', async () => {
  await ownerPage.goto(url('/console/settings/bot'));
  const now = ownerPage.locator('#handoff-reminder-now');
  const on = ownerPage.getByLabel('Remind the team when a contact handed over waits for a reply');
  const after = ownerPage.getByLabel('Remind after', { exact: true });
  const save = ownerPage.getByRole('button', { name: 'Save reminder' });
  await now.filter({ hasText: 'Now: the team is reminded after 15m without a reply' }).waitFor();
  expect(await on.isChecked()).toBe(true);
  expect(await after.inputValue()).toBe('15m');

  await after.fill('half an hour');
  await save.click();
  await ownerPage
    .getByRole('alert')
    .filter({ hasText: /^Remind after must be a duration such as "15m"/ })
    .waitFor();
  await after.fill('90m');
  await save.click();
  await status(ownerPage, 'The team is reminded after 1h30m.').waitFor();
  expect(await after.inputValue()).toBe('1h30m');
  await now.filter({ hasText: 'Now: the team is reminded after 1h30m without a reply' }).waitFor();
  expect((await api('GET', '/v1/settings')).body.handoffReminderAfter).toBe('1h30m');
  expect(await seriousViolations(ownerPage)).toEqual([]);

  await on.uncheck();
  await after.waitFor({ state: 'detached' });
  await save.click();
  await status(ownerPage, 'Reminders are off.').waitFor();
  await now.filter({ hasText: 'Now: no reminder' }).waitFor();
  expect((await api('GET', '/v1/settings')).body.handoffReminderAfter).toBeNull();
});

test('Bot provider: the team takes a conversation the bot has answered 30 times in an hour, unless changed or turned off', async () => {
  await ownerPage.goto(url('/console/settings/bot'));
  const now = ownerPage.locator('#bot-reply-limit-now');
  const on = ownerPage.getByLabel('Hand a conversation to the team when the bot has answered it N times in an hour');
  const limit = ownerPage.getByLabel('Answers in an hour', { exact: true });
  const save = ownerPage.getByRole('button', { name: 'Save limit' });
  await now
    .filter({ hasText: 'Now: the team takes a conversation once the bot has answered it 30 times in an hour' })
    .waitFor();
  expect(await on.isChecked()).toBe(true);
  expect(await limit.inputValue()).toBe('30');

  await limit.fill('1001');
  await save.click();
  await ownerPage
    .getByRole('alert')
    .filter({ hasText: /^Answers in an hour must be a whole number from 1 to 1000/ })
    .waitFor();
  await limit.fill('12');
  await save.click();
  await status(ownerPage, 'The team takes a conversation once the bot has answered it 12 times in an hour.').waitFor();
  await now
    .filter({ hasText: 'Now: the team takes a conversation once the bot has answered it 12 times in an hour' })
    .waitFor();
  expect((await api('GET', '/v1/settings')).body.botReplyLimit).toBe(12);
  expect(await seriousViolations(ownerPage)).toEqual([]);

  await on.uncheck();
  await limit.waitFor({ state: 'detached' });
  await save.click();
  await status(ownerPage, 'The bot’s answers are not limited.').waitFor();
  await now.filter({ hasText: 'Now: no limit' }).waitFor();
  expect((await api('GET', '/v1/settings')).body.botReplyLimit).toBeNull();
  // Back as it was, for the tests after this one.
  expect((await api('PUT', '/v1/settings', { botReplyLimit: 30 })).status).toBe(200);
});

test('Bot provider: what the default campaign does, and where a message no campaign answers goes without one', async () => {
  await ownerPage.goto(url('/console/settings/bot'));
  const now = ownerPage.locator('#bot-default-campaign-now');
  await now.filter({ hasText: /^Now: none\./ }).waitFor();
  expect(await now.textContent()).toBe(
    'Now: none. A message from a contact that no campaign reached is never left unanswered: the contact is told a person will ' +
      'answer (the hand-off message below), and it goes to your team, the conversation handed off (“No campaign answered this contact”), ' +
      'listed as needing a reply and announced to every member; when hand-offs go to the agents in turn (below), the next agent gets it.',
  );
  await ownerPage.getByLabel('Default campaign', { exact: true }).selectOption({ label: 'Spring chat' });
  await ownerPage.getByRole('button', { name: 'Save', exact: true }).click();
  await status(ownerPage, 'Bot settings saved.').waitFor();
  await now.filter({ hasText: 'Now: the bot of “Spring chat” answers contacts that no campaign reached.' }).waitFor();
  expect((await api('GET', '/v1/settings/bot')).body.defaultCampaignId).toBe(campaignId);
  expect(await seriousViolations(ownerPage)).toEqual([]);
});

test('a link that expired says so, and who makes a new one', async () => {
  const invited = await api('POST', '/v1/members', { email: 'late@team.example', name: 'Lou Late', role: 'agent' });
  expect(invited.status).toBe(201);
  // Past the link's 7 days (every session ends too: this test comes last).
  await advanceClock(gw, '8d');
  const late = await (await newContext(browser)).newPage();
  await late.goto(invited.body.inviteUrl);
  await heading(late).filter({ hasText: 'This invitation has expired' }).waitFor();
  expect(await late.getByRole('alert').textContent()).toBe(
    "This invitation link has expired: ask the account's owner or an admin for a new one",
  );
  expect(await late.getByLabel('Password').count()).toBe(0);
  expect(await seriousViolations(late)).toEqual([]);
  await screenshot(late, 'invite-expired');
  await late.context().close();
  expect((await api('GET', `/v1/members/${invited.body.id}`)).body).toMatchObject({
    status: 'invited',
    inviteExpiresAt: invited.body.inviteExpiresAt,
  });
});
