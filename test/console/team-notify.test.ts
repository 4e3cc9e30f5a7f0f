import type { Browser, BrowserContext, Page } from 'playwright-core';
import { advanceClock, incoming, poll, Receiver, request, untilIdle } from '../gateway/api-support';
import type { TestGateway } from '../helpers/gateway';
import { newContext, signInAt, startConsole, stopConsole, untilTitled } from './browser';
import { chimes, notifySwitch, recordNotifications, told } from './notifications';
import { consoleAccount, teamMember, type ConsoleAccount } from './support';

/**
 * The team hears of a conversation that waits for a person: the owner at a desk and an agent on a phone (390 px),
 * each with the inbox open and notifications on. One nobody has is told to both, by the contact's name and own words
 * (not the bot's hand-off notice), and counts in both tab titles; once assigned, it is told and counted for its
 * assignee alone. A conversation the bot is answering calls nobody. A contact nobody answers within the account's
 * reminder (15 minutes) is told to every member once, whoever has the conversation, and counts in every title.
 */
jest.setTimeout(60_000);

let gw: TestGateway;
let browser: Browser;
let hook: Receiver;
let owner: ConsoleAccount;
let agentId: string;
const contexts: BrowserContext[] = [];
let desk: Page;
let phone: Page;

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
/** Waits until the page has shown `count` notifications in all: what it shows. */
const untilTold = (p: Page, count: number) =>
  poll(
    () => told(p),
    (t) => t.length >= count,
  );
const titled = (p: Page, title: string) => untilTitled(p, title);

/** A member's tab: notifications recorded, the page's clock ours to move on (see the 5 s below), the inbox open. */
async function inboxOf(viewport: { width: number; height: number }, signIn: (p: Page) => Promise<void>): Promise<Page> {
  const context = await newContext(browser, [], viewport);
  contexts.push(context);
  await context.addInitScript(recordNotifications);
  await context.clock.install();
  const p = await context.newPage();
  await signIn(p);
  await notifySwitch(p).check();
  await p.getByText('On, in this browser: a desktop notification and a sound.').waitFor();
  return p;
}

beforeAll(async () => {
  hook = await Receiver.start();
  [gw, browser] = await startConsole({ LEADCHAT_TEST_CLOCK: '1' });
  owner = await consoleAccount(gw, { name: 'Smile Dental' });
  expect((await api('PUT', '/v1/settings', { customChannelWebhookUrl: hook.url })).status).toBe(200);
  const campaign = await api('POST', '/v1/campaigns', {
    name: 'Web chat',
    channel: 'custom',
    customChannel: 'web-chat',
    bot: { faqs: [{ question: 'Do you open on Saturdays?', answer: 'Yes, from 9 to 1.' }] },
  });
  expect(campaign.status).toBe(201);
  // Its bot answers whoever writes on the chat.
  expect((await api('PUT', '/v1/settings/bot', { defaultCampaignId: campaign.body.id })).status).toBe(200);
  const agent = await teamMember(gw, owner, 'agent', 'Ana Agent');
  agentId = agent.id;
  desk = await inboxOf({ width: 1280, height: 900 }, (p) => signInAt(p, `${gw.url}/console/inbox`, owner));
  phone = await inboxOf({ width: 390, height: 844 }, async (p) => {
    const [name, value] = agent.cookie.split('=');
    await p.context().addCookies([{ name: name!, value: value!, url: gw.url }]);
    await p.goto(`${gw.url}/console/inbox`);
  });
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await hook?.close();
  await stopConsole(gw, browser);
});

let pat: string;

test('a conversation nobody has that waits for a person is told to every member, in their words, and counts in every title', async () => {
  // The bot answers this one: nobody is called.
  pat = await write('visitor-pat', 'Pat', 'Do you open on Saturdays?');
  await untilIdle(gw);
  // The bot cannot answer this one and hands it over, with its notice: both members hear of it, in Pat's words.
  await write('visitor-pat', 'Pat', 'I chipped a tooth, can someone see me today?');
  await untilIdle(gw);
  const [atDesk, onPhone] = await Promise.all([untilTold(desk, 1), untilTold(phone, 1)]);
  const news = [{ title: 'Unassigned: Pat', body: 'I chipped a tooth, can someone see me today?' }];
  expect(atDesk).toEqual(news);
  expect(onPhone).toEqual(news);
  expect((await api('GET', `/v1/conversations/${pat}`)).body.lastMessage).toMatchObject({ direction: 'outgoing' });
  await Promise.all([titled(desk, '(1) Inbox'), titled(phone, '(1) Inbox')]);
  expect([await chimes(desk), await chimes(phone)]).toEqual([1, 1]);
});

test('once assigned, the conversation is told and counted for its assignee alone', async () => {
  // One notification per conversation for a few seconds (the events of one change): they pass.
  await Promise.all([desk.clock.runFor(5_000), phone.clock.runFor(5_000)]);
  expect((await api('POST', `/v1/conversations/${pat}/assign`, { memberId: agentId })).status).toBe(200);
  expect((await untilTold(phone, 2))[1]).toEqual({
    title: 'Assigned to you: Pat',
    body: 'I chipped a tooth, can someone see me today?',
  });
  await Promise.all([titled(desk, 'Inbox'), titled(phone, '(1) Inbox')]);

  await Promise.all([desk.clock.runFor(5_000), phone.clock.runFor(5_000)]);
  await write('visitor-pat', 'Pat', 'Is 3 pm possible?');
  expect((await untilTold(phone, 3))[2]).toEqual({ title: 'Pat', body: 'Is 3 pm possible?' });

  // Zoe's, nobody's, reaches both: the desk, told nothing of Pat's in between, hears of Zoe's alone.
  await write('visitor-zoe', 'Zoe', 'Can I talk to a person?');
  await untilIdle(gw);
  expect((await untilTold(phone, 4))[3]).toEqual({ title: 'Unassigned: Zoe', body: 'Can I talk to a person?' });
  expect(await untilTold(desk, 2)).toEqual([
    { title: 'Unassigned: Pat', body: 'I chipped a tooth, can someone see me today?' },
    { title: 'Unassigned: Zoe', body: 'Can I talk to a person?' },
  ]);
  await Promise.all([titled(desk, '(1) Inbox'), titled(phone, '(2) Inbox')]);
  expect([await chimes(desk), await chimes(phone)]).toEqual([2, 4]);
});

test('a contact whose campaign is paused waits for a person: told to every member and counted, as a hand-off', async () => {
  const paused = await api('POST', '/v1/campaigns', {
    name: 'Web chat, paused',
    channel: 'custom',
    customChannel: 'web-chat',
    status: 'paused',
    bot: { faqs: [{ question: 'Do you open on Saturdays?', answer: 'Yes, from 9 to 1.' }] },
  });
  expect(paused.status).toBe(201);
  await Promise.all([desk.clock.runFor(5_000), phone.clock.runFor(5_000)]);
  const res = await api(
    'POST',
    '/v1/incoming_custom_channel_message',
    incoming({
      fromId: 'visitor-kim',
      firstName: 'Kim',
      channel: 'web-chat',
      body: 'Do you open on Saturdays?',
      campaignId: paused.body.id,
    }),
  );
  expect(res.status).toBe(200);
  await untilIdle(gw);
  const news = { title: 'Unassigned: Kim', body: 'Do you open on Saturdays?' };
  expect((await untilTold(desk, 3))[2]).toEqual(news);
  expect((await untilTold(phone, 5))[4]).toEqual(news);
  await Promise.all([titled(desk, '(2) Inbox'), titled(phone, '(3) Inbox')]);
});

test('a contact nobody answers for 15 minutes is told to every member, whoever has the conversation, once', async () => {
  await Promise.all([desk.clock.runFor(5_000), phone.clock.runFor(5_000)]);
  // Pat's is the agent's, Zoe's nobody's: neither was answered. Kim's campaign is paused, not handed off: no reminder.
  await advanceClock(gw, '15m');
  await untilIdle(gw);
  const reminded = [
    { title: 'No reply for 15 min: Pat', body: 'Is 3 pm possible?' },
    { title: 'No reply for 15 min: Zoe', body: 'Can I talk to a person?' },
  ];
  const sorted = (t: Array<{ title: string }>) => [...t].sort((a, b) => a.title.localeCompare(b.title));
  expect(sorted((await untilTold(desk, 5)).slice(3))).toEqual(reminded);
  expect(sorted((await untilTold(phone, 7)).slice(5))).toEqual(reminded);
  // The owner does not have Pat's, yet it counts in their title now: nobody answered it in time.
  await Promise.all([titled(desk, '(3) Inbox'), titled(phone, '(3) Inbox')]);
  // The inbox's list says so, on both conversations.
  await desk.getByRole('button', { name: /^Pat ?, handed off, \d unread, no reply for 15 min, / }).waitFor();
  await desk.getByRole('button', { name: /^Zoe ?, handed off, \d unread, no reply for 15 min, / }).waitFor();

  // Pat writing again tells the agent who has it, as ever, and nobody else: no second reminder.
  await Promise.all([desk.clock.runFor(5_000), phone.clock.runFor(5_000)]);
  await write('visitor-pat', 'Pat', 'Hello? Anyone?');
  expect((await untilTold(phone, 8))[7]).toEqual({ title: 'Pat', body: 'Hello? Anyone?' });
  await advanceClock(gw, '1h');
  await untilIdle(gw);
  // What comes next is told next: nothing of Pat's came between.
  await Promise.all([desk.clock.runFor(5_000), phone.clock.runFor(5_000)]);
  await write('visitor-lee', 'Lee', 'Can I talk to a person?');
  await untilIdle(gw);
  const lee = { title: 'Unassigned: Lee', body: 'Can I talk to a person?' };
  expect((await untilTold(desk, 6)).slice(5)).toEqual([lee]);
  expect((await untilTold(phone, 9)).slice(8)).toEqual([lee]);
});

test("the conversations a campaign's bot switched off leaves to the team are counted, not told one by one", async () => {
  const chat = await api('POST', '/v1/campaigns', {
    name: 'Evening chat',
    channel: 'custom',
    customChannel: 'web-chat',
    bot: { faqs: [{ question: 'Do you open on Saturdays?', answer: 'Yes, from 9 to 1.' }] },
  });
  expect(chat.status).toBe(201);
  // Ray's and Sue's "ok" the bot chooses not to answer: they need a reply, which the bot gives them while it is on.
  for (const [fromId, firstName] of [
    ['visitor-ray', 'Ray'],
    ['visitor-sue', 'Sue'],
  ] as const) {
    const said = incoming({ fromId, firstName, channel: 'web-chat', body: 'ok', campaignId: chat.body.id });
    expect((await api('POST', '/v1/incoming_custom_channel_message', said)).status).toBe(200);
  }
  await untilIdle(gw);
  const counted = async (p: Page) => Number(/^\((\d+)\) /.exec(await p.title())?.[1] ?? 0);
  const [atDesk, onPhone] = [(await told(desk)).length, (await told(phone)).length];
  const [deskCount, phoneCount] = [await counted(desk), await counted(phone)];
  await Promise.all([desk.clock.runFor(5_000), phone.clock.runFor(5_000)]);

  expect((await api('PATCH', `/v1/campaigns/${chat.body.id}`, { bot: { active: false } })).status).toBe(200);
  await Promise.all([titled(desk, `(${deskCount + 2}) Inbox`), titled(phone, `(${phoneCount + 2}) Inbox`)]);
  // What comes next is told next: nothing of Ray's or Sue's came between.
  await write('visitor-max', 'Max', 'Can I talk to a person?');
  await untilIdle(gw);
  const max = { title: 'Unassigned: Max', body: 'Can I talk to a person?' };
  expect((await untilTold(desk, atDesk + 1)).slice(atDesk)).toEqual([max]);
  expect((await untilTold(phone, onPhone + 1)).slice(onPhone)).toEqual([max]);
});
