import { createHmac } from 'node:crypto';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  getBytes,
  HANDOFF_NOTICE,
  poll,
  Receiver,
  request,
  uniquePhone,
  untilIdle,
  useGateway,
  type Answer,
  type Received,
  type TestAccount,
} from './api-support';
import { jobsWithStatus, processed } from '../helpers/inbound';
import { hex, twilio, twilioCredentials, whatsapp } from '../helpers/provider-accounts';

/**
 * Built-in channels over HTTPS, with Twilio, the WhatsApp Cloud API and an OpenAI-compatible endpoint stood in by one
 * local server: channel credentials; an SMS lead through Twilio answered by the LLM, with status callbacks; a bad
 * credential; signatures; a WhatsApp lead inside and outside the 24-hour window; contacts' files read from each.
 */
const PUBLIC_URL = 'https://chat.example.test';
const BAD_SID = `AC${'b'.repeat(32)}`;
let llmAnswer = 'Sure!';
let sent = 0;
/** Numbers Twilio blocks, as it does one that texted STOP to it. */
const unsubscribedAtTwilio = new Set<string>();

/** A 1×1 PNG: what a contact's photo is here. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f1cd6a0000000049454e44ae426082',
  'hex',
);
let base = '';

/**
 * Files as the providers serve them. Twilio: the media address answers a Basic-authenticated GET with a redirect to
 * its file store. WhatsApp: Graph gives a media id's address and size, read with the same Bearer token.
 */
function file(req: Received): Answer {
  const twilioMedia = /^\/2010-04-01\/Accounts\/AC\w+\/Messages\/MM\w+\/Media\/(ME\w+)$/.exec(req.path);
  const basic = `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`;
  if (twilioMedia)
    return req.headers.authorization === basic
      ? { status: 302, headers: { location: `/files/${twilioMedia[1]}` } }
      : { status: 401 };
  if (req.path === '/files/ME1') return { status: 200, body: PNG, headers: { 'content-type': 'image/png' } };
  // Files whose store names a type that is not theirs: a photo as bytes of no type, a web page as a photo.
  if (req.path === '/files/ME2')
    return { status: 200, body: PNG, headers: { 'content-type': 'application/octet-stream' } };
  if (req.path === '/files/ME3')
    return { status: 200, body: '<html><script>alert(1)</script></html>', headers: { 'content-type': 'image/png' } };
  const graph = /^\/v23\.0\/(\d+)$/.exec(req.path);
  if (graph?.[1] === '1003')
    return {
      status: 200,
      body: JSON.stringify({
        url: `${base}/lookaside/1003`,
        mime_type: 'image/png',
        file_size: PNG.length,
        id: '1003',
      }),
    };
  if (graph?.[1] === '1004')
    return {
      status: 200,
      body: JSON.stringify({
        url: `${base}/lookaside/1004`,
        mime_type: 'video/mp4',
        file_size: 200 * 1024 * 1024,
        id: '1004',
      }),
    };
  if (req.path === '/lookaside/1003' && req.headers.authorization === `Bearer ${whatsapp.accessToken}`)
    return { status: 200, body: PNG, headers: { 'content-type': 'image/png' } };
  return { status: 404, body: JSON.stringify({ error: { message: 'Unsupported get request', code: 100 } }) };
}

function respond(_n: number, req: Received): Answer {
  if (req.method === 'GET') return file(req);
  if (req.path.startsWith('/2010-04-01/Accounts/')) {
    if (req.path.includes(BAD_SID))
      return { status: 401, body: JSON.stringify({ code: 20003, message: 'Authenticate', status: 401 }) };
    if (unsubscribedAtTwilio.has(new URLSearchParams(req.raw).get('To') ?? ''))
      return {
        status: 400,
        body: JSON.stringify({ code: 21610, message: 'Attempt to send to unsubscribed recipient', status: 400 }),
      };
    return { status: 201, body: JSON.stringify({ sid: `SM${String(++sent).padStart(32, '0')}`, status: 'queued' }) };
  }
  if (req.path.endsWith('/messages'))
    return {
      status: 200,
      body: JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.${++sent}` }] }),
    };
  if (req.path === '/v1/chat/completions') {
    const completion = {
      id: 'c1',
      object: 'chat.completion',
      model: 'm',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: llmAnswer } }],
    };
    return { status: 200, body: JSON.stringify(completion), headers: { 'content-type': 'application/json' } };
  }
  return { status: 404 };
}

const env: Record<string, string> = {
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_BOT_DEBOUNCE: '300ms',
  LEADCHAT_PUBLIC_URL: PUBLIC_URL,
};
let provider: Receiver;
beforeAll(async () => {
  provider = await Receiver.start(respond);
  base = provider.url.replace(/\/hook$/, '');
  env.LEADCHAT_TWILIO_API_URL = base;
  env.LEADCHAT_WHATSAPP_API_URL = `${base}/v23.0`;
});
const ctx = useGateway(env);
const hooks: Receiver[] = [];
afterAll(async () => {
  await Promise.all([provider, ...hooks].map((r) => r.close()));
});

async function accountWith(
  channels: { twilio?: object; whatsapp?: object },
  events = ['delivery_failed', 'goal_reached', 'handoff'],
) {
  const account = await createAccount(ctx.gw);
  for (const [name, credentials] of Object.entries(channels)) {
    const res = await api(ctx.gw, account, 'PUT', `channels/${name}`, { body: credentials });
    expect(res.status).toBe(200);
  }
  const hook = await Receiver.start();
  hooks.push(hook);
  await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: hook.url, events } });
  return { account, hook };
}

/** Twilio's X-Twilio-Signature: base64 HMAC-SHA1 of the URL followed by each parameter's name and value, sorted. */
function twilioSignature(token: string, url: string, params: Record<string, string>): string {
  const data =
    url +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join('');
  return createHmac('sha1', token).update(data).digest('base64');
}

/** Twilio's POST, and the gateway's processing of what it took (see processed). */
function postTwilio(
  account: TestAccount,
  kind: 'incoming' | 'status',
  params: Record<string, string>,
  token = hex('1'),
) {
  const path = `/v1/channels/twilio/${account.id}/${kind}`;
  return processed(
    ctx.gw,
    request(ctx.gw, 'POST', path, {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(token, PUBLIC_URL + path, params),
      },
      body: new URLSearchParams(params).toString(),
    }),
  );
}

/** Meta's POST, and the gateway's processing of what it took. */
function postWhatsApp(account: TestAccount, payload: object, secret = whatsapp.appSecret) {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return processed(
    ctx.gw,
    request(ctx.gw, 'POST', `/v1/channels/whatsapp/${account.id}/webhook`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    }),
  );
}

const whatsappChange = (value: object) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: 'WABA',
      changes: [
        {
          field: 'messages',
          value: { messaging_product: 'whatsapp', metadata: { phone_number_id: whatsapp.phoneNumberId }, ...value },
        },
      ],
    },
  ],
});
/** A message from Lucía at `phone`, as Meta delivers it; `content` is its type and the part of that type. */
const whatsappMessage = (phone: string, id: string, content: object, sentAt = Date.now()) =>
  whatsappChange({
    contacts: [{ wa_id: phone.slice(1), profile: { name: 'Lucía' } }],
    messages: [{ from: phone.slice(1), id, timestamp: String(Math.floor(sentAt / 1000)), ...content }],
  });
const whatsappText = (phone: string, id: string, body: string, sentAt = Date.now()) =>
  whatsappMessage(phone, id, { type: 'text', text: { body } }, sentAt);

const messages = async (account: TestAccount, contactId: string) =>
  (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages?limit=200`)).body.data as any[];
const toProvider = (pathPart: string) => provider.requests.filter((r) => r.path.includes(pathPart));
const form = (r: Received) => Object.fromEntries(new URLSearchParams(r.raw));

test('channel credentials are validated, stored and shown back masked with the webhook addresses; each account sees its own', async () => {
  const account = await createAccount(ctx.gw);
  expect((await api(ctx.gw, account, 'GET', 'channels')).body).toEqual({
    publicUrlConfigured: true,
    twilio: null,
    whatsapp: null,
    messenger: null,
    instagram: null,
  });
  const saved = await api(ctx.gw, account, 'PUT', 'channels/twilio', {
    body: { ...twilio, whatsappFrom: 'whatsapp:+14155238886' },
  });
  expect(saved.status).toBe(200);
  expect(saved.body.twilio).toEqual({
    accountSid: `AC${hex('a')}`,
    authToken: '••••1111',
    from: '+15005550006',
    messagingServiceSid: null,
    whatsappFrom: '+14155238886',
    webhooks: {
      incoming: `${PUBLIC_URL}/v1/channels/twilio/${account.id}/incoming`,
      status: `${PUBLIC_URL}/v1/channels/twilio/${account.id}/status`,
    },
  });
  const wa = await api(ctx.gw, account, 'PUT', 'channels/whatsapp', { body: whatsapp });
  expect(wa.body.whatsapp).toEqual({
    phoneNumberId: '1234567890',
    accessToken: '••••6789',
    appSecret: '••••2222',
    verifyToken: 'verify-me-please',
    webhooks: { webhook: `${PUBLIC_URL}/v1/channels/whatsapp/${account.id}/webhook` },
  });
  const shown = await api(ctx.gw, account, 'GET', 'channels');
  expect(shown.text).not.toContain(hex('1'));
  expect(shown.text).not.toContain(whatsapp.accessToken);
  expect(shown.text).not.toContain(whatsapp.appSecret);

  const bad = await api(ctx.gw, account, 'PUT', 'channels/twilio', {
    body: { ...twilio, authToken: 'short' },
  });
  expectApiError(bad, 400, 'VALIDATION_ERROR');
  expect(bad.body.error.message).toMatch(/^authToken/);
  expectApiError(
    await api(ctx.gw, account, 'PUT', 'channels/twilio', {
      body: { accountSid: `AC${hex('a')}`, authToken: hex('1') },
    }),
    400,
    'VALIDATION_ERROR',
  );
  expectApiError(
    await api(ctx.gw, account, 'PUT', 'channels/whatsapp', { body: { ...whatsapp, extra: true } }),
    400,
    'VALIDATION_ERROR',
  );

  // With Twilio set up, SMS and WhatsApp messages come from Twilio's webhook: the log channel's entry refuses them.
  for (const channel of ['sms', 'whatsapp']) {
    const refused = await api(ctx.gw, account, 'POST', `channels/${channel}/incoming`, {
      body: { phone: '+14155550100', body: 'Hi' },
    });
    expectApiError(refused, 409, 'CHANNEL_NOT_OFFLINE');
  }

  const stranger = await createAccount(ctx.gw);
  expect((await api(ctx.gw, stranger, 'GET', 'channels')).body).toEqual({
    publicUrlConfigured: true,
    twilio: null,
    whatsapp: null,
    messenger: null,
    instagram: null,
  });
  expectApiError(await api(ctx.gw, stranger, 'DELETE', 'channels/twilio'), 404, 'CHANNEL_NOT_FOUND');
  expect((await api(ctx.gw, account, 'DELETE', 'channels/twilio')).body.twilio).toBeNull();
  expect((await api(ctx.gw, account, 'GET', 'channels')).body.whatsapp).not.toBeNull();
  expect((await api(ctx.gw, account, 'DELETE', 'channels/whatsapp')).body).toMatchObject({
    twilio: null,
    whatsapp: null,
  });
  expectApiError(await api(ctx.gw, account, 'DELETE', 'channels/whatsapp'), 404, 'CHANNEL_NOT_FOUND');
});

test('an SMS lead through Twilio is answered by the OpenAI-compatible bot, status callbacks update each message, and an answer undelivered goes to the team', async () => {
  const { account, hook } = await accountWith({ twilio });
  await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: {
      provider: 'openai',
      openai: { baseUrl: `${provider.url.replace(/\/hook$/, '')}/v1`, model: 'llama3.1', apiKey: 'sk-local-secret' },
    },
  });
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const campaign = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Smile Dental',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hi {{first_name}}, thanks for your interest in Smile Dental!',
        triggerOnNewContacts: true,
        status: 'live',
        bot: {
          goal: 'Book a cleaning',
          faqs: [
            { question: 'How much is a cleaning?', answer: 'A cleaning costs $90.' },
            { question: 'Where are you?', answer: '12 Main Street.' },
          ],
        },
      },
    })
  ).body;
  const phone = uniquePhone();
  const lead = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, firstName: 'Ann' } })).body;
  await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: lead.id } });

  const opening = await poll(
    () => messages(account, lead.id),
    (m) => m[0]?.status === 'sent',
  );
  expect(opening[0]).toMatchObject({
    author: 'campaign',
    provider: 'twilio',
    providerMessageId: expect.stringMatching(/^SM/),
    body: 'Hi Ann, thanks for your interest in Smile Dental!',
  });
  const [call] = toProvider(`/Accounts/AC${hex('a')}/Messages.json`).filter((r) => form(r).To === phone);
  expect(form(call!)).toEqual({
    To: phone,
    From: '+15005550006',
    Body: 'Hi Ann, thanks for your interest in Smile Dental!',
    StatusCallback: `${PUBLIC_URL}/v1/channels/twilio/${account.id}/status`,
  });
  expect(call!.headers.authorization).toBe(`Basic ${Buffer.from(`AC${hex('a')}:${hex('1')}`).toString('base64')}`);

  const delivered = await postTwilio(account, 'status', {
    MessageSid: opening[0].providerMessageId,
    MessageStatus: 'delivered',
    AccountSid: `AC${hex('a')}`,
  });
  expect(delivered.status).toBe(204);
  expect((await messages(account, lead.id))[0]).toMatchObject({ status: 'delivered' });

  llmAnswer = 'Great choice, Ann! A cleaning is $90 and I have booked you for Tuesday. [GOAL_REACHED]';
  const inbound = await postTwilio(account, 'incoming', {
    MessageSid: `SM${hex('c')}`,
    From: phone,
    To: '+15005550006',
    Body: 'How much for a cleaning? I want to book',
    NumMedia: '0',
  });
  expect(inbound.status).toBe(200);
  expect(inbound.headers['content-type']).toMatch(/^text\/xml/);
  const answered = await poll(
    () => messages(account, lead.id),
    (m) => m.some((x) => x.author === 'bot' && x.status === 'sent'),
  );
  const reply = answered.find((x) => x.author === 'bot');
  expect(reply).toMatchObject({
    body: 'Great choice, Ann! A cleaning is $90 and I have booked you for Tuesday.',
    provider: 'twilio',
    campaignId: campaign.id,
  });
  const [llmCall] = toProvider('/v1/chat/completions');
  expect(llmCall!.headers.authorization).toBe('Bearer sk-local-secret');
  expect(llmCall!.body.messages[0].content).toContain('A cleaning costs $90.');
  expect(llmCall!.body.messages.at(-1)).toEqual({ role: 'user', content: 'How much for a cleaning? I want to book' });
  const goal = await poll(
    async () => hook.requests.filter((r) => r.body?.type === 'goal_reached'),
    (e) => e.length === 1,
  );
  expect(goal[0]!.body).toMatchObject({
    contactId: lead.id,
    campaignId: campaign.id,
    goal: 'Book a cleaning',
    messageId: reply.id,
  });
  const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations')).body.data;
  expect(conversation.goalReachedAt).toEqual(expect.any(String));

  // The same webhook again (Twilio retries when unsure) is stored once and answered once.
  await postTwilio(account, 'incoming', {
    MessageSid: `SM${hex('c')}`,
    From: phone,
    To: '+15005550006',
    Body: 'How much for a cleaning? I want to book',
    NumMedia: '0',
  });
  await untilIdle(ctx.gw);
  expect((await messages(account, lead.id)).filter((m) => m.direction === 'incoming')).toHaveLength(1);

  const undelivered = await postTwilio(account, 'status', {
    MessageSid: reply.providerMessageId,
    MessageStatus: 'undelivered',
    ErrorCode: '30003',
    ErrorMessage: 'Unreachable destination handset',
  });
  expect(undelivered.status).toBe(204);
  const failed = (await api(ctx.gw, account, 'GET', `messages/${reply.id}`)).body;
  expect(failed).toMatchObject({
    status: 'failed',
    errorCode: '30003',
    error: expect.stringContaining('Unreachable destination handset'),
  });
  const [event] = await poll(
    async () => hook.requests.filter((r) => r.body?.type === 'delivery_failed' && r.body?.messageId === reply.id),
    (e) => e.length === 1,
  );
  expect(event!.body).toMatchObject({ channel: 'sms', customChannel: null, errorCode: '30003' });
  // A late "sent" does not bring a failed message back.
  await postTwilio(account, 'status', { MessageSid: reply.providerMessageId, MessageStatus: 'sent' });
  expect((await api(ctx.gw, account, 'GET', `messages/${reply.id}`)).body.status).toBe('failed');

  // The bot's answer never reached the lead: the team is handed the conversation, and the lead is told by text.
  await untilIdle(ctx.gw);
  expect((await api(ctx.gw, account, 'GET', `conversations/${conversation.id}`)).body).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    handoff: { reason: 'reply_failed', message: 'How much for a cleaning? I want to book' },
    lastMessage: { author: 'system', body: HANDOFF_NOTICE, status: 'sent' },
  });
  const texts = toProvider(`/Accounts/AC${hex('a')}/Messages.json`).filter((r) => form(r).To === phone);
  expect(texts.map((r) => form(r).Body).at(-1)).toBe(HANDOFF_NOTICE);
  expect(hook.requests.filter((r) => r.body?.type === 'handoff').map((r) => r.body.reason)).toEqual(['reply_failed']);
});

test('when the LLM endpoint fails the FAQ bot answers, and the test endpoint says why', async () => {
  const { account } = await accountWith({});
  await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { provider: 'openai', openai: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: null } },
  });
  const campaign = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Shop',
        channel: 'custom',
        customChannel: 'chat',
        bot: { faqs: [{ question: 'Do you ship abroad?', answer: 'We ship to all EU countries.' }] },
      },
    })
  ).body;
  const res = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, {
    body: { message: 'do you ship abroad?' },
  });
  expect(res.body).toMatchObject({
    provider: 'faq',
    fallbackReason: expect.stringMatching(/could not connect|ECONNREFUSED/),
    reply: { kind: 'reply', body: 'We ship to all EU countries.' },
  });
  expect(res.body.basis.sources).toEqual([{ kind: 'faq', index: 0, question: 'Do you ship abroad?', use: 'answer' }]);
});

test('the test endpoint shows what the LLM was given to answer from, and no confidence', async () => {
  const { account } = await accountWith({});
  await api(ctx.gw, account, 'PUT', 'settings/bot', {
    body: { provider: 'openai', openai: { baseUrl: `${base}/v1`, model: 'm', apiKey: null } },
  });
  const faqs = [
    { question: 'Do you ship abroad?', answer: 'We ship to all EU countries.' },
    { question: 'How long does delivery take?', answer: 'Delivery takes 3 to 5 working days.' },
  ];
  const resources = ['Parcels abroad go by DHL Express, tracked, with a signature on delivery.'];
  const campaign = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: { name: 'Shop', channel: 'custom', customChannel: 'chat', bot: { faqs, resources } },
    })
  ).body;
  llmAnswer = 'Yes: we ship to every EU country, by DHL Express.';
  const res = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, {
    body: { message: 'do you ship abroad with DHL?' },
  });
  expect(res.body).toMatchObject({
    provider: 'openai',
    fallbackReason: null,
    reply: { kind: 'reply', body: llmAnswer },
  });
  expect(res.body.basis.confidence).toBeNull();
  expect(res.body.basis.sources).toContainEqual({
    kind: 'faq',
    index: 0,
    question: 'Do you ship abroad?',
    use: 'given',
  });
  expect(res.body.basis.sources).toContainEqual({ kind: 'resource', index: 0, text: resources[0], use: 'given' });
  // What it was given is what the LLM got.
  const [call] = toProvider('/v1/chat/completions').slice(-1);
  expect(call!.body.messages[0].content).toContain('We ship to all EU countries.');
  expect(call!.body.messages[0].content).toContain(resources[0]);
});

test("a bad Twilio credential turns the message failed with Twilio's error, visible through the API", async () => {
  const { account, hook } = await accountWith({ twilio: twilioCredentials(BAD_SID) });
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Funnel',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi!',
      triggerOnNewContacts: true,
      status: 'live',
    },
  });
  const lead = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: 'Bo' } }))
    .body;
  await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: lead.id } });
  const [message] = await poll(
    () => messages(account, lead.id),
    (m) => m[0]?.status === 'failed',
  );
  expect(message).toMatchObject({ provider: 'twilio', errorCode: '20003', error: 'Twilio 20003: Authenticate' });
  await poll(
    async () => hook.requests.filter((r) => r.body?.type === 'delivery_failed'),
    (e) => e.length === 1,
  );
});

test('provider webhooks are refused without their signature, with another secret, or for an account without the channel', async () => {
  const { account } = await accountWith({ twilio, whatsapp });
  const params = { MessageSid: `SM${hex('d')}`, From: uniquePhone(), To: '+15005550006', Body: 'hello' };
  expectApiError(await postTwilio(account, 'incoming', params, hex('9')), 403, 'INVALID_SIGNATURE');
  const unsigned = await request(ctx.gw, 'POST', `/v1/channels/twilio/${account.id}/incoming`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  expectApiError(unsigned, 403, 'INVALID_SIGNATURE');
  expectApiError(
    await postWhatsApp(account, whatsappText(uniquePhone(), 'wamid.x', 'hi'), hex('9')),
    403,
    'INVALID_SIGNATURE',
  );
  const plain = await createAccount(ctx.gw);
  expectApiError(await postTwilio(plain, 'incoming', params), 404, 'CHANNEL_NOT_FOUND');
  expectApiError(await postWhatsApp(plain, whatsappText(uniquePhone(), 'wamid.y', 'hi')), 404, 'CHANNEL_NOT_FOUND');
  expect((await api(ctx.gw, account, 'GET', 'conversations')).body.data).toEqual([]);

  // Meta's subscription handshake echoes the challenge only for the account's verify token.
  const ok = await request(ctx.gw, 'GET', `/v1/channels/whatsapp/${account.id}/webhook`, {
    query: { 'hub.mode': 'subscribe', 'hub.verify_token': whatsapp.verifyToken, 'hub.challenge': '1158201444' },
  });
  expect({ status: ok.status, text: ok.text }).toEqual({ status: 200, text: '1158201444' });
  const wrong = await request(ctx.gw, 'GET', `/v1/channels/whatsapp/${account.id}/webhook`, {
    query: { 'hub.mode': 'subscribe', 'hub.verify_token': 'nope', 'hub.challenge': '1' },
  });
  expectApiError(wrong, 403, 'INVALID_VERIFY_TOKEN');
});

test("a WhatsApp message to another business number served by the same Meta app is not the account's: nothing of it is stored or answered", async () => {
  const { account } = await accountWith({ whatsapp });
  const phone = uniquePhone();
  const other = whatsappText(phone, 'wamid.other1', 'Hello, other business');
  other.entry[0]!.changes[0]!.value.metadata.phone_number_id = '999000111222';
  const sent = toProvider('/messages').length;
  expect((await postWhatsApp(account, other)).status).toBe(200);
  await untilIdle(ctx.gw);
  expect((await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).status).toBe(404);
  expect(toProvider('/messages')).toHaveLength(sent);
});

test("a status report moves only a message its own provider sent: a Twilio callback naming a WhatsApp Cloud message's id changes nothing", async () => {
  const { account } = await accountWith({ twilio, whatsapp });
  const phone = uniquePhone();
  expect((await postWhatsApp(account, whatsappText(phone, 'wamid.in-tie', 'Hola'))).status).toBe(200);
  const contact = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  const sent = await api(ctx.gw, account, 'POST', `contacts/${contact.id}/messages`, { body: { body: 'Hola, Lucía' } });
  expect(sent.status).toBe(201);
  const reply = await poll(
    async () => (await api(ctx.gw, account, 'GET', `messages/${sent.body.id}`)).body,
    (m) => m.status === 'sent',
  );
  expect(reply.provider).toBe('whatsapp-cloud');
  await postTwilio(account, 'status', { MessageSid: reply.providerMessageId, MessageStatus: 'read' });
  expect((await api(ctx.gw, account, 'GET', `messages/${reply.id}`)).body.status).toBe('sent');
});

test('a WhatsApp message Meta delivers late, after a newer one, leaves the 24-hour window at the newer one', async () => {
  const { account } = await accountWith({ whatsapp });
  const phone = uniquePhone();
  const written = Date.now();
  expect((await postWhatsApp(account, whatsappText(phone, 'wamid.new1', 'Still open today?', written))).status).toBe(
    200,
  );
  // Meta tries again a message written 25 hours ago that it could not deliver then: it comes after the newer one.
  const old = written - 25 * 3_600_000;
  expect((await postWhatsApp(account, whatsappText(phone, 'wamid.old1', 'Hello, are you there?', old))).status).toBe(
    200,
  );
  await untilIdle(ctx.gw);
  const contact = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: contact.id } })).body
    .data;
  const newer = (await messages(account, contact.id)).find((m) => m.body === 'Still open today?');
  expect(conversation).toMatchObject({ lastIncomingAt: newer.createdAt, unread: 2 });
  // The contact wrote a moment ago: a person's free text still goes.
  const reply = await api(ctx.gw, account, 'POST', `contacts/${contact.id}/messages`, {
    body: { body: 'Yes, until 6.', conversationId: conversation.id },
  });
  expect(reply.body).toMatchObject({ status: 'pending', errorCode: null });
});

test("Meta's batches up to its documented 3 MB are taken; a larger body is 413", async () => {
  const { account } = await accountWith({ whatsapp });
  const phone = uniquePhone();
  const batch = whatsappText(phone, 'wamid.big1', 'One of many');
  // Fields the gateway does not read stand for the rest of a large batch.
  Object.assign(batch.entry[0]!.changes[0]!.value, { padding: 'x'.repeat(2_500_000) });
  expect((await postWhatsApp(account, batch)).status).toBe(200);
  expect((await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).status).toBe(200);
  Object.assign(batch.entry[0]!.changes[0]!.value, { padding: 'x'.repeat(3_200_000) });
  expect((await postWhatsApp(account, batch)).status).toBe(413);
});

test("a WhatsApp lead: answered inside the 24-hour window; outside it free text is skipped, or sent as the campaign's re-engagement template", async () => {
  const { account } = await accountWith({ whatsapp });
  const campaign = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Clínica',
        language: 'es',
        channel: 'whatsapp',
        bot: { faqs: [{ question: '¿Cuánto cuesta una limpieza?', answer: 'La limpieza cuesta 50 €.' }] },
      },
    })
  ).body;
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });

  const recent = uniquePhone();
  expect((await postWhatsApp(account, whatsappText(recent, 'wamid.in1', '¿Cuánto cuesta una limpieza?'))).status).toBe(
    200,
  );
  const contact = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: recent } })).body;
  expect(contact.firstName).toBe('Lucía');
  const answered = await poll(
    () => messages(account, contact.id),
    (m) => m.some((x) => x.author === 'bot' && x.status === 'sent'),
  );
  expect(answered.find((x) => x.author === 'bot')).toMatchObject({
    body: 'La limpieza cuesta 50 €.',
    provider: 'whatsapp-cloud',
    providerMessageId: expect.stringMatching(/^wamid\./),
  });
  const textCall = toProvider(`/v23.0/${whatsapp.phoneNumberId}/messages`).find((r) => r.body?.to === recent.slice(1));
  expect(textCall!.body).toEqual({
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: recent.slice(1),
    type: 'text',
    text: { body: 'La limpieza cuesta 50 €.', preview_url: false },
  });
  expect(textCall!.headers.authorization).toBe(`Bearer ${whatsapp.accessToken}`);
  // Meta's status webhook: read.
  const reply = answered.find((x) => x.author === 'bot');
  await postWhatsApp(
    account,
    whatsappChange({
      statuses: [
        {
          id: reply.providerMessageId,
          status: 'read',
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: recent.slice(1),
        },
      ],
    }),
  );
  expect((await api(ctx.gw, account, 'GET', `messages/${reply.id}`)).body.status).toBe('read');

  // A message written 25 hours ago, delivered late: the window is counted from when the contact wrote.
  const late = uniquePhone();
  await postWhatsApp(
    account,
    whatsappText(late, 'wamid.in2', '¿Cuánto cuesta una limpieza?', Date.now() - 25 * 3_600_000),
  );
  const lateContact = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: late } })).body;
  const skipped = await poll(
    () => messages(account, lateContact.id),
    (m) => m.some((x) => x.author === 'bot'),
  );
  expect(skipped.find((x) => x.author === 'bot')).toMatchObject({
    status: 'skipped',
    errorCode: 'OUTSIDE_24H_WINDOW',
    error: expect.stringMatching(/24-hour/),
  });
  expect(toProvider('/messages').filter((r) => r.body?.to === late.slice(1))).toHaveLength(0);

  await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, {
    body: { reengagementTemplate: 'seguimiento', reengagementTemplateParams: ['{{first_name|hola}}'] },
  });
  const later = uniquePhone();
  await postWhatsApp(
    account,
    whatsappText(later, 'wamid.in3', '¿Cuánto cuesta una limpieza?', Date.now() - 30 * 3_600_000),
  );
  await poll(
    async () => toProvider('/messages').filter((r) => r.body?.to === later.slice(1)),
    (calls) => calls.length === 1,
  );
  expect(toProvider('/messages').find((r) => r.body?.to === later.slice(1))!.body).toEqual({
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: later.slice(1),
    type: 'template',
    template: {
      name: 'seguimiento',
      language: { code: 'es' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: 'Lucía' }] }],
    },
  });
});

test("a contact's photo on Twilio or WhatsApp is kept by the gateway and read at /v1/media; one it cannot read keeps the provider's address", async () => {
  const { account } = await accountWith({ twilio, whatsapp });
  const contactOf = async (phone: string) =>
    (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  const expectKept = async (media: { url: string; contentType: string; mediaId: string }) => {
    expect(media).toEqual({
      url: `/v1/media/${media.mediaId}`,
      contentType: 'image/png',
      mediaId: expect.stringMatching(/^med_/),
    });
    const kept = await getBytes(ctx.gw, account, media.url);
    expect(kept.status).toBe(200);
    expect(kept.headers['content-type']).toBe('image/png');
    expect(kept.bytes.equals(PNG)).toBe(true);
    const stranger = await createAccount(ctx.gw);
    expect((await getBytes(ctx.gw, stranger, media.url)).status).toBe(404);
  };

  // Twilio MMS: read with the account's credentials, through Twilio's redirect to its file store.
  const mmsPhone = uniquePhone();
  const mediaUrl = `${base}/2010-04-01/Accounts/${twilio.accountSid}/Messages/MM${hex('1')}/Media/ME1`;
  const mms = {
    MessageSid: `MM${hex('1')}`,
    From: mmsPhone,
    To: '+15005550006',
    Body: 'The crack in the wall',
    NumMedia: '1',
    MediaUrl0: mediaUrl,
    MediaContentType0: 'image/png',
  };
  expect((await postTwilio(account, 'incoming', mms)).status).toBe(200);
  const mmsContact = await contactOf(mmsPhone);
  const [photo] = await messages(account, mmsContact.id);
  await expectKept(photo.media);
  // Delivered again: the same message, and its file is not read a second time.
  const reads = toProvider('/Media/ME1').length;
  expect((await postTwilio(account, 'incoming', mms)).status).toBe(200);
  expect((await messages(account, mmsContact.id)).filter((m) => m.direction === 'incoming')).toHaveLength(1);
  expect(toProvider('/Media/ME1')).toHaveLength(reads);

  // WhatsApp Cloud: Graph gives the media id's address, read with the access token.
  const waPhone = uniquePhone();
  const image = (id: string, mediaId: string) =>
    whatsappMessage(waPhone, id, {
      type: 'image',
      image: { id: mediaId, mime_type: 'image/png', caption: 'La cocina' },
    });
  expect((await postWhatsApp(account, image('wamid.img1', '1003'))).status).toBe(200);
  const waContact = await contactOf(waPhone);
  const [kitchen] = await messages(account, waContact.id);
  expect(kitchen.body).toBe('La cocina');
  await expectKept(kitchen.media);
  expect(toProvider('/v23.0/1003')[0]!.headers.authorization).toBe(`Bearer ${whatsapp.accessToken}`);

  // A file Graph does not know, and one larger than LEADCHAT_MAX_MEDIA_BYTES: the message is kept with the provider's address.
  for (const [id, mediaId] of [
    ['wamid.img2', '9999'],
    ['wamid.img3', '1004'],
  ] as const) {
    expect((await postWhatsApp(account, image(id, mediaId))).status).toBe(200);
  }
  const kept = await messages(account, waContact.id);
  expect(kept.find((m) => m.messageSid === 'wamid.img2').media).toEqual({
    url: 'whatsapp-media:9999',
    contentType: 'image/png',
    mediaId: null,
  });
  expect(kept.find((m) => m.messageSid === 'wamid.img3').media).toEqual({
    url: 'whatsapp-media:1004',
    contentType: 'image/png',
    mediaId: null,
  });
  expect(toProvider('/lookaside/1004')).toHaveLength(0);

  // A Twilio media address on another host is never read with the account's credentials.
  const elsewhere = {
    ...mms,
    MessageSid: `MM${hex('2')}`,
    From: uniquePhone(),
    MediaUrl0: 'https://files.example.test/ME9',
  };
  expect((await postTwilio(account, 'incoming', elsewhere)).status).toBe(200);
  const [foreign] = await messages(account, (await contactOf(elsewhere.From)).id);
  expect(foreign.media).toEqual({ url: 'https://files.example.test/ME9', contentType: 'image/png', mediaId: null });
});

test("a contact's file is kept and served under the type its bytes show, not the one its provider names", async () => {
  const { account } = await accountWith({ twilio });
  const phone = uniquePhone();
  const media = (n: number) => `${base}/2010-04-01/Accounts/${twilio.accountSid}/Messages/MM${hex('7')}/Media/ME${n}`;
  const mms = {
    MessageSid: `MM${hex('7')}`,
    From: phone,
    To: '+15005550006',
    Body: 'Photos of the roof',
    NumMedia: '2',
    MediaUrl0: media(2),
    MediaContentType0: 'application/octet-stream',
    MediaUrl1: media(3),
    MediaContentType1: 'image/png',
  };
  expect((await postTwilio(account, 'incoming', mms)).status).toBe(200);
  const contact = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  const [photo, page] = (await messages(account, contact.id)).filter((m) => m.direction === 'incoming');
  const served = async (m: any) => {
    expect(m.media.mediaId).toEqual(expect.stringMatching(/^med_/));
    const file = await getBytes(ctx.gw, account, m.media.url);
    return { status: file.status, stored: m.media.contentType, served: file.headers['content-type'] };
  };
  expect(await served(photo)).toEqual({ status: 200, stored: 'image/png', served: 'image/png' });
  expect(await served(page)).toEqual({
    status: 200,
    stored: 'text/plain',
    served: expect.stringMatching(/^text\/plain\b/),
  });
});

test("a status report that overtakes the provider's answer to the send is applied once the answer names its message; one on a message never sent is dropped", async () => {
  const { account, hook } = await accountWith({ twilio });
  const phone = uniquePhone();
  const hello = { MessageSid: `SM${hex('d')}`, From: phone, To: '+15005550006', Body: 'Hello?', NumMedia: '0' };
  expect((await postTwilio(account, 'incoming', hello)).status).toBe(200);
  await untilIdle(ctx.gw);
  const contact = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  // Twilio calls back on the message it is about to name in its answer to the send.
  const sid = `SM${String(sent + 1).padStart(32, '0')}`;
  const early = { MessageSid: sid, MessageStatus: 'undelivered', ErrorCode: '30003', ErrorMessage: 'Unreachable' };
  expect((await postTwilio(account, 'status', early)).status).toBe(204);
  const posted = await api(ctx.gw, account, 'POST', `contacts/${contact.id}/messages`, { body: { body: 'Hi Bo' } });
  expect(posted.status).toBe(201);
  // The send runs, and nothing planned later: the report's next look waits for the clock to reach it.
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const message = (await api(ctx.gw, account, 'GET', `messages/${posted.body.id}`)).body;
  expect(message).toMatchObject({ status: 'sent', provider: 'twilio', providerMessageId: sid });

  await advanceClock(ctx.gw, '2s');
  await untilIdle(ctx.gw);
  expect((await api(ctx.gw, account, 'GET', `messages/${message.id}`)).body).toMatchObject({
    status: 'failed',
    errorCode: '30003',
    error: expect.stringContaining('Unreachable'),
  });
  expect(
    hook.requests.filter((r) => r.body?.type === 'delivery_failed' && r.body?.messageId === message.id),
  ).toHaveLength(1);

  // A report on a message this account never sent is looked at again for 40 s, then dropped: not kept, not dead.
  const stray = `SM${'9'.repeat(32)}`;
  expect((await postTwilio(account, 'status', { MessageSid: stray, MessageStatus: 'delivered' })).status).toBe(204);
  await advanceClock(ctx.gw, '41s');
  await untilIdle(ctx.gw);
  const left = [...(await jobsWithStatus(ctx.gw, 'pending')), ...(await jobsWithStatus(ctx.gw, 'dead'))];
  expect(left.filter((job) => job.kind === 'inbound' && job.accountId === account.id)).toEqual([]);
});

test('an opening Twilio reports undelivered stops its follow-ups: the lead it never reached gets none until a retry sends it', async () => {
  const { account } = await accountWith({ twilio });
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Smile Dental',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name}}!',
      triggerOnNewContacts: true,
      status: 'live',
      followUps: { enabled: true, steps: [{ after: '1d', body: 'Still there, {{first_name}}?' }] },
    },
  });
  const lead = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: 'Cy' } }))
    .body;
  await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: lead.id } });
  const [opening] = await poll(
    () => messages(account, lead.id),
    (m) => m[0]?.status === 'sent',
  );
  const followUps = async () =>
    (await messages(account, lead.id)).filter((m) => m.author === 'follow_up').map((m) => m.body);

  const undelivered = { MessageSid: opening.providerMessageId, MessageStatus: 'undelivered', ErrorCode: '30003' };
  expect((await postTwilio(account, 'status', undelivered)).status).toBe(204);
  await advanceClock(ctx.gw, '2d');
  await untilIdle(ctx.gw);
  expect(await followUps()).toEqual([]);

  expect((await api(ctx.gw, account, 'POST', `messages/${opening.id}/retry`)).status).toBe(200);
  await untilIdle(ctx.gw);
  await advanceClock(ctx.gw, '1d');
  await untilIdle(ctx.gw);
  expect(await followUps()).toEqual(['Still there, Cy?']);
});

test("a STOP Twilio answered itself: the gateway's confirmation, refused with Twilio 21610, is skipped, not reported undelivered", async () => {
  const { account, hook } = await accountWith({ twilio });
  const phone = uniquePhone();
  unsubscribedAtTwilio.add(phone);
  const stop = await postTwilio(account, 'incoming', {
    MessageSid: `SM${hex('5')}`,
    From: phone,
    To: '+15005550006',
    Body: 'STOP',
    NumMedia: '0',
  });
  expect(stop.status).toBe(200);
  await untilIdle(ctx.gw);
  const contact = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  expect(contact.optOut).toMatchObject({ channel: 'sms' });
  const [confirmation] = (await messages(account, contact.id)).filter((m) => m.direction === 'outgoing');
  expect(confirmation).toMatchObject({
    author: 'system',
    status: 'skipped',
    errorCode: '21610',
    error: expect.stringContaining('Twilio answered the STOP itself'),
  });
  const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: contact.id } })).body
    .data;
  expect(conversation).toMatchObject({ status: 'opted_out', failed: 0 });
  expect(hook.requests.filter((r) => r.body?.type === 'delivery_failed')).toEqual([]);
});

test('a photo with no text, in a conversation the bot answers, goes to the team, and the contact is told a person will answer', async () => {
  const { account, hook } = await accountWith({ twilio });
  const campaign = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Smile Dental',
        channel: 'sms',
        bot: { faqs: [{ question: 'How much is a cleaning?', answer: 'A cleaning costs $90.' }] },
      },
    })
  ).body;
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
  const phone = uniquePhone();
  const sms = { From: phone, To: '+15005550006', NumMedia: '0' };
  await postTwilio(account, 'incoming', { ...sms, MessageSid: `SM${hex('e')}`, Body: 'How much is a cleaning?' });
  await untilIdle(ctx.gw);
  const photo = {
    ...sms,
    MessageSid: `MM${hex('e')}`,
    Body: '',
    NumMedia: '1',
    MediaUrl0: `${base}/2010-04-01/Accounts/${twilio.accountSid}/Messages/MM${hex('e')}/Media/ME1`,
    MediaContentType0: 'image/png',
  };
  expect((await postTwilio(account, 'incoming', photo)).status).toBe(200);
  await untilIdle(ctx.gw);

  const contact = (await api(ctx.gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
  const thread = await messages(account, contact.id);
  expect(thread.map((m) => [m.direction, m.author ?? null, m.body])).toEqual([
    ['incoming', null, 'How much is a cleaning?'],
    ['outgoing', 'bot', 'A cleaning costs $90.'],
    ['incoming', null, ''],
    ['outgoing', 'bot', 'Thanks for your message! A member of our team will get back to you shortly.'],
  ]);
  const conversation = (await api(ctx.gw, account, 'GET', `conversations/${thread[0].conversationId}`)).body;
  expect(conversation).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    handoff: { reason: 'file_only', message: null },
  });
  const told = await poll(
    async () => hook.requests.filter((r) => r.body?.type === 'handoff'),
    (rs) => rs.length > 0,
  );
  expect(told.map((r) => r.body)).toEqual([
    expect.objectContaining({ contactId: contact.id, reason: 'file_only', body: null }),
  ]);
});
