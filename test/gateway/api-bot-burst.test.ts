import {
  advanceClock,
  api,
  createAccount,
  incoming,
  poll,
  Receiver,
  unique,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * A contact asking several things at once, in several messages or in one: the bot's one reply answers each question
 * it can, asks back about an ambiguous one, and hands the conversation off for a question it cannot answer, saying so
 * in the same reply; no question goes unanswered without a word. The debounce is long and the clock is the test's:
 * the messages of a burst are all in before the bot reads them.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '1h', LEADCHAT_TEST_CLOCK: '1' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const FAQS = [
  { question: 'What are your opening hours?', answer: 'We are open Monday to Friday, 9am to 6pm.' },
  { question: 'How much does a teeth cleaning cost?', answer: 'A cleaning costs $90.' },
  { question: 'Do you accept insurance?', answer: 'Yes, we accept most dental insurance plans.' },
  { question: 'Where is the clinic?', answer: 'We are at 12 Main Street, next to the post office.' },
];
const [HOURS, CLEANING, INSURANCE, WHERE] = FAQS.map((f) => f.answer);

async function started(respond?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> {
  const receiver = await Receiver.start(respond);
  receivers.push(receiver);
  return receiver;
}

async function setUp(bot: Record<string, unknown> = {}) {
  const account = await createAccount(ctx.gw);
  const hook = await started();
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
  await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['handoff'] } });
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Smile Dental', channel: 'custom', customChannel: 'chat', bot: { faqs: FAQS, ...bot } },
  });
  expect(created.status).toBe(201);
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: created.body.id } });
  return { account, hook, campaign: created.body };
}

const replies = (hook: Receiver, fromId: string) =>
  hook.requests.filter((r) => r.body?.toId === fromId && r.body?.messageId).map((r) => r.body.body as string);
const handoffs = (hook: Receiver, contactId: string) =>
  hook.requests.filter((r) => r.body?.type === 'handoff' && r.body?.contactId === contactId).map((r) => r.body);

/** The contact sends the burst; once the debounce is over, the bot's replies to it (and its contact's id). */
async function burst(
  account: TestAccount,
  hook: Receiver,
  bodies: string[],
  fromId = unique('lead'),
): Promise<{ replies: string[]; contactId: string; fromId: string }> {
  const before = replies(hook, fromId).length;
  let messageId = '';
  for (const body of bodies) {
    const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId, body, channel: 'chat' }),
    });
    expect(res.status).toBe(200);
    messageId = res.body.messageId;
  }
  await advanceClock(ctx.gw, '1h');
  await poll(
    async () => replies(hook, fromId),
    (r) => r.length > before,
  );
  await untilIdle(ctx.gw);
  const contactId = (await api(ctx.gw, account, 'GET', `messages/${messageId}`)).body.contactId;
  return { replies: replies(hook, fromId).slice(before), contactId, fromId };
}

const conversationOf = async (account: TestAccount, contactId: string) =>
  (await api(ctx.gw, account, 'GET', 'conversations')).body.data.find(
    (c: { contactId: string }) => c.contactId === contactId,
  );

describe('a burst asking two things the FAQs answer gets one reply answering both', () => {
  test.each([
    ['in two messages', ['What are your opening hours?', 'And where are you located?']],
    ['in one message', ['What are your opening hours? And where are you located?']],
    ['in one sentence', ['what are your opening hours and where is the clinic']],
  ])('%s', async (_name, bodies) => {
    const { account, hook } = await setUp();
    const { replies: sent, contactId } = await burst(account, hook, bodies);
    expect(sent).toEqual([`${HOURS}\n\n${WHERE}`]);
    expect(handoffs(hook, contactId)).toEqual([]);
    expect(await conversationOf(account, contactId)).toMatchObject({ status: 'active', bot: { active: true } });
  });

  test('a question asked twice in a burst is answered once; a greeting and thanks around it add nothing', async () => {
    const { account, hook } = await setUp();
    const { replies: sent } = await burst(account, hook, [
      'Hi!',
      'how much is a cleaning?',
      'do you take insurance?',
      'what does a cleaning cost? thanks',
    ]);
    expect(sent).toEqual([`${CLEANING}\n\n${INSURANCE}`]);
  });
});

describe('a question the bot cannot answer is handed off, and the others answered in the same reply', () => {
  test.each([
    ['in two messages', ['How much is a cleaning?', 'Can you fix my car transmission?']],
    ['in one message', ['How much is a cleaning? Can you fix my car transmission?']],
  ])('%s', async (_name, bodies) => {
    const { account, hook, campaign } = await setUp();
    const { replies: sent, contactId, fromId } = await burst(account, hook, bodies);
    expect(sent).toEqual([
      `${CLEANING}\n\nAbout "Can you fix my car transmission?": a member of our team will get back to you shortly.`,
    ]);
    const events = await poll(
      async () => handoffs(hook, contactId),
      (e) => e.length === 1,
    );
    expect(events[0]).toMatchObject({
      reason: 'bot_not_confident',
      body: 'Can you fix my car transmission?',
      channel: 'custom',
      customChannel: 'chat',
    });
    expect(await conversationOf(account, contactId)).toMatchObject({
      status: 'handed_off',
      bot: { active: false },
      handoff: { reason: 'bot_not_confident', message: 'Can you fix my car transmission?' },
    });
    // What the campaign could not answer is the question it could not answer, not the burst.
    const unanswered = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/unanswered`)).body;
    expect(unanswered.data.map((g: { question: string }) => g.question)).toEqual(['Can you fix my car transmission?']);
    // Handed off: the bot answers nothing more.
    await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId, body: 'What are your opening hours?', channel: 'chat' }),
    });
    await advanceClock(ctx.gw, '1h');
    await untilIdle(ctx.gw);
    expect(replies(hook, fromId)).toHaveLength(1);
  });

  test("with the campaign's own hand-off text, in the campaign's language", async () => {
    const es = [
      { question: '¿Cuál es el horario?', answer: 'De lunes a viernes, de 9 a 18 h.' },
      { question: '¿Dónde está la clínica?', answer: 'En la calle Mayor 12.' },
    ];
    const own = await setUp({
      faqs: FAQS,
      handoffMessage: 'Ana from the front desk will text you back within the hour.',
    });
    const mixed = await burst(own.account, own.hook, ['Where is the clinic?', 'Do you sell gift cards for my sister?']);
    expect(mixed.replies).toEqual([
      `${WHERE}\n\nAbout "Do you sell gift cards for my sister?": Ana from the front desk will text you back within the hour.`,
    ]);

    const account = await createAccount(ctx.gw);
    const hook = await started();
    await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
    const campaign = (
      await api(ctx.gw, account, 'POST', 'campaigns', {
        body: { name: 'Clínica', channel: 'custom', customChannel: 'chat', language: 'es', bot: { faqs: es } },
      })
    ).body;
    await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
    const spanish = await burst(account, hook, ['¿Cuál es el horario? ¿Y reparan coches?']);
    expect(spanish.replies).toEqual([
      'De lunes a viernes, de 9 a 18 h.\n\nSobre "¿Y reparan coches?": una persona de nuestro equipo te responderá en breve.',
    ]);
  });

  test("answers that do not fit the channel's longest message are left to the person as well", async () => {
    const long = (word: string) => `${word} `.repeat(2500 / (word.length + 1)).trim();
    const faqs = [
      { question: 'What are your opening hours?', answer: long('hours') },
      { question: 'Where is the clinic?', answer: long('street') },
    ];
    const { account, hook } = await setUp({ faqs });
    const { replies: sent, contactId } = await burst(account, hook, [
      'What are your opening hours?',
      'Where is the clinic?',
    ]);
    expect(sent).toEqual([
      `${faqs[0]!.answer}\n\nAbout "Where is the clinic?": a member of our team will get back to you shortly.`,
    ]);
    expect([...sent[0]!].length).toBeLessThanOrEqual(4096);
    const events = await poll(
      async () => handoffs(hook, contactId),
      (e) => e.length === 1,
    );
    expect(events[0]).toMatchObject({ reason: 'bot_not_confident', body: 'Where is the clinic?' });
  });
});

describe('an ambiguous question beside clear ones', () => {
  const holidays = {
    question: 'What are your opening hours on holidays?',
    answer: 'On public holidays we open 10am to 2pm.',
  };
  const asked =
    'Do you mean:\n1. What are your opening hours?\n2. What are your opening hours on holidays?\nReply with the number.';

  test('the clear ones are answered, then the bot asks which one is meant, and answers the pick', async () => {
    const { account, hook } = await setUp({ faqs: [...FAQS, holidays] });
    const first = await burst(account, hook, ['where is the clinic?', 'opening hours?']);
    expect(first.replies).toEqual([`${WHERE}\n\n${asked}`]);
    const picked = await burst(account, hook, ['2'], first.fromId);
    expect(picked.replies).toEqual([holidays.answer]);
    expect(handoffs(hook, first.contactId)).toEqual([]);
  });

  test('a pick and a new question in one burst: the pick is answered, and the question', async () => {
    const { account, hook } = await setUp({ faqs: [...FAQS, holidays] });
    const first = await burst(account, hook, ['opening hours?']);
    expect(first.replies).toEqual([asked]);
    const next = await burst(account, hook, ['the first', 'also do you take insurance?'], first.fromId);
    expect(next.replies).toEqual([`${HOURS}\n\n${INSURANCE}`]);
  });

  test('beside a question a person takes, the ambiguous one goes to the person too', async () => {
    const { account, hook } = await setUp({ faqs: [...FAQS, holidays] });
    const { replies: sent, contactId } = await burst(account, hook, [
      'where is the clinic?',
      'opening hours?',
      'Can you fix my car transmission?',
    ]);
    expect(sent).toEqual([
      `${WHERE}\n\nAbout "opening hours?" and "Can you fix my car transmission?": a member of our team will get back to you shortly.`,
    ]);
    const events = await poll(
      async () => handoffs(hook, contactId),
      (e) => e.length === 1,
    );
    expect(events[0]!.body).toBe('opening hours?\nCan you fix my car transmission?');
  });
});

test('"Try the bot" answers a message asking two things as the live bot does, and says which FAQs and which question', async () => {
  const { account, campaign } = await setUp();
  const ask = async (message: string) =>
    (await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, { body: { message } })).body;
  const both = await ask('What are your opening hours? Where is the clinic?');
  expect(both.reply).toEqual({ kind: 'reply', body: `${HOURS}\n\n${WHERE}`, goalReached: false });
  expect(both.basis.sources).toEqual([
    { kind: 'faq', index: 0, question: FAQS[0]!.question, use: 'answer' },
    { kind: 'faq', index: 3, question: FAQS[3]!.question, use: 'answer' },
  ]);
  const mixed = await ask('How much is a cleaning? Can you fix my car transmission?');
  expect(mixed.reply).toEqual({
    kind: 'handoff',
    reason: 'bot_not_confident',
    body: `${CLEANING}\n\nAbout "Can you fix my car transmission?": a member of our team will get back to you shortly.`,
    questions: ['Can you fix my car transmission?'],
  });
  // One question, however it is worded around, is answered as before.
  expect((await ask('Hi! How much is a cleaning? Thanks!')).reply).toEqual({
    kind: 'reply',
    body: CLEANING,
    goalReached: false,
  });
});

test('the OpenAI-compatible bot is given every message of the burst, the FAQs of each question, and room to answer each', async () => {
  const content = `${HOURS} ${WHERE}`;
  const llm = await started(() => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'c1',
      object: 'chat.completion',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
    }),
  }));
  const { account, hook } = await setUp();
  const saved = await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { provider: 'openai', openai: { baseUrl: llm.url, model: 'test-model', apiKey: null } },
  });
  expect(saved.status).toBe(200);
  const { replies: sent } = await burst(account, hook, ['What are your opening hours?', 'And where are you located?']);
  expect(sent).toEqual([content]);
  expect(llm.requests).toHaveLength(1);
  const { messages, max_tokens } = llm.requests[0]!.body as {
    messages: Array<{ role: string; content: string }>;
    max_tokens: number;
  };
  expect(messages.at(-1)).toEqual({
    role: 'user',
    content: 'What are your opening hours?\nAnd where are you located?',
  });
  const system = messages[0]!.content;
  expect(system).toContain(`Q: ${FAQS[0]!.question}\nA: ${HOURS}`);
  expect(system).toContain(`Q: ${FAQS[3]!.question}\nA: ${WHERE}`);
  expect(system).toContain('answer every question');
  expect(max_tokens).toBe(450);
});
