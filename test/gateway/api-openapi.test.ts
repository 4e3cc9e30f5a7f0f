import https from 'node:https';
import { removeDir, startGateway } from '../helpers/gateway';
import { api, createAccount, request, useGateway, type TestAccount, type TestGateway } from './api-support';

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
  '/lists/{listId}': ['get'],
  '/lists/{listId}/contacts': ['get', 'post'],
  '/lists/{listId}/contacts/{contactId}': ['delete'],
  '/lists/{listId}/imports': ['get', 'post'],
  '/imports/{id}': ['get'],
  '/campaigns': ['get', 'post'],
  '/campaigns/{id}': ['get', 'patch'],
  '/campaigns/{id}/preview': ['get'],
  '/campaigns/{id}/unanswered': ['get'],
  '/campaigns/{id}/bot/test': ['post'],
  '/campaigns/{id}/reach-existing': ['post'],
  '/campaigns/{id}/funnel': ['get'],
  '/contacts/{id}/bot': ['post'],
  '/conversations': ['get'],
  '/conversations/{id}': ['get'],
  '/conversations/{id}/assign': ['post'],
  '/conversations/{id}/read': ['post'],
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
  '/members/{id}/invite': ['post'],
  '/subaccounts/credits': ['post'],
  '/subaccounts/auto-recharge': ['put'],
  '/credits': ['get'],
  '/subaccounts': ['get'],
  '/subaccounts/{id}/credits': ['get'],
  '/settings': ['get', 'put'],
  '/settings/bot': ['get', 'put'],
  '/settings/webhook-secret': ['post'],
  '/settings/webhook-test': ['post'],
  '/api-key': ['post'],
  '/webhooks': ['get', 'post'],
  '/webhooks/{id}': ['delete', 'get'],
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
    const req = https.request(new URL('/v1/openapi.json', gw.url), { headers: { host }, ca: gw.ca, servername: 'localhost', agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
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
    const gw = await startGateway({ LEADCHAT_PUBLIC_URL: 'https://chat.example.com/' });
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
  const documented = Object.fromEntries(Object.entries(doc.paths).map(([p, ops]) => [p, Object.keys(ops as object).sort()]));
  expect(documented).toEqual(ROUTES);
});

test('the methods documented for each path are exactly the ones the server allows', async () => {
  for (const [path, methods] of Object.entries(doc.paths as Record<string, object>)) {
    const concrete = `/v1${path.replace(/\{\w+\}/g, 'x1')}`;
    const res = await api(ctx.gw, account, 'OPTIONS', concrete);
    expect({ path, status: res.status }).toEqual({ path, status: 204 });
    const allow = String(res.headers.allow).split(/,\s*/).filter((m) => m !== 'HEAD' && m !== 'OPTIONS').map((m) => m.toLowerCase()).sort();
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
      for (const requirement of op.security) for (const name of Object.keys(requirement)) expect(schemes).toContain(name);
      for (const ref of JSON.stringify(op).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)) expect(doc.components.schemas).toHaveProperty(ref[1]!);
      if (method === 'post' || method === 'put' || method === 'patch') {
        const bodyless = ['/settings/webhook-secret', '/settings/webhook-test', '/api-key', '/messages/{id}/retry', '/conversations/{id}/read', '/conversations/retry-failed', '/conversations/{id}/retry-failed', '/members/{id}/invite', '/campaigns/{id}/reach-existing'].includes(path);
        if (!bodyless) expect({ where, schema: op.requestBody?.content?.['application/json']?.schema?.type }).toEqual({ where, schema: 'object' });
      }
    }
  }
});

test('the credit grant documents the x-api-key header as its only way of authenticating', () => {
  expect(doc.paths['/subaccounts/credits'].post.security).toEqual([{ apiKeyHeader: [] }]);
  expect(doc.paths['/contacts'].post.security).toEqual(expect.arrayContaining([{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }]));
});

test('request schemas are the ones the routes validate with', () => {
  const contact = doc.paths['/contacts'].post.requestBody.content['application/json'].schema;
  expect(Object.keys(contact.properties)).toEqual(expect.arrayContaining(['firstName', 'first_name', 'lastName', 'last_name', 'phone', 'phone_number', 'email']));
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

test('credit amounts are documented to the hundredth, from 0.01', () => {
  const hundredths = expect.objectContaining({ type: 'number', minimum: 0.01, multipleOf: 0.01, description: expect.stringContaining('0.01') });
  const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema.properties;
  expect(body('/subaccounts/credits', 'post').amount).toEqual(hundredths);
  expect(body('/subaccounts/auto-recharge', 'put')).toMatchObject({ threshold: hundredths, amount: hundredths });
});

test('what the request checks refuse is documented: language tags, CSV rows, UTF-8 bodies, repeated query parameters', () => {
  const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema.properties;
  expect(body('/campaigns', 'post').language.description).toMatch(/BCP 47/);
  expect(body('/campaigns/{id}', 'patch').language.description).toMatch(/BCP 47/);
  expect(body('/lists/{listId}/imports', 'post').csv.description).toMatch(/WRONG_FIELD_COUNT/);
  expect(doc.info.description).toMatch(/UTF-8/);
  expect(doc.info.description).toMatch(/once/);
});

test('error responses document both shapes: plain on the incoming endpoint, {code,message} elsewhere', () => {
  expect(doc.paths['/incoming_custom_channel_message'].post.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/PlainError');
  expect(doc.components.schemas.PlainError).toMatchObject({ properties: { error: { type: 'string' } }, required: ['error'] });
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
  expect(ids).toHaveLength(71);
});

test('each error status lists the codes its operation can answer; the headers of limits and retries are described', () => {
  const responses = (path: string, method: string) => doc.paths[path][method].responses;
  const codes = (path: string, method: string, status: number) => responses(path, method)[status].content['application/json'].schema.properties.error.properties.code.enum;
  // Of every operation: authentication, rate limit, the store; of a body: its format; of an agent's refusal: its role.
  expect(codes('/contacts/{id}', 'get', 401)).toEqual(['UNAUTHORIZED']);
  expect(codes('/contacts/{id}', 'get', 404)).toEqual(['CONTACT_NOT_FOUND']);
  expect(codes('/contacts', 'post', 400)).toEqual(expect.arrayContaining(['INVALID_JSON', 'INVALID_PHONE', 'VALIDATION_ERROR']));
  expect(codes('/contacts', 'post', 409)).toEqual(expect.arrayContaining(['EXTERNAL_ID_TAKEN']));
  expect(responses('/contacts/{id}', 'get')['413']).toBeUndefined();
  expect(codes('/settings', 'put', 403)).toEqual(expect.arrayContaining(['FORBIDDEN']));
  expect(responses('/contacts/{id}', 'get')['403']).toBeUndefined();
  expect(codes('/subaccounts/credits', 'post', 422)).toEqual(['IDEMPOTENCY_KEY_REUSED']);
  expect(codes('/campaigns/{id}/reach-existing', 'post', 409)).toEqual(expect.arrayContaining(['CAMPAIGN_NOT_LIVE', 'CAMPAIGN_WITHOUT_LIST']));
  expect(Object.keys(responses('/contacts/{id}', 'get')['429'].headers)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy']));
  expect(Object.keys(responses('/contacts/{id}', 'get')['503'].headers)).toEqual(['Retry-After']);
  expect(Object.keys(responses('/contacts/{id}', 'get')['200'].headers)).toEqual(['RateLimit', 'RateLimit-Policy']);
  expect(Object.keys(responses('/lists/{listId}/imports', 'post')['202'].headers)).toContain('Location');
  expect(doc.paths['/subaccounts/credits'].post.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]));
});

test('each success has its body: 200 and 201 of a contact, a page, no content on 204', () => {
  const success = (path: string, method: string, status: number) => doc.paths[path][method].responses[status];
  expect(success('/contacts', 'post', 201).content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Contact' });
  expect(success('/contacts', 'post', 200).content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Contact' });
  expect(Object.keys(success('/lists/{listId}/contacts', 'post', 200).content['application/json'].schema.properties)).toEqual(['success', 'listId', 'contactId', 'added']);
  expect(success('/webhooks/{id}', 'delete', 204).content).toBeUndefined();
  expect(doc.components.schemas.Contact.required).toEqual(expect.arrayContaining(['id', 'phone', 'email', 'createdAt']));
});

test('is served without a key, and the same with one', async () => {
  const withKey = await api(ctx.gw, account, 'GET', 'openapi.json');
  expect(withKey.status).toBe(200);
  expect(withKey.body).toEqual(doc);
});

test("the incoming endpoint's schema requires what the server requires, and its example is accepted as it stands", async () => {
  const { schema, example } = doc.paths['/incoming_custom_channel_message'].post.requestBody.content['application/json'];
  const customData = schema.properties.customData;
  expect(customData.required.sort()).toEqual(['body', 'fromId', 'toId']);
  expect(customData.anyOf).toEqual([{ required: ['messageSid'] }, { required: ['id'] }]);
  const stored = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: example });
  expect(stored.status).toBe(200);
  const { messageSid: _sid, ...withoutSid } = example.customData;
  expect((await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: { customData: withoutSid } })).status).toBe(400);
});
