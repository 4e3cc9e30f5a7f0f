import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
  type TestAccount,
} from './api-support';

/**
 * The owner changes the bot's FAQs while conversations are open: what a contact is answered next follows what the
 * campaign holds then, and a question the bot asked before the change is answered as the contact read it. The clock
 * is the test's: the bot answers once the debounce is over.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '1m', LEADCHAT_TEST_CLOCK: '1' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const HOURS = { question: 'What are your opening hours?', answer: 'We are open Monday to Friday, 9am to 6pm.' };
const HOLIDAYS = {
  question: 'What are your opening hours on holidays?',
  answer: 'On public holidays we open 10am to 2pm.',
};
const FAQS = [
  HOURS,
  { question: 'How much does a teeth cleaning cost?', answer: 'A cleaning costs $90.' },
  { question: 'Do you accept insurance?', answer: 'Yes, we accept most dental insurance plans.' },
  { question: 'Where is the clinic?', answer: 'We are at 12 Main Street, next to the post office.' },
  HOLIDAYS,
];
const BRACES = { question: 'Do you do braces?', answer: 'Yes, braces from $3,000.' };
const ASKED =
  'Do you mean:\n1. What are your opening hours?\n2. What are your opening hours on holidays?\nReply with the number.';

async function setUp(bot: Record<string, unknown> = {}) {
  const account = await createAccount(ctx.gw);
  const hook = await Receiver.start();
  receivers.push(hook);
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Smile Dental', channel: 'custom', customChannel: 'chat', bot: { faqs: FAQS, ...bot } },
  });
  expect(created.status).toBe(201);
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: created.body.id } });
  return { account, hook, campaign: created.body };
}

const replies = (hook: Receiver, fromId: string) =>
  hook.requests.filter((r) => r.body?.toId === fromId && r.body?.messageId).map((r) => r.body.body as string);

/** The contact writes; once the debounce is over, what the bot sent in answer. */
async function turn(account: TestAccount, hook: Receiver, fromId: string, body: string): Promise<string[]> {
  const before = replies(hook, fromId).length;
  const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, body, channel: 'chat' }),
  });
  expect(res.status).toBe(200);
  await advanceClock(ctx.gw, '1m');
  await untilIdle(ctx.gw);
  return replies(hook, fromId).slice(before);
}

const setFaqs = async (account: TestAccount, campaignId: string, faqs: unknown[]) =>
  expect((await api(ctx.gw, account, 'PATCH', `campaigns/${campaignId}`, { body: { bot: { faqs } } })).status).toBe(
    200,
  );

describe('a question the bot asked ("Do you mean: 1. … 2. …?") is answered as the contact read it', () => {
  test('an FAQ added at the top meanwhile: the number picks the FAQ offered, in its new place', async () => {
    const { account, hook, campaign } = await setUp();
    const fromId = unique('lead');
    expect(await turn(account, hook, fromId, 'opening hours?')).toEqual([ASKED]);
    await setFaqs(account, campaign.id, [BRACES, ...FAQS]);
    expect(await turn(account, hook, fromId, '1')).toEqual([HOURS.answer]);
    expect(await turn(account, hook, fromId, 'opening hours?')).toEqual([ASKED]);
    await setFaqs(account, campaign.id, [HOLIDAYS, BRACES, ...FAQS.slice(0, 4)]);
    expect(await turn(account, hook, fromId, 'the second')).toEqual([HOLIDAYS.answer]);
  });

  test('an FAQ offered and removed meanwhile: its number answers no other FAQ, and a person takes the message', async () => {
    const { account, hook, campaign } = await setUp();
    const fromId = unique('lead');
    expect(await turn(account, hook, fromId, 'opening hours?')).toEqual([ASKED]);
    // The holidays' FAQ goes; the clinic's comes to the end, where the holidays' was.
    await setFaqs(account, campaign.id, [HOURS, FAQS[1], FAQS[2], BRACES, FAQS[3]]);
    expect(await turn(account, hook, fromId, '2')).toEqual([HANDOFF_NOTICE]);
  });

  test("an offered FAQ's answer reworded meanwhile: the pick gets the new answer", async () => {
    const { account, hook, campaign } = await setUp();
    const fromId = unique('lead');
    expect(await turn(account, hook, fromId, 'opening hours?')).toEqual([ASKED]);
    const reworded = { ...HOLIDAYS, answer: 'On public holidays we are closed.' };
    await setFaqs(account, campaign.id, [...FAQS.slice(0, 4), reworded]);
    expect(await turn(account, hook, fromId, '2')).toEqual([reworded.answer]);
  });
});

describe('FAQs the bot could not answer from are refused, naming the FAQ, and nothing is saved', () => {
  const refusal = async (faqs: unknown[]) => {
    const account = await createAccount(ctx.gw);
    const created = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Shop', bot: { faqs } } });
    expectApiError(created, 400, 'VALIDATION_ERROR');
    const campaign = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Shop', bot: { faqs: FAQS } } });
    const changed = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.body.id}`, { body: { bot: { faqs } } });
    expect(changed.body).toEqual(created.body);
    expect((await api(ctx.gw, account, 'GET', `campaigns/${campaign.body.id}`)).body.bot.faqs).toEqual(FAQS);
    return created.body.error.fields;
  };

  test('a question asked twice, in other case or punctuation: the bot would ask the contact to choose between them', async () => {
    const fields = await refusal([...FAQS, { question: 'what are your opening hours', answer: 'From 9am.' }]);
    expect(fields).toEqual([
      {
        field: 'bot.faqs.5.question',
        code: 'INVALID',
        message:
          'is asked already by bot.faqs.0.question ("What are your opening hours?"): give each question once, with one answer',
      },
    ]);
  });

  test.each([
    ['STOP', 'is an opt-out: a contact who writes it is opted out before the bot reads it'],
    ['How can I stop the messages?', 'is an opt-out'],
    ['Start', 'is an opt-in (START)'],
    ['HELP', "gets the account's helpText"],
  ])('a question the gateway answers before the bot reads it: "%s"', async (question, said) => {
    const fields = await refusal([HOURS, { question, answer: 'Our own answer.' }]);
    expect(fields).toEqual([{ field: 'bot.faqs.1.question', code: 'INVALID', message: expect.stringContaining(said) }]);
  });

  test('a question quoted in the refusal is cut before an emoji, never inside it', async () => {
    // 79 letters, then an emoji of two UTF-16 units: a cut at 80 would keep half of it.
    const question = `${'Is the clinic open on a Sunday morning for a quick check of a loose filling tooth'.slice(0, 79)}🦷?`;
    const fields = await refusal([
      { question, answer: 'No.' },
      { question: question.toLowerCase(), answer: 'No.' },
    ]);
    const quoted = `${question.slice(0, 79)}"`;
    expect(fields).toEqual([
      { field: 'bot.faqs.1.question', code: 'INVALID', message: expect.stringContaining(quoted) },
    ]);
    expect(fields[0].message).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  test('questions that only hold such a word, or differ by a word, are FAQs', async () => {
    const account = await createAccount(ctx.gw);
    const faqs = [
      HOURS,
      HOLIDAYS,
      { question: 'Can I cancel my appointment?', answer: 'Yes, up to a day before.' },
      { question: 'Can you help me choose a toothbrush?', answer: 'A soft one.' },
    ];
    const created = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Shop', bot: { faqs } } });
    expect(created.status).toBe(201);
    expect(created.body.bot.faqs).toEqual(faqs);
  });
});

describe('a message the bot leaves, its campaign bot being off, waits for a person until someone answers it', () => {
  const botOn = async (account: TestAccount, campaignId: string, active: boolean) =>
    expect((await api(ctx.gw, account, 'PATCH', `campaigns/${campaignId}`, { body: { bot: { active } } })).status).toBe(
      200,
    );
  const write = async (account: TestAccount, fromId: string, body: string) => {
    const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId, body, channel: 'chat' }),
    });
    expect(res.status).toBe(200);
    const { conversationId } = (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body;
    return async () => (await api(ctx.gw, account, 'GET', `conversations/${conversationId}`)).body;
  };

  test('written while it was off, then the bot turned on again: still waiting for a person, not the bot', async () => {
    const { account, hook, campaign } = await setUp();
    const fromId = unique('lead');
    expect(await turn(account, hook, fromId, 'how much is a cleaning?')).toEqual([FAQS[1]!.answer]);
    await botOn(account, campaign.id, false);
    const read = await write(account, fromId, 'and do you accept insurance?');
    await advanceClock(ctx.gw, '1m');
    await untilIdle(ctx.gw);
    expect(await read()).toMatchObject({ needsReply: true, botLeft: true });
    await botOn(account, campaign.id, true);
    await advanceClock(ctx.gw, '1m');
    await untilIdle(ctx.gw);
    expect(replies(hook, fromId)).toHaveLength(1);
    expect(await read()).toMatchObject({ needsReply: true, botLeft: true, bot: { answers: true } });
    // Writing again, the contact is the bot's: it answers what it left too.
    expect(await turn(account, hook, fromId, '??')).toEqual([FAQS[2]!.answer]);
    expect(await read()).toMatchObject({ needsReply: false, botLeft: false, bot: { answers: true } });
  });

  test('written while it was on, the bot turned off before it answered and on again: waiting for a person', async () => {
    const { account, hook, campaign } = await setUp();
    const fromId = unique('lead');
    const read = await write(account, fromId, 'where is the clinic?');
    await botOn(account, campaign.id, false);
    await advanceClock(ctx.gw, '1m');
    await untilIdle(ctx.gw);
    await botOn(account, campaign.id, true);
    expect(replies(hook, fromId)).toEqual([]);
    expect(await read()).toMatchObject({ needsReply: true, botLeft: true });
  });

  test("written to the account's default campaign whose bot is off: waiting for a person", async () => {
    const { account, hook, campaign } = await setUp();
    await botOn(account, campaign.id, false);
    const fromId = unique('lead');
    const read = await write(account, fromId, 'where is the clinic?');
    await advanceClock(ctx.gw, '1m');
    await untilIdle(ctx.gw);
    expect(replies(hook, fromId)).toEqual([]);
    expect(await read()).toMatchObject({ needsReply: true, botLeft: true });
  });
});

describe('the bot turned off while its answer is being worked out', () => {
  test('an LLM still answering when the owner turns the bot off: its answer is not sent, a person takes the message', async () => {
    const { account, hook, campaign } = await setUp();
    const held: Array<(content: string) => void> = [];
    const llm = http.createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        held.push((content) =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] })),
        ),
      );
    });
    await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
      const saved = await api(ctx.gw, account, 'PUT', 'settings/bot', {
        body: { provider: 'openai', openai: { baseUrl, model: 'llama3.1', apiKey: null } },
      });
      expect(saved.status).toBe(200);
      const fromId = unique('lead');
      const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
        body: incoming({ fromId, body: 'how much is a cleaning?', channel: 'chat' }),
      });
      const { conversationId } = (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body;
      const advanced = advanceClock(ctx.gw, '1m');
      await poll(
        async () => held.length,
        (n) => n === 1,
      );
      const off = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { bot: { active: false } } });
      expect(off.status).toBe(200);
      held[0]!('A cleaning is $90: shall I book you in for Tuesday?');
      await advanced;
      await untilIdle(ctx.gw);
      expect(replies(hook, fromId)).toEqual([]);
      expect((await api(ctx.gw, account, 'GET', `conversations/${conversationId}`)).body).toMatchObject({
        needsReply: true,
        botLeft: true,
      });
    } finally {
      llm.closeAllConnections();
      await new Promise((resolve) => llm.close(resolve));
    }
  });
});
