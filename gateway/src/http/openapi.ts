import { z } from 'zod';
import { MAX_PROBLEMS } from '../api-contract.js';
import { accessOf, type HttpMethod } from './access.js';
import { AUTH_FAILURE_WINDOW_MS, AUTH_FAILURES_PER_ADDRESS } from './middleware/auth-failures.js';
import { OPERATIONS, TAGS, type Operation } from './operations.js';
import { pageQuery } from './paging.js';

/**
 * The OpenAPI 3.1 document of /v1, generated from the operations table and the very schemas the routes validate
 * requests with and type their answers by (contract/), so the three cannot drift apart.
 */

type JsonSchema = Record<string, unknown>;
const COMPONENT = '#/components/schemas/';

/** Schemas with an id become components: `$defs` are lifted out and their references pointed there. */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};

  of(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const { $schema: _s, $defs, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [id, def] of Object.entries($defs ?? {})) this.schemas[id] = relinked(def);
    const top = relinked(json);
    const id = z.globalRegistry.get(schema)?.id;
    if (!id || top.$ref !== undefined) return top;
    this.schemas[id] = top;
    return { $ref: `${COMPONENT}${id}` };
  }
}

const relinked = (json: JsonSchema): JsonSchema =>
  JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', `"${COMPONENT}`)) as JsonSchema;

/** What a client should do with each error status, as the document says it. */
const ERROR_WORDS: Record<number, string> = {
  400: 'The request is not valid: error.fields names each problem',
  401: 'The API key is missing or wrong',
  403: 'The caller may not do this',
  404: 'Not found in this account',
  409: 'The request conflicts with the state of the account',
  410: 'Gone',
  413: 'The body is too large',
  415: 'The body is not UTF-8 JSON',
  422: 'The Idempotency-Key was used with another body',
  429: 'Too many requests: wait Retry-After seconds',
  431: 'The request line and headers are too large',
  503: 'The store is unavailable: wait Retry-After seconds',
};

const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });
const RATE_HEADERS = {
  RateLimit: header('What is left of the budget that counted this request: "<policy>"; r=<requests left>; t=<seconds to the reset>'),
  'RateLimit-Policy': header('The budget: "<policy>"; q=<requests>; w=<seconds>'),
};
const RETRY_AFTER = { 'Retry-After': header('Seconds to wait before trying again', { type: 'integer', minimum: 0 }) };
const SUCCESS_HEADERS = {
  Location: header('Where the created resource is read'),
  'Idempotent-Replayed': header('"true" when the answer is the first one given to this Idempotency-Key', { type: 'string', enum: ['true'] }),
};

/** The error codes an operation can answer, by status: its own, and those of every operation of its kind. */
function errorCodes(path: string, method: string, op: Operation): Map<number, Set<string>> {
  const codes = new Map<number, Set<string>>();
  const add = (status: number, ...list: string[]) => {
    const set = codes.get(status) ?? new Set<string>();
    for (const code of list) set.add(code);
    codes.set(status, set);
  };
  add(400, 'AMBIGUOUS_CREDENTIALS', 'VALIDATION_ERROR', 'HTTPS_REQUIRED');
  add(401, 'UNAUTHORIZED');
  add(431, 'HEADERS_TOO_LARGE');
  add(429, 'RATE_LIMITED');
  add(503, 'STORE_UNAVAILABLE');
  if (method !== 'get') {
    // A console session's change carries its CSRF token; the API key needs none.
    add(403, 'CSRF_TOKEN_INVALID');
    // A race on the same record lost again and again: retrying shows the record it met.
    add(409, 'CONFLICT');
    add(503, 'COMMIT_OUTCOME_UNKNOWN');
  }
  if (op.body) {
    add(400, 'INVALID_JSON', 'INVALID_ENCODING', 'UNREADABLE_BODY');
    add(413, 'PAYLOAD_TOO_LARGE');
    add(415, 'UNSUPPORTED_MEDIA_TYPE');
  }
  if (op.paged) add(400, 'INVALID_CURSOR');
  if (accessOf(`/v1${path.replace(/\{(\w+)\}/g, ':$1')}`, method.toUpperCase() as HttpMethod) === 'admins') add(403, 'FORBIDDEN');
  for (const [status, list] of Object.entries(op.errors ?? {})) add(Number(status), ...list);
  return codes;
}

function errorAnswer(status: number, codes: Set<string>, plain: boolean) {
  const schema = plain
    ? { $ref: `${COMPONENT}PlainError` }
    : {
      type: 'object',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: { type: 'string', enum: [...codes].sort() },
            message: { type: 'string', description: `Every problem of the request, joined by "; " (at most ${MAX_PROBLEMS})` },
            fields: { $ref: `${COMPONENT}FieldProblems` },
            ...(codes.has('CONTACT_EXISTS') ? { contactId: { type: 'string', description: 'On 409 CONTACT_EXISTS: the contact that holds the phone or email' } } : {}),
          },
          required: ['code', 'message'],
          additionalProperties: false,
        },
      },
      required: ['error'],
      additionalProperties: false,
    };
  const headers = status === 429 ? { ...RETRY_AFTER, ...RATE_HEADERS } : status === 503 ? RETRY_AFTER : undefined;
  return { description: `${ERROR_WORDS[status] ?? 'Error'}: ${[...codes].sort().join(', ')}`, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
}

function operation(components: Components, path: string, method: string, op: Operation) {
  const parameters: object[] = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const query = op.query ?? (op.paged ? pageQuery : undefined);
  if (query) {
    const q = components.of(query, 'input') as { properties?: Record<string, JsonSchema & { description?: string }>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      const { description, ...rest } = schema;
      parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, ...(description ? { description } : {}), schema: rest });
    }
  }
  if (op.takes?.includes('Idempotency-Key')) {
    parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, description: 'Makes the request safe to repeat: kept 24 hours', schema: { type: 'string', maxLength: 255 } });
  }
  const plain = path === '/incoming_custom_channel_message';
  const responses: Record<string, object> = {};
  for (const [status, answer] of Object.entries(op.answers)) {
    const headers = { ...RATE_HEADERS, ...Object.fromEntries((op.headers ?? []).map((h) => [h, SUCCESS_HEADERS[h]])) };
    const content =
      answer === null ? undefined : answer === 'file' ? { '*/*': { schema: {} } } : { 'application/json': { schema: components.of(answer, 'output') } };
    responses[status] = { description: status === '204' ? 'Done: no content' : 'Success', headers, ...(content ? { content } : {}) };
  }
  for (const [status, codes] of [...errorCodes(path, method, op)].sort(([a], [b]) => a - b)) responses[status] = errorAnswer(status, codes, plain);
  return {
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    description: op.description ?? `${op.summary}.`,
    security: op.keyInHeader ? [{ apiKeyHeader: [] }] : [{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: components.of(op.body, 'input'), ...(op.example ? { example: op.example } : {}) } } } }
      : {}),
    responses,
  };
}

const AUTHENTICATION =
  'Every request carries the account\'s API key in one of `x-api-key`, `Authorization: Bearer` or `?apiKey=` (the credit ' +
  'grant takes `x-api-key` only). A key given in two of them, even the same key twice, is 400 AMBIGUOUS_CREDENTIALS; a ' +
  `missing or wrong key is 401. After ${AUTH_FAILURES_PER_ADDRESS} failed authentications from one client address in ` +
  `${AUTH_FAILURE_WINDOW_MS / 60_000} minutes, each further failure from that address is 429 RATE_LIMITED with ` +
  'Retry-After (seconds) until that time has passed; a valid key from it is never refused for those failures. The key acts as the account\'s owner; a web ' +
  'console session acts as its member, and an agent is 403 FORBIDDEN on settings, channels, webhooks, members\' changes, ' +
  'campaign changes and agency credits.';

export function openApiDocument(serverUrl: string) {
  const components = new Components();
  const paths = Object.fromEntries(
    Object.entries(OPERATIONS).map(([path, methods]) => [
      path,
      Object.fromEntries(Object.entries(methods).map(([method, op]) => [method, operation(components, path, method, op!)])),
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'LeadChat API',
      version: '1',
      description:
        `${AUTHENTICATION} ` +
        'Request bodies are JSON in UTF-8: a body with bytes that are not UTF-8 is 400 INVALID_ENCODING, another charset 415. ' +
        'Each query parameter is given once, as a single value: one repeated (?limit=1&limit=2) or in brackets (limit[]=1) is 400 VALIDATION_ERROR naming it. ' +
        'Every answer of an operation counted by the rate limit carries RateLimit and RateLimit-Policy.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'LeadChat issues', url: 'https://github.com/leadchat/n8n-nodes-leadchat/issues' },
    },
    servers: [{ url: serverUrl }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'apiKey' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: {
        ...components.schemas,
        FieldProblems: {
          type: 'array',
          description: 'On a 400 about fields of the request: each problem with its field ("bot.faqs.4.answer", indexes from 0)',
          items: {
            type: 'object',
            properties: {
              field: { type: 'string' },
              code: { type: 'string', description: 'REQUIRED, TOO_LONG, TOO_SHORT, TOO_MANY, TOO_FEW, TOO_BIG, TOO_SMALL, INVALID, or a rule\'s own code such as INVALID_DURATION' },
              message: { type: 'string' },
              limit: { type: 'number', description: 'With TOO_* codes: the limit passed' },
            },
            required: ['field', 'code', 'message'],
            additionalProperties: false,
          },
        },
        PlainError: {
          type: 'object',
          description: 'The incoming-message endpoint\'s errors (spec §7)',
          properties: { error: { type: 'string' } },
          required: ['error'],
          additionalProperties: false,
        },
      },
    },
  };
}
