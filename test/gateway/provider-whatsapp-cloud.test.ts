import { createHmac } from 'node:crypto';
import path from 'node:path';
import { StandIn } from './stand-in';
import { gatewayModule } from '../helpers/gateway-modules';

type CloudModule = typeof import('../../gateway/src/providers/channels/whatsapp-cloud.js', {
  with: { 'resolution-mode': 'import' }
});
type ChannelModule = typeof import('../../gateway/src/engine/ports/channel-provider.js', {
  with: { 'resolution-mode': 'import' }
});
type WebhookModule = typeof import('../../gateway/src/providers/channels/whatsapp-cloud-webhook.js', {
  with: { 'resolution-mode': 'import' }
});
type OutgoingMessage = import('../../gateway/src/engine/ports/channel-provider.js', {
  with: { 'resolution-mode': 'import' }
}).OutgoingMessage;
type CredentialsModule = typeof import('../../gateway/src/domain/channel-credentials.js', {
  with: { 'resolution-mode': 'import' }
});
type Credentials = import('../../gateway/src/domain/channel-credentials.js', {
  with: { 'resolution-mode': 'import' }
}).WhatsAppCloudCredentials;

const dist = path.resolve(__dirname, '../../gateway/dist');

let w: CloudModule;
let c: CredentialsModule;
let ChannelError: ChannelModule['ChannelError'];
let hook: WebhookModule;
beforeAll(async () => {
  hook = (await gatewayModule(path.join(dist, 'providers/channels/whatsapp-cloud-webhook.js'))) as WebhookModule;
  w = (await gatewayModule(path.join(dist, 'providers/channels/whatsapp-cloud.js'))) as CloudModule;
  c = (await gatewayModule(path.join(dist, 'domain/channel-credentials.js'))) as CredentialsModule;
  ({ ChannelError } = (await gatewayModule(path.join(dist, 'engine/ports/channel-provider.js'))) as ChannelModule);
});

const PHONE_NUMBER_ID = '106540352242922';
const ACCESS_TOKEN = 'EAAGm0PX4ZCpsBAKZCZAtestTokenZBZC9zX1y2Z3abcdEFGH';
const APP_SECRET = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const credentials: Credentials = {
  phoneNumberId: PHONE_NUMBER_ID,
  accessToken: ACCESS_TOKEN,
  appSecret: APP_SECRET,
  verifyToken: 'leadchat-verify-2025',
};
const WAMID = 'wamid.HBgLMTQxNTU1NTAxMjMVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA';

const text = (patch: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  messageId: 'msg_1',
  channel: 'whatsapp',
  to: '+14155550123',
  body: 'Hi Ana, still looking for a flat?',
  template: null,
  ...patch,
});

/** Stands in for the Graph API: by default every message is accepted. */
const fakeGraph = () =>
  new StandIn(() => ({
    status: 200,
    body: {
      messaging_product: 'whatsapp',
      contacts: [{ input: '14155550123', wa_id: '14155550123' }],
      messages: [{ id: WAMID }],
    },
  })).start('/v23.0');

const graphError = (status: number, code: number, message: string, details?: string) => ({
  status,
  body: {
    error: {
      message,
      type: 'OAuthException',
      code,
      ...(details && { error_data: { messaging_product: 'whatsapp', details } }),
      fbtrace_id: 'AbCdEfGhIjKlMnOp',
    },
  },
});

let fake: StandIn;
beforeEach(async () => {
  fake = await fakeGraph();
});
afterEach(() => fake.close());

const provider = (timeoutMs = 2000, apiUrl = fake.url) =>
  w.createWhatsAppCloudProvider(credentials, { apiUrl, timeoutMs });

/** The ChannelError a send throws, checked never to carry the access token. */
async function sendError(p: ReturnType<typeof provider>, message = text()) {
  const err = await p.send(message).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChannelError);
  const error = err as InstanceType<typeof ChannelError>;
  expect(error.message).not.toContain(ACCESS_TOKEN);
  return error;
}

describe('sending', () => {
  test("free text: one JSON POST to the number's messages with the bearer token", async () => {
    expect(await provider().send(text())).toEqual({ providerMessageId: WAMID });
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe(`/v23.0/${PHONE_NUMBER_ID}/messages`);
    expect(req!.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(req!.headers['content-type']).toMatch(/^application\/json/);
    expect(req!.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '14155550123',
      type: 'text',
      text: { body: 'Hi Ana, still looking for a flat?', preview_url: false },
    });
  });

  test('a template with body parameters, in order', async () => {
    await provider(2000, `${fake.url}/`).send(
      text({ template: { name: 'spring_offer', language: 'es_MX', params: ['Ana', '20 %'] } }),
    );
    expect(fake.requests[0]!.url).toBe(`/v23.0/${PHONE_NUMBER_ID}/messages`);
    expect(fake.requests[0]!.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '14155550123',
      type: 'template',
      template: {
        name: 'spring_offer',
        language: { code: 'es_MX' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'text', text: '20 %' },
            ],
          },
        ],
      },
    });
  });

  test('a template without parameters has no components', async () => {
    await provider().send(text({ template: { name: 'hello_world', language: 'en_US', params: [] } }));
    expect(fake.requests[0]!.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '14155550123',
      type: 'template',
      template: { name: 'hello_world', language: { code: 'en_US' } },
    });
  });

  test('SMS is refused before any request', async () => {
    expect(await sendError(provider(), text({ channel: 'sms' }))).toMatchObject({ retryable: false, code: null });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('errors', () => {
  test("131047 (outside the 24-hour window) is final, with the code, Meta's words and its details", async () => {
    fake.answer = () =>
      graphError(
        400,
        131047,
        '(#131047) Re-engagement message',
        'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      );
    const err = await sendError(provider());
    expect(err).toMatchObject({
      retryable: false,
      code: '131047',
      message:
        'WhatsApp 131047: Re-engagement message (Message failed to send because more than 24 hours have passed since the customer last replied to this number.)',
    });
  });

  test('an expired token is final, and the token is masked even when the answer quotes it', async () => {
    fake.answer = () => graphError(401, 190, `Error validating access token: ${ACCESS_TOKEN} has expired`);
    const err = await sendError(provider());
    expect(err).toMatchObject({ retryable: false, code: '190' });
    expect(err.message).toBe('WhatsApp 190: Error validating access token: ••••EFGH has expired');
  });

  test.each([
    [4, '(#4) Application request limit reached'],
    [80007, '(#80007) Rate limit issues'],
    [130429, '(#130429) Rate limit hit'],
    [131048, '(#131048) Spam rate limit hit'],
    [131056, '(#131056) (Business Account, Consumer Account) pair rate limit hit'],
  ])('Graph rate limit %d on a 400 may pass later', async (code, message) => {
    fake.answer = () => graphError(400, code, message);
    expect(await sendError(provider())).toMatchObject({ retryable: true, code: String(code) });
  });

  test('429 and 5xx may pass later', async () => {
    fake.answer = () => ({ status: 429, body: '' });
    expect(await sendError(provider())).toMatchObject({
      retryable: true,
      code: null,
      message: 'WhatsApp answered HTTP 429',
    });
    fake.answer = () => graphError(500, 131000, 'Something went wrong');
    expect(await sendError(provider())).toMatchObject({
      retryable: true,
      code: '131000',
      message: 'WhatsApp 131000: Something went wrong',
    });
    fake.answer = () => ({ status: 502, body: '<html>Bad Gateway</html>' });
    expect(await sendError(provider())).toMatchObject({ retryable: true, code: null });
  });

  test('a refused connection may pass later', async () => {
    const closed = await fakeGraph();
    await closed.close();
    const err = await sendError(provider(2000, closed.url));
    expect(err).toMatchObject({ retryable: true, code: null });
    expect(err.message).toMatch(/^WhatsApp could not be reached: .*ECONNREFUSED/);
  });

  test('no answer within the timeout may pass later, after exactly one attempt', async () => {
    fake.answer = () => 'hang';
    const started = Date.now();
    const err = await sendError(provider(300));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err).toMatchObject({ retryable: true, code: null });
    expect(err.message).toMatch(/^WhatsApp could not be reached: .*300 ?ms/i);
    expect(fake.requests).toHaveLength(1);
  });

  test('an accepted answer without a message id is final: the message may have gone', async () => {
    fake.answer = () => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [] } });
    expect(await sendError(provider())).toMatchObject({ retryable: false });
  });
});

describe('refuse', () => {
  test("an opening message on WhatsApp needs an approved template; SMS is not this provider's", () => {
    const channels = { whatsapp: credentials };
    expect(c.sendingRefusal(channels, { channel: 'whatsapp', openingTemplate: 'spring_offer' })).toBeUndefined();
    expect(c.sendingRefusal(channels, { channel: 'whatsapp', openingTemplate: null })).toMatch(
      /approved template.*openingTemplate/,
    );
    expect(c.sendingRefusal(channels, { channel: 'whatsapp', openingTemplate: '   ' })).toMatch(/openingTemplate/);
    expect(c.sendingRefusal(channels, { channel: 'sms', openingTemplate: null })).toMatch(
      /SMS needs the Twilio channel/,
    );
  });
});

describe('credentials', () => {
  const problem = (input: unknown) => {
    const result = c.whatsAppCloudCredentials.safeParse(input);
    if (result.success) return undefined;
    const issue = result.error.issues[0]!;
    return `${issue.path.join('.') || 'body'}: ${issue.message}`;
  };

  test('good credentials pass as they are', () => {
    expect(c.whatsAppCloudCredentials.parse(credentials)).toEqual(credentials);
  });

  test.each([
    ['a phone number instead of its ID', { ...credentials, phoneNumberId: '+14155550123' }, /^phoneNumberId: .*digits/],
    ['a blank access token', { ...credentials, accessToken: '   ' }, /^accessToken: /],
    ['an over-long access token', { ...credentials, accessToken: 'E'.repeat(1001) }, /^accessToken: .*1000/],
    ['an app secret of the wrong length', { ...credentials, appSecret: 'abc123' }, /^appSecret: .*32 hex/],
    ['a short verify token', { ...credentials, verifyToken: 'short' }, /^verifyToken: .*8/],
    [
      'a missing app secret',
      { phoneNumberId: PHONE_NUMBER_ID, accessToken: ACCESS_TOKEN, verifyToken: 'leadchat-verify-2025' },
      /^appSecret: /,
    ],
    ['an unknown field', { ...credentials, wabaId: '123' }, /wabaId/],
  ])('refuses %s, naming the field', (_, input, expected) => {
    expect(problem(input)).toMatch(expected);
  });

  test("the public form masks the token and the app secret, and shows the verify token to paste into Meta's console", () => {
    expect(c.publicWhatsAppCloudCredentials(credentials)).toEqual({
      phoneNumberId: PHONE_NUMBER_ID,
      accessToken: '••••EFGH',
      appSecret: '••••e1f0',
      verifyToken: 'leadchat-verify-2025',
    });
  });
});

describe('X-Hub-Signature-256', () => {
  const body = Buffer.from(JSON.stringify({ object: 'whatsapp_business_account', entry: [] }));
  /** Meta's scheme, computed here on its own. */
  const sign = (secret: string, bytes: Buffer) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

  test('the signature Meta would send passes', () => {
    expect(w.verifyWhatsAppSignature(APP_SECRET, body, sign(APP_SECRET, body))).toBe(true);
  });

  test.each([
    [
      'a changed body',
      () =>
        w.verifyWhatsAppSignature(
          APP_SECRET,
          Buffer.from(body.toString().replace('[]', '[{}]')),
          sign(APP_SECRET, body),
        ),
    ],
    [
      "another app's secret",
      () => w.verifyWhatsAppSignature(APP_SECRET, body, sign('ffffffffffffffffffffffffffffffff', body)),
    ],
    ['no header', () => w.verifyWhatsAppSignature(APP_SECRET, body, undefined)],
    ['an empty header', () => w.verifyWhatsAppSignature(APP_SECRET, body, '')],
    [
      'the hex without its sha256= prefix',
      () => w.verifyWhatsAppSignature(APP_SECRET, body, sign(APP_SECRET, body).slice('sha256='.length)),
    ],
    [
      'a SHA-1 header',
      () =>
        w.verifyWhatsAppSignature(
          APP_SECRET,
          body,
          `sha1=${createHmac('sha1', APP_SECRET).update(body).digest('hex')}`,
        ),
    ],
    ['a shortened signature', () => w.verifyWhatsAppSignature(APP_SECRET, body, sign(APP_SECRET, body).slice(0, -2))],
    ['a signature that is not hex', () => w.verifyWhatsAppSignature(APP_SECRET, body, `sha256=${'zz'.repeat(32)}`)],
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
    expect(w.verifyWhatsAppSubscription(credentials, query())).toBe('1158201444');
  });

  test.each([
    ['a wrong verify token', query({ 'hub.verify_token': 'leadchat-verify-2024' })],
    ['a verify token that only starts the same', query({ 'hub.verify_token': 'leadchat-verify-2025x' })],
    ['another mode', query({ 'hub.mode': 'unsubscribe' })],
    ['no challenge', query({ 'hub.challenge': undefined })],
    ['a repeated verify token parameter', query({ 'hub.verify_token': ['leadchat-verify-2025', 'x'] })],
    ['no parameters', {}],
  ])('%s gets nothing', (_, q) => {
    expect(w.verifyWhatsAppSubscription(credentials, q)).toBeUndefined();
  });
});

describe('webhook payloads', () => {
  /** One change of a business account's webhook, shaped as Meta sends it. */
  const change = (value: Record<string, unknown>, field = 'messages') => ({
    field,
    value: {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
      ...value,
    },
  });
  const webhook = (...changes: unknown[]) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes }],
  });
  const contact = (waId: string, name: string) => ({ profile: { name }, wa_id: waId });
  const message = (from: string, id: string, type: string, content: Record<string, unknown>) => ({
    from,
    id,
    timestamp: '1749416383',
    type,
    [type]: content,
  });

  test("a text message with the sender's profile name", () => {
    const parsed = w.parseWhatsAppWebhook(
      webhook(
        change({
          contacts: [contact('16505551234', 'Kerry Fisher')],
          messages: [message('16505551234', 'wamid.A1', 'text', { body: 'Is it still available?' })],
        }),
      ),
    );
    expect(parsed).toEqual({
      messages: [
        {
          channel: 'whatsapp',
          providerMessageId: 'wamid.A1',
          from: '+16505551234',
          body: 'Is it still available?',
          media: [],
          profileName: 'Kerry Fisher',
          sentAt: '2025-06-08T20:59:43.000Z',
        },
      ],
      statuses: [],
    });
  });

  test('media is a Graph media id to fetch, with its type and caption', () => {
    const parsed = w.parseWhatsAppWebhook(
      webhook(
        change({
          contacts: [contact('5511987654321', 'Ana')],
          messages: [
            message('5511987654321', 'wamid.I1', 'image', {
              caption: 'The kitchen',
              mime_type: 'image/jpeg',
              sha256: 'abc=',
              id: '1003383421387256',
            }),
            message('5511987654321', 'wamid.V1', 'audio', {
              mime_type: 'audio/ogg; codecs=opus',
              sha256: 'def=',
              id: '2003383421387256',
              voice: true,
            }),
            message('5511987654321', 'wamid.D1', 'document', {
              filename: 'payslip.pdf',
              mime_type: 'application/pdf',
              sha256: 'ghi=',
              id: '3003383421387256',
            }),
          ],
        }),
      ),
    );
    expect(parsed.messages.map(({ providerMessageId, body, media }) => ({ providerMessageId, body, media }))).toEqual([
      {
        providerMessageId: 'wamid.I1',
        body: 'The kitchen',
        media: [{ url: 'whatsapp-media:1003383421387256', contentType: 'image/jpeg' }],
      },
      {
        providerMessageId: 'wamid.V1',
        body: '',
        media: [{ url: 'whatsapp-media:2003383421387256', contentType: 'audio/ogg; codecs=opus' }],
      },
      {
        providerMessageId: 'wamid.D1',
        body: '',
        media: [{ url: 'whatsapp-media:3003383421387256', contentType: 'application/pdf' }],
      },
    ]);
    expect(parsed.messages.every((m) => m.from === '+5511987654321' && m.profileName === 'Ana')).toBe(true);
  });

  test('button and interactive replies are their visible text; reactions are skipped', () => {
    const parsed = w.parseWhatsAppWebhook(
      webhook(
        change({
          contacts: [contact('16505551234', 'Kerry Fisher')],
          messages: [
            {
              ...message('16505551234', 'wamid.B1', 'button', { payload: 'YES_PAYLOAD', text: 'Yes, call me' }),
              context: { from: '15550783881', id: 'wamid.X' },
            },
            message('16505551234', 'wamid.R1', 'interactive', {
              type: 'button_reply',
              button_reply: { id: 'later', title: 'Later' },
            }),
            message('16505551234', 'wamid.L1', 'interactive', {
              type: 'list_reply',
              list_reply: { id: 'sat', title: 'Saturday', description: '9–12' },
            }),
            message('16505551234', 'wamid.E1', 'reaction', { message_id: 'wamid.X', emoji: '👍' }),
          ],
        }),
      ),
    );
    expect(parsed.messages.map((m) => [m.providerMessageId, m.body])).toEqual([
      ['wamid.B1', 'Yes, call me'],
      ['wamid.R1', 'Later'],
      ['wamid.L1', 'Saturday'],
    ]);
  });

  test("statuses: delivered, read, and failed with Meta's error; other fields and unknown statuses are skipped", () => {
    const parsed = w.parseWhatsAppWebhook(
      webhook(
        change({
          statuses: [
            {
              id: 'wamid.S1',
              status: 'delivered',
              timestamp: '1749416400',
              recipient_id: '16505551234',
              pricing: { billable: true, category: 'marketing' },
            },
            { id: 'wamid.S2', status: 'read', timestamp: '1749416410', recipient_id: '16505551234' },
            {
              id: 'wamid.S3',
              status: 'failed',
              timestamp: '1749416420',
              recipient_id: '16505551234',
              errors: [
                {
                  code: 131026,
                  title: 'Message undeliverable',
                  message: 'Message undeliverable',
                  error_data: { details: 'Message Undeliverable.' },
                  href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
                },
              ],
            },
            { id: 'wamid.S4', status: 'deleted', timestamp: '1749416430', recipient_id: '16505551234' },
          ],
        }),
        change(
          { event: 'APPROVED', message_template_id: 123, message_template_name: 'spring_offer' },
          'message_template_status_update',
        ),
      ),
    );
    expect(parsed).toEqual({
      messages: [],
      statuses: [
        {
          providerMessageId: 'wamid.S1',
          status: 'delivered',
          providerStatus: 'delivered',
          errorCode: null,
          error: null,
        },
        { providerMessageId: 'wamid.S2', status: 'read', providerStatus: 'read', errorCode: null, error: null },
        {
          providerMessageId: 'wamid.S3',
          status: 'failed',
          providerStatus: 'failed',
          errorCode: '131026',
          error: 'WhatsApp 131026: Message undeliverable (Message Undeliverable.)',
        },
      ],
    });
  });

  test('several entries and changes are all read, each message with its own sender', () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            change({
              contacts: [contact('16505551234', 'Kerry')],
              messages: [message('16505551234', 'wamid.1', 'text', { body: 'one' })],
            }),
          ],
        },
        {
          id: '2',
          changes: [
            change({ statuses: [{ id: 'wamid.S', status: 'sent', timestamp: '1', recipient_id: '16505551234' }] }),
            change({
              contacts: [contact('447700900123', 'Sam'), contact('34612345678', 'Lucía')],
              messages: [
                message('34612345678', 'wamid.2', 'text', { body: 'dos' }),
                message('447700900123', 'wamid.3', 'text', { body: 'three' }),
              ],
            }),
          ],
        },
      ],
    };
    const parsed = w.parseWhatsAppWebhook(body);
    expect(parsed.messages.map((m) => [m.providerMessageId, m.from, m.body, m.profileName])).toEqual([
      ['wamid.1', '+16505551234', 'one', 'Kerry'],
      ['wamid.2', '+34612345678', 'dos', 'Lucía'],
      ['wamid.3', '+447700900123', 'three', 'Sam'],
    ]);
    expect(parsed.statuses.map((s) => [s.providerMessageId, s.status])).toEqual([['wamid.S', 'sent']]);
  });

  test('the one contact of a change names the sender even when Meta writes its WhatsApp id without the mobile 9', () => {
    const parsed = w.parseWhatsAppWebhook(
      webhook(
        change({
          contacts: [contact('551187654321', 'Ana')],
          messages: [message('5511987654321', 'wamid.9', 'text', { body: 'oi' })],
        }),
      ),
    );
    expect(parsed.messages[0]).toMatchObject({ from: '+5511987654321', profileName: 'Ana' });
  });

  test('only the messages field is read: a change of another field is skipped whatever it holds', () => {
    const echo = change(
      { messages: [message('15550783881', 'wamid.echo', 'text', { body: 'sent from the phone app' })] },
      'smb_message_echoes',
    );
    expect(w.parseWhatsAppWebhook(webhook(echo))).toEqual({ messages: [], statuses: [] });
  });

  test('an entry without changes is nothing to read', () => {
    expect(
      w.parseWhatsAppWebhook({ object: 'whatsapp_business_account', entry: [{ id: '1', time: 1749416383 }] }),
    ).toEqual({ messages: [], statuses: [] });
  });

  test.each([
    ['nothing', undefined, /^object: not a WhatsApp Business Account webhook/],
    ['a list', [], /^object: /],
    ['a Page webhook', { object: 'page', entry: [] }, /^object: /],
    ['entry that is not a list', { object: 'whatsapp_business_account', entry: {} }, /^entry: expected a list/],
    [
      'an entry that is not an object',
      { object: 'whatsapp_business_account', entry: ['x'] },
      /^entry\[0\]: expected an object/,
    ],
    [
      'changes that are not a list',
      { object: 'whatsapp_business_account', entry: [{ changes: 'x' }] },
      /^entry\[0\]\.changes: expected a list/,
    ],
    [
      'a messages change without its value',
      webhook({ field: 'messages' }),
      /^entry\[0\]\.changes\[0\]\.value: expected an object/,
    ],
    [
      'messages that are not a list',
      webhook(change({ messages: { id: 'x' } })),
      /^entry\[0\]\.changes\[0\]\.value\.messages: expected a list/,
    ],
    [
      'a message without its id',
      webhook(change({ messages: [{ from: '16505551234', type: 'text', text: { body: 'hi' } }] })),
      /^entry\[0\]\.changes\[0\]\.value\.messages\[0\]\.id is missing/,
    ],
    [
      'a sender that is not digits',
      webhook(change({ messages: [message('+1 650', 'wamid.1', 'text', { body: 'hi' })] })),
      /messages\[0\]\.from: "\+1 650" is not a WhatsApp number/,
    ],
    [
      'an image without its media id',
      webhook(change({ messages: [message('16505551234', 'wamid.1', 'image', { mime_type: 'image/png' })] })),
      /messages\[0\]\.image\.id is missing/,
    ],
    [
      'a text that is not text',
      webhook(change({ messages: [{ from: '16505551234', id: 'wamid.1', type: 'text', text: 123 }] })),
      /messages\[0\]\.text\.body: expected the message's text, a string/,
    ],
    [
      'a message without its type',
      webhook(change({ messages: [{ from: '16505551234', id: 'wamid.1', text: { body: 'hi' } }] })),
      /messages\[0\]\.type is missing/,
    ],
    [
      'a kind of message WhatsApp does not send',
      webhook(change({ messages: [message('16505551234', 'wamid.1', 'hologram', { body: 'hi' })] })),
      /messages\[0\]\.type: "hologram" is not a kind of message WhatsApp sends/,
    ],
    [
      'a media id that is not one (a path of its own in a Graph URL)',
      webhook(change({ messages: [message('16505551234', 'wamid.1', 'image', { id: '..', mime_type: 'image/png' })] })),
      /messages\[0\]\.image\.id: "\.\." is not a WhatsApp media id/,
    ],
    [
      'a status without its message id',
      webhook(change({ statuses: [{ status: 'delivered' }] })),
      /statuses\[0\]\.id is missing/,
    ],
  ])('refuses %s with a clear message', (_, body, expected) => {
    expect(() => w.parseWhatsAppWebhook(body)).toThrow(expected);
  });

  test('as entries: nothing vanishes unsaid. A wrong shape (a media id that is not one, a text that is not text) is an entry whose job will say why; a kind not taken is named as skipped', () => {
    const dotDot = message('16505551234', 'wamid.2', 'image', { id: '..', mime_type: 'image/png' });
    const split = hook.whatsAppEntries(
      webhook(
        change({
          messages: [
            message('16505551234', 'wamid.1', 'text', { body: 'hi' }),
            dotDot,
            { from: '16505551234', id: 'wamid.3', type: 'text', text: 123 },
            message('16505551234', 'wamid.4', 'location', { latitude: 1, longitude: 2 }),
          ],
          statuses: [{ id: 'wamid.out', status: 'deleted', recipient_id: '16505551234' }],
        }),
      ),
    );
    expect(split.entries.map((e) => [e.where, e.key])).toEqual([
      ['entry[0].changes[0].value.messages[0]', 'wamid.1'],
      ['entry[0].changes[0].value.messages[1]', null],
      ['entry[0].changes[0].value.messages[2]', null],
    ]);
    expect(() => hook.parseWhatsAppEntry(split.entries[1]!)).toThrow(
      'entry[0].changes[0].value.messages[1].image.id: ".." is not a WhatsApp media id (its digits)',
    );
    expect(split.skipped).toEqual([
      { where: 'entry[0].changes[0].value.messages[3]', reason: 'not_taken', detail: 'message of type location' },
      { where: 'entry[0].changes[0].value.statuses[0]', reason: 'not_taken', detail: 'status deleted' },
    ]);
  });
});

describe('reading a media file', () => {
  const options = () => ({ apiUrl: fake.url, maxBytes: 1024, timeoutMs: 2000, targets: { kind: 'any' as const } });

  test.each([
    'whatsapp-media:..',
    'whatsapp-media:../../me',
    'whatsapp-media:1003/..',
    'whatsapp-media:',
    'https://x/1',
  ])('%s is not a media id: refused before any call, the access token sent nowhere', async (url) => {
    await expect(w.readWhatsAppMedia(credentials, url, options())).rejects.toThrow(/is not a WhatsApp media id$/);
    expect(fake.requests).toEqual([]);
  });

  test("a media id asks Graph for its address, with the access token, at the id's own path under the API version", async () => {
    fake.answer = (req) =>
      req.url === '/v23.0/1003383421387256'
        ? { status: 200, body: { url: `${fake.url}/files/1`, mime_type: 'image/png', file_size: 3, id: '1' } }
        : { status: 200, body: 'png' };
    const file = await w.readWhatsAppMedia(credentials, 'whatsapp-media:1003383421387256', options());
    expect(file.contentType).toBe('image/png');
    expect(fake.requests.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/v23.0/1003383421387256', `Bearer ${ACCESS_TOKEN}`],
      ['/v23.0/files/1', `Bearer ${ACCESS_TOKEN}`],
    ]);
  });
});
