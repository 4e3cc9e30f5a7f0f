import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import {
  createAccount,
  removeDir,
  request,
  sendAsIs,
  startGateway,
  type Reply,
  type TestAccount,
  type TestGateway,
} from '../helpers/gateway';
import { ConnectionTrap } from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * Property-based tests of the validators over real HTTPS. Generated hostile input (random JSON, wrong types, huge
 * strings, deep nesting, unicode, prototype-pollution keys, random bytes, bad content types, random queries and
 * path segments) never gets a 500, and every answer has the right shape: `{error:{code,message}}` everywhere,
 * `{error:"..."}` on the incoming-message endpoint. Afterwards the data is intact, also across a restart.
 *
 * The gateway runs under LEADCHAT_WEBHOOK_TARGETS=public, and every URL-taking field is also sent a loopback
 * listener's address written in every form (names, IPv4 and IPv6 forms): the listener is never connected to. Every
 * answer of /v1 is also held to the OpenAPI document (helpers/contract.ts).
 */

jest.setTimeout(120_000);

const RUNS = 60;
const INCOMING = '/v1/incoming_custom_channel_message';
// 202: an import accepted, its rows read (and each refused or kept) after the answer.
const OK = new Set([200, 201, 202, 204]);
// 429: a route's own limit, such as the ten test events a minute of /v1/settings/webhook-test.
const REFUSED = new Set([400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 431]);

interface Hostile {
  method: string;
  path: string;
  body?: string | Buffer;
  /** undefined: no Content-Type header at all. */
  contentType?: string;
  contentEncoding?: string;
  headers?: Record<string, string>;
}

let gw: TestGateway;
let trap: ConnectionTrap;
/**
 * Only public webhook targets; and behind a trusted proxy, so that the random keys come from many client addresses
 * (X-Forwarded-For).
 */
const GATEWAY_ENV = { LEADCHAT_WEBHOOK_TARGETS: 'public', LEADCHAT_TRUST_PROXY: '1' };
let agency: TestAccount;
let sub: TestAccount;
let other: TestAccount;
let listId: string;
let contactId: string;
let campaignId: string;
let messageId: string;
let otherContactId: string;

function send(h: Hostile, key?: string): Promise<Reply> {
  const headers: Record<string, string> = { ...h.headers };
  if (key !== undefined) headers['x-api-key'] = key;
  if (h.contentType !== undefined) headers['content-type'] = h.contentType;
  if (h.contentEncoding !== undefined) headers['content-encoding'] = h.contentEncoding;
  // Always framed: without a length, Node sends a GET/DELETE/OPTIONS body unframed, which is not HTTP at all.
  if (h.body !== undefined) headers['content-length'] = String(Buffer.byteLength(h.body));
  return sendAsIs(gw, h.method, new URL(h.path, gw.url), headers, h.body);
}

/** Counterexamples can be megabytes: fast-check prints this summary of them instead. */
function printable(h: Hostile): Hostile {
  const cut = (v: string | Buffer | undefined) => {
    if (v === undefined) return undefined;
    const text = typeof v === 'string' ? v : `<${v.length} bytes> ${v.subarray(0, 100).toString('hex')}`;
    return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
  };
  Object.defineProperty(h, fc.toStringMethod, {
    value: () => JSON.stringify({ ...h, path: cut(h.path), body: cut(h.body) }),
    enumerable: false,
  });
  return h;
}

/** The properties every answer has, whatever was sent. */
function expectSane(h: Hostile, res: Reply): void {
  const where = `${h.method} ${h.path.slice(0, 120)}`;
  const status = res.status;
  expect({ where, status, ok: OK.has(status) || REFUSED.has(status) }).toEqual({ where, status, ok: true });
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\.js:\d+|\.ts:\d+/);
  if (status === 204 || h.method === 'HEAD') return;
  // A list's export is a CSV file; every other answer, and its refusals, JSON.
  const file = status === 200 && /^\/v1\/lists\/[^/?]+\/export(\?|$)/.test(h.path);
  expect({ where, type: res.headers['content-type'] }).toEqual({
    where,
    type: file ? 'text/csv; charset=utf-8' : expect.stringMatching(/^application\/json/),
  });
  if (file) return;
  const plain = h.path.split('?')[0]!.replace(/\/+$/, '').toLowerCase() === INCOMING;
  if (status >= 400) {
    if (plain) {
      expect({ where, body: res.body }).toEqual({ where, body: { error: expect.any(String) } });
      expect(res.body.error.length).toBeGreaterThan(0);
    } else {
      const fields = res.body?.error?.fields;
      expect({ where, body: res.body }).toEqual({
        where,
        body: {
          error: {
            code: expect.stringMatching(/^[A-Z][A-Z_]+$/),
            message: expect.any(String),
            ...(fields === undefined ? {} : { fields: expect.any(Array) }),
          },
        },
      });
      // A 400 about the request's fields lists at most 10 of them, each with its path, a code and a message.
      if (fields !== undefined) {
        expect({ where, status, count: fields.length > 0 && fields.length <= 10 }).toEqual({
          where,
          status: 400,
          count: true,
        });
        for (const f of fields)
          expect({ where, f }).toEqual({
            where,
            f: expect.objectContaining({
              field: expect.any(String),
              code: expect.stringMatching(/^[A-Z][A-Z_]+$/),
              message: expect.any(String),
            }),
          });
      }
    }
    if (status === 405) expect(res.headers.allow).toEqual(expect.any(String));
  } else {
    expect(typeof res.body === 'object' && res.body !== null && !Array.isArray(res.body)).toBe(true);
    // A message's own `error` field (null or a delivery failure) is data, not an error answer.
    expect(typeof res.body.error === 'object' && res.body.error !== null).toBe(false);
  }
}

// ---- generators ----------------------------------------------------------------------------------------------

const POLLUTION_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isAdmin',
];

/** JSON text of an object whose keys may be `__proto__` and friends (JSON.stringify would drop or refuse them). */
const objectText = (entries: Array<[string, string]>) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

const weirdString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    '\u0000',
    '\u202e',
    '\ud800',
    '\udfff',
    '😀'.repeat(30),
    'null',
    'undefined',
    'NaN',
    '[object Object]',
    '${7*7}',
    '<script>',
    "' OR 1=1 --",
    '../../etc/passwd',
    '%00',
    '\\u0000',
  ),
);
const hugeString = fc
  .tuple(fc.integer({ min: 20_000, max: 300_000 }), fc.constantFrom('x', 'é', '😀', '\\', '"', ' '))
  .map(([n, c]) => c.repeat(Math.ceil(n / c.length)));
const anyJsonText = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'null',
      '[]',
      '{}',
      '""',
      '0',
      'true',
      '-0',
      '1e999',
      '-1e999',
      '1e-400',
      '123456789012345678901234567890',
    ),
  },
  { weight: 1, arbitrary: weirdString.map((s) => JSON.stringify(s)) },
);
/** Values meant for a field: mostly the wrong type, sometimes a plausible one. */
const fieldValue = (plausible: fc.Arbitrary<unknown>[] = []) =>
  fc.oneof(
    anyJsonText,
    weirdString.map((s) => JSON.stringify(s)),
    ...plausible.map((p) => p.map((v) => JSON.stringify(v) ?? 'null')),
  );
const pollutedObject: fc.Arbitrary<string> = fc.letrec<{ obj: string }>((tie) => ({
  obj: fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...POLLUTION_KEYS), fc.string({ maxLength: 8 })),
        fc.oneof({ depthSize: 'small' }, anyJsonText, tie('obj')),
      ),
      { maxLength: 5 },
    )
    .map(objectText),
})).obj;
const deepNesting = fc
  .tuple(
    fc.integer({ min: 50, max: 100_000 }),
    fc.constantFrom(['[', ']'], ['{"a":', '}'], ['{"customData":', '}'], ['{"__proto__":', '}']),
  )
  .map(([depth, [open, close]]) => `${open!.repeat(depth)}${open === '[' ? '' : '1'}${close!.repeat(depth)}`);
const randomBytes = fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a));

/** An object with the route's own field names holding hostile values: gets past the outer shape checks. */
function fieldsOf(fields: Record<string, fc.Arbitrary<unknown>[]>): fc.Arbitrary<string> {
  const names = Object.keys(fields);
  return fc
    .array(
      fc.oneof(
        {
          weight: 5,
          arbitrary: fc
            .constantFrom(...names)
            .chain((name) => fieldValue(fields[name]).map((v) => [name, v] as [string, string])),
        },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...POLLUTION_KEYS), fc.oneof(anyJsonText, pollutedObject)) },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(...names)
            .chain((name) => hugeString.map((s) => [name, JSON.stringify(s)] as [string, string])),
        },
      ),
      { maxLength: names.length + 2 },
    )
    .map(objectText);
}

const contentTypes = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      'application/json; charset=utf-8',
      'application/json; charset=utf-16',
      'application/json; charset=iso-8859-1',
      'application/json; charset="bogus"',
      'application/vnd.api+json',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=----x',
      'application/xml',
      '*/*',
      'application/',
      ';;;',
      'application/json;;;charset',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  },
);
const contentEncodings = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'x-bogus') },
);

/** A body for a route: its own fields with hostile values, or anything at all. */
function hostileBody(
  fields: Record<string, fc.Arbitrary<unknown>[]>,
  wrap?: (inner: string) => string,
): fc.Arbitrary<string | Buffer> {
  const own = fieldsOf(fields);
  return fc.oneof(
    { weight: 5, arbitrary: wrap ? fc.oneof(own.map(wrap), own) : own },
    { weight: 2, arbitrary: anyJsonText },
    { weight: 1, arbitrary: pollutedObject },
    { weight: 1, arbitrary: deepNesting },
    { weight: 1, arbitrary: randomBytes },
    { weight: 1, arbitrary: hugeString.map((s) => JSON.stringify({ value: s })) },
  );
}

function hostileRequest(
  method: string,
  path: fc.Arbitrary<string>,
  body: fc.Arbitrary<string | Buffer>,
): fc.Arbitrary<Hostile> {
  return fc
    .record({ method: fc.constant(method), path, body, contentType: contentTypes, contentEncoding: contentEncodings })
    .map((h) => {
      const out: Hostile = { method: h.method, path: h.path, body: h.body };
      if (h.contentType !== undefined) out.contentType = h.contentType;
      if (h.contentEncoding !== undefined) out.contentEncoding = h.contentEncoding;
      return printable(out);
    });
}

/** The trap's address in every form, with `path`; read when generated, once the trap listens. */
const trapUrl = (path: string) => fc.constant(null).chain(() => fc.constantFrom(...trap.forms(path)));

/** Percent-encodes any string; lone surrogates (which encodeURIComponent refuses) become U+FFFD first. */
const enc = (s: string) => encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8'));

/** A path segment: a real id of the right kind, another tenant's, or something odd (percent-encoded or malformed). */
const segment = (...real: Array<() => string>) =>
  fc.oneof(
    ...real.map((r) => fc.constant(null).map(() => r())),
    weirdString.filter((s) => s.length > 0).map(enc),
    fc.constantFrom('%', '%E0%A4%A', '%ZZ', '..', '%2e%2e', '%2F', 'ct_', 'msg_%00', 'a'.repeat(5000)),
  );

const phones = [
  '+14155550100',
  '+1 (415) 555-0101',
  '+44 20 7946 0958',
  '+1415555',
  '+999 1234',
  '14155550100',
  '+',
  '+0',
  '+1 415 555 0100 ext. 5',
  '０１２３',
];
const emails = [
  'lead@example.com',
  'LEAD@EXAMPLE.COM',
  'a@b',
  'no-at-sign',
  '@example.com',
  'x@y.z',
  ' spaced@example.com ',
  'dup@example.com',
];
const sids = ['m1', 'm2', 'dup', 'x1', '  ', 'msg_1'];
const fromIds = ['f1', 'f2', '+14155550100', 'whatsapp:+14155550100', ' '];
const mediaUrls = [
  'https://cdn.example.com/a.png',
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'data:image/png;base64,!!!notbase64',
  'data:text/plain;base64,aGVsbG8=',
  'data:;base64,',
  'data:image/png,rawbytes',
  'javascript:alert(1)',
  'file:///etc/passwd',
];

/** A query string: the route's own parameters (`own`) and others, with hostile values, and junk at its end. */
function hostileQuery(own: string[] = []): fc.Arbitrary<string> {
  const queryKey = fc.oneof(
    ...(own.length ? [fc.constantFrom(...own)] : []),
    fc.constantFrom(
      'phoneNumber',
      'email',
      'apiKey',
      'phoneNumber[]',
      'email[a]',
      'limit',
      ...POLLUTION_KEYS,
      '__proto__[polluted]',
      'constructor[prototype][polluted]',
    ),
    fc.string({ maxLength: 10 }),
  );
  const queryValue = fc.oneof(
    fc.constantFrom(...phones, ...emails),
    weirdString,
    hugeString.map((s) => s.slice(0, 6000)),
  );
  return fc
    .array(fc.tuple(queryKey, queryValue, fc.boolean()), { maxLength: 5 })
    .chain((pairs) =>
      fc
        .constantFrom('', '&', '%', '%E0%A4%A', '=', '&&==', '%ZZ')
        .map(
          (junk) =>
            pairs
              .map(([k, v, encode]) => `${enc(k)}=${encode ? enc(v) : enc(v).replace(/%2[0-9A-F]/g, '%')}`)
              .join('&') + junk,
        ),
    );
}

// ---- set-up ----------------------------------------------------------------------------------------------------

beforeAll(async () => {
  trap = await ConnectionTrap.start();
  gw = await startGateway(GATEWAY_ENV);
  agency = await createAccount(gw, { type: 'agency' });
  sub = await createAccount(gw, { parentEmail: agency.email });
  other = await createAccount(gw);
  const k = { apiKey: agency.apiKey };
  listId = (await request(gw, 'POST', '/v1/lists', { ...k, body: { name: 'Leads' } })).body.id;
  contactId = (await request(gw, 'POST', '/v1/contacts', { ...k, body: { phone: '+14155550199', firstName: 'Known' } }))
    .body.id;
  campaignId = (await request(gw, 'POST', '/v1/campaigns', { ...k, body: { name: 'Spring' } })).body.id;
  messageId = (
    await request(gw, 'POST', INCOMING, {
      ...k,
      body: { customData: { messageSid: 'seed', fromId: 'seed-sender', toId: 'biz', body: 'seed' } },
    })
  ).body.messageId;
  otherContactId = (
    await request(gw, 'POST', '/v1/contacts', { apiKey: other.apiKey, body: { email: 'theirs@example.com' } })
  ).body.id;
  expect([listId, contactId, campaignId, messageId, otherContactId].every(Boolean)).toBe(true);
});

afterAll(async () => {
  await trap?.close();
  if (!gw) return;
  await gw.stop();
  removeDir(gw.dataDir);
});

/** Checks one generated request with the given key, and a 2xx against the state it claims. */
async function check(h: Hostile, key: string | undefined): Promise<void> {
  const res = await send(h, key);
  expectSane(h, res);
  if (h.path === INCOMING && res.status === 200) {
    expect(res.body).toEqual({ success: true, messageId: expect.stringMatching(/^msg_/) });
    const stored = await request(gw, 'GET', `/v1/messages/${res.body.messageId}`, { apiKey: key });
    expect(stored.status).toBe(200);
    expect(stored.body.contactId).toMatch(/^ct_/);
    expect((await request(gw, 'GET', `/v1/contacts/${stored.body.contactId}`, { apiKey: key })).status).toBe(200);
  }
  if (h.path === '/v1/contacts' && (res.status === 200 || res.status === 201)) {
    expect(res.body.id).toMatch(/^ct_/);
  }
}

const keys = () => fc.constantFrom(agency.apiKey, other.apiKey);

// ---- properties ----------------------------------------------------------------------------------------------

describe('hostile bodies on the routes most written to, each with its own fields', () => {
  test('POST /v1/contacts', async () => {
    const body = hostileBody({
      phone: [fc.constantFrom(...phones)],
      phone_number: [fc.constantFrom(...phones)],
      email: [fc.constantFrom(...emails)],
      firstName: [weirdString],
      first_name: [weirdString],
      lastName: [weirdString],
      customFields: [
        fc.dictionary(
          fc.oneof(fc.constantFrom(...POLLUTION_KEYS), fc.string()),
          fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
          { maxKeys: 60 },
        ),
      ],
      custom_fields: [],
    });
    await fc.assert(fc.asyncProperty(hostileRequest('POST', fc.constant('/v1/contacts'), body), keys(), check), {
      numRuns: RUNS * 2,
    });
  });

  test('POST /v1/incoming_custom_channel_message', async () => {
    const customData = fieldsOf({
      messageSid: [fc.constantFrom(...sids), fc.constant(null).map(() => contactId)],
      id: [
        fc.constantFrom(...sids),
        fc.constant(null).map(() => contactId),
        fc.constant(null).map(() => otherContactId),
      ],
      fromId: [fc.constantFrom(...fromIds)],
      toId: [fc.constant('biz')],
      body: [weirdString, fc.constant('hello')],
      status: [fc.constantFrom('received', 'read')],
      channel: [fc.constantFrom('sms', 'telegram')],
      campaignId: [fc.constant(null).map(() => campaignId)],
      firstName: [weirdString],
      email: [fc.constantFrom(...emails)],
      mediaUrl: [fc.constantFrom(...mediaUrls), trapUrl('/m.png'), fc.constant(null)],
      mediaContentType: [
        fc.constantFrom('image/png', 'image/jpeg', 'text/plain', '', 'application/octet-stream'),
        fc.constant(null),
      ],
    });
    // Plausible messages: the required fields present, one field at a time hostile or from a small shared pool,
    // from two tenants: the dedup, contact and media logic is reached, not only the schema.
    const plausible = fc
      .record({
        sidField: fc.constantFrom('messageSid', 'id'),
        sid: fc.oneof(
          fc.constantFrom(...sids),
          fc.constant(null).map(() => contactId),
          weirdString,
        ),
        fromId: fc.oneof(fc.constantFrom(...fromIds), weirdString),
        body: fc.oneof(fc.constant('hi'), weirdString),
        extra: fieldsOf({
          email: [fc.constantFrom(...emails)],
          firstName: [weirdString],
          mediaUrl: [fc.constantFrom(...mediaUrls), trapUrl('/m.png')],
          mediaContentType: [fc.constantFrom('image/png', 'text/plain')],
          status: [],
          channel: [],
        }),
        messageType: fc.constantFrom(undefined, '"text"', '"reaction"', '"sticker"', '7'),
      })
      .map(({ sidField, sid, fromId, body, extra, messageType }) => {
        const required: Array<[string, string]> = [
          [sidField, JSON.stringify(sid)],
          ['fromId', JSON.stringify(fromId)],
          ['toId', '"biz"'],
          ['body', JSON.stringify(body)],
        ];
        const inner = extra === '{}' ? objectText(required) : `${objectText(required).slice(0, -1)},${extra.slice(1)}`;
        return objectText([
          ['customData', inner],
          ...(messageType ? [['messageType', messageType] as [string, string]] : []),
        ]);
      });
    const body = fc.oneof(
      { weight: 3, arbitrary: plausible },
      {
        weight: 3,
        arbitrary: hostileBody({ customData: [], messageType: [fc.constantFrom('text', 'reaction')] }, (inner) =>
          objectText([['customData', inner]]),
        ),
      },
      { weight: 2, arbitrary: customData.map((inner) => objectText([['customData', inner]])) },
    );
    await fc.assert(fc.asyncProperty(hostileRequest('POST', fc.constant(INCOMING), body), keys(), check), {
      numRuns: RUNS * 3,
    });
  });

  test('POST /v1/send_custom_channel_message', async () => {
    const body = hostileBody(
      {
        fromId: [fc.constantFrom(...fromIds)],
        customChannel: [fc.constantFrom('sms', ' ')],
        body: [weirdString],
        campaignId: [],
        firstName: [weirdString],
        email: [fc.constantFrom(...emails)],
      },
      (inner) => objectText([['customData', inner]]),
    );
    await fc.assert(
      fc.asyncProperty(hostileRequest('POST', fc.constant('/v1/send_custom_channel_message'), body), keys(), check),
      { numRuns: RUNS },
    );
  });

  test('POST /v1/lists and POST /v1/lists/{id}/contacts', async () => {
    const create = hostileRequest('POST', fc.constant('/v1/lists'), hostileBody({ name: [weirdString] }));
    const add = hostileRequest(
      'POST',
      segment(() => listId).map((id) => `/v1/lists/${id}/contacts`),
      hostileBody({
        contactId: [fc.constant(null).map(() => contactId), fc.constant(null).map(() => otherContactId)],
        contact_id: [fc.constant(null).map(() => contactId)],
      }),
    );
    await fc.assert(fc.asyncProperty(fc.oneof(create, add), keys(), check), { numRuns: RUNS * 2 });
  });

  test('POST /v1/campaigns and PATCH /v1/campaigns/{id}', async () => {
    const fields = {
      name: [weirdString],
      type: [fc.constantFrom('combined', 'outgoing', 'incoming')],
      language: [fc.constantFrom('en', 'de')],
      listId: [fc.constant(null).map(() => listId), fc.constant(null)],
      channel: [fc.constantFrom('whatsapp', 'sms', 'custom')],
      customChannel: [weirdString],
      openingTemplate: [weirdString],
      openingMessage: [weirdString, fc.constantFrom('Hi {{first_name|there}}', 'Hi {{nope}}', '{{', '{{custom.}}')],
      triggerOnNewContacts: [fc.boolean()],
      status: [fc.constantFrom('draft', 'live', 'paused')],
      sendRate: [weirdString, fc.constantFrom('30/m', '0/m', '6001/m', '1/d', '5/s', '1/w')],
      sendingWindow: [
        fc.record({
          start: fc.constantFrom('08:00', '24:00', '8:00', ''),
          end: fc.constantFrom('21:00', '08:00', 'x'),
          timezone: fc.oneof(weirdString, fc.constantFrom('UTC', 'America/New_York', 'Mars/Olympus')),
        }),
      ],
      followUps: [
        fc.record({
          enabled: fc.boolean(),
          steps: fc.array(
            fc.record({
              after: fc.oneof(weirdString, fc.constantFrom('20m', '0s', '31d', '1h30m')),
              body: weirdString,
            }),
            { maxLength: 7 },
          ),
        }),
      ],
      bot: [
        fc.record(
          {
            active: fc.boolean(),
            instructions: weirdString,
            faqs: fc.array(fc.record({ question: weirdString, answer: weirdString }), { maxLength: 3 }),
          },
          { requiredKeys: [] },
        ),
      ],
    };
    const create = hostileRequest('POST', fc.constant('/v1/campaigns'), hostileBody(fields));
    const update = hostileRequest(
      'PATCH',
      segment(() => campaignId).map((id) => `/v1/campaigns/${id}`),
      hostileBody(fields),
    );
    await fc.assert(fc.asyncProperty(fc.oneof(create, update), keys(), check), { numRuns: RUNS * 2 });
  });

  test('POST /v1/subaccounts/credits and PUT /v1/subaccounts/auto-recharge', async () => {
    const money = [
      fc.double(),
      fc.integer({ min: -10, max: 2_000_000_000 }),
      fc.constantFrom(0.001, 1.005, 5, 1e9, 1e10, -0, Number.MAX_VALUE, Number.MIN_VALUE),
    ];
    const email = [
      fc.constant(null).map(() => sub.email),
      fc.constant(null).map(() => other.email),
      fc.constantFrom(...emails),
    ];
    const grant = hostileRequest(
      'POST',
      fc.constant('/v1/subaccounts/credits'),
      hostileBody({ email, amount: money, description: [weirdString] }),
    );
    const recharge = hostileRequest(
      'PUT',
      fc.constant('/v1/subaccounts/auto-recharge'),
      hostileBody({ email, enabled: [fc.boolean()], threshold: money, amount: money }),
    );
    const idempotencyKey = fc.option(
      fc.oneof(
        fc.constantFrom('k1', 'k2'),
        fc.string({ unit: 'grapheme-ascii', maxLength: 300 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
      ),
      { nil: undefined },
    );
    const withKey = fc
      .tuple(fc.oneof(grant, recharge), idempotencyKey)
      .map(([h, k]) => (k === undefined ? h : printable({ ...h, headers: { 'idempotency-key': k } })));
    // The agency, its sub-account (403) and a standard account (403).
    const key = fc.constantFrom(agency.apiKey, agency.apiKey, sub.apiKey, other.apiKey);
    await fc.assert(fc.asyncProperty(withKey, key, check), { numRuns: RUNS * 2 });
  });

  test('PUT /v1/settings and POST /v1/webhooks', async () => {
    // Only refused or invalid targets: nothing is delivered anywhere.
    const url = [
      fc.constantFrom(
        'https://user:pass@hooks.example.com/x',
        'ftp://example.com',
        'http://',
        'http://[::1',
        'https://exa mple.com',
      ),
      trapUrl('/hook'),
      fc.constant(null),
    ];
    const settings = hostileRequest('PUT', fc.constant('/v1/settings'), hostileBody({ customChannelWebhookUrl: url }));
    const webhooks = hostileRequest(
      'POST',
      fc.constant('/v1/webhooks'),
      hostileBody({
        url,
        events: [fc.array(fc.constantFrom('reply', 'auto_recharge', 'other', ''), { maxLength: 4 })],
      }),
    );
    await fc.assert(fc.asyncProperty(fc.oneof(settings, webhooks), keys(), check), { numRuns: RUNS });
  });

  test('bot settings and test, channel credentials, and the provider webhooks (which carry no key)', async () => {
    // An account of its own, so that the bot settings tried here cannot touch the other tests' accounts.
    const owner = await createAccount(gw);
    const k = { apiKey: owner.apiKey };
    const ownCampaign = (
      await request(gw, 'POST', '/v1/campaigns', {
        ...k,
        body: { name: 'Bot', bot: { faqs: [{ question: 'Open?', answer: 'Yes.' }] } },
      })
    ).body.id;
    const twilio = { accountSid: `AC${'a'.repeat(32)}`, authToken: '1'.repeat(32), from: '+15005550006' };
    const whatsapp = {
      phoneNumberId: '123456',
      accessToken: 'token-0123456789',
      appSecret: '2'.repeat(32),
      verifyToken: 'verify-me-please',
    };
    expect((await request(gw, 'PUT', '/v1/channels/twilio', { ...k, body: twilio })).status).toBe(200);
    expect((await request(gw, 'PUT', '/v1/channels/whatsapp', { ...k, body: whatsapp })).status).toBe(200);

    const url = fc.oneof(fc.constantFrom('https://api.example.invalid/v1', 'ftp://x', 'http://', ''), trapUrl('/v1'));
    const bot = hostileRequest(
      'PUT',
      fc.constant('/v1/settings/bot'),
      hostileBody({
        provider: [fc.constantFrom('faq', 'openai', 'gpt', '')],
        openai: [
          fc.record({ baseUrl: url, model: weirdString, apiKey: fc.oneof(weirdString, fc.constant(null)) }),
          fc.constant(null),
        ],
        defaultCampaignId: [
          segment(
            () => ownCampaign,
            () => campaignId,
          ),
          fc.constant(null),
        ],
      }),
    );
    const ask = hostileRequest(
      'POST',
      segment(
        () => ownCampaign,
        () => campaignId,
      ).map((id) => `/v1/campaigns/${id}/bot/test`),
      hostileBody({
        message: [weirdString, hugeString],
        history: [
          fc.array(fc.record({ from: fc.constantFrom('contact', 'bot', 'team', 'x'), body: weirdString }), {
            maxLength: 25,
          }),
        ],
        firstName: [weirdString, fc.constant(null)],
      }),
    );
    const credentials = hostileRequest(
      'PUT',
      fc.constantFrom('/v1/channels/twilio', '/v1/channels/whatsapp'),
      hostileBody({
        accountSid: [fc.constantFrom(twilio.accountSid, 'AC', weirdString)],
        authToken: [fc.constantFrom(twilio.authToken, 'x')],
        from: [fc.constantFrom(...phones)],
        whatsappFrom: [fc.constantFrom(...phones, 'whatsapp:+14155238886')],
        phoneNumberId: [fc.constantFrom('123456', 'abc')],
        accessToken: [weirdString],
        appSecret: [fc.constantFrom(whatsapp.appSecret, 'short')],
        verifyToken: [weirdString],
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(bot, ask, credentials), async (h) => expectSane(h, await send(h, owner.apiKey))),
      { numRuns: RUNS * 2 },
    );

    // Provider webhooks: random bodies, content types and signatures are refused (403, 404, 400, 413), never a 500.
    const hook = fc.constantFrom(
      `/v1/channels/twilio/${owner.id}/incoming`,
      `/v1/channels/twilio/${owner.id}/status`,
      `/v1/channels/whatsapp/${owner.id}/webhook`,
      `/v1/channels/twilio/${other.id}/incoming`,
      '/v1/channels/whatsapp/acc_nope/webhook',
    );
    const body = hostileBody({
      MessageSid: [weirdString],
      From: [fc.constantFrom(...phones)],
      Body: [weirdString],
      object: [fc.constant('whatsapp_business_account')],
      entry: [fc.anything()],
    });
    const headerValue = fc.string({ unit: 'grapheme-ascii', maxLength: 100 }).filter((v) => /^[\x21-\x7e]*$/.test(v));
    const signature = fc.record(
      {
        'x-twilio-signature': headerValue,
        'x-hub-signature-256': fc.oneof(
          headerValue,
          fc.constant('sha256=00'),
          headerValue.map((v) => `sha256=${v}`),
        ),
      },
      { requiredKeys: [] },
    );
    const posted = fc
      .tuple(hostileRequest('POST', hook, body), signature)
      .map(([h, headers]) => printable({ ...h, headers }));
    await fc.assert(
      fc.asyncProperty(posted, async (h) => {
        const res = await send(h);
        expectSane(h, res);
        expect(res.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: RUNS * 2 },
    );
    expect((await request(gw, 'GET', '/v1/conversations', k)).body.data).toEqual([]);
  });

  test('admin routes: POST /admin/v1/accounts and POST /admin/v1/accounts/{id}/credits/usage', async () => {
    const create = hostileRequest(
      'POST',
      fc.constant('/admin/v1/accounts'),
      hostileBody({
        name: [weirdString],
        email: [fc.constantFrom(...emails)],
        type: [fc.constantFrom('agency', 'standard')],
        parentEmail: [fc.constant(null).map(() => agency.email), fc.constant(null).map(() => other.email)],
        password: [fc.constantFrom('short', 'long enough password')],
      }),
    );
    const usage = hostileRequest(
      'POST',
      segment(
        () => sub.id,
        () => other.id,
      ).map((id) => `/admin/v1/accounts/${id}/credits/usage`),
      hostileBody({ amount: [fc.double(), fc.constantFrom(0.01, 1, 1e12)], description: [weirdString] }),
    );
    const withToken = fc
      .oneof(create, usage)
      .map((h) => printable({ ...h, headers: { authorization: `Bearer ${gw.adminToken}` } }));
    await fc.assert(
      fc.asyncProperty(withToken, async (h) => expectSane(h, await send(h))),
      { numRuns: RUNS * 2 },
    );
  });
});

/**
 * Every other route, as the access table lists them: hostile bodies whose fields are the ones the OpenAPI document
 * gives the operation, and hostile queries whose keys are its parameters (the operator's routes, which it does not
 * describe, get any), on paths holding a real id of the right kind, another tenant's or an odd segment. A route added
 * to the table is named above, tried here, or left out with its reason: the first property says so.
 */
describe('every other route', () => {
  /** Proven above, each by a property of its own. */
  const NAMED_ABOVE = [
    'POST /v1/contacts',
    `POST ${INCOMING}`,
    'POST /v1/send_custom_channel_message',
    'POST /v1/lists',
    'POST /v1/lists/:listId/contacts',
    'POST /v1/campaigns',
    'PATCH /v1/campaigns/:id',
    'POST /v1/subaccounts/credits',
    'PUT /v1/subaccounts/auto-recharge',
    'PUT /v1/settings',
    'POST /v1/webhooks',
    'PUT /v1/settings/bot',
    'POST /v1/campaigns/:id/bot/test',
    'PUT /v1/channels/twilio',
    'PUT /v1/channels/whatsapp',
    'POST /v1/channels/twilio/:accountId/incoming',
    'POST /v1/channels/twilio/:accountId/status',
    'POST /v1/channels/whatsapp/:accountId/webhook',
    'POST /admin/v1/accounts',
    'POST /admin/v1/accounts/:id/credits/usage',
    'GET /v1/openapi.json',
    'GET /v1/contacts',
    'GET /v1/contacts/:id',
    'GET /v1/contacts/:id/messages',
    'GET /v1/messages/:id',
    'GET /v1/media/:id',
    'GET /v1/lists',
    'GET /v1/lists/:listId/contacts',
    'GET /v1/campaigns',
    'GET /v1/campaigns/:id',
    'GET /v1/credits',
    'GET /v1/settings',
    'GET /v1/webhooks',
    'GET /v1/webhooks/:id',
    'GET /admin/v1/accounts',
  ];
  const LEFT_OUT: Record<string, string> = {
    'POST /v1/api-key': 'a success changes the key the other properties call with (api-auth.test.ts rotates it)',
    'POST /admin/v1/accounts/:id/api-key': 'the same, by the operator (cli.system.test.ts)',
    'POST /admin/v1/backup': 'it reads no body, and its answer is an archive (backup.system.test.ts)',
    'POST /admin/v1/clock': 'served only to a gateway under the test clock, which this one is not',
    'GET /console/api/session': 'it reads nothing but the session cookie (test/console/session-api.test.ts)',
    'GET /console/api/stream': 'the same, and it answers a stream of events (api-stream.test.ts)',
    'GET /console/api/business-hours': 'it reads nothing but the session cookie (test/console/inbox-hours.test.ts)',
  };
  const TRIED = [
    'POST /v1/messages/:id/retry',
    'PATCH /v1/contacts/:id',
    'POST /v1/contacts/:id/merge',
    'POST /v1/contacts/:id/messages',
    'POST /v1/contacts/:id/bot',
    'POST /v1/lists/:listId/imports',
    'POST /v1/conversations/retry-failed',
    'POST /v1/conversations/:id/retry-failed',
    'POST /v1/conversations/:id/assign',
    'POST /v1/conversations/:id/snooze',
    'POST /v1/conversations/:id/labels',
    'POST /v1/conversations/:id/read',
    'POST /v1/conversations/:id/notes',
    'POST /v1/saved-replies',
    'PATCH /v1/saved-replies/:id',
    'POST /v1/campaigns/opening-price',
    'POST /v1/campaigns/:id/reach-existing',
    'POST /v1/campaigns/:id/openings/retry-failed',
    'POST /v1/members',
    'PATCH /v1/members/:id',
    'POST /v1/members/:id/invite',
    'PUT /v1/members/:id/availability',
    'PUT /v1/credits/low-balance',
    'POST /v1/settings/webhook-secret',
    'POST /v1/settings/webhook-test',
    'POST /v1/webhooks/:id/enable',
    'PUT /v1/channels/messenger',
    'PUT /v1/channels/instagram',
    'POST /v1/channels/:channel/incoming',
    'POST /v1/channels/messenger/:accountId/webhook',
    'POST /v1/channels/instagram/:accountId/webhook',
    'PUT /admin/v1/accounts/:id/password',
    'POST /admin/v1/accounts/:id/members',
    'POST /admin/v1/jobs/:id/retry',
    'GET /v1/contacts/:id/export',
    'PATCH /v1/lists/:listId',
    'GET /v1/lists/:listId',
    'GET /v1/lists/:listId/imports',
    'GET /v1/lists/:listId/export',
    'GET /v1/imports/:id',
    'GET /v1/conversations',
    'GET /v1/conversations/:id',
    'GET /v1/conversations/:id/notes',
    'GET /v1/labels',
    'GET /v1/saved-replies',
    'GET /v1/saved-replies/:id',
    'GET /v1/campaigns/:id/preview',
    'GET /v1/campaigns/:id/openings',
    'GET /v1/campaigns/:id/unanswered',
    'GET /v1/campaigns/:id/unreachable',
    'GET /v1/campaigns/:id/funnel',
    'GET /v1/members',
    'GET /v1/members/:id',
    'GET /v1/credits/history',
    'GET /v1/audit-log',
    'GET /v1/subaccounts',
    'GET /v1/subaccounts/:id/deletion',
    'GET /v1/subaccounts/:id/credits',
    'GET /v1/subaccounts/:id/credits/history',
    'GET /v1/settings/bot',
    'GET /v1/channels',
    'GET /v1/channels/whatsapp/:accountId/webhook',
    'GET /v1/channels/messenger/:accountId/webhook',
    'GET /v1/channels/instagram/:accountId/webhook',
    'GET /admin/v1/jobs',
    'GET /admin/v1/accounts/:id/deletion',
    'POST /console/api/session',
    'GET /console/api/invites/:token',
    'POST /console/api/invites/:token',
  ];

  test('each route of the API, the operator and the console is named above, tried here or left out', async () => {
    const { ROUTE_ACCESS } = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/http/access.js'))) as {
      ROUTE_ACCESS: Record<string, Record<string, string>>;
    };
    const routes = Object.entries(ROUTE_ACCESS)
      .filter(([route]) => /^\/(v1|admin\/v1|console\/api)\//.test(route))
      .flatMap(([route, methods]) =>
        Object.keys(methods)
          // A DELETE takes nothing but its path's ids; another tenant's are refused in api-isolation.test.ts.
          .filter((m) => m !== 'DELETE')
          .map((m) => `${m} ${route}`),
      );
    expect(routes.sort()).toEqual([...NAMED_ABOVE, ...Object.keys(LEFT_OUT), ...TRIED].sort());
  });

  // Records of their own: a merge or a correction that succeeds changes these, never what the other tests read.
  let target: string;
  let duplicate: string;
  let member: string;
  let conversation: string;
  let importId: string;
  let webhook: string;
  let savedReply: string;
  beforeAll(async () => {
    const k = { apiKey: agency.apiKey };
    target = (await request(gw, 'POST', '/v1/contacts', { ...k, body: { phone: '+14155550177' } })).body.id;
    duplicate = (await request(gw, 'POST', '/v1/contacts', { ...k, body: { email: 'twin@example.com' } })).body.id;
    member = (
      await request(gw, 'POST', '/v1/members', {
        ...k,
        body: { email: 'agent@example.com', name: 'Agent', role: 'agent' },
      })
    ).body.id;
    conversation = (await request(gw, 'GET', `/v1/messages/${messageId}`, k)).body.conversationId;
    importId = (
      await request(gw, 'POST', `/v1/lists/${listId}/imports`, {
        ...k,
        body: { contacts: [{ email: 'imported@example.com' }] },
      })
    ).body.id;
    webhook = (
      await request(gw, 'POST', '/v1/webhooks', {
        ...k,
        body: { url: 'https://hooks.example.com/leadchat', events: ['reply'] },
      })
    ).body.id;
    savedReply = (
      await request(gw, 'POST', '/v1/saved-replies', { ...k, body: { name: 'Prices', text: 'Hi {{first_name}}' } })
    ).body.id;
    expect([target, duplicate, member, conversation, importId, webhook, savedReply].every(Boolean)).toBe(true);
  });

  /** Each path parameter's real ids: this account's, and another tenant's where it has one. */
  const ids: Record<string, Array<() => string>> = {
    '/v1/messages/:id': [() => messageId],
    '/v1/contacts/:id': [() => target, () => otherContactId],
    '/v1/lists/:listId': [() => listId],
    '/v1/imports/:id': [() => importId],
    '/v1/conversations/:id': [() => conversation],
    '/v1/campaigns/:id': [() => campaignId],
    '/v1/members/:id': [() => member],
    '/v1/webhooks/:id': [() => webhook],
    '/v1/saved-replies/:id': [() => savedReply],
    '/v1/subaccounts/:id': [() => sub.id, () => other.id],
    '/v1/channels/:channel': [() => 'sms', () => 'whatsapp', () => 'messenger', () => 'instagram'],
    '/v1/channels/whatsapp/:accountId': [() => agency.id, () => other.id],
    '/v1/channels/messenger/:accountId': [() => agency.id, () => other.id],
    '/v1/channels/instagram/:accountId': [() => agency.id, () => other.id],
    '/admin/v1/accounts/:id': [() => other.id],
    '/admin/v1/jobs/:id': [],
    '/console/api/invites/:token': [],
  };
  const pathOf = (route: string): fc.Arbitrary<string> => {
    const param = route.match(/^(.*?\/:\w+)(.*)$/);
    if (!param) return fc.constant(route);
    const [, head, tail] = param as unknown as [string, string, string];
    const real = ids[head];
    if (!real) throw new Error(`no ids for ${head}`);
    return segment(...real).map((id) => `${head.replace(/:\w+$/, id)}${tail}`);
  };
  const doc = JSON.parse(readFileSync(path.resolve(__dirname, '../../gateway/dist/openapi.json'), 'utf8'));
  const operationOf = (method: string, route: string) =>
    doc.paths[route.replace(/^\/v1/, '').replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];

  /**
   * Each route tried here whose method `takes`, in turn, so that every one is tried as often however many the table
   * holds; the operator's with its token.
   */
  async function tryEach(
    takes: (method: string) => boolean,
    make: (method: string, route: string) => fc.Arbitrary<Hostile>,
  ) {
    for (const name of TRIED) {
      const [m, route] = name.split(' ') as [string, string];
      if (!takes(m)) continue;
      const operator = route.startsWith('/admin/');
      const hostile = make(m, route);
      const requests = operator
        ? hostile.map((h) => printable({ ...h, headers: { authorization: `Bearer ${gw.adminToken}` } }))
        : hostile;
      await fc.assert(
        fc.asyncProperty(requests, keys(), async (h, key) => expectSane(h, await send(h, operator ? undefined : key))),
        { numRuns: RUNS / 4 },
      );
    }
  }

  test('hostile bodies on each route tried here that takes one', async () => {
    /** Values a field may hold that get past its type: an id of the right kind, a phone, an email. */
    const plausible: Record<string, fc.Arbitrary<unknown>[]> = {
      contactId: [fc.constant(null).map(() => duplicate), fc.constant(null).map(() => otherContactId)],
      memberId: [fc.constant(null).map(() => member), fc.constant(null)],
      conversationId: [fc.constant(null).map(() => conversation)],
      phone: [fc.constantFrom(...phones)],
      email: [fc.constantFrom(...emails)],
      body: [weirdString, hugeString],
    };
    const bodyFieldsOf = (method: string, route: string): Record<string, fc.Arbitrary<unknown>[]> => {
      const schema = operationOf(method, route)?.requestBody?.content?.['application/json']?.schema;
      const names = Object.keys(schema?.properties ?? {});
      return Object.fromEntries((names.length ? names : ['value']).map((n) => [n, plausible[n] ?? []]));
    };
    await tryEach(
      (m) => m !== 'GET',
      (m, route) => hostileRequest(m, pathOf(route), hostileBody(bodyFieldsOf(m, route))),
    );
  });

  test('hostile queries on each route tried here that reads', async () => {
    const parametersOf = (route: string): string[] =>
      (operationOf('GET', route)?.parameters ?? [])
        .filter((p: { in: string }) => p.in === 'query')
        .map((p: { name: string }) => p.name);
    await tryEach(
      (m) => m === 'GET',
      (_m, route) =>
        fc
          .tuple(pathOf(route), hostileQuery(parametersOf(route)))
          .map(([p, query]) => printable({ method: 'GET', path: query ? `${p}?${query}` : p })),
    );
  });
});

describe('hostile queries, path segments, methods and keys', () => {
  const rawQuery = hostileQuery();

  test('GET routes with random query strings and path segments', async () => {
    const get = fc
      .tuple(
        fc.oneof(
          fc.constantFrom(
            '/v1/contacts',
            '/v1/lists',
            '/v1/campaigns',
            '/v1/credits',
            '/v1/settings',
            '/v1/webhooks',
            '/v1/openapi.json',
          ),
          segment(
            () => contactId,
            () => otherContactId,
          ).map((id) => `/v1/contacts/${id}`),
          segment(
            () => contactId,
            () => otherContactId,
          ).map((id) => `/v1/contacts/${id}/messages`),
          segment(() => messageId).map((id) => `/v1/messages/${id}`),
          segment(() => messageId).map((id) => `/v1/media/${id}`),
          segment(() => listId).map((id) => `/v1/lists/${id}/contacts`),
          segment(() => campaignId).map((id) => `/v1/campaigns/${id}`),
          segment().map((id) => `/v1/webhooks/${id}`),
        ),
        rawQuery,
      )
      .map(([path, query]) => printable({ method: 'GET', path: query ? `${path}?${query}` : path }));
    await fc.assert(fc.asyncProperty(get, keys(), check), { numRuns: RUNS * 3 });

    const adminGet = rawQuery.map((query) =>
      printable({
        method: 'GET',
        path: `/admin/v1/accounts?${query}`,
        headers: { authorization: `Bearer ${gw.adminToken}` },
      }),
    );
    await fc.assert(
      fc.asyncProperty(adminGet, async (h) => expectSane(h, await send(h))),
      { numRuns: RUNS },
    );
  });

  test('any method on any known path, and unknown paths', async () => {
    const path = fc.oneof(
      fc.constantFrom(
        '/v1/contacts',
        '/v1/lists',
        '/v1/campaigns',
        '/v1/credits',
        '/v1/settings',
        '/v1/webhooks',
        INCOMING,
        `${INCOMING}/`,
        '/V1/Incoming_Custom_Channel_Message',
        '/v1/send_custom_channel_message',
        '/v1/subaccounts/credits',
        '/v1/subaccounts/auto-recharge',
        '/v1/openapi.json',
        '/admin/v1/accounts',
      ),
      segment().map((s) => `/v1/${s}`),
      segment().map((s) => `/${s}`),
    );
    const methods = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD');
    const any = fc.tuple(methods, path, fc.option(anyJsonText, { nil: undefined })).map(([method, p, body]) =>
      printable({
        method,
        path: p,
        ...(body !== undefined && method !== 'GET' && method !== 'HEAD'
          ? { body, contentType: 'application/json' }
          : {}),
      }),
    );
    await fc.assert(fc.asyncProperty(any, keys(), check), { numRuns: RUNS * 2 });
  });

  // Each from an address of its own: more than 20 failures from one address are refused with 429 (api-auth.test.ts).
  let address = 0;
  test('random API keys in every place get 401 (400 when in two places at once), never anything else', async () => {
    const key = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 200 }).filter((s) => /^[\x21-\x7e]+$/.test(s)),
      fc.constantFrom(
        'lc_',
        'null',
        'undefined',
        '[object Object]',
        agency.apiKey.slice(0, -1),
        `${agency.apiKey}x`,
        agency.apiKey.toUpperCase(),
      ),
    );
    const place = fc.constantFrom('header', 'bearer', 'query', 'both');
    const path = fc.constantFrom('/v1/credits', '/v1/contacts?phoneNumber=%2B14155550199', '/v1/lists', '/v1/settings');
    await fc.assert(
      fc.asyncProperty(key, place, path, async (k, where, p) => {
        address += 1;
        const h: Hostile = {
          method: 'GET',
          path: p,
          headers: { 'x-forwarded-for': `198.18.${address >> 8}.${address & 255}` },
        };
        if (where === 'header' || where === 'both') h.headers!['x-api-key'] = k;
        if (where === 'bearer' || where === 'both') h.headers!.authorization = `Bearer ${k}`;
        if (where === 'query') h.path = `${p}${p.includes('?') ? '&' : '?'}apiKey=${encodeURIComponent(k)}`;
        const res = await send(h);
        expectSane(h, res);
        expect(res.status).toBe(where === 'both' ? 400 : 401);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('after the storm', () => {
  async function expectWorking(): Promise<void> {
    const k = { apiKey: agency.apiKey };
    // Ordinary requests behave exactly as documented.
    const phone = `+1415555${String(Math.floor(Math.random() * 9000) + 1000)}`;
    const created = await request(gw, 'POST', '/v1/contacts', {
      ...k,
      body: { phone, firstName: 'After', lastName: 'Storm', email: 'after@example.com' },
    });
    expect([200, 201]).toContain(created.status);
    expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'email', 'firstName', 'id', 'lastName', 'phone']);
    const found = await request(gw, 'GET', '/v1/contacts', { ...k, query: { phoneNumber: phone } });
    expect(found.body.id).toBe(created.body.id);
    const added = await request(gw, 'POST', `/v1/lists/${listId}/contacts`, {
      ...k,
      body: { contactId: created.body.id },
    });
    expect(added.body).toEqual({ success: true, listId, contactId: created.body.id, added: expect.any(Boolean) });
    const sid = `after-${Date.now()}`;
    const msg = await request(gw, 'POST', INCOMING, {
      ...k,
      body: { customData: { messageSid: sid, fromId: 'after-sender', toId: 'biz', body: 'still fine' } },
    });
    expect(msg.status).toBe(200);
    expect((await request(gw, 'GET', `/v1/messages/${msg.body.messageId}`, k)).body).toEqual(
      expect.objectContaining({ body: 'still fine', messageSid: sid }),
    );
    expect((await request(gw, 'GET', `/v1/messages/${messageId}`, k)).body.body).toBe('seed');
    expect((await request(gw, 'GET', `/v1/contacts/${contactId}`, k)).body).toEqual(
      expect.objectContaining({ id: contactId, phone: '+14155550199', firstName: 'Known' }),
    );
    expect((await request(gw, 'GET', `/v1/contacts/${contactId}`, { apiKey: other.apiKey })).status).toBe(404);

    // Credits add up: every balance is the sum of its ledger, never negative.
    for (const account of [agency, sub, other]) {
      const credits = await request(gw, 'GET', '/v1/credits', { apiKey: account.apiKey });
      expect(credits.status).toBe(200);
      const cents = credits.body.transactions.reduce(
        (sum: number, t: { amount: number }) => sum + Math.round(t.amount * 100),
        0,
      );
      expect(Math.round(credits.body.balance * 100)).toBe(cents);
      expect(credits.body.balance).toBeGreaterThanOrEqual(0);
    }
    // The accounts are still the accounts: no hostile body turned into an account or changed one.
    const accounts = await request(gw, 'GET', '/admin/v1/accounts', {
      headers: { authorization: `Bearer ${gw.adminToken}` },
    });
    for (const a of accounts.body.data) expect(a.email).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);
    const byEmail = new Map(accounts.body.data.map((a: { email: string }) => [a.email, a]));
    expect(byEmail.get(sub.email)).toEqual(expect.objectContaining({ id: sub.id, parentId: agency.id }));
  }

  test('ordinary requests still work, the data is consistent, and it all survives a restart', async () => {
    await expectWorking();
    expect(await gw.stop()).toBe(0);
    gw = await startGateway(GATEWAY_ENV, gw.dataDir);
    await expectWorking();
    // Whatever was saved, asked or delivered on the way, nothing reached the loopback listener.
    expect(trap.connections).toBe(0);
  });
});
