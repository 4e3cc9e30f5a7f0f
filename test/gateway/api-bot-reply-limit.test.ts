import { teamMember } from '../console/support';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  HANDOFF_NOTICE,
  incoming,
  poll,
  Receiver,
  unique,
  untilIdle,
  useGateway,
  type Received,
  type TestAccount,
} from './api-support';

/**
 * A conversation that runs away: a custom channel's bridge that posts every message of the chat back to the gateway,
 * the bot's own replies included, has the bot answer itself for ever, each answer paid for. Past the account's
 * botReplyLimit within an hour, the bot answers no more: the team takes the conversation and the contact is told so,
 * once. The clock is the test's: the debounce and the hour pass without waiting.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '2s', LEADCHAT_TEST_CLOCK: '1' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** An FAQ whose answer asks its question again: the bot reads its own answer, echoed back, as the question anew. */
const ANSWER = 'When are you open? Every day from 9 to 5.';
const FAQS = [{ question: 'When are you open?', answer: ANSWER }];

async function started(respond?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> {
  const receiver = await Receiver.start(respond);
  receivers.push(receiver);
  return receiver;
}

/**
 * A sub-account with credits, whose custom channel's replies go to a bridge that posts each one back as the contact's
 * message (`echo` on), and whose `handoff` events go to `hook`.
 */
async function setUp(settings: Record<string, unknown>, credits = 20) {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const account = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: account.email, amount: credits } });
  const echoes: Array<Promise<unknown>> = [];
  const bridge = { echo: true };
  const replies = await started((_n, req: Received) => {
    if (bridge.echo && req.body?.messageId)
      echoes.push(
        api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
          body: incoming({ fromId: req.body.toId, body: req.body.body, channel: 'chat' }),
        }),
      );
    return { status: 200 };
  });
  const hook = await started();
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: replies.url, ...settings } });
  await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['handoff'] } });
  const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Chat', channel: 'custom', customChannel: 'chat', bot: { faqs: FAQS } },
  });
  expect(campaign.status).toBe(201);
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.body.id } });
  return { account, replies, hook, echoes, bridge };
}

/** The contact writes; returns their contact's and conversation's ids. */
async function write(account: TestAccount, fromId: string, body: string) {
  const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, body, channel: 'chat' }),
  });
  expect(res.status).toBe(200);
  return (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body as {
    contactId: string;
    conversationId: string;
  };
}

const sentTo = (replies: Receiver, fromId: string) =>
  replies.requests.filter((r) => r.body?.toId === fromId && r.body?.messageId).map((r) => r.body.body as string);
const handoffs = (hook: Receiver, contactId: string) =>
  hook.requests.filter((r) => r.body?.type === 'handoff' && r.body?.contactId === contactId).map((r) => r.body);
const messagesOf = async (account: TestAccount, contactId: string) =>
  (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages?limit=100`)).body.data as any[];
const conversation = async (account: TestAccount, id: string) =>
  (await api(ctx.gw, account, 'GET', `conversations/${id}`)).body;

/** Runs what falls due until nothing more is, every echo of the bridge in. */
async function settle(echoes: Array<Promise<unknown>>): Promise<void> {
  for (let seen = -1; seen !== echoes.length; ) {
    seen = echoes.length;
    await Promise.all(echoes);
    await advanceClock(ctx.gw, '5s');
    await untilIdle(ctx.gw);
  }
}

test('a bridge echoing the bot back: the bot answers 3 times, then the team takes the conversation and the contact is told once; 3 answers are paid', async () => {
  const { account, replies, hook, echoes } = await setUp({ botReplyLimit: 3, handoffAssignment: 'round_robin' });
  const agent = await teamMember(ctx.gw, account, 'agent', 'Ana Agent');
  const fromId = unique('visitor');
  const { contactId, conversationId } = await write(account, fromId, 'When are you open?');
  await poll(
    async () => handoffs(hook, contactId),
    (h) => h.length > 0,
  );
  await settle(echoes);

  // Three answers, then the notice; its echo, and nothing after, however long it waits.
  expect(sentTo(replies, fromId)).toEqual([ANSWER, ANSWER, ANSWER, HANDOFF_NOTICE]);
  await advanceClock(ctx.gw, '2h');
  await untilIdle(ctx.gw);
  expect(sentTo(replies, fromId)).toHaveLength(4);
  const messages = await messagesOf(account, contactId);
  expect(messages.map((m) => `${m.direction === 'incoming' ? 'contact' : m.author}: ${m.body}`)).toEqual([
    'contact: When are you open?',
    `bot: ${ANSWER}`,
    `contact: ${ANSWER}`,
    `bot: ${ANSWER}`,
    `contact: ${ANSWER}`,
    `bot: ${ANSWER}`,
    `contact: ${ANSWER}`,
    `system: ${HANDOFF_NOTICE}`,
    `contact: ${HANDOFF_NOTICE}`,
  ]);

  expect(handoffs(hook, contactId)).toEqual([
    expect.objectContaining({
      reason: 'bot_reply_limit',
      body: ANSWER,
      conversationId,
      channel: 'custom',
      assignee: expect.objectContaining({ id: agent.id }),
    }),
  ]);
  // As any hand-off: the next agent in turn has it, it needs a reply, and the wait is timed for the reminder.
  const handedOff = await conversation(account, conversationId);
  expect(handedOff).toMatchObject({
    status: 'handed_off',
    bot: { active: false },
    handoff: { reason: 'bot_reply_limit', message: ANSWER },
    assigneeId: agent.id,
    needsReply: true,
    waitingSince: handedOff.handoff.at,
  });
  // Paid: the three answers, and not the notice.
  const ledger = (await api(ctx.gw, account, 'GET', 'credits')).body;
  const answers = messages.filter((m) => m.author === 'bot').map((m) => m.id);
  expect(ledger.transactions.filter((t: any) => t.kind === 'usage').map((t: any) => t.messageId)).toEqual(
    answers.reverse(),
  );
  expect(ledger.balance).toBe(20 - 3 * ledger.prices.botReply);
});

test('with an LLM, two bots answering each other: the LLM is asked for the answers given, and not for the one past the limit', async () => {
  const content = 'Hello! How can I help you today?';
  const llm = await started(() => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'c1',
      object: 'chat.completion',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
    }),
  }));
  const { account, replies, hook, echoes } = await setUp({ botReplyLimit: 2 });
  const saved = await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { provider: 'openai', openai: { baseUrl: llm.url, model: 'test-model', apiKey: null } },
  });
  expect(saved.status).toBe(200);
  const fromId = unique('other-bot');
  const { contactId } = await write(account, fromId, 'Hello! How can I help you today?');
  await poll(
    async () => handoffs(hook, contactId),
    (h) => h.length > 0,
  );
  await settle(echoes);
  expect(sentTo(replies, fromId)).toEqual([content, content, HANDOFF_NOTICE]);
  expect(llm.requests).toHaveLength(2);
  expect(handoffs(hook, contactId)).toEqual([expect.objectContaining({ reason: 'bot_reply_limit', body: content })]);
});

test('given back by a person, the bot counts afresh: it answers the next message, and stops at the limit again', async () => {
  const { account, replies, hook, echoes, bridge } = await setUp({ botReplyLimit: 2 });
  const fromId = unique('visitor');
  const { contactId } = await write(account, fromId, 'When are you open?');
  await poll(
    async () => handoffs(hook, contactId),
    (h) => h.length > 0,
  );
  await settle(echoes);
  expect(sentTo(replies, fromId)).toEqual([ANSWER, ANSWER, HANDOFF_NOTICE]);

  // The integrator mends the bridge, and a person gives the conversation back within the hour.
  bridge.echo = false;
  expect((await api(ctx.gw, account, 'POST', `contacts/${contactId}/bot`, { body: { active: true } })).status).toBe(
    200,
  );
  await write(account, fromId, 'When are you open?');
  await settle(echoes);
  expect(sentTo(replies, fromId).slice(3)).toEqual([ANSWER]);
  await write(account, fromId, 'When are you open?');
  await settle(echoes);
  await write(account, fromId, 'When are you open?');
  await settle(echoes);
  expect(sentTo(replies, fromId).slice(3)).toEqual([ANSWER, ANSWER, HANDOFF_NOTICE]);
  expect(handoffs(hook, contactId).map((h) => h.reason)).toEqual(['bot_reply_limit', 'bot_reply_limit']);
});

test('turning on a bot that is on already does not start the count afresh', async () => {
  const { account, replies, hook, echoes, bridge } = await setUp({ botReplyLimit: 2 });
  bridge.echo = false;
  const fromId = unique('visitor');
  const ask = async () => {
    const { contactId } = await write(account, fromId, 'When are you open?');
    await settle(echoes);
    // A workflow that turns the bot on at every message.
    const on = await api(ctx.gw, account, 'POST', `contacts/${contactId}/bot`, { body: { active: true } });
    expect(on.status).toBe(200);
    return contactId;
  };
  await ask();
  await ask();
  const contactId = await ask();
  expect(sentTo(replies, fromId)).toEqual([ANSWER, ANSWER, HANDOFF_NOTICE]);
  expect(handoffs(hook, contactId).map((h) => h.reason)).toEqual(['bot_reply_limit']);
});

test("only the bot's answers count: the gateway's answers to HELP do not", async () => {
  const { account, replies, hook, echoes, bridge } = await setUp({ botReplyLimit: 1 });
  bridge.echo = false;
  const fromId = unique('visitor');
  const say = async (body: string) => {
    await write(account, fromId, body);
    await settle(echoes);
  };
  await say('HELP');
  await say('HELP');
  const { contactId } = await write(account, fromId, 'When are you open?');
  await settle(echoes);
  expect(sentTo(replies, fromId).slice(2)).toEqual([ANSWER]);
  expect(handoffs(hook, contactId)).toEqual([]);
  await say('When are you open?');
  expect(sentTo(replies, fromId).slice(3)).toEqual([HANDOFF_NOTICE]);
  expect(handoffs(hook, contactId).map((h) => h.reason)).toEqual(['bot_reply_limit']);
});

test("a merge folding two conversations of the person counts both's answers: the next past the limit goes to the team", async () => {
  const { account, replies, hook, echoes, bridge } = await setUp({ botReplyLimit: 3 });
  bridge.echo = false;
  const [kept, twin] = [unique('visitor'), unique('twin')];
  const ask = async (fromId: string) => {
    const wrote = await write(account, fromId, 'When are you open?');
    await settle(echoes);
    return wrote.contactId;
  };
  const contactId = await ask(kept);
  await ask(kept);
  const twinId = await ask(twin);
  await ask(twin);
  const merged = await api(ctx.gw, account, 'POST', `contacts/${contactId}/merge`, { body: { contactId: twinId } });
  expect(merged.status).toBe(200);
  // One conversation, answered 4 times within the hour: past the limit of 3.
  await ask(kept);
  expect(sentTo(replies, kept)).toEqual([ANSWER, ANSWER, HANDOFF_NOTICE]);
  expect(handoffs(hook, contactId).map((h) => h.reason)).toEqual(['bot_reply_limit']);
});

test('answers older than an hour do not count', async () => {
  const { account, replies, hook, echoes, bridge } = await setUp({ botReplyLimit: 2 });
  bridge.echo = false;
  const fromId = unique('visitor');
  const ask = async () => {
    await write(account, fromId, 'When are you open?');
    await settle(echoes);
  };
  const { contactId } = await write(account, fromId, 'When are you open?');
  await settle(echoes);
  await advanceClock(ctx.gw, '40m');
  await ask();
  // Two within the hour: the first is over an hour old at the third, which is answered; the fourth is not.
  await advanceClock(ctx.gw, '25m');
  await ask();
  await ask();
  expect(sentTo(replies, fromId)).toEqual([ANSWER, ANSWER, ANSWER, HANDOFF_NOTICE]);
  expect(handoffs(hook, contactId).map((h) => h.reason)).toEqual(['bot_reply_limit']);
});

test('an account that never set it (as every account saved before) stops the bot at 30 answers in the hour', async () => {
  const { account, replies, hook, echoes } = await setUp({}, 40);
  const fromId = unique('visitor');
  const { contactId } = await write(account, fromId, 'When are you open?');
  await poll(
    async () => handoffs(hook, contactId),
    (h) => h.length > 0,
    // The gateway's time the loop takes: an answer every LEADCHAT_BOT_DEBOUNCE.
    120_000,
  );
  await settle(echoes);
  expect(sentTo(replies, fromId)).toEqual([...Array<string>(30).fill(ANSWER), HANDOFF_NOTICE]);
  expect(handoffs(hook, contactId).map((h) => h.reason)).toEqual(['bot_reply_limit']);
});

test('no limit (null): the bot answers on', async () => {
  const { account, replies, hook, echoes } = await setUp({ botReplyLimit: null });
  const fromId = unique('visitor');
  const { contactId } = await write(account, fromId, 'When are you open?');
  await poll(
    async () => sentTo(replies, fromId),
    (r) => r.length >= 5,
  );
  expect(sentTo(replies, fromId).slice(0, 5)).toEqual([ANSWER, ANSWER, ANSWER, ANSWER, ANSWER]);
  expect(handoffs(hook, contactId)).toEqual([]);
  // The bridge is told to stop: the contact is handed to a person (STOP would end it too).
  expect((await api(ctx.gw, account, 'POST', `contacts/${contactId}/bot`, { body: { active: false } })).status).toBe(
    200,
  );
  await settle(echoes);
});

test('botReplyLimit: 30 by default, a whole number from 1 to 1000 sets it, null turns it off, anything else is a 400 naming it', async () => {
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'GET', 'settings')).body.botReplyLimit).toBe(30);
  for (const limit of [1, 1000, 12]) {
    const set = await api(ctx.gw, account, 'PUT', 'settings', { body: { botReplyLimit: limit } });
    expect(set.status).toBe(200);
    expect(set.body.botReplyLimit).toBe(limit);
  }
  expect((await api(ctx.gw, account, 'GET', 'settings')).body.botReplyLimit).toBe(12);
  for (const refused of [0, -1, 1001, 2.5, '10', true]) {
    const res = await api(ctx.gw, account, 'PUT', 'settings', { body: { botReplyLimit: refused } });
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields).toEqual([
      expect.objectContaining({
        field: 'botReplyLimit',
        message: 'must be a whole number from 1 to 1000, or null for no limit',
      }),
    ]);
  }
  expect((await api(ctx.gw, account, 'GET', 'settings')).body.botReplyLimit).toBe(12);
  const off = await api(ctx.gw, account, 'PUT', 'settings', { body: { botReplyLimit: null } });
  expect(off.body.botReplyLimit).toBeNull();
  expect((await api(ctx.gw, account, 'GET', 'settings')).body.botReplyLimit).toBeNull();
  // Another setting changed leaves it as it is.
  await api(ctx.gw, account, 'PUT', 'settings', { body: { helpText: 'Ask for a person at any time.' } });
  expect((await api(ctx.gw, account, 'GET', 'settings')).body.botReplyLimit).toBeNull();
});
