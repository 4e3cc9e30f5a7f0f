import {
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
 * The bot over HTTPS on custom channels: the FAQ bot answers, hands off what it cannot answer and is given the
 * conversation back; a burst is answered once; the campaign is routed by the message, the conversation or the
 * account's default; what the bot never answers; the test endpoint and the bot settings.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '600ms' });
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

async function setUp(bot: Record<string, unknown> = {}, campaign: Record<string, unknown> = {}) {
  const account = await createAccount(ctx.gw);
  const hook = await Receiver.start();
  receivers.push(hook);
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
  await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['handoff'] } });
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Smile Dental', channel: 'custom', customChannel: 'chat', bot: { faqs: FAQS, ...bot }, ...campaign },
  });
  expect(created.status).toBe(201);
  return { account, hook, campaign: created.body };
}

const say = (account: TestAccount, fromId: string, body: string, extra: Record<string, unknown> = {}) =>
  api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, body, channel: 'chat', ...extra }),
  });
const replies = (hook: Receiver, fromId: string) =>
  hook.requests.filter((r) => r.body?.toId === fromId && r.body?.messageId).map((r) => r.body.body as string);
const messages = async (account: TestAccount, contactId: string) =>
  (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages?limit=200`)).body.data as any[];

test('a custom-channel lead is answered from the FAQs, handed off on a question they do not cover, and answered again once resumed', async () => {
  const { account, hook, campaign } = await setUp();
  const fromId = unique('lead');
  const first = await say(account, fromId, 'hi, how much is a cleaning?', {
    campaignId: campaign.id,
    firstName: 'Ann',
  });
  expect(first.status).toBe(200);
  await poll(
    async () => replies(hook, fromId),
    (r) => r.length === 1,
  );
  expect(replies(hook, fromId)).toEqual(['A cleaning costs $90.']);
  const contactId = (await api(ctx.gw, account, 'GET', `messages/${first.body.messageId}`)).body.contactId;
  const answered = (await messages(account, contactId)).at(-1);
  expect(answered).toMatchObject({
    direction: 'outgoing',
    author: 'bot',
    campaignId: campaign.id,
    body: 'A cleaning costs $90.',
  });

  await say(account, fromId, 'Can you fix my car transmission?');
  await poll(
    async () => replies(hook, fromId),
    (r) => r.length === 2,
  );
  expect(replies(hook, fromId)[1]).toMatch(/team will get back to you/);
  const handoff = await poll(
    async () => hook.requests.filter((r) => r.body?.type === 'handoff' && r.body?.contactId === contactId),
    (e) => e.length === 1,
  );
  expect(handoff[0]!.body).toMatchObject({
    reason: 'bot_not_confident',
    body: 'Can you fix my car transmission?',
    channel: 'custom',
    customChannel: 'chat',
  });
  const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations')).body.data;
  expect(conversation).toMatchObject({ status: 'handed_off', bot: { active: false }, campaignId: campaign.id });

  // Handed off: the bot stays silent, whatever the lead asks.
  await say(account, fromId, 'What are your opening hours?');
  await untilIdle(ctx.gw);
  expect(replies(hook, fromId)).toHaveLength(2);

  // A moment later, given back to the bot: it answers again (on a clock standing still, "later" is said).
  await ctx.gw.advance('1s');
  expect((await api(ctx.gw, account, 'POST', `contacts/${contactId}/bot`, { body: { active: true } })).status).toBe(
    200,
  );
  await say(account, fromId, 'do you take insurance?');
  await poll(
    async () => replies(hook, fromId),
    (r) => r.length === 3,
  );
  expect(replies(hook, fromId)[2]).toBe('Yes, we accept most dental insurance plans.');
});

test('a burst of messages is answered once, after the last of them', async () => {
  const { account, hook, campaign } = await setUp();
  const fromId = unique('lead');
  await say(account, fromId, 'hello', { campaignId: campaign.id });
  await say(account, fromId, 'I saw your ad');
  await say(account, fromId, 'where is the clinic?');
  await poll(
    async () => replies(hook, fromId),
    (r) => r.length >= 1,
  );
  await untilIdle(ctx.gw);
  expect(replies(hook, fromId)).toEqual(['We are at 12 Main Street, next to the post office.']);
});

test('small talk gets a greeting or nothing, never a hand-off', async () => {
  const { account, hook, campaign } = await setUp();
  const fromId = unique('lead');
  const res = await say(account, fromId, 'Hello!', { campaignId: campaign.id, firstName: 'Bea' });
  const contactId = (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body.contactId;
  await poll(
    async () => replies(hook, fromId),
    (r) => r.length === 1,
  );
  expect(replies(hook, fromId)).toEqual(['Hi Bea! How can I help you?']);
  await say(account, fromId, 'ok');
  await untilIdle(ctx.gw);
  expect(replies(hook, fromId)).toHaveLength(1);
  expect(hook.requests.filter((r) => r.body?.type === 'handoff' && r.body?.contactId === contactId)).toHaveLength(0);
});

test("the campaign is the message's, else the conversation's, else the account's default; with none the team has it and the contact is told so", async () => {
  const { account, hook, campaign } = await setUp();
  const other = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Other',
        channel: 'custom',
        customChannel: 'chat',
        bot: { faqs: [{ question: 'What are your opening hours?', answer: 'Always open.' }] },
      },
    })
  ).body;

  const lone = unique('lead');
  await say(account, lone, 'What are your opening hours?');
  await untilIdle(ctx.gw);
  expect(replies(hook, lone)).toEqual([HANDOFF_NOTICE]);

  const set = await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: other.id } });
  expect(set.body).toEqual({ provider: 'faq', openai: null, defaultCampaignId: other.id });
  const fresh = unique('lead');
  await say(account, fresh, 'What are your opening hours?');
  await poll(
    async () => replies(hook, fresh),
    (r) => r.length === 1,
  );
  expect(replies(hook, fresh)).toEqual(['Always open.']);

  const named = unique('lead');
  await say(account, named, 'What are your opening hours?', { campaignId: campaign.id });
  await poll(
    async () => replies(hook, named),
    (r) => r.length === 1,
  );
  // The conversation keeps the campaign the first message named.
  await say(account, named, 'What are your opening hours?');
  await poll(
    async () => replies(hook, named),
    (r) => r.length === 2,
  );
  expect(replies(hook, named)).toEqual([
    'We are open Monday to Friday, 9am to 6pm.',
    'We are open Monday to Friday, 9am to 6pm.',
  ]);
});

test('the bot never answers a reaction, an opted-out contact, a campaign whose bot is off, or a paused campaign; the last two wait for a person, who is told', async () => {
  const { account, hook, campaign } = await setUp();
  const off = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: { name: 'Off', channel: 'custom', customChannel: 'chat', bot: { active: false, faqs: FAQS } },
    })
  ).body;
  const paused = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: { name: 'Paused', channel: 'custom', customChannel: 'chat', status: 'paused', bot: { faqs: FAQS } },
    })
  ).body;

  const reacting = unique('lead');
  await say(account, reacting, '👍', { campaignId: campaign.id });
  await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: reacting, body: 'How much is a cleaning?', channel: 'chat' }, { messageType: 'reaction' }),
  });
  const stopped = unique('lead');
  await say(account, stopped, 'STOP', { campaignId: campaign.id });
  await say(account, stopped, 'How much is a cleaning?');
  const silentBot = unique('lead');
  await say(account, silentBot, 'How much is a cleaning?', { campaignId: off.id });
  const pausedLead = unique('lead');
  await say(account, pausedLead, 'How much is a cleaning?', { campaignId: paused.id });
  await untilIdle(ctx.gw);
  expect(replies(hook, reacting)).toEqual([]);
  expect(replies(hook, stopped)).toEqual([expect.stringMatching(/unsubscribed/i)]);
  expect(replies(hook, silentBot)).toEqual([]);
  expect(replies(hook, pausedLead)).toEqual([]);
  // Where the bot is off or its campaign paused, the team answers: the message waits in the inbox for a person.
  const waiting = (await api(ctx.gw, account, 'GET', 'conversations', { query: { needsReply: 'true' } })).body.data;
  expect(waiting.map((c: { contact: { fromId: string } }) => c.contact.fromId)).toEqual(
    expect.arrayContaining([silentBot, pausedLead]),
  );
  // The bot, on for them, answers none of them: the console counts them and tells its members, as a hand-off.
  const conversationOf = async (fromId: string) =>
    (await api(ctx.gw, account, 'GET', 'conversations', { query: { limit: '100' } })).body.data.find(
      (c: { contact: { fromId: string } }) => c.contact.fromId === fromId,
    );
  for (const lead of [silentBot, pausedLead])
    expect((await conversationOf(lead)).bot).toEqual({ active: true, answers: false });
  const answered = unique('lead');
  await say(account, answered, 'Hello there', { campaignId: campaign.id });
  expect((await conversationOf(answered)).bot).toEqual({ active: true, answers: true });
  // Once the campaign's bot is on again, it answers their next message.
  await api(ctx.gw, account, 'PATCH', `campaigns/${off.id}`, { body: { bot: { active: true, faqs: FAQS } } });
  const { id } = await conversationOf(silentBot);
  expect((await api(ctx.gw, account, 'GET', `conversations/${id}`)).body.bot).toEqual({ active: true, answers: true });
});

test('POST /campaigns/{id}/bot/test answers without sending, storing or charging anything', async () => {
  const { account, hook, campaign } = await setUp();
  const before = (await api(ctx.gw, account, 'GET', 'conversations')).body.data;
  const res = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, {
    body: { message: 'what time do you open?' },
  });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    campaignId: campaign.id,
    active: true,
    provider: 'faq',
    fallbackReason: null,
    reply: { kind: 'reply', body: 'We are open Monday to Friday, 9am to 6pm.', goalReached: false },
    basis: {
      confidence: expect.any(Number),
      sources: [{ kind: 'faq', index: 0, question: 'What are your opening hours?', use: 'answer' }],
    },
  });
  expect(res.body.basis.confidence).toBeGreaterThanOrEqual(0.2);
  expect(res.body.basis.confidence).toBeLessThanOrEqual(1);
  const unsure = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, {
    body: { message: 'Do you sell garden furniture?' },
  });
  expect(unsure.body.reply).toMatchObject({ kind: 'handoff', reason: 'bot_not_confident' });
  expect((await api(ctx.gw, account, 'GET', 'conversations')).body.data).toEqual(before);
  expect(hook.requests).toHaveLength(0);

  expectApiError(
    await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, { body: { message: '   ' } }),
    400,
    'VALIDATION_ERROR',
  );
  expectApiError(
    await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, { body: { message: 'hi', extra: 1 } }),
    400,
    'VALIDATION_ERROR',
  );
  const stranger = await createAccount(ctx.gw);
  expectApiError(
    await api(ctx.gw, stranger, 'POST', `campaigns/${campaign.id}/bot/test`, { body: { message: 'hi' } }),
    404,
    'CAMPAIGN_NOT_FOUND',
  );
});

test('bot settings: an OpenAI-compatible endpoint is saved with its key shown masked, never whole; bad settings are refused', async () => {
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'GET', 'settings/bot')).body).toEqual({
    provider: 'faq',
    openai: null,
    defaultCampaignId: null,
  });
  const key = 'sk-test-0123456789abcdefWXYZ';
  const saved = await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { provider: 'openai', openai: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1', apiKey: key } },
  });
  expect(saved.status).toBe(200);
  expect(saved.text).not.toContain(key.slice(0, -4));
  expect(saved.body.openai).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1', apiKey: '••••WXYZ' });
  // A change without apiKey keeps the saved one.
  const renamed = await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { openai: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5' } },
  });
  expect(renamed.body.openai).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5', apiKey: '••••WXYZ' });
  expect((await api(ctx.gw, account, 'GET', 'settings/bot')).text).not.toContain(key.slice(0, -4));

  expectApiError(await api(ctx.gw, account, 'PUT', 'settings/bot', { body: {} }), 400, 'VALIDATION_ERROR');
  expectApiError(
    await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { provider: 'gpt' } }),
    400,
    'VALIDATION_ERROR',
  );
  expectApiError(
    await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { openai: { baseUrl: 'ftp://x', model: 'm' } } }),
    400,
    'VALIDATION_ERROR',
  );
  const fresh = await createAccount(ctx.gw);
  expectApiError(
    await api(ctx.gw, fresh, 'PUT', 'settings/bot', { body: { provider: 'openai' } }),
    400,
    'VALIDATION_ERROR',
  );
  const { campaign } = await setUp();
  expectApiError(
    await api(ctx.gw, fresh, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } }),
    404,
    'CAMPAIGN_NOT_FOUND',
  );
});

test('the saved API key goes only to the base URL it was given for: a new base URL needs its key again', async () => {
  const { account, campaign } = await setUp();
  const key = 'sk-test-keptfortheoneserverQRST';
  await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { provider: 'openai', openai: { baseUrl: 'http://127.0.0.1:9/v1', model: 'llama3.1', apiKey: key } },
  });
  // Another server, the key never given for it: an admin who cannot read the key must not be able to send it there.
  const other = await Receiver.start();
  receivers.push(other);
  const moved = await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { openai: { baseUrl: `${other.url}/v1`, model: 'llama3.1' } },
  });
  expectApiError(moved, 400, 'VALIDATION_ERROR');
  expect(moved.body.error.fields).toEqual([expect.objectContaining({ field: 'openai.apiKey', code: 'REQUIRED' })]);
  expect((await api(ctx.gw, account, 'GET', 'settings/bot')).body.openai).toEqual({
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'llama3.1',
    apiKey: '••••QRST',
  });
  await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, { body: { message: 'hi' } });
  expect(other.requests.filter((r) => JSON.stringify(r.headers).includes(key))).toEqual([]);

  // The same address written with a trailing slash is the same server: the key stays.
  const slash = await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { openai: { baseUrl: 'http://127.0.0.1:9/v1/', model: 'qwen2.5' } },
  });
  expect(slash.body.openai.apiKey).toBe('••••QRST');
  // Given with its key, or with none, the new address is saved.
  const none = await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { openai: { baseUrl: `${other.url}/v1`, model: 'llama3.1', apiKey: null } },
  });
  expect(none.status).toBe(200);
  expect(none.body.openai).toEqual({ baseUrl: `${other.url}/v1`, model: 'llama3.1', apiKey: null });
});

test('the test endpoint says why: the FAQ answered with, the one that came closest, a resource that covers the message better', async () => {
  const { account, campaign } = await setUp({
    resources: ['The clinic is wheelchair accessible: a ramp at the side entrance and a lift to every floor.'],
  });
  const ask = async (message: string) =>
    (await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, { body: { message } })).body;

  const price = await ask('how much is a cleaning?');
  expect(price.reply).toMatchObject({ kind: 'reply', body: 'A cleaning costs $90.' });
  expect(price.basis.sources).toEqual([
    { kind: 'faq', index: 1, question: 'How much does a teeth cleaning cost?', use: 'answer' },
  ]);

  const access = await ask('is the clinic wheelchair accessible?');
  expect(access.reply).toMatchObject({ kind: 'handoff', reason: 'bot_not_confident' });
  expect(access.basis.sources).toContainEqual({
    kind: 'resource',
    index: 0,
    text: expect.stringContaining('wheelchair accessible'),
    use: 'covers',
  });
  const closest = access.basis.sources.find((s: { kind: string }) => s.kind === 'faq');
  if (closest) {
    expect(closest).toMatchObject({ use: 'closest' });
    expect(access.basis.confidence).toEqual(expect.any(Number));
  }

  expect((await ask('hi!')).basis).toEqual({ confidence: null, sources: [] });
});

test('the campaign lists what its bot could not answer, a question asked alike grouped, with the FAQ added since that answers it', async () => {
  const { account, hook, campaign } = await setUp();
  const asked = [
    'Do you sell gift cards?',
    'adult braces?',
    'gift cards available?',
    'I want to talk to a person',
    'Gift card for my sister, do you have them?',
  ];
  for (const body of asked) {
    const fromId = unique('asks');
    await say(account, fromId, body, { campaignId: campaign.id });
    await poll(
      async () => replies(hook, fromId),
      (r) => r.length === 1,
    );
  }
  const list = async (query: Record<string, string> = {}) =>
    api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/unanswered`, { query });
  const first = await list();
  expect(first.status).toBe(200);
  // A contact asking for a person is no question the bot failed.
  expect(first.body).toEqual({
    data: [
      {
        question: 'Gift card for my sister, do you have them?',
        wordings: ['gift cards available?', 'Do you sell gift cards?'],
        count: 3,
        latestAt: expect.any(String),
        answeredBy: null,
      },
      { question: 'adult braces?', wordings: [], count: 1, latestAt: expect.any(String), answeredBy: null },
    ],
    total: 2,
    questions: 4,
  });
  expect((await list({ limit: '1' })).body.data).toHaveLength(1);

  const faqs = [
    ...FAQS,
    { question: 'Do you sell gift cards?', answer: 'Yes: gift cards from $25, at the front desk.' },
  ];
  await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { bot: { faqs } } });
  const [gifts] = (await list()).body.data;
  expect(gifts.answeredBy).toEqual({ faqIndex: 4, question: 'Do you sell gift cards?' });

  expectApiError(await list({ limit: '0' }), 400, 'VALIDATION_ERROR');
  expectApiError(await list({ limit: '5', other: 'x' }), 400, 'VALIDATION_ERROR');
  const stranger = await createAccount(ctx.gw);
  expectApiError(await api(ctx.gw, stranger, 'GET', `campaigns/${campaign.id}/unanswered`), 404, 'CAMPAIGN_NOT_FOUND');
});

test('when two FAQs match alike the bot asks which one, with numbered choices, and answers the one picked', async () => {
  const holidays = {
    question: 'What are your opening hours on holidays?',
    answer: 'On public holidays we open 10am to 2pm.',
  };
  const { account, hook, campaign } = await setUp({ faqs: [...FAQS, holidays] });
  const asked =
    'Do you mean:\n1. What are your opening hours?\n2. What are your opening hours on holidays?\nReply with the number.';
  const fromId = unique('unsure');
  const turn = async (body: string, n: number) => {
    await say(account, fromId, body, { campaignId: campaign.id });
    return (
      await poll(
        async () => replies(hook, fromId),
        (r) => r.length === n,
      )
    )[n - 1];
  };
  expect(await turn('opening hours?', 1)).toBe(asked);
  expect(await turn('2', 2)).toBe(holidays.answer);
  expect(await turn('opening hours?', 3)).toBe(asked);
  expect(await turn('the first', 4)).toBe(FAQS[0]!.answer);
  // A new question instead of a pick is answered as a question.
  expect(await turn('opening hours?', 5)).toBe(asked);
  expect(await turn('how much is a cleaning?', 6)).toBe(FAQS[1]!.answer);
  // Once answered, a lone number is no pick.
  await say(account, fromId, '2', { campaignId: campaign.id });
  await untilIdle(ctx.gw);
  expect(replies(hook, fromId).slice(6)).not.toContain(holidays.answer);

  const tried = (
    await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, { body: { message: 'opening hours?' } })
  ).body;
  expect(tried.reply).toEqual({ kind: 'clarify', body: asked, options: [0, 4] });
  expect(tried.basis.sources).toEqual([
    { kind: 'faq', index: 0, question: FAQS[0]!.question, use: 'option' },
    { kind: 'faq', index: 4, question: holidays.question, use: 'option' },
  ]);
});

test('when one FAQ matches only in part, the bot asks plainly whether it is meant, not "1." of one choice; yes answers it', async () => {
  const garage = [
    { question: 'Do you repair cars of every make?', answer: 'Yes, all makes and models.' },
    { question: 'What are your opening hours?', answer: 'Monday to Friday 8am to 6pm.' },
    { question: 'Where is the garage?', answer: 'At 1 Main Street.' },
    { question: 'How much is an oil change?', answer: '$60.' },
    { question: 'Do you offer a courtesy car?', answer: 'Yes, book it with your repair.' },
  ];
  const { account, hook, campaign } = await setUp({ faqs: garage });
  const asked = 'Is this your question: Do you repair cars of every make?\nIf so, reply yes; if not, tell us more.';
  const fromId = unique('boat');
  const turn = async (body: string, n: number) => {
    await say(account, fromId, body, { campaignId: campaign.id });
    return (
      await poll(
        async () => replies(hook, fromId),
        (r) => r.length === n,
      )
    )[n - 1];
  };
  expect(await turn('do you repair boats?', 1)).toBe(asked);
  expect(await turn('yes', 2)).toBe(garage[0]!.answer);

  const tried = (
    await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, {
      body: { message: 'do you repair boats?' },
    })
  ).body;
  expect(tried.reply).toEqual({ kind: 'clarify', body: asked, options: [0] });
  expect(tried.basis.sources).toEqual([{ kind: 'faq', index: 0, question: garage[0]!.question, use: 'option' }]);
});

describe('every hand-off tells the contact', () => {
  test.each([
    [
      "a contact who asks for a person, in the campaign's language",
      { language: 'es' },
      {},
      'Quiero hablar con una persona',
      '¡Gracias por tu mensaje! Una persona de nuestro equipo te responderá en breve.',
      'contact_asked',
    ],
    [
      "with the campaign's own text",
      {},
      { handoffMessage: 'Ana from the front desk will text you back within the hour.' },
      'a human please',
      'Ana from the front desk will text you back within the hour.',
      'contact_asked',
    ],
    [
      'a campaign without FAQs',
      {},
      { faqs: [] },
      'How much is a cleaning?',
      'Thanks for your message! A member of our team will get back to you shortly.',
      'bot_no_knowledge',
    ],
  ])('%s', async (_name, campaign, bot, body, notice, reason) => {
    const { account, hook, campaign: created } = await setUp(bot, campaign);
    const fromId = unique('asks');
    const res = await say(account, fromId, body, { campaignId: created.id });
    await poll(
      async () => replies(hook, fromId),
      (r) => r.length === 1,
    );
    expect(replies(hook, fromId)).toEqual([notice]);
    const contactId = (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body.contactId;
    const events = await poll(
      async () => hook.requests.filter((r) => r.body?.type === 'handoff' && r.body?.contactId === contactId),
      (e) => e.length === 1,
    );
    expect(events[0]!.body.reason).toBe(reason);
    const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations')).body.data;
    expect(conversation).toMatchObject({ status: 'handed_off', bot: { active: false } });
  });

  test('the test endpoint answers a hand-off with the notice the contact would get', async () => {
    const { account, campaign } = await setUp({ handoffMessage: 'Someone will call you.' });
    const res = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, {
      body: { message: 'Can you fix my car transmission?' },
    });
    expect(res.body.reply).toEqual({ kind: 'handoff', reason: 'bot_not_confident', body: 'Someone will call you.' });
  });
});

describe('the live bot answers a message as "Try the bot" does', () => {
  const tried = async (account: TestAccount, campaignId: string, message: string) =>
    (await api(ctx.gw, account, 'POST', `campaigns/${campaignId}/bot/test`, { body: { message } })).body.reply;

  test('after a message the bot chose not to answer', async () => {
    const { account, hook, campaign } = await setUp();
    const fromId = unique('lead');
    await say(account, fromId, 'ok', { campaignId: campaign.id });
    await untilIdle(ctx.gw);
    await say(account, fromId, 'where are you?');
    await poll(
      async () => replies(hook, fromId),
      (r) => r.length === 1,
    );
    const test = await tried(account, campaign.id, 'where are you?');
    expect(replies(hook, fromId)).toEqual([test.body]);
  });

  test('after a message nobody answered, the question is still answered', async () => {
    const { account, hook, campaign } = await setUp();
    const fromId = unique('lead');
    // No campaign is named yet and the account has no default: no bot answers this one, and the contact is told a person will.
    await say(account, fromId, 'My cousin told me about you, she loved the place');
    await untilIdle(ctx.gw);
    expect(replies(hook, fromId)).toEqual([HANDOFF_NOTICE]);
    await say(account, fromId, 'do you take insurance?', { campaignId: campaign.id });
    await poll(
      async () => replies(hook, fromId),
      (r) => r.length === 2,
    );
    expect(replies(hook, fromId)).toEqual([
      HANDOFF_NOTICE,
      (await tried(account, campaign.id, 'do you take insurance?')).body,
    ]);
  });

  test('a hand-off says why on the conversation', async () => {
    const { account, hook, campaign } = await setUp();
    const fromId = unique('lead');
    await say(account, fromId, 'Can you fix my car transmission?', { campaignId: campaign.id });
    await poll(
      async () => replies(hook, fromId),
      (r) => r.length === 1,
    );
    const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations')).body.data;
    expect(conversation.handoff).toMatchObject({
      reason: 'bot_not_confident',
      message: 'Can you fix my car transmission?',
    });
    expect(Date.parse(conversation.handoff.at)).toBeGreaterThan(0);
  });
});

describe('"Try the bot" answers what the gateway sends a lead who writes the same, before the bot reads it', () => {
  const tried = async (account: TestAccount, campaignId: string, message: string) =>
    (await api(ctx.gw, account, 'POST', `campaigns/${campaignId}/bot/test`, { body: { message } })).body;
  /** What a new lead of the campaign writing `bodies`, one after the other, is sent. */
  const sent = async (account: TestAccount, hook: Receiver, campaignId: string, ...bodies: string[]) => {
    const fromId = unique('lead');
    for (const body of bodies) {
      await say(account, fromId, body, { campaignId });
      await untilIdle(ctx.gw);
    }
    return replies(hook, fromId);
  };
  const byGateway = { provider: 'gateway', fallbackReason: null, basis: { confidence: null, sources: [] } };

  test.each(['STOP', 'Baja por favor', 'please stop texting me'])(
    'an opt-out (%s) gets the opt-out confirmation',
    async (message) => {
      const { account, hook, campaign } = await setUp();
      const test = await tried(account, campaign.id, message);
      expect(test).toEqual({
        campaignId: campaign.id,
        active: true,
        reply: { kind: 'opt_out', body: expect.any(String) },
        ...byGateway,
      });
      expect(await sent(account, hook, campaign.id, message)).toEqual([test.reply.body]);
    },
  );

  // A new lead never opted out: START opts no one in again, and is read as any message.
  test.each([
    ['the bot answers it', {}, 'handoff'],
    ['nothing is sent while the bot is off', { active: false }, 'unanswered'],
  ])('START from a lead who never opted out: %s, as any message', async (_, bot, kind) => {
    const { account, hook, campaign } = await setUp(bot);
    const test = await tried(account, campaign.id, 'START');
    expect(test.reply.kind).toBe(kind);
    expect(test.provider).toBe('faq');
    const body = test.reply.kind === 'unanswered' ? [] : [test.reply.body];
    expect(await sent(account, hook, campaign.id, 'START')).toEqual(body);
  });

  test("HELP gets the account's help text, or the built-in one", async () => {
    const { account, hook, campaign } = await setUp();
    const builtIn = (await tried(account, campaign.id, 'HELP')).reply;
    expect(builtIn).toEqual({ kind: 'help', body: expect.stringMatching(/Reply STOP/) });
    expect(await sent(account, hook, campaign.id, 'HELP')).toEqual([builtIn.body]);

    await api(ctx.gw, account, 'PUT', 'settings', {
      body: { helpText: 'Smile Dental: call 555-0100, or reply STOP.' },
    });
    const own = (await tried(account, campaign.id, 'help please')).reply;
    expect(own).toEqual({ kind: 'help', body: 'Smile Dental: call 555-0100, or reply STOP.' });
    expect(await sent(account, hook, campaign.id, 'help please')).toEqual([own.body]);
  });

  test.each([
    ['a human please', {}, {}],
    ['agent', { handoffMessage: 'Ana from the front desk will text you back within the hour.' }, {}],
    ['Quiero hablar con una persona', {}, { language: 'es' }],
    ["I'd like to talk to a person", { active: false }, {}],
  ])('asking for a person (%s) hands off with the notice the lead is told', async (message, bot, campaign) => {
    const { account, hook, campaign: created } = await setUp(bot, campaign);
    const test = await tried(account, created.id, message);
    expect(test.reply).toEqual({ kind: 'handoff', reason: 'contact_asked', body: expect.any(String) });
    expect(test.provider).toBe('gateway');
    expect(await sent(account, hook, created.id, message)).toEqual([test.reply.body]);
  });

  test.each([
    ['bot_off', { active: false }, {}],
    ['campaign_paused', {}, { status: 'paused' }],
  ])(
    'a campaign whose bot answers nothing (%s) sends nothing, and says what its bot would answer',
    async (reason, bot, campaign) => {
      const { account, hook, campaign: created } = await setUp(bot, campaign);
      const test = await tried(account, created.id, 'what time do you open?');
      expect(test.reply).toEqual({
        kind: 'unanswered',
        reason,
        botReply: { kind: 'reply', body: 'We are open Monday to Friday, 9am to 6pm.', goalReached: false },
      });
      expect(test).toMatchObject({ provider: 'faq', basis: { sources: [{ kind: 'faq', index: 0, use: 'answer' }] } });
      expect(await sent(account, hook, created.id, 'what time do you open?')).toEqual([]);
      // HELP is answered all the same, as the gateway answers it.
      const help = (await tried(account, created.id, 'HELP')).reply;
      expect(await sent(account, hook, created.id, 'HELP')).toEqual([help.body]);
    },
  );
});
