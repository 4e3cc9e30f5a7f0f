import { createHmac } from 'node:crypto';
import path from 'node:path';
import { StandIn } from './stand-in';
import { gatewayModule } from '../helpers/gateway-modules';

type MessagingModule = typeof import('../../gateway/src/providers/channels/meta-messaging.js', {
  with: { 'resolution-mode': 'import' }
});
type GraphModule = typeof import('../../gateway/src/providers/channels/meta-graph.js', {
  with: { 'resolution-mode': 'import' }
});
type ChannelModule = typeof import('../../gateway/src/engine/ports/channel-provider.js', {
  with: { 'resolution-mode': 'import' }
});
type WebhookModule = typeof import('../../gateway/src/providers/channels/meta-messaging-webhook.js', {
  with: { 'resolution-mode': 'import' }
});
type OutgoingMessage = import('../../gateway/src/engine/ports/channel-provider.js', {
  with: { 'resolution-mode': 'import' }
}).OutgoingMessage;
type ChannelProvider = import('../../gateway/src/engine/ports/channel-provider.js', {
  with: { 'resolution-mode': 'import' }
}).ChannelProvider;
type MessengerCredentials = import('../../gateway/src/domain/channel-credentials.js', {
  with: { 'resolution-mode': 'import' }
}).MessengerCredentials;
type InstagramCredentials = import('../../gateway/src/domain/channel-credentials.js', {
  with: { 'resolution-mode': 'import' }
}).InstagramCredentials;

const dist = path.resolve(__dirname, '../../gateway/dist');

let m: MessagingModule;
let g: GraphModule;
let ChannelError: ChannelModule['ChannelError'];
let hook: WebhookModule;
beforeAll(async () => {
  hook = (await gatewayModule(path.join(dist, 'providers/channels/meta-messaging-webhook.js'))) as WebhookModule;
  m = (await gatewayModule(path.join(dist, 'providers/channels/meta-messaging.js'))) as MessagingModule;
  g = (await gatewayModule(path.join(dist, 'providers/channels/meta-graph.js'))) as GraphModule;
  ({ ChannelError } = (await gatewayModule(path.join(dist, 'engine/ports/channel-provider.js'))) as ChannelModule);
});

const PAGE_ID = '104729568123456';
const IG_ACCOUNT_ID = '17841405822304914';
const PAGE_TOKEN = 'EAAGm0PX4ZCpsBAPageTokenZBZC9zX1y2Z3abcdWXYZ';
const IG_TOKEN = 'IGAAKx9testInstagramTokenQWERTYuiop1234LMNO';
const APP_SECRET = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const messenger: MessengerCredentials = {
  pageId: PAGE_ID,
  pageAccessToken: PAGE_TOKEN,
  appSecret: APP_SECRET,
  verifyToken: 'leadchat-verify-2025',
};
const instagram: InstagramCredentials = {
  instagramAccountId: IG_ACCOUNT_ID,
  accessToken: IG_TOKEN,
  appSecret: APP_SECRET,
  verifyToken: 'leadchat-verify-2025',
};
const PSID = '6923412345678901';
const IGSID = '7391234567890123';
const MID = 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN0P';

const text = (patch: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  messageId: 'msg_1',
  channel: 'messenger',
  to: PSID,
  body: 'Hi Ana, the flat is still available.',
  template: null,
  ...patch,
});

/** Stands in for the Graph API: by default every message is accepted. */
const fakeGraph = () =>
  new StandIn((req) => ({
    status: 200,
    body: { recipient_id: req.url.includes(IG_ACCOUNT_ID) ? IGSID : PSID, message_id: MID },
  })).start('/v23.0');

const graphError = (status: number, code: number, message: string, subcode?: number) => ({
  status,
  body: {
    error: {
      message,
      type: 'OAuthException',
      code,
      ...(subcode && { error_subcode: subcode }),
      fbtrace_id: 'AbCdEfGhIjKlMnOp',
    },
  },
});

let fake: StandIn;
beforeEach(async () => {
  fake = await fakeGraph();
});
afterEach(() => fake.close());

const messengerProvider = (timeoutMs = 2000, apiUrl = fake.url) =>
  m.createMetaMessagingProvider('messenger', messenger, { apiUrl, timeoutMs });
const instagramProvider = (timeoutMs = 2000, apiUrl = fake.url) =>
  m.createMetaMessagingProvider('instagram', instagram, { apiUrl, timeoutMs });

/** The ChannelError a send throws, checked never to carry either access token. */
async function sendError(p: ChannelProvider, message = text()) {
  const err = await p.send(message).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChannelError);
  const error = err as InstanceType<typeof ChannelError>;
  expect(error.message).not.toContain(PAGE_TOKEN);
  expect(error.message).not.toContain(IG_TOKEN);
  return error;
}

describe('sending', () => {
  test("Messenger: a JSON POST to the Page's messages with its token, as an answer inside the window", async () => {
    const p = messengerProvider();
    expect(p.name).toBe('messenger');
    expect(await p.send(text())).toEqual({ providerMessageId: MID });
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe(`/v23.0/${PAGE_ID}/messages`);
    expect(req!.headers.authorization).toBe(`Bearer ${PAGE_TOKEN}`);
    expect(req!.headers['content-type']).toMatch(/^application\/json/);
    expect(req!.body).toEqual({
      recipient: { id: PSID },
      messaging_type: 'RESPONSE',
      message: { text: 'Hi Ana, the flat is still available.' },
    });
  });

  test("Instagram: the same to the Instagram account's messages with its own token", async () => {
    const p = instagramProvider(2000, `${fake.url}/`);
    expect(p.name).toBe('instagram');
    expect(await p.send(text({ channel: 'instagram', to: IGSID, body: '¡Hola! ¿Te llamo mañana?' }))).toEqual({
      providerMessageId: MID,
    });
    const [req] = fake.requests;
    expect(req!.url).toBe(`/v23.0/${IG_ACCOUNT_ID}/messages`);
    expect(req!.headers.authorization).toBe(`Bearer ${IG_TOKEN}`);
    expect(req!.body).toEqual({
      recipient: { id: IGSID },
      messaging_type: 'RESPONSE',
      message: { text: '¡Hola! ¿Te llamo mañana?' },
    });
  });

  test("a person's late answer goes with the HUMAN_AGENT tag", async () => {
    await messengerProvider().send(text({ humanAgent: true }));
    expect(fake.requests[0]!.body).toEqual({
      recipient: { id: PSID },
      messaging_type: 'MESSAGE_TAG',
      tag: 'HUMAN_AGENT',
      message: { text: 'Hi Ana, the flat is still available.' },
    });
  });

  test.each([
    ['another channel', () => text({ channel: 'instagram' }), /Messenger messages only, not instagram/],
    ['SMS', () => text({ channel: 'sms', to: '+14155550123' }), /Messenger messages only, not sms/],
    [
      'a template',
      () => text({ template: { name: 'spring_offer', language: 'en_US', params: [] } }),
      /no message templates/,
    ],
    [
      'a phone number as recipient',
      () => text({ to: '+14155550123' }),
      /"\+14155550123" is not a Page-scoped id \(PSID\)/,
    ],
  ])('%s is refused before any request', async (_, message, expected) => {
    const err = await sendError(messengerProvider(), message());
    expect(err).toMatchObject({ retryable: false, code: null });
    expect(err.message).toMatch(expected);
    expect(fake.requests).toHaveLength(0);
  });

  test('Messenger takes 2000 characters: more is refused before any request, not split', async () => {
    expect(await messengerProvider().send(text({ body: '🏠'.repeat(2000) }))).toEqual({ providerMessageId: MID });
    const err = await sendError(messengerProvider(), text({ body: 'a'.repeat(2001) }));
    expect(err).toMatchObject({
      retryable: false,
      code: 'TEXT_TOO_LONG',
      message: 'Messenger takes at most 2000 characters in a message; this one has 2001',
    });
    expect(fake.requests).toHaveLength(1);
  });

  test('Instagram takes 1000 bytes of UTF-8: more is refused before any request', async () => {
    const ig = text({ channel: 'instagram', to: IGSID });
    expect(await instagramProvider().send({ ...ig, body: 'a'.repeat(1000) })).toEqual({ providerMessageId: MID });
    // 500 "ñ" are 500 characters but 1000 bytes; one more character is over.
    expect(await instagramProvider().send({ ...ig, body: 'ñ'.repeat(500) })).toEqual({ providerMessageId: MID });
    const err = await sendError(instagramProvider(), { ...ig, body: `${'ñ'.repeat(500)}!` });
    expect(err).toMatchObject({
      retryable: false,
      code: 'TEXT_TOO_LONG',
      message: 'Instagram takes at most 1000 bytes of text in a message; this one has 1001',
    });
    expect(fake.requests).toHaveLength(2);
  });
});

describe('errors', () => {
  test('190 (an expired token) is final, says so, and masks the token even when Meta quotes it', async () => {
    fake.answer = () =>
      graphError(400, 190, `Error validating access token: Session has expired for ${PAGE_TOKEN}`, 463);
    const err = await sendError(messengerProvider());
    expect(err).toMatchObject({ retryable: false, code: '190' });
    expect(err.message).toBe(
      'The Page access token has expired or was revoked: Messenger 190 (subcode 463): Error validating access token: Session has expired for ••••WXYZ',
    );
  });

  test('190 on Instagram names the Instagram token', async () => {
    fake.answer = () => graphError(401, 190, `Invalid OAuth access token - Cannot parse access token ${IG_TOKEN}`);
    const err = await sendError(instagramProvider(), text({ channel: 'instagram', to: IGSID }));
    expect(err).toMatchObject({ retryable: false, code: '190' });
    expect(err.message).toBe(
      'The Instagram access token has expired or was revoked: Instagram 190: Invalid OAuth access token - Cannot parse access token ••••LMNO',
    );
  });

  test.each([
    [
      551,
      "(#551) This person isn't available right now.",
      1545041,
      "Messenger 551 (subcode 1545041): This person isn't available right now.",
    ],
    [
      10,
      '(#10) This message is sent outside of allowed window.',
      2018278,
      'Messenger 10 (subcode 2018278): This message is sent outside of allowed window.',
    ],
    [
      200,
      '(#200) Requires pages_messaging permission to manage the object',
      undefined,
      'Messenger 200: Requires pages_messaging permission to manage the object',
    ],
    [
      230,
      '(#230) Requires pages_messaging_phone_number permission to manage the object',
      undefined,
      'Messenger 230: Requires pages_messaging_phone_number permission to manage the object',
    ],
    [100, '(#100) No matching user found', 2018001, 'Messenger 100 (subcode 2018001): No matching user found'],
  ])("%d is final, with Meta's code and words", async (code, message, subcode, expected) => {
    fake.answer = () => graphError(400, code, message, subcode);
    expect(await sendError(messengerProvider())).toMatchObject({
      retryable: false,
      code: String(code),
      message: expected,
    });
  });

  test.each([
    ['messenger', 613, '(#613) Calls to this api have exceeded the rate limit.'],
    ['messenger', 80006, 'There have been too many messages sent to this Messenger thread.'],
    ['messenger', 4, '(#4) Application request limit reached'],
    ['messenger', 32, 'Page request limit reached'],
    ['instagram', 80002, 'There have been too many calls to this Instagram account.'],
    ['instagram', 17, 'User request limit reached'],
    ['messenger', 2, 'An unexpected error has occurred. Please retry your request later.'],
    ['instagram', 1, 'An unknown error occurred'],
  ] as const)('%s: code %d may pass later', async (channel, code, message) => {
    fake.answer = () => graphError(400, code, message);
    const p = channel === 'messenger' ? messengerProvider() : instagramProvider();
    expect(await sendError(p, text({ channel, to: channel === 'messenger' ? PSID : IGSID }))).toMatchObject({
      retryable: true,
      code: String(code),
    });
  });

  test("a platform's own rate-limit code is not the other's", async () => {
    fake.answer = () => graphError(400, 80006, 'Messenger thread rate limit');
    expect(await sendError(instagramProvider(), text({ channel: 'instagram', to: IGSID }))).toMatchObject({
      retryable: false,
      code: '80006',
    });
  });

  test('an error Meta calls transient may pass later', async () => {
    fake.answer = () => ({
      status: 400,
      body: { error: { message: 'Service temporarily unavailable', code: 9007, is_transient: true } },
    });
    expect(await sendError(messengerProvider())).toMatchObject({ retryable: true, code: '9007' });
  });

  test('429 and 5xx may pass later', async () => {
    fake.answer = () => ({ status: 429, body: '' });
    expect(await sendError(messengerProvider())).toMatchObject({
      retryable: true,
      code: null,
      message: 'Messenger answered HTTP 429',
    });
    fake.answer = () => graphError(500, 1200, 'Temporary send message failure. Please try again later.');
    expect(await sendError(messengerProvider())).toMatchObject({
      retryable: true,
      code: '1200',
      message: 'Messenger 1200: Temporary send message failure. Please try again later.',
    });
    fake.answer = () => ({ status: 503, body: '<html>Service Unavailable</html>' });
    expect(await sendError(instagramProvider(), text({ channel: 'instagram', to: IGSID }))).toMatchObject({
      retryable: true,
      code: null,
      message: 'Instagram answered HTTP 503',
    });
  });

  test('a refused connection may pass later', async () => {
    const closed = await fakeGraph();
    await closed.close();
    const err = await sendError(messengerProvider(2000, closed.url));
    expect(err).toMatchObject({ retryable: true, code: null });
    expect(err.message).toMatch(/^Messenger could not be reached: .*ECONNREFUSED/);
  });

  test('no answer within the timeout may pass later, after exactly one attempt', async () => {
    fake.answer = () => 'hang';
    const err = await sendError(instagramProvider(300), text({ channel: 'instagram', to: IGSID }));
    expect(err).toMatchObject({ retryable: true, code: null });
    expect(err.message).toMatch(/^Instagram could not be reached: .*300 ?ms/i);
    expect(fake.requests).toHaveLength(1);
  });

  test('an accepted answer without a message id is final: the message may have gone', async () => {
    fake.answer = () => ({ status: 200, body: { recipient_id: PSID } });
    expect(await sendError(messengerProvider())).toMatchObject({
      retryable: false,
      code: null,
      message: 'Messenger answered HTTP 200 without a message id',
    });
  });
});

describe('X-Hub-Signature-256', () => {
  const body = Buffer.from(JSON.stringify({ object: 'page', entry: [] }));
  /** Meta's scheme, computed here on its own. */
  const sign = (secret: string, bytes: Buffer) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

  test('the signature Meta would send passes, in upper-case hex too', () => {
    expect(g.verifyMetaSignature(APP_SECRET, body, sign(APP_SECRET, body))).toBe(true);
    expect(g.verifyMetaSignature(APP_SECRET, body, `sha256=${sign(APP_SECRET, body).slice(7).toUpperCase()}`)).toBe(
      true,
    );
  });

  test.each([
    [
      'a forged body',
      () =>
        g.verifyMetaSignature(APP_SECRET, Buffer.from(body.toString().replace('[]', '[{}]')), sign(APP_SECRET, body)),
    ],
    [
      "another app's secret",
      () => g.verifyMetaSignature(APP_SECRET, body, sign('ffffffffffffffffffffffffffffffff', body)),
    ],
    ['no header', () => g.verifyMetaSignature(APP_SECRET, body, undefined)],
    ['an empty header', () => g.verifyMetaSignature(APP_SECRET, body, '')],
    [
      'a SHA-1 header',
      () =>
        g.verifyMetaSignature(APP_SECRET, body, `sha1=${createHmac('sha1', APP_SECRET).update(body).digest('hex')}`),
    ],
    ['no app secret', () => g.verifyMetaSignature('', body, sign('', body))],
  ])('%s fails', (_, verify) => {
    expect(verify()).toBe(false);
  });
});

describe('subscription handshake', () => {
  const query = (patch: Record<string, unknown> = {}) => ({
    'hub.mode': 'subscribe',
    'hub.verify_token': 'leadchat-verify-2025',
    'hub.challenge': '1158201444',
    ...patch,
  });

  test('the right verify token gets the challenge back', () => {
    expect(g.verifyMetaSubscription(messenger.verifyToken, query())).toBe('1158201444');
  });

  test.each([
    ['a wrong verify token', query({ 'hub.verify_token': 'leadchat-verify-2024' })],
    ['another mode', query({ 'hub.mode': 'unsubscribe' })],
    ['no challenge', query({ 'hub.challenge': undefined })],
    ['no parameters', {}],
  ])('%s gets nothing', (_, q) => {
    expect(g.verifyMetaSubscription(messenger.verifyToken, q)).toBeUndefined();
  });
});

describe('webhook payloads', () => {
  const TS = 1749416383123;
  const SENT_AT = new Date(TS).toISOString();
  /** One messaging event from a contact, shaped as Meta sends it. */
  const event = (payload: Record<string, unknown>, from = PSID, to = PAGE_ID) => ({
    sender: { id: from },
    recipient: { id: to },
    timestamp: TS,
    ...payload,
  });
  const page = (...messaging: unknown[]) => ({ object: 'page', entry: [{ id: PAGE_ID, time: TS + 100, messaging }] });
  const ig = (...messaging: unknown[]) => ({
    object: 'instagram',
    entry: [{ id: IG_ACCOUNT_ID, time: TS + 100, messaging }],
  });
  const igEvent = (payload: Record<string, unknown>) => event(payload, IGSID, IG_ACCOUNT_ID);
  const inbound = (patch: Record<string, unknown>) => ({
    channel: 'messenger',
    providerMessageId: 'm_1',
    from: PSID,
    body: '',
    media: [],
    profileName: null,
    sentAt: SENT_AT,
    ...patch,
  });

  test('a Messenger text message', () => {
    expect(
      m.parseMetaMessagingWebhook(
        'messenger',
        page(event({ message: { mid: 'm_1', text: 'Is the flat still available?' } })),
      ),
    ).toEqual({
      messages: [inbound({ body: 'Is the flat still available?' })],
      statuses: [],
      watermarks: [],
    });
  });

  test("attachments are Meta's addresses with a type from the attachment's kind, beside the text", () => {
    const parsed = m.parseMetaMessagingWebhook(
      'messenger',
      page(
        event({
          message: {
            mid: 'm_1',
            text: 'The kitchen',
            attachments: [
              { type: 'image', payload: { url: 'https://scontent.xx.fbcdn.net/v/kitchen.jpg?oh=1' } },
              { type: 'video', payload: { url: 'https://video.xx.fbcdn.net/v/tour.mp4' } },
            ],
          },
        }),
        event({
          message: {
            mid: 'm_2',
            attachments: [{ type: 'audio', payload: { url: 'https://cdn.fbsbx.com/v/voice.mp4' } }],
          },
        }),
        event({
          message: {
            mid: 'm_3',
            attachments: [{ type: 'file', payload: { url: 'https://cdn.fbsbx.com/v/payslip.pdf' } }],
          },
        }),
        event({
          message: {
            mid: 'm_4',
            attachments: [{ type: 'location', payload: { coordinates: { lat: 40.4, long: -3.7 } } }],
          },
        }),
      ),
    );
    expect(parsed.messages).toEqual([
      inbound({
        body: 'The kitchen',
        media: [
          { url: 'https://scontent.xx.fbcdn.net/v/kitchen.jpg?oh=1', contentType: 'image/*' },
          { url: 'https://video.xx.fbcdn.net/v/tour.mp4', contentType: 'video/*' },
        ],
      }),
      inbound({
        providerMessageId: 'm_2',
        media: [{ url: 'https://cdn.fbsbx.com/v/voice.mp4', contentType: 'audio/*' }],
      }),
      inbound({
        providerMessageId: 'm_3',
        media: [{ url: 'https://cdn.fbsbx.com/v/payslip.pdf', contentType: 'application/octet-stream' }],
      }),
    ]);
  });

  test("a shared link (a fallback attachment) is the contact's message: its title and address as its text, not a file", () => {
    const url = 'https://www.idealista.com/inmueble/12345/';
    const shared = (mid: string, attachment: Record<string, unknown>, text?: string) =>
      event({ message: { mid, ...(text ? { text } : {}), attachments: [{ type: 'fallback', ...attachment }] } });
    const parsed = m.parseMetaMessagingWebhook(
      'messenger',
      page(
        shared('m_1', { payload: { url, title: 'Flat in Lavapiés, 2 rooms' } }),
        // Older webhook versions put them beside the payload.
        shared('m_2', { payload: null, title: 'Flat in Lavapiés, 2 rooms', url }),
        shared('m_3', { payload: { url } }),
        // With text, the text is the message (it holds the link as the contact typed it).
        shared('m_4', { payload: { url, title: 'Flat in Lavapiés' } }, `Is this one free? ${url}`),
        // A share Meta does not show comes with nothing: nothing to keep.
        shared('m_5', { payload: null }),
      ),
    );
    expect(parsed.messages).toEqual([
      inbound({ providerMessageId: 'm_1', body: `Flat in Lavapiés, 2 rooms\n${url}` }),
      inbound({ providerMessageId: 'm_2', body: `Flat in Lavapiés, 2 rooms\n${url}` }),
      inbound({ providerMessageId: 'm_3', body: url }),
      inbound({ providerMessageId: 'm_4', body: `Is this one free? ${url}` }),
    ]);
    const echoed = m.parseMetaMessagingWebhook(
      'instagram',
      ig(
        event(
          { message: { mid: 'ig_echo', is_echo: true, attachments: [{ type: 'fallback', payload: { url } }] } },
          IG_ACCOUNT_ID,
          IGSID,
        ),
      ),
    );
    expect(echoed.sent).toEqual([
      { channel: 'instagram', providerMessageId: 'ig_echo', to: IGSID, body: url, media: [] },
    ]);
  });

  test('a quick reply is the text the contact tapped', () => {
    const parsed = m.parseMetaMessagingWebhook(
      'messenger',
      page(event({ message: { mid: 'm_1', text: 'Saturday morning', quick_reply: { payload: 'SLOT_SAT_AM' } } })),
    );
    expect(parsed.messages).toEqual([inbound({ body: 'Saturday morning' })]);
  });

  test('a reaction is a message of type reaction with its emoji; taking it back is skipped', () => {
    const react = event({ reaction: { mid: MID, action: 'react', reaction: 'love', emoji: '❤️' } });
    const parsed = m.parseMetaMessagingWebhook(
      'messenger',
      page(react, event({ reaction: { mid: MID, action: 'unreact' } })),
    );
    expect(parsed.messages).toEqual([
      inbound({ providerMessageId: `${MID}:react:${PSID}:❤️`, messageType: 'reaction', body: '❤️' }),
    ]);
    // The same webhook delivered again is the same message.
    expect(m.parseMetaMessagingWebhook('messenger', page(react)).messages[0]!.providerMessageId).toBe(
      parsed.messages[0]!.providerMessageId,
    );
  });

  test("a button tap is a message with the button's title", () => {
    const parsed = m.parseMetaMessagingWebhook(
      'messenger',
      page(
        event({ postback: { mid: 'm_pb', title: 'Book a visit', payload: 'BOOK_VISIT' } }),
        event({ postback: { payload: 'GET_STARTED' } }),
      ),
    );
    expect(parsed.messages).toEqual([
      inbound({ providerMessageId: 'm_pb', body: 'Book a visit' }),
      inbound({ providerMessageId: `postback:${PSID}:${TS}:GET_STARTED`, body: 'GET_STARTED' }),
    ]);
  });

  test("the business's own messages (echoes) are told as the business's, to the contact; deleted ones as the contact's deletions; other events are skipped", () => {
    const parsed = m.parseMetaMessagingWebhook(
      'messenger',
      page(
        event(
          { message: { mid: 'm_echo', is_echo: true, app_id: 1517776481860111, text: 'Sent from the Page inbox' } },
          PAGE_ID,
          PSID,
        ),
        event({ message: { mid: 'm_del', is_deleted: true } }),
        event({ optin: { type: 'notification_messages', payload: 'x', notification_messages_token: 't' } }),
        event({ referral: { ref: 'ad_42', source: 'ADS', type: 'OPEN_THREAD' } }),
        event({ pass_thread_control: { new_owner_app_id: '123', metadata: 'x' } }),
      ),
    );
    expect(parsed).toEqual({
      messages: [],
      statuses: [],
      watermarks: [],
      sent: [
        { channel: 'messenger', providerMessageId: 'm_echo', to: PSID, body: 'Sent from the Page inbox', media: [] },
      ],
      unsent: [{ channel: 'messenger', providerMessageId: 'm_del', from: PSID }],
    });
  });

  test('Messenger delivery: each named message delivered, and everything up to the watermark', () => {
    const parsed = m.parseMetaMessagingWebhook(
      'messenger',
      page(event({ delivery: { mids: ['m_a', 'm_b'], watermark: 1749416390000 } })),
    );
    expect(parsed).toEqual({
      messages: [],
      statuses: [
        { providerMessageId: 'm_a', status: 'delivered', providerStatus: 'delivered', errorCode: null, error: null },
        { providerMessageId: 'm_b', status: 'delivered', providerStatus: 'delivered', errorCode: null, error: null },
      ],
      watermarks: [{ channel: 'messenger', contact: PSID, status: 'delivered', upTo: 1749416390000 }],
    });
  });

  test('a delivery without mids is its watermark only', () => {
    const parsed = m.parseMetaMessagingWebhook('messenger', page(event({ delivery: { watermark: 1749416390000 } })));
    expect(parsed).toEqual({
      messages: [],
      statuses: [],
      watermarks: [{ channel: 'messenger', contact: PSID, status: 'delivered', upTo: 1749416390000 }],
    });
  });

  test('Messenger read: a watermark', () => {
    const parsed = m.parseMetaMessagingWebhook('messenger', page(event({ read: { watermark: 1749416395000 } })));
    expect(parsed).toEqual({
      messages: [],
      statuses: [],
      watermarks: [{ channel: 'messenger', contact: PSID, status: 'read', upTo: 1749416395000 }],
    });
  });

  test('Instagram read: the message it names', () => {
    const parsed = m.parseMetaMessagingWebhook(
      'instagram',
      ig(igEvent({ read: { mid: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQx' } })),
    );
    expect(parsed).toEqual({
      messages: [],
      statuses: [
        {
          providerMessageId: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQx',
          status: 'read',
          providerStatus: 'read',
          errorCode: null,
          error: null,
        },
      ],
      watermarks: [],
    });
  });

  test('Instagram: a text, a reaction, a story reply and a story mention', () => {
    const story = 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=17948484020123456&signature=abc';
    const parsed = m.parseMetaMessagingWebhook(
      'instagram',
      ig(
        igEvent({ message: { mid: 'ig_1', text: 'Hola, ¿sigue disponible?' } }),
        igEvent({ reaction: { mid: 'ig_sent', action: 'react', reaction: 'love', emoji: '😍' } }),
        igEvent({
          message: {
            mid: 'ig_2',
            text: 'I love this place!',
            reply_to: { story: { url: story, id: '17948484020123456' } },
          },
        }),
        igEvent({ message: { mid: 'ig_3', attachments: [{ type: 'story_mention', payload: { url: story } }] } }),
      ),
    );
    const ig1 = { channel: 'instagram', from: IGSID, media: [], profileName: null, sentAt: SENT_AT };
    expect(parsed.messages).toEqual([
      { ...ig1, providerMessageId: 'ig_1', body: 'Hola, ¿sigue disponible?' },
      { ...ig1, providerMessageId: `ig_sent:react:${IGSID}:😍`, messageType: 'reaction', body: '😍' },
      {
        ...ig1,
        providerMessageId: 'ig_2',
        body: 'I love this place!',
        media: [{ url: story, contentType: 'application/octet-stream' }],
      },
      { ...ig1, providerMessageId: 'ig_3', body: '', media: [{ url: story, contentType: 'application/octet-stream' }] },
    ]);
  });

  test("Instagram's heart sticker is a reaction ❤️, with its picture or without, as Messenger's like button is 👍", () => {
    const heart = (mid: string, attachment: Record<string, unknown>) =>
      igEvent({ message: { mid, attachments: [{ type: 'like_heart', ...attachment }] } });
    const parsed = m.parseMetaMessagingWebhook(
      'instagram',
      ig(
        heart('ig_heart', {}),
        heart('ig_heart_pictured', { payload: { url: 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=9' } }),
      ),
    );
    const ig1 = { channel: 'instagram', from: IGSID, media: [], profileName: null, sentAt: SENT_AT };
    expect(parsed.messages).toEqual([
      { ...ig1, providerMessageId: 'ig_heart', messageType: 'reaction', body: '❤️' },
      { ...ig1, providerMessageId: 'ig_heart_pictured', messageType: 'reaction', body: '❤️' },
    ]);
  });

  test("an Instagram echo is the business's; an unsupported message (a GIF) is skipped", () => {
    const parsed = m.parseMetaMessagingWebhook(
      'instagram',
      ig(
        event({ message: { mid: 'ig_echo', is_echo: true, text: 'Thanks!' } }, IG_ACCOUNT_ID, IGSID),
        igEvent({ message: { mid: 'ig_gif', is_unsupported: true } }),
      ),
    );
    expect(parsed).toEqual({
      messages: [],
      statuses: [],
      watermarks: [],
      sent: [{ channel: 'instagram', providerMessageId: 'ig_echo', to: IGSID, body: 'Thanks!', media: [] }],
    });
  });

  test('several entries and events are all read, in order', () => {
    const body = {
      object: 'page',
      entry: [
        { id: PAGE_ID, time: TS, messaging: [event({ message: { mid: 'm_1', text: 'one' } })] },
        {
          id: PAGE_ID,
          time: TS,
          messaging: [
            event({ message: { mid: 'm_2', text: 'two' } }, '6923412345678902'),
            event({ read: { watermark: TS } }),
          ],
        },
        { id: PAGE_ID, time: TS, standby: [event({ message: { mid: 'm_standby', text: 'for another app' } })] },
      ],
    };
    const parsed = m.parseMetaMessagingWebhook('messenger', body);
    expect(parsed.messages.map((x) => [x.providerMessageId, x.from, x.body])).toEqual([
      ['m_1', PSID, 'one'],
      ['m_2', '6923412345678902', 'two'],
    ]);
    expect(parsed.watermarks).toHaveLength(1);
  });

  test('as entries: nothing vanishes unsaid. A wrong shape is an entry whose job will say why; an event with nothing to keep is named as skipped, with why', () => {
    const wrongText = event({ message: { mid: 'm_bad', text: 123 } });
    const split = hook.metaMessagingEntries(
      'messenger',
      page(
        event({ message: { mid: 'm_1', text: 'hi' } }),
        wrongText,
        event({ mystery: { anything: 1 } }),
        event({}),
        event({ optin: { type: 'notification_messages' } }),
        event({ postback: {} }),
        event({ message: { mid: 'm_echo', is_echo: true, text: 'ours' } }, PAGE_ID, PSID),
      ),
      PAGE_ID,
    );
    expect(split.entries.map((e) => [e.where, e.key, e.sender])).toEqual([
      ['entry[0].messaging[0]', 'm_1', PSID],
      ['entry[0].messaging[1]', null, null],
      // The business's message takes the turn of the contact it went to.
      ['entry[0].messaging[6]', 'm_echo', PSID],
    ]);
    expect(split.entries[1]!.raw).toEqual(wrongText);
    expect(split.skipped).toEqual([
      { where: 'entry[0].messaging[2]', reason: 'unreadable', detail: 'fields: mystery' },
      { where: 'entry[0].messaging[3]', reason: 'unreadable', detail: 'fields: none' },
      { where: 'entry[0].messaging[4]', reason: 'not_taken', detail: 'optin event' },
      { where: 'entry[0].messaging[5]', reason: 'not_taken', detail: 'postback with nothing to keep' },
    ]);
    expect(() => hook.parseMetaMessagingEntry('messenger', split.entries[1]!)).toThrow(
      /^entry\[0\]\.messaging\[1\]\.message\.text: expected the message's text, a string$/,
    );
  });

  test.each([
    ['nothing', 'messenger', undefined, /^object: not a Messenger webhook \(expected "object": "page"\)/],
    [
      'an Instagram webhook on Messenger',
      'messenger',
      { object: 'instagram', entry: [] },
      /^object: not a Messenger webhook/,
    ],
    [
      'a Page webhook on Instagram',
      'instagram',
      { object: 'page', entry: [] },
      /^object: not an Instagram webhook \(expected "object": "instagram"\)/,
    ],
    ['a WhatsApp webhook', 'messenger', { object: 'whatsapp_business_account', entry: [] }, /^object: /],
    ['entry that is not a list', 'messenger', { object: 'page', entry: {} }, /^entry: expected a list/],
    [
      'an entry that is not an object',
      'messenger',
      { object: 'page', entry: ['x'] },
      /^entry\[0\]: expected an object/,
    ],
    [
      'messaging that is not a list',
      'messenger',
      { object: 'page', entry: [{ messaging: { sender: {} } }] },
      /^entry\[0\]\.messaging: expected a list/,
    ],
    [
      'an event that is not an object',
      'messenger',
      { object: 'page', entry: [{ messaging: [null] }] },
      /^entry\[0\]\.messaging\[0\]: expected an object/,
    ],
    [
      'a message without its mid',
      'messenger',
      { object: 'page', entry: [{ messaging: [event({ message: { text: 'hi' } })] }] },
      /^entry\[0\]\.messaging\[0\]\.message\.mid is missing/,
    ],
    [
      'a message without its sender',
      'messenger',
      { object: 'page', entry: [{ messaging: [{ timestamp: TS, message: { mid: 'm_1', text: 'hi' } }] }] },
      /^entry\[0\]\.messaging\[0\]\.sender\.id is missing/,
    ],
    [
      "a sender id that is not Meta's",
      'messenger',
      { object: 'page', entry: [{ messaging: [event({ message: { mid: 'm_1', text: 'hi' } }, '+14155550123')] }] },
      /sender\.id: "\+14155550123" is not a Page-scoped id \(PSID\)/,
    ],
    [
      'a message that is not an object',
      'messenger',
      { object: 'page', entry: [{ messaging: [event({ message: 'hi' })] }] },
      /^entry\[0\]\.messaging\[0\]\.message: expected an object/,
    ],
    [
      'attachments that are not a list',
      'messenger',
      { object: 'page', entry: [{ messaging: [event({ message: { mid: 'm_1', attachments: {} } })] }] },
      /message\.attachments: expected a list/,
    ],
    [
      'a reaction without its mid',
      'messenger',
      { object: 'page', entry: [{ messaging: [event({ reaction: { action: 'react', emoji: '👍' } })] }] },
      /messaging\[0\]\.reaction\.mid is missing/,
    ],
    [
      'a text that is not text',
      'messenger',
      { object: 'page', entry: [{ messaging: [event({ message: { mid: 'm_1', text: 123 } })] }] },
      /^entry\[0\]\.messaging\[0\]\.message\.text: expected the message's text, a string/,
    ],
    [
      'mids that are not a list',
      'messenger',
      { object: 'page', entry: [{ messaging: [event({ delivery: { mids: 'm_1', watermark: TS } })] }] },
      /delivery\.mids: expected a list/,
    ],
  ] as const)('refuses %s with a 400 naming the place', (_, channel, body, expected) => {
    let thrown: unknown;
    try {
      m.parseMetaMessagingWebhook(channel, body);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ status: 400, message: expect.stringMatching(expected) });
  });
});

describe('profiles', () => {
  const options = () => ({ apiUrl: fake.url, timeoutMs: 2000 });

  test('Messenger: first and last name from the PSID, with the Page token', async () => {
    fake.answer = () => ({ status: 200, body: { first_name: 'Ana', last_name: 'García', id: PSID } });
    expect(await m.fetchMetaProfile('messenger', messenger, PSID, options())).toEqual({
      firstName: 'Ana',
      lastName: 'García',
    });
    const [req] = fake.requests;
    expect(req!.method).toBe('GET');
    expect(req!.url).toBe(`/v23.0/${PSID}?fields=first_name,last_name`);
    expect(req!.headers.authorization).toBe(`Bearer ${PAGE_TOKEN}`);
  });

  test('Instagram: the name split at its first space, with the Instagram token', async () => {
    fake.answer = () => ({ status: 200, body: { name: 'Ana María López', username: 'ana.maria', id: IGSID } });
    expect(await m.fetchMetaProfile('instagram', instagram, IGSID, options())).toEqual({
      firstName: 'Ana',
      lastName: 'María López',
    });
    expect(fake.requests[0]!.url).toBe(`/v23.0/${IGSID}?fields=name,username`);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${IG_TOKEN}`);
  });

  test('Instagram: one word is a first name; no name at all leaves the username', async () => {
    fake.answer = () => ({ status: 200, body: { name: 'Kerry', username: 'kerryf', id: IGSID } });
    expect(await m.fetchMetaProfile('instagram', instagram, IGSID, options())).toEqual({
      firstName: 'Kerry',
      lastName: null,
    });
    fake.answer = () => ({ status: 200, body: { username: 'kerryf', id: IGSID } });
    expect(await m.fetchMetaProfile('instagram', instagram, IGSID, options())).toEqual({
      firstName: 'kerryf',
      lastName: null,
    });
  });

  test.each([
    ['a Graph error', () => graphError(400, 100, 'Unsupported get request. Object with ID does not exist', 33)],
    ['an expired token', () => graphError(401, 190, 'Error validating access token')],
    ['an outage', () => ({ status: 503, body: '<html>Service Unavailable</html>' })],
    ['an answer that is not JSON', () => ({ status: 200, body: 'not json' })],
    ['an answer without a name', () => ({ status: 200, body: { id: PSID } })],
  ])('%s gives no profile', async (_, answer) => {
    fake.answer = answer;
    expect(await m.fetchMetaProfile('messenger', messenger, PSID, options())).toBeUndefined();
  });

  test('no answer within the timeout, or no Graph at all, gives no profile', async () => {
    fake.answer = () => 'hang';
    expect(
      await m.fetchMetaProfile('instagram', instagram, IGSID, { apiUrl: fake.url, timeoutMs: 300 }),
    ).toBeUndefined();
    const closed = await fakeGraph();
    await closed.close();
    expect(
      await m.fetchMetaProfile('messenger', messenger, PSID, { apiUrl: closed.url, timeoutMs: 2000 }),
    ).toBeUndefined();
  });

  test("an id that is not Meta's is not asked for", async () => {
    expect(await m.fetchMetaProfile('messenger', messenger, '../me/accounts', options())).toBeUndefined();
    expect(fake.requests).toHaveLength(0);
  });
});
