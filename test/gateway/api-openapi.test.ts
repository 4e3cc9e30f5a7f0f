import https from 'node:https';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { checkDelivery } from '../helpers/contract';
import { clockOf, removeDir, trusting } from '../helpers/gateway';
import { startInProcess } from '../helpers/in-process';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  Receiver,
  request,
  unique,
  untilIdle,
  useGateway,
  type TestAccount,
  type TestGateway,
} from './api-support';

/** Part E: GET /v1/openapi.json describes every /v1 route as the server really serves it. */
const ctx = useGateway();
let doc: any;
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
  const res = await request(ctx.gw, 'GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.body;
});

const ROUTES: Record<string, string[]> = {
  '/contacts': ['get', 'post'],
  '/contacts/{id}': ['delete', 'get', 'patch'],
  '/contacts/{id}/merge': ['post'],
  '/contacts/{id}/export': ['get'],
  '/contacts/{id}/messages': ['get', 'post'],
  '/lists': ['get', 'post'],
  '/lists/{listId}': ['delete', 'get', 'patch'],
  '/lists/{listId}/contacts': ['get', 'post'],
  '/lists/{listId}/contacts/{contactId}': ['delete'],
  '/lists/{listId}/export': ['get'],
  '/lists/{listId}/imports': ['get', 'post'],
  '/imports/{id}': ['get'],
  '/campaigns': ['get', 'post'],
  '/campaigns/opening-price': ['post'],
  '/campaigns/{id}': ['get', 'patch'],
  '/campaigns/{id}/preview': ['get'],
  '/campaigns/{id}/unanswered': ['get'],
  '/campaigns/{id}/unreachable': ['get'],
  '/campaigns/{id}/bot/test': ['post'],
  '/campaigns/{id}/reach-existing': ['post'],
  '/campaigns/{id}/funnel': ['get'],
  '/campaigns/{id}/openings': ['get'],
  '/campaigns/{id}/openings/retry-failed': ['post'],
  '/contacts/{id}/bot': ['post'],
  '/conversations': ['get'],
  '/conversations/{id}': ['get'],
  '/conversations/{id}/assign': ['post'],
  '/conversations/{id}/snooze': ['delete', 'post'],
  '/conversations/{id}/labels': ['post'],
  '/conversations/{id}/labels/{label}': ['delete'],
  '/labels': ['get'],
  '/conversations/{id}/read': ['post'],
  '/conversations/{id}/notes': ['get', 'post'],
  '/conversations/{id}/notes/{noteId}': ['delete'],
  '/saved-replies': ['get', 'post'],
  '/saved-replies/{id}': ['delete', 'get', 'patch'],
  '/conversations/retry-failed': ['post'],
  '/conversations/{id}/retry-failed': ['post'],
  '/channels': ['get'],
  '/channels/twilio': ['delete', 'put'],
  '/channels/messenger': ['delete', 'put'],
  '/channels/instagram': ['delete', 'put'],
  '/channels/whatsapp': ['delete', 'put'],
  '/channels/{channel}/incoming': ['post'],
  '/send_custom_channel_message': ['post'],
  '/incoming_custom_channel_message': ['post'],
  '/messages/{id}': ['get'],
  '/messages/{id}/retry': ['post'],
  '/media/{id}': ['get'],
  '/members': ['get', 'post'],
  '/members/{id}': ['delete', 'get', 'patch'],
  '/members/{id}/availability': ['put'],
  '/members/{id}/invite': ['post'],
  '/subaccounts/credits': ['post'],
  '/subaccounts/auto-recharge': ['put'],
  '/credits': ['get'],
  '/credits/history': ['get'],
  '/credits/low-balance': ['put'],
  '/subaccounts': ['get'],
  '/subaccounts/{id}': ['delete'],
  '/subaccounts/{id}/deletion': ['get'],
  '/subaccounts/{id}/credits': ['get'],
  '/subaccounts/{id}/credits/history': ['get'],
  '/settings': ['get', 'put'],
  '/settings/bot': ['get', 'put'],
  '/settings/webhook-secret': ['post'],
  '/settings/webhook-test': ['post'],
  '/api-key': ['post'],
  '/audit-log': ['get'],
  '/webhooks': ['get', 'post'],
  '/webhooks/{id}': ['delete', 'get'],
  '/webhooks/{id}/enable': ['post'],
};

test('is an OpenAPI 3.1 document served under this gateway', () => {
  expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
  expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }));
  // No LEADCHAT_PUBLIC_URL: the address the gateway listens on.
  expect(doc.servers).toEqual([{ url: `${ctx.gw.url}/v1` }]);
});

/** GET /v1/openapi.json as a client naming another host in its Host header (the certificate is checked for localhost). */
function openApiFor(gw: TestGateway, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL('/v1/openapi.json', gw.url),
      { headers: { host }, ...trusting(gw.ca), servername: 'localhost', agent: false },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (text += c))
          .on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject).end();
  });
}

describe('the server address', () => {
  test('never comes from the Host header of the request', async () => {
    const res = await openApiFor(ctx.gw, 'evil.example:1234');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).servers).toEqual([{ url: `${ctx.gw.url}/v1` }]);
    expect(res.text).not.toContain('evil.example');
  });

  test('is LEADCHAT_PUBLIC_URL when set', async () => {
    const gw = await startInProcess({ LEADCHAT_PUBLIC_URL: 'https://chat.example.com/' });
    try {
      const res = await openApiFor(gw, 'evil.example:1234');
      expect(JSON.parse(res.text).servers).toEqual([{ url: 'https://chat.example.com/v1' }]);
    } finally {
      await gw.stop();
      removeDir(gw.dataDir);
    }
  });
});

test('names every route with its methods', () => {
  const documented = Object.fromEntries(
    Object.entries(doc.paths).map(([p, ops]) => [p, Object.keys(ops as object).sort()]),
  );
  expect(documented).toEqual(ROUTES);
});

test('the methods documented for each path are exactly the ones the server allows', async () => {
  for (const [path, methods] of Object.entries(doc.paths as Record<string, object>)) {
    const concrete = `/v1${path.replace(/\{\w+\}/g, 'x1')}`;
    const res = await api(ctx.gw, account, 'OPTIONS', concrete);
    expect({ path, status: res.status }).toEqual({ path, status: 204 });
    const allow = String(res.headers.allow)
      .split(/,\s*/)
      .filter((m) => m !== 'HEAD' && m !== 'OPTIONS')
      .map((m) => m.toLowerCase())
      .sort();
    expect({ path, allow }).toEqual({ path, allow: Object.keys(methods).sort() });
  }
});

test('every operation is well formed: path parameters, responses, security, request bodies', () => {
  const schemes = Object.keys(doc.components.securitySchemes);
  expect(schemes.sort()).toEqual(['apiKeyHeader', 'apiKeyQuery', 'bearer']);
  expect(doc.components.securitySchemes.apiKeyHeader).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  expect(doc.components.securitySchemes.apiKeyQuery).toEqual({ type: 'apiKey', in: 'query', name: 'apiKey' });
  expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });

  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries(ops)) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, summary: typeof op.summary }).toEqual({ where, summary: 'string' });
      const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      expect({ where, declared }).toEqual({ where, declared: params });
      expect(Object.keys(op.responses).some((s) => /^2\d\d$/.test(s))).toBe(true);
      for (const requirement of op.security)
        for (const name of Object.keys(requirement)) expect(schemes).toContain(name);
      for (const ref of JSON.stringify(op).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g))
        expect(doc.components.schemas).toHaveProperty(ref[1]!);
      if (method === 'post' || method === 'put' || method === 'patch') {
        const bodyless = [
          '/settings/webhook-secret',
          '/settings/webhook-test',
          '/api-key',
          '/messages/{id}/retry',
          '/conversations/{id}/read',
          '/conversations/retry-failed',
          '/conversations/{id}/retry-failed',
          '/members/{id}/invite',
          '/campaigns/{id}/reach-existing',
          '/campaigns/{id}/openings/retry-failed',
          '/webhooks/{id}/enable',
        ].includes(path);
        if (!bodyless)
          expect({ where, schema: op.requestBody?.content?.['application/json']?.schema?.type }).toEqual({
            where,
            schema: 'object',
          });
      }
    }
  }
});

test('the credit grant documents the x-api-key header as its only way of authenticating', () => {
  expect(doc.paths['/subaccounts/credits'].post.security).toEqual([{ apiKeyHeader: [] }]);
  expect(doc.paths['/contacts'].post.security).toEqual(
    expect.arrayContaining([{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }]),
  );
});

test('request schemas are the ones the routes validate with', () => {
  const contact = doc.paths['/contacts'].post.requestBody.content['application/json'].schema;
  expect(Object.keys(contact.properties)).toEqual(
    expect.arrayContaining(['firstName', 'first_name', 'lastName', 'last_name', 'phone', 'phone_number', 'email']),
  );
  const lookup = doc.paths['/contacts'].get.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name);
  // A lookup by phone or email, or a search (q) paged like every list.
  expect(lookup.sort()).toEqual(['cursor', 'email', 'limit', 'phoneNumber', 'q']);
  const listAdd = doc.paths['/lists/{listId}/contacts'].post.requestBody.content['application/json'].schema;
  expect(Object.keys(listAdd.properties).sort()).toEqual(['contactId', 'contact_id', 'delay']);
  const inbound = doc.paths['/incoming_custom_channel_message'].post.requestBody.content['application/json'].schema;
  expect(inbound.required).toContain('customData');
  expect(inbound.properties.customData.required).toEqual(expect.arrayContaining(['fromId', 'toId', 'body']));
  expect(inbound.properties.messageType.enum).toEqual(['text', 'reaction']);
  expect(JSON.stringify(inbound.properties.customData.properties.mediaUrl)).toContain('"pattern":"^(?:https?|data):"');
  const send = doc.paths['/send_custom_channel_message'].post.requestBody.content['application/json'].schema;
  expect(send.properties.customData.required).toEqual(expect.arrayContaining(['fromId', 'customChannel', 'body']));
  const grant = doc.paths['/subaccounts/credits'].post.requestBody.content['application/json'].schema;
  expect(grant.required).toEqual(expect.arrayContaining(['email', 'amount']));
  expect(grant.properties.amount.type).toBe('number');
});

describe('credit amounts', () => {
  const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;

  test('are documented to the hundredth, from 0.01, in words rather than multipleOf', () => {
    const hundredths = expect.objectContaining({
      type: 'number',
      minimum: 0.01,
      description: expect.stringMatching(/at most two decimals.*0\.01/),
    });
    expect(body('/subaccounts/credits', 'post').properties.amount).toEqual(hundredths);
    expect(body('/subaccounts/auto-recharge', 'put').properties).toMatchObject({
      threshold: hundredths,
      amount: hundredths,
    });
    // A binary float is rarely an exact multiple of 0.01 (19.99 / 0.01 = 1998.9999999999998): validators would refuse it.
    expect(JSON.stringify(doc)).not.toContain('multipleOf');
  });

  test('19.99 passes a standard validator of the document, and the gateway grants it; 19.999 it refuses', async () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const validGrant = ajv.compile({ ...body('/subaccounts/credits', 'post'), components: doc.components });
    const validRule = ajv.compile({ ...body('/subaccounts/auto-recharge', 'put'), components: doc.components });
    expect(validGrant({ email: 'sub@example.com', amount: 19.99 })).toBe(true);
    expect(validRule({ email: 'sub@example.com', threshold: 0.07, amount: 19.99 })).toBe(true);

    const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
    const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
    const granted = await api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
      body: { email: sub.email, amount: 19.99 },
    });
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ credits_added: 19.99, new_balance: 19.99 });
    const rule = await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
      body: { email: sub.email, threshold: 0.07, amount: 19.99 },
    });
    expect(rule.body).toMatchObject({ autoRecharge: { threshold: 0.07, amount: 19.99 } });
    const tooFine = await api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
      body: { email: sub.email, amount: 19.999 },
    });
    expectApiError(tooFine, 400, 'VALIDATION_ERROR');
    expect(tooFine.body.error.message).toBe('amount: must be a whole number of hundredths (at most 2 decimal places)');
  });
});

test('what the request checks refuse is documented: language tags, CSV rows, UTF-8 bodies, repeated query parameters', () => {
  const body = (path: string, method: string) =>
    doc.paths[path][method].requestBody.content['application/json'].schema.properties;
  expect(body('/campaigns', 'post').language.description).toMatch(/BCP 47/);
  expect(body('/campaigns/{id}', 'patch').language.description).toMatch(/BCP 47/);
  expect(body('/lists/{listId}/imports', 'post').csv.description).toMatch(/WRONG_FIELD_COUNT/);
  expect(doc.info.description).toMatch(/UTF-8/);
  expect(doc.info.description).toMatch(/once/);
});

test('error responses document both shapes: plain on the incoming endpoint, {code,message} elsewhere', () => {
  expect(
    doc.paths['/incoming_custom_channel_message'].post.responses['400'].content['application/json'].schema.$ref,
  ).toBe('#/components/schemas/PlainError');
  expect(doc.components.schemas.PlainError).toMatchObject({
    properties: { error: { type: 'string' } },
    required: ['error'],
  });
  const error = doc.paths['/contacts'].post.responses['400'].content['application/json'].schema;
  expect(error.required).toEqual(['error']);
  expect(error.properties.error.required).toEqual(['code', 'message']);
  expect(Object.keys(error.properties.error.properties)).toEqual(['code', 'message', 'fields']);
  expect(doc.components.schemas.FieldProblems.items.required).toEqual(['field', 'code', 'message']);
});

test('every operation has a unique operationId, a tag the document lists, a description, and no catch-all answer', () => {
  const tags = doc.tags.map((t: { name: string }) => t.name);
  const ids: string[] = [];
  for (const ops of Object.values(doc.paths as Record<string, Record<string, any>>)) {
    for (const op of Object.values(ops)) {
      ids.push(op.operationId);
      expect(op.tags.every((t: string) => tags.includes(t))).toBe(true);
      expect(op.description.length).toBeGreaterThan(0);
      expect(op.responses.default).toBeUndefined();
    }
  }
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toHaveLength(99);
});

test('each error status lists the codes its operation can answer; the headers of limits and retries are described', () => {
  const responses = (path: string, method: string) => doc.paths[path][method].responses;
  const codes = (path: string, method: string, status: number) =>
    responses(path, method)[status].content['application/json'].schema.properties.error.properties.code.enum;
  // Of every operation: authentication, rate limit, the store; of a body: its format; of an agent's refusal: its role.
  expect(codes('/contacts/{id}', 'get', 401)).toEqual(['UNAUTHORIZED']);
  expect(codes('/contacts/{id}', 'get', 404)).toEqual(['CONTACT_NOT_FOUND']);
  expect(codes('/contacts', 'post', 400)).toEqual(
    expect.arrayContaining(['INVALID_JSON', 'INVALID_PHONE', 'VALIDATION_ERROR']),
  );
  expect(codes('/contacts', 'post', 409)).toEqual(expect.arrayContaining(['EXTERNAL_ID_TAKEN']));
  expect(responses('/contacts/{id}', 'get')['413']).toBeUndefined();
  expect(codes('/settings', 'put', 403)).toEqual(expect.arrayContaining(['FORBIDDEN']));
  // A console read that carries a CSRF token not its session's (someone else signed the browser in since).
  expect(codes('/contacts/{id}', 'get', 403)).toEqual(['CSRF_TOKEN_INVALID']);
  expect(codes('/subaccounts/credits', 'post', 422)).toEqual(['IDEMPOTENCY_KEY_REUSED']);
  expect(codes('/campaigns/{id}/reach-existing', 'post', 409)).toEqual(
    expect.arrayContaining(['CAMPAIGN_NOT_LIVE', 'CAMPAIGN_WITHOUT_LIST']),
  );
  expect(Object.keys(responses('/contacts/{id}', 'get')['429'].headers)).toEqual(
    expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy']),
  );
  expect(Object.keys(responses('/contacts/{id}', 'get')['503'].headers)).toEqual([
    'Retry-After',
    'RateLimit',
    'RateLimit-Policy',
  ]);
  expect(Object.keys(responses('/contacts/{id}', 'get')['200'].headers)).toEqual(['RateLimit', 'RateLimit-Policy']);
  expect(Object.keys(responses('/lists/{listId}/imports', 'post')['202'].headers)).toContain('Location');
  expect(doc.paths['/subaccounts/credits'].post.parameters).toEqual(
    expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]),
  );
});

describe("the rate limit's headers are declared on exactly the answers that carry them", () => {
  const headers = (path: string, method: string, status: number) =>
    doc.paths[path][method].responses[status].headers ?? {};
  const required = (path: string, method: string, status: number) =>
    Object.fromEntries(
      Object.entries(headers(path, method, status)).map(([name, h]: [string, any]) => [name, h.required ?? false]),
    );

  test('every success and every error given after the count: required', () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const status of Object.keys(op.responses).filter((s) => /^(2\d\d|404|409|410|412|413|415|422)$/.test(s))) {
          expect({ where: `${method} ${path} ${status}`, ...required(path, method, Number(status)) }).toMatchObject({
            RateLimit: true,
            'RateLimit-Policy': true,
          });
        }
      }
    }
  });

  test('what authentication refuses, before the count: none; a status given before and after: declared, not required', () => {
    expect(headers('/contacts/{id}', 'get', 401)).toEqual({});
    expect(required('/subaccounts/credits', 'post', 401)).toEqual({ RateLimit: false, 'RateLimit-Policy': false });
    expect(headers('/subaccounts/credits', 'post', 401).RateLimit.description).toMatch(/UNAUTHORIZED/);
    expect(required('/settings', 'put', 403)).toEqual({ RateLimit: false, 'RateLimit-Policy': false });
    expect(required('/contacts', 'post', 400)).toEqual({ RateLimit: false, 'RateLimit-Policy': false });
    expect(required('/contacts/{id}', 'get', 429)).toEqual({
      'Retry-After': true,
      RateLimit: false,
      'RateLimit-Policy': false,
    });
    expect(headers('/contacts/{id}', 'get', 431)).toEqual({});
  });

  test('a counted 404 carries them, a 401 none, and the contract check holds both to the document', async () => {
    const missing = await api(ctx.gw, account, 'GET', 'contacts/ct_missing');
    expectApiError(missing, 404, 'CONTACT_NOT_FOUND');
    expect(missing.headers.ratelimit).toMatch(/^"per-key"; r=\d+; t=\d+$/);
    expect(missing.headers['ratelimit-policy']).toMatch(/^"per-key"; q=\d+; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    const wrongKey = await api(ctx.gw, { apiKey: 'lc_wrong' }, 'GET', 'contacts/ct_missing');
    expectApiError(wrongKey, 401, 'UNAUTHORIZED');
    expect(wrongKey.headers.ratelimit).toBeUndefined();
    const bearer = await api(ctx.gw, account, 'POST', 'subaccounts/credits', {
      keyIn: 'bearer',
      body: { email: 'sub@example.com', amount: 1 },
    });
    expectApiError(bearer, 401, 'UNAUTHORIZED');
    expect(bearer.headers.ratelimit).toMatch(/^"per-key"/);
  });
});

test('each success has its body: 200 and 201 of a contact, a page, no content on 204', () => {
  const success = (path: string, method: string, status: number) => doc.paths[path][method].responses[status];
  expect(success('/contacts', 'post', 201).content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/Contact',
  });
  expect(success('/contacts', 'post', 200).content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/Contact',
  });
  expect(
    Object.keys(success('/lists/{listId}/contacts', 'post', 200).content['application/json'].schema.properties),
  ).toEqual(['success', 'listId', 'contactId', 'added']);
  expect(success('/webhooks/{id}', 'delete', 204).content).toBeUndefined();
  expect(doc.components.schemas.Contact.required).toEqual(
    expect.arrayContaining(['id', 'phone', 'email', 'createdAt']),
  );
});

test('a media file is described read in parts: Range taken, 206 with Content-Range, 416 naming the size', () => {
  const op = doc.paths['/media/{id}'].get;
  expect(op.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name)).toEqual(['Range', 'If-Range']);
  expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '206', '416']));
  expect(op.responses['206'].content).toEqual({ '*/*': { schema: {} } });
  expect(Object.keys(op.responses['206'].headers)).toEqual(expect.arrayContaining(['Accept-Ranges', 'Content-Range']));
  expect(op.responses['416'].headers['Content-Range']).toEqual(expect.objectContaining({ required: true }));
  expect(op.responses['416'].content['application/json'].schema.properties.error.properties.code.enum).toEqual([
    'RANGE_NOT_SATISFIABLE',
  ]);
});

test("a list's export is described as a CSV file to save, with its name in Content-Disposition, for owner and admins", () => {
  const op = doc.paths['/lists/{listId}/export'].get;
  expect(op.responses['200'].content).toEqual({ 'text/csv': { schema: { type: 'string' } } });
  expect(Object.keys(op.responses['200'].headers)).toContain('Content-Disposition');
  expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['403', '404']));
  expect(op.responses['404'].content['application/json'].schema.properties.error.properties.code.enum).toEqual([
    'LIST_NOT_FOUND',
  ]);
});

test('is served without a key, and the same with one', async () => {
  const withKey = await api(ctx.gw, account, 'GET', 'openapi.json');
  expect(withKey.status).toBe(200);
  expect(withKey.body).toEqual(doc);
});

test("the incoming endpoint's schema requires what the server requires, and its example is accepted as it stands", async () => {
  const { schema, example } =
    doc.paths['/incoming_custom_channel_message'].post.requestBody.content['application/json'];
  const customData = schema.properties.customData;
  expect(customData.required.sort()).toEqual(['body', 'fromId', 'toId']);
  expect(customData.anyOf).toEqual([{ required: ['messageSid'] }, { required: ['id'] }]);
  const stored = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: example });
  expect(stored.status).toBe(200);
  const { messageSid: _sid, ...withoutSid } = example.customData;
  expect(
    (await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: { customData: withoutSid } }))
      .status,
  ).toBe(400);
});

describe('webhooks: what the gateway posts is what the document describes', () => {
  const subscribable = () =>
    doc.paths['/webhooks'].post.requestBody.content['application/json'].schema.properties.events.items.enum as string[];

  test("every event a subscription takes, and the test event, is a signed POST with its payload's schema", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...subscribable(), 'test'].sort());
    for (const [name, item] of Object.entries(doc.webhooks as Record<string, any>)) {
      const post = item.post;
      expect({ name, summary: typeof post.summary, tags: post.tags }).toEqual({
        name,
        summary: 'string',
        tags: ['Webhooks'],
      });
      expect(post.parameters.map((p: any) => [p.name, p.in, p.required])).toEqual([
        ['webhook-event', 'header', true],
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      expect(post.parameters[0].schema.const).toBe(name);
      const ref = post.requestBody.content['application/json'].schema.$ref as string;
      expect(doc.components.schemas).toHaveProperty(ref.replace('#/components/schemas/', ''));
      expect(Object.keys(post.responses)).toEqual(['2XX', '4XX', '5XX']);
    }
    // The spec's reply payload (§2.6), with no type: the header names it.
    expect(doc.components.schemas.ReplyEvent.required).toEqual([
      'contactId',
      'messageId',
      'userId',
      'body',
      'toId',
      'channel',
    ]);
    expect(doc.components.schemas.AutoRechargeEvent.required).toContain('idempotency_key');
  });

  test("a receiver written from the document learns what a 410 Gone and a redirect do to a subscription's deliveries", () => {
    for (const [name, item] of Object.entries(doc.webhooks as Record<string, any>)) {
      if (name === 'test') continue;
      const { description, responses } = item.post;
      // A 410 stops every event to the subscription until it is enabled, not this delivery alone.
      expect({ name, gone: responses['4XX'].description }).toEqual({
        name,
        gone: expect.stringContaining('410 Gone to a subscription disables it'),
      });
      expect({ name, redirect: description }).toEqual({
        name,
        redirect: expect.stringContaining('Redirects are not followed'),
      });
    }
  });

  test('a real delivery of each event, to a subscription and to the Custom Channel Webhook URL, is what its schema says', async () => {
    const hook = await Receiver.start();
    const completion = (content: string) => ({
      id: 'c1',
      object: 'chat.completion',
      model: 'm',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
    });
    const llm = await Receiver.start(() => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(completion('Tuesday at 10 it is: you are booked. [GOAL_REACHED]')),
    }));
    try {
      const owner = await createAccount(ctx.gw);
      expect(
        (await api(ctx.gw, owner, 'POST', 'webhooks', { body: { url: hook.url, events: subscribable() } })).status,
      ).toBe(201);
      expect(
        (await api(ctx.gw, owner, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } })).status,
      ).toBe(200);
      const bot = await api(ctx.gw, owner, 'PUT', 'settings/bot', {
        body: { provider: 'openai', openai: { baseUrl: `${new URL(llm.url).origin}/v1`, model: 'm', apiKey: null } },
      });
      expect(bot.status).toBe(200);
      const list = await api(ctx.gw, owner, 'POST', 'lists', { body: { name: 'Visitors' } });
      const campaign = await api(ctx.gw, owner, 'POST', 'campaigns', {
        body: {
          name: 'Visits',
          listId: list.body.id,
          channel: 'custom',
          customChannel: 'webchat',
          openingMessage: 'Hi {{first_name}}!',
          triggerOnNewContacts: false,
          status: 'live',
          bot: { goal: 'Book a visit' },
        },
      });
      expect(campaign.status).toBe(201);
      const write = async (messageSid: string, body: string) => {
        const res = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
          body: {
            customData: {
              messageSid,
              fromId: 'visitor-77',
              toId: 'acme',
              body,
              channel: 'webchat',
              campaignId: campaign.body.id,
              firstName: 'Noah',
            },
          },
        });
        expect(res.status).toBe(200);
        await untilIdle(ctx.gw);
      };
      // message_received, the bot's reply (reply) reaching the goal (goal_reached); a person asked for (handoff).
      await write('visit-1', 'Can I book a visit on Tuesday?');
      await write('visit-2', 'Can I talk to a human, please?');
      // Nobody answers for 15 minutes: handoff_waiting.
      await advanceClock(ctx.gw, '15m');
      await untilIdle(ctx.gw);
      const contactId = hook.requests.find((r) => r.body?.type === 'message_received')!.body.contactId as string;
      // A team member's reply names its author; STOP opts the contact out.
      expect(
        (
          await api(ctx.gw, owner, 'POST', `contacts/${contactId}/messages`, {
            body: { body: 'See you Tuesday at 10.' },
          })
        ).status,
      ).toBe(201);
      // Snoozed once answered, the contact's STOP wakes it: snooze_ended.
      const conversationId = hook.requests.find((r) => r.body?.type === 'handoff')!.body.conversationId as string;
      const until = new Date(clockOf(ctx.gw) + 86_400_000).toISOString();
      expect(
        (await api(ctx.gw, owner, 'POST', `conversations/${conversationId}/snooze`, { body: { until } })).status,
      ).toBe(200);
      // Labelled "Demo booked": conversation_labeled.
      expect(
        (
          await api(ctx.gw, owner, 'POST', `conversations/${conversationId}/labels`, {
            body: { labels: ['Demo booked'] },
          })
        ).status,
      ).toBe(200);
      await write('visit-3', 'STOP');
      expect((await api(ctx.gw, owner, 'POST', 'settings/webhook-test')).body).toMatchObject({ ok: true });

      // A message no receiver takes fails for good: delivery_failed.
      const unheard = await createAccount(ctx.gw);
      await api(ctx.gw, unheard, 'POST', 'webhooks', { body: { url: hook.url, events: ['delivery_failed'] } });
      const sent = await api(ctx.gw, unheard, 'POST', 'send_custom_channel_message', {
        body: { customData: { fromId: 'visitor-88', customChannel: 'webchat', body: 'Your order shipped.' } },
      });
      expect(sent.status).toBe(200);

      // A sub-account below its auto-recharge threshold: its agency's auto_recharge.
      const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
      const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
      await api(ctx.gw, agency, 'POST', 'webhooks', { body: { url: hook.url, events: ['auto_recharge'] } });
      expect(
        (
          await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
            body: { email: sub.email, threshold: 10, amount: 19.99 },
          })
        ).status,
      ).toBe(200);
      await untilIdle(ctx.gw);

      const seen = hook.requests.map((received) => checkDelivery(received));
      expect(new Set(seen)).toEqual(new Set(Object.keys(doc.webhooks)));
      const replies = hook.requests.filter((r) => r.headers['webhook-event'] === 'reply');
      // Each reply twice: to the subscription and to the Custom Channel Webhook URL; the team's with its author.
      expect(replies.find((r) => r.body.body === 'See you Tuesday at 10.')!.body).toEqual(
        expect.objectContaining({ authorId: expect.any(String), channel: 'webchat', toId: 'visitor-77' }),
      );
      const body = (event: string) => hook.requests.find((r) => r.headers['webhook-event'] === event)!.body;
      expect(body('goal_reached')).toMatchObject({ contactId, campaignId: campaign.body.id, goal: 'Book a visit' });
      expect(body('handoff')).toMatchObject({
        contactId,
        reason: 'contact_asked',
        channel: 'custom',
        customChannel: 'webchat',
      });
      expect(body('opt_out')).toMatchObject({ contactId, channel: 'custom:webchat', source: 'contact', body: 'STOP' });
      expect(body('delivery_failed')).toMatchObject({ messageId: sent.body.messageId, error: expect.any(String) });
      expect(body('auto_recharge')).toMatchObject({ sub_account_id: sub.id, threshold: 10, amount: 19.99 });
    } finally {
      await hook.close();
      await llm.close();
    }
  });

  test('a delivery the document does not describe is refused by the check', () => {
    const headers = {
      'webhook-event': 'opt_out',
      'webhook-id': 'dlv_1',
      'webhook-timestamp': '1764640000',
      'webhook-signature': 'v1,abc=',
    };
    const optOut = {
      type: 'opt_out',
      occurredAt: '2026-12-02T03:00:00.000Z',
      contactId: 'ct_1',
      channel: 'sms',
      source: 'contact',
      body: 'STOP',
    };
    expect(checkDelivery({ headers, body: optOut })).toBe('opt_out');
    expect(() => checkDelivery({ headers, body: { ...optOut, reason: 'extra' } })).toThrow(/additional/);
    expect(() => checkDelivery({ headers, body: { ...optOut, source: 'team' } })).toThrow(/allowed values/);
    expect(() =>
      checkDelivery({ headers: { ...headers, 'webhook-event': 'campaign_finished' }, body: optOut }),
    ).toThrow(/do not describe/);
    const { 'webhook-signature': _s, ...unsigned } = headers;
    expect(() => checkDelivery({ headers: unsigned, body: optOut })).toThrow(/without the webhook-signature header/);
  });
});
