import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { StandIn } from './stand-in';
import { gatewayModule } from '../helpers/gateway-modules';

type TwilioModule = typeof import('../../gateway/src/providers/channels/twilio.js', {
  with: { 'resolution-mode': 'import' }
});
type MaskModule = typeof import('../../gateway/src/domain/mask.js', { with: { 'resolution-mode': 'import' } });
type ChannelModule = typeof import('../../gateway/src/engine/ports/channel-provider.js', {
  with: { 'resolution-mode': 'import' }
});
type OutgoingMessage = import('../../gateway/src/engine/ports/channel-provider.js', {
  with: { 'resolution-mode': 'import' }
}).OutgoingMessage;
type CredentialsModule = typeof import('../../gateway/src/domain/channel-credentials.js', {
  with: { 'resolution-mode': 'import' }
});
type TwilioCredentials = import('../../gateway/src/domain/channel-credentials.js', {
  with: { 'resolution-mode': 'import' }
}).TwilioCredentials;

const dist = path.resolve(__dirname, '../../gateway/dist');

let t: TwilioModule;
let c: CredentialsModule;
let m: MaskModule;
let ChannelError: ChannelModule['ChannelError'];
beforeAll(async () => {
  t = (await gatewayModule(path.join(dist, 'providers/channels/twilio.js'))) as TwilioModule;
  c = (await gatewayModule(path.join(dist, 'domain/channel-credentials.js'))) as CredentialsModule;
  m = (await gatewayModule(path.join(dist, 'domain/mask.js'))) as MaskModule;
  ({ ChannelError } = (await gatewayModule(path.join(dist, 'engine/ports/channel-provider.js'))) as ChannelModule);
});

const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH_TOKEN = 'f1e2d3c4b5a697887766554433221100';
const SERVICE_SID = `MG${'abcdef0123456789'.repeat(2)}`;
const CONTENT_SID = `HX${'0a1b2c3d4e5f6789'.repeat(2)}`;
const MESSAGE_SID = `SM${'9f8e7d6c5b4a3210'.repeat(2)}`;

const credentials = (patch: Partial<TwilioCredentials> = {}): TwilioCredentials => ({
  accountSid: ACCOUNT_SID,
  authToken: AUTH_TOKEN,
  from: '+14155550100',
  messagingServiceSid: null,
  whatsappFrom: '+14155238886',
  ...patch,
});

const sms = (patch: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  messageId: 'msg_1',
  channel: 'sms',
  to: '+14155550123',
  body: 'Hi Ana, still looking for a flat?',
  template: null,
  ...patch,
});

/** Stands in for Twilio's REST API: by default every message is queued. */
const fakeTwilio = () => new StandIn(() => ({ status: 201, body: { sid: MESSAGE_SID, status: 'queued' } })).start();

const twilioError = (status: number, code: number, message: string) => ({
  status,
  body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
});

let fake: StandIn;
beforeEach(async () => {
  fake = await fakeTwilio();
});
afterEach(() => fake.close());

const provider = (
  c = credentials(),
  statusCallbackUrl: string | null = 'https://gw.example.com/v1/webhooks/twilio/status',
) => t.createTwilioProvider(c, { apiUrl: fake.url, timeoutMs: 2000, statusCallbackUrl });

/** The ChannelError a send throws, checked never to carry the auth token. */
async function sendError(p: ReturnType<typeof provider>, message = sms()) {
  const err = await p.send(message).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChannelError);
  const error = err as InstanceType<typeof ChannelError>;
  expect(error.message).not.toContain(AUTH_TOKEN);
  return error;
}

describe('sending', () => {
  test("SMS from a number: one form POST to the account's Messages.json with Basic auth", async () => {
    const sent = await provider().send(sms());
    expect(sent).toEqual({ providerMessageId: MESSAGE_SID });
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(req!.headers.authorization).toBe(`Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`);
    expect(req!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(req!.form).toEqual({
      To: '+14155550123',
      From: '+14155550100',
      Body: 'Hi Ana, still looking for a flat?',
      StatusCallback: 'https://gw.example.com/v1/webhooks/twilio/status',
    });
  });

  test('SMS through a Messaging Service names the service, not a number; no StatusCallback when none is set', async () => {
    await t
      .createTwilioProvider(credentials({ from: null, messagingServiceSid: SERVICE_SID }), {
        apiUrl: `${fake.url}/`,
        timeoutMs: 2000,
        statusCallbackUrl: null,
      })
      .send(sms());
    expect(fake.requests[0]!.url).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(fake.requests[0]!.form).toEqual({
      To: '+14155550123',
      MessagingServiceSid: SERVICE_SID,
      Body: 'Hi Ana, still looking for a flat?',
    });
  });

  test('WhatsApp free text: both numbers carry the whatsapp: prefix', async () => {
    await provider().send(sms({ channel: 'whatsapp', body: 'Thanks, see you at 5' }));
    expect(fake.requests[0]!.form).toEqual({
      To: 'whatsapp:+14155550123',
      From: 'whatsapp:+14155238886',
      Body: 'Thanks, see you at 5',
      StatusCallback: 'https://gw.example.com/v1/webhooks/twilio/status',
    });
  });

  test('WhatsApp template: the Content SID and its numbered variables replace the body', async () => {
    await provider(credentials(), null).send(
      sms({
        channel: 'whatsapp',
        body: 'Hi Ana',
        template: { name: CONTENT_SID, language: 'en_US', params: ['Ana', 'the flat on "Main" St'] },
      }),
    );
    const { form } = fake.requests[0]!;
    expect(form).toEqual({
      To: 'whatsapp:+14155550123',
      From: 'whatsapp:+14155238886',
      ContentSid: CONTENT_SID,
      ContentVariables: expect.any(String),
    });
    expect(JSON.parse(form.ContentVariables!)).toEqual({ 1: 'Ana', 2: 'the flat on "Main" St' });
    expect(Object.keys(JSON.parse(form.ContentVariables!))).toEqual(['1', '2']);
  });

  test('a channel without its sender is refused before any request', async () => {
    const noWhatsApp = await sendError(provider(credentials({ whatsappFrom: null })), sms({ channel: 'whatsapp' }));
    expect(noWhatsApp).toMatchObject({ retryable: false, code: null });
    expect(noWhatsApp.message).toMatch(/whatsappFrom/);
    const noSms = await sendError(provider(credentials({ from: null })), sms());
    expect(noSms).toMatchObject({ retryable: false });
    expect(noSms.message).toMatch(/from or messagingServiceSid/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('errors', () => {
  test("Twilio 21211 (invalid To) is final, with the code and Twilio's words", async () => {
    fake.answer = () => twilioError(400, 21211, "Invalid 'To' Phone Number");
    const err = await sendError(provider());
    expect(err).toMatchObject({ retryable: false, code: '21211', message: "Twilio 21211: Invalid 'To' Phone Number" });
  });

  test('bad credentials are final too', async () => {
    fake.answer = () => twilioError(401, 20003, 'Authenticate');
    expect(await sendError(provider())).toMatchObject({
      retryable: false,
      code: '20003',
      message: 'Twilio 20003: Authenticate',
    });
  });

  test('the auth token is masked even when an answer quotes it', async () => {
    fake.answer = () => twilioError(400, 20003, `Token ${AUTH_TOKEN} is not valid for this account`);
    const err = await sendError(provider());
    expect(err.message).toBe(`Twilio 20003: Token ${m.mask(AUTH_TOKEN)} is not valid for this account`);
  });

  test('a rate limit (429) may pass later', async () => {
    fake.answer = () => twilioError(429, 20429, 'Too Many Requests');
    expect(await sendError(provider())).toMatchObject({
      retryable: true,
      code: '20429',
      message: 'Twilio 20429: Too Many Requests',
    });
  });

  test('an outage (503 with an HTML page) may pass later', async () => {
    fake.answer = () => ({ status: 503, body: '<html>Service Unavailable</html>' });
    expect(await sendError(provider())).toMatchObject({
      retryable: true,
      code: null,
      message: 'Twilio answered HTTP 503',
    });
  });

  test('a refused connection may pass later', async () => {
    const closed = await fakeTwilio();
    await closed.close();
    const err = await sendError(
      t.createTwilioProvider(credentials(), { apiUrl: closed.url, timeoutMs: 2000, statusCallbackUrl: null }),
    );
    expect(err).toMatchObject({ retryable: true, code: null });
    expect(err.message).toMatch(/^Twilio could not be reached: .*ECONNREFUSED/);
  });

  test('no answer within the timeout may pass later', async () => {
    fake.answer = () => 'hang';
    const started = Date.now();
    const err = await sendError(
      t.createTwilioProvider(credentials(), { apiUrl: fake.url, timeoutMs: 300, statusCallbackUrl: null }),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err).toMatchObject({ retryable: true, code: null });
    expect(err.message).toMatch(/^Twilio could not be reached: .*300 ?ms/i);
    // got's own retries would pile up behind the job queue's: exactly one attempt.
    expect(fake.requests).toHaveLength(1);
  });

  test('an accepted answer without a sid is final: the message may have gone', async () => {
    fake.answer = () => ({ status: 201, body: '{}' });
    expect(await sendError(provider())).toMatchObject({ retryable: false });
  });
});

describe('refuse', () => {
  test.each([
    ['SMS with a number', {}, 'sms', null, undefined],
    ['SMS with a Messaging Service', { from: null, messagingServiceSid: SERVICE_SID }, 'sms', null, undefined],
    ['SMS without a sender', { from: null }, 'sms', null, /from .*messagingServiceSid/],
    ['WhatsApp with a Content SID', {}, 'whatsapp', CONTENT_SID, undefined],
    ['WhatsApp without a WhatsApp sender', { whatsappFrom: null }, 'whatsapp', CONTENT_SID, /whatsappFrom/],
    ['WhatsApp without an opening template', {}, 'whatsapp', null, /openingTemplate/],
    ['WhatsApp with a blank opening template', {}, 'whatsapp', '  ', /openingTemplate/],
    ['WhatsApp with a template name instead of a Content SID', {}, 'whatsapp', 'spring_offer', /Content SID/],
  ] as const)('%s', (_, patch, channel, openingTemplate, expected) => {
    const refusal = c.sendingRefusal({ twilio: credentials(patch) }, { channel, openingTemplate });
    if (expected === undefined) expect(refusal).toBeUndefined();
    else expect(refusal).toMatch(expected);
  });
});

describe('credentials', () => {
  /** The first problem as the API reports it: "field: message". */
  const problem = (input: unknown) => {
    const result = c.twilioCredentials.safeParse(input);
    if (result.success) return undefined;
    const issue = result.error.issues[0]!;
    return `${issue.path.join('.') || 'body'}: ${issue.message}`;
  };
  const base = { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN };

  test('a number is normalized to E.164, a pasted "whatsapp:" prefix dropped, missing fields null', () => {
    expect(c.twilioCredentials.parse({ ...base, from: '+1 (415) 555-0100' })).toEqual({
      ...base,
      from: '+14155550100',
      messagingServiceSid: null,
      whatsappFrom: null,
    });
    expect(c.twilioCredentials.parse({ ...base, whatsappFrom: 'whatsapp:+14155238886', from: '' })).toEqual({
      ...base,
      from: null,
      messagingServiceSid: null,
      whatsappFrom: '+14155238886',
    });
    expect(c.twilioCredentials.parse({ ...base, messagingServiceSid: SERVICE_SID, from: null })).toMatchObject({
      messagingServiceSid: SERVICE_SID,
      from: null,
    });
  });

  test.each([
    ['no sender', base, /^from: at least one sender/],
    ['a malformed Account SID', { ...base, accountSid: 'AC123', from: '+14155550100' }, /^accountSid: .*AC/],
    ['an auth token of the wrong length', { ...base, authToken: 'abc', from: '+14155550100' }, /^authToken: .*32 hex/],
    ['a number without a country code', { ...base, from: '4155550100' }, /^from: .*E\.164/],
    ['a WhatsApp sender that is no number', { ...base, whatsappFrom: 'whatsapp:hello' }, /^whatsappFrom: .*E\.164/],
    [
      'a Messaging Service SID of another kind',
      { ...base, messagingServiceSid: ACCOUNT_SID },
      /^messagingServiceSid: .*MG/,
    ],
    ['an unknown field', { ...base, from: '+14155550100', apiKey: 'x' }, /apiKey/],
    ['a missing auth token', { accountSid: ACCOUNT_SID, from: '+14155550100' }, /^authToken: /],
  ])('refuses %s, naming the field', (_, input, expected) => {
    expect(problem(input)).toMatch(expected);
  });

  test('the public form masks the auth token and nothing else', () => {
    const given = credentials({ messagingServiceSid: SERVICE_SID });
    expect(c.publicTwilioCredentials(given)).toEqual({ ...given, authToken: '••••1100' });
  });

  test.each([
    ['a long secret', 'sk_live_abcdef123456', '••••3456'],
    ['nine characters', '123456789', '••••6789'],
    ['eight characters', '12345678', '••••'],
    ['an empty one', '', '••••'],
  ])('mask: %s', (_, secret, masked) => {
    expect(m.mask(secret)).toBe(masked);
  });
});

describe('X-Twilio-Signature', () => {
  const url = 'https://gw.example.com/v1/webhooks/twilio/inbound?account=acc_1';
  const params = {
    MessageSid: MESSAGE_SID,
    From: '+14155550123',
    To: '+14155550100',
    Body: 'Yes please',
    NumMedia: '0',
  };
  /** Twilio's scheme, computed here on its own: HMAC-SHA1 of the URL and each key+value in key order, base64. */
  const sign = (token: string, u: string, p: Record<string, string>) =>
    createHmac('sha1', token)
      .update(
        u +
          Object.keys(p)
            .sort()
            .map((k) => k + p[k])
            .join(''),
      )
      .digest('base64');

  test('the signature Twilio would send passes', async () => {
    expect(await t.verifyTwilioSignature(AUTH_TOKEN, url, params, sign(AUTH_TOKEN, url, params))).toBe(true);
  });

  test.each([
    [
      'a changed parameter',
      () => t.verifyTwilioSignature(AUTH_TOKEN, url, { ...params, Body: 'No' }, sign(AUTH_TOKEN, url, params)),
    ],
    [
      'an added parameter',
      () =>
        t.verifyTwilioSignature(AUTH_TOKEN, url, { ...params, MediaUrl0: 'https://x' }, sign(AUTH_TOKEN, url, params)),
    ],
    [
      'another URL',
      () => t.verifyTwilioSignature(AUTH_TOKEN, url.replace('acc_1', 'acc_2'), params, sign(AUTH_TOKEN, url, params)),
    ],
    [
      "another account's token",
      () => t.verifyTwilioSignature(AUTH_TOKEN, url, params, sign('00112233445566778899aabbccddeeff', url, params)),
    ],
    ['no signature', () => t.verifyTwilioSignature(AUTH_TOKEN, url, params, undefined)],
    ['an empty signature', () => t.verifyTwilioSignature(AUTH_TOKEN, url, params, '')],
    ['a malformed signature', () => t.verifyTwilioSignature(AUTH_TOKEN, url, params, 'not base64 at all!')],
    [
      'a URL that cannot be parsed',
      () => t.verifyTwilioSignature(AUTH_TOKEN, 'not a url', params, sign(AUTH_TOKEN, url, params)),
    ],
    ['an empty token', () => t.verifyTwilioSignature('', url, params, sign('', url, params))],
  ])('%s fails', async (_, verify) => {
    expect(await verify()).toBe(false);
  });
});

describe('inbound webhook', () => {
  test('an SMS', () => {
    expect(
      t.parseTwilioInbound({
        MessageSid: MESSAGE_SID,
        AccountSid: ACCOUNT_SID,
        From: '+14155550123',
        To: '+14155550100',
        Body: 'Yes please',
        NumMedia: '0',
      }),
    ).toEqual({
      channel: 'sms',
      providerMessageId: MESSAGE_SID,
      from: '+14155550123',
      body: 'Yes please',
      media: [],
      profileName: null,
      sentAt: null,
    });
  });

  test("a WhatsApp message with two photos and the sender's profile name", () => {
    const inbound = t.parseTwilioInbound({
      MessageSid: 'MM' + '1'.repeat(32),
      From: 'whatsapp:+5511987654321',
      To: 'whatsapp:+14155238886',
      Body: '',
      NumMedia: '2',
      MediaUrl0: `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/MM1/Media/ME1`,
      MediaContentType0: 'image/jpeg',
      MediaUrl1: `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/MM1/Media/ME2`,
      ProfileName: 'Ana Souza',
      WaId: '5511987654321',
    });
    expect(inbound).toEqual({
      channel: 'whatsapp',
      providerMessageId: 'MM' + '1'.repeat(32),
      from: '+5511987654321',
      body: '',
      media: [
        {
          url: `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/MM1/Media/ME1`,
          contentType: 'image/jpeg',
        },
        {
          url: `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/MM1/Media/ME2`,
          contentType: 'application/octet-stream',
        },
      ],
      profileName: 'Ana Souza',
      sentAt: null,
    });
  });

  test("a WhatsApp location, coordinates with no text, is skipped as WhatsApp's own API has it: not an empty message", () => {
    const params = {
      MessageSid: MESSAGE_SID,
      From: 'whatsapp:+5511987654321',
      To: 'whatsapp:+14155238886',
      Body: '',
      NumMedia: '0',
      Latitude: '-23.5505',
      Longitude: '-46.6333',
      Address: 'Av. Paulista, 1000',
      Label: 'Casa',
    };
    const form = { params, utf8: true };
    const request = { hook: 'incoming' as const, url: '', header: () => undefined, body: Buffer.alloc(0), form };
    expect(t.twilioEntries(request)).toEqual({
      entries: [],
      refused: [],
      skipped: [{ where: 'form', reason: 'not_taken', detail: 'location' }],
    });
    // A text beside coordinates is the contact's words: kept.
    expect(
      t.twilioEntries({ ...request, form: { ...form, params: { ...params, Body: 'Here I am' } } }).entries,
    ).toHaveLength(1);
  });

  test.each([
    ['no MessageSid', { From: '+14155550123', Body: 'hi' }, /^MessageSid is missing/],
    ['no From', { MessageSid: MESSAGE_SID, Body: 'hi' }, /^From is missing/],
    [
      'a From that is no phone number',
      { MessageSid: MESSAGE_SID, From: 'whatsapp:bob' },
      /^From: .*not a phone number/,
    ],
    [
      'a media count that is no number',
      { MessageSid: MESSAGE_SID, From: '+14155550123', NumMedia: 'two' },
      /^NumMedia: "two"/,
    ],
    [
      'more media than Twilio carries',
      { MessageSid: MESSAGE_SID, From: '+14155550123', NumMedia: '11' },
      /^NumMedia: "11"/,
    ],
    [
      'a media count without its URL',
      { MessageSid: MESSAGE_SID, From: '+14155550123', NumMedia: '2', MediaUrl0: 'https://x/0' },
      /^MediaUrl1 is missing/,
    ],
  ])('refuses %s with a clear message', (_, params, expected) => {
    expect(() => t.parseTwilioInbound(params)).toThrow(expected);
  });
});

describe('status callback', () => {
  const callback = (MessageStatus: string, extra: Record<string, string> = {}) =>
    t.parseTwilioStatus({
      MessageSid: MESSAGE_SID,
      AccountSid: ACCOUNT_SID,
      MessageStatus,
      To: '+14155550123',
      ...extra,
    });

  test.each([
    ['queued', 'queued'],
    ['sent', 'sent'],
    ['delivered', 'delivered'],
    ['read', 'read'],
  ] as const)('%s → %s', (twilioStatus, status) => {
    expect(callback(twilioStatus)).toEqual({
      providerMessageId: MESSAGE_SID,
      status,
      providerStatus: twilioStatus,
      errorCode: null,
      error: null,
    });
  });

  test("undelivered is a failure that keeps Twilio's word and its error code", () => {
    expect(callback('undelivered', { ErrorCode: '30007' })).toEqual({
      providerMessageId: MESSAGE_SID,
      status: 'failed',
      providerStatus: 'undelivered',
      errorCode: '30007',
      error: 'Twilio 30007',
    });
  });

  test("failed with Twilio's error message", () => {
    expect(
      callback('failed', {
        ErrorCode: '63016',
        ErrorMessage: 'Failed to send freeform message because you are outside the allowed window',
      }),
    ).toEqual({
      providerMessageId: MESSAGE_SID,
      status: 'failed',
      providerStatus: 'failed',
      errorCode: '63016',
      error: 'Twilio 63016: Failed to send freeform message because you are outside the allowed window',
    });
  });

  test.each(['accepted', 'scheduled', 'sending', 'receiving', 'received', 'something_new'])(
    '%s changes nothing',
    (status) => {
      expect(callback(status)).toBeUndefined();
    },
  );

  test('a callback without its message or status is refused clearly', () => {
    expect(() => t.parseTwilioStatus({ MessageStatus: 'delivered' })).toThrow(/^MessageSid is missing/);
    expect(() => t.parseTwilioStatus({ MessageSid: MESSAGE_SID })).toThrow(/^MessageStatus is missing/);
  });
});

describe("a contact's file", () => {
  /** Twilio's API on 127.0.0.1, whose media address redirects to a file store, also on 127.0.0.1, counting connections. */
  async function redirecting(): Promise<{
    api: string;
    store: http.Server;
    connections: () => number;
    close: () => Promise<void>;
  }> {
    let connections = 0;
    const store = http.createServer(
      (_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end('png-bytes'),
    );
    store.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
    const storeUrl = `http://127.0.0.1:${(store.address() as AddressInfo).port}/file`;
    const api = http.createServer((_req, res) => void res.writeHead(307, { location: storeUrl }).end());
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const close = async () => {
      for (const server of [api, store]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    };
    return {
      api: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
      store,
      connections: () => connections,
      close,
    };
  }
  const mediaUrl = (api: string) => `${api}/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/MM1/Media/ME1`;

  test("is read from Twilio's API through its redirect", async () => {
    const s = await redirecting();
    try {
      const file = await t.readTwilioMedia(credentials(), mediaUrl(s.api), {
        apiUrl: s.api,
        maxBytes: 1000,
        timeoutMs: 2000,
        targets: { kind: 'any' },
      });
      expect(file).toEqual({ bytes: Buffer.from('png-bytes'), contentType: 'image/png' });
    } finally {
      await s.close();
    }
  });

  test('under the public target policy, a redirect to an address that is not public is never followed', async () => {
    const s = await redirecting();
    try {
      const read = t.readTwilioMedia(credentials(), mediaUrl(s.api), {
        apiUrl: s.api,
        maxBytes: 1000,
        timeoutMs: 2000,
        targets: { kind: 'public' },
      });
      await expect(read).rejects.toThrow(/127\.0\.0\.1 is not a public address/);
      expect(s.connections()).toBe(0);
    } finally {
      await s.close();
    }
  });
});
