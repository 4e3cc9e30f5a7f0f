import { z } from 'zod';
import { MAX_PROBLEMS } from '../api-contract.js';
import { WEBHOOK_PAYLOADS, type WebhookName } from '../contract/events.js';
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
    const {
      $schema: _s,
      $defs,
      ...json
    } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
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
  412: 'If-Match did not hold: the record changed since that version was read',
  413: 'The body is too large',
  415: 'The body is not UTF-8 JSON',
  416: 'The Range asked for starts past the end of the file: Content-Range names its size',
  422: 'The Idempotency-Key was used with another body or path',
  429: 'Too many requests: wait Retry-After seconds',
  431: 'The request line and headers are too large',
  503: 'The store is unavailable: wait Retry-After seconds',
};

const header = (description: string, schema: JsonSchema = { type: 'string' }, required = false) => ({
  description,
  ...(required ? { required } : {}),
  schema,
});
const RATE_LIMIT =
  'What is left of the budget that counted this request: "<policy>"; r=<requests left>; t=<seconds to the reset>';
const RATE_POLICY = 'The budget: "<policy>"; q=<requests>; w=<seconds>';
/** The rate limit's headers, on every answer it counted; `when` says which, where not every answer of a status is. */
const rateHeaders = (when?: string) => ({
  RateLimit: header(when ? `${RATE_LIMIT}. ${when}` : RATE_LIMIT, undefined, !when),
  'RateLimit-Policy': header(when ? `${RATE_POLICY}. ${when}` : RATE_POLICY, undefined, !when),
});
const RETRY_AFTER = {
  'Retry-After': header('Seconds to wait before trying again', { type: 'integer', minimum: 0 }, true),
};

/**
 * The rate limit counts a request once it is authenticated (middleware/rate-limit.ts, after middleware/auth.ts),
 * and from then on every answer carries its headers, errors included. What is refused before, uncounted, carries
 * none: these codes always are, but for the credit grant's UNAUTHORIZED for a valid key given outside x-api-key,
 * which is given after (keyInHeaderOnly), counted.
 */
const BEFORE_THE_LIMIT = new Set([
  'HTTPS_REQUIRED',
  'AMBIGUOUS_CREDENTIALS',
  'UNAUTHORIZED',
  'CSRF_TOKEN_INVALID',
  'HEADERS_TOO_LARGE',
]);
/**
 * Codes given both before the limit and after it: too many failed authentications from an address, and the rate
 * limit's own RATE_LIMITED; the store away while the key is read, or later; a query parameter given twice, met
 * while the key is looked for in the query, or by the route.
 */
const ALSO_BEFORE_THE_LIMIT = new Set(['RATE_LIMITED', 'STORE_UNAVAILABLE', 'VALIDATION_ERROR']);

/** The rate limit's headers of an error status: required when every code is counted, described when some are. */
function rateHeadersOf(codes: Set<string>, op: Operation) {
  const counted = [...codes]
    .filter((code) => !BEFORE_THE_LIMIT.has(code) || (code === 'UNAUTHORIZED' && op.keyInHeader))
    .sort();
  if (counted.length === 0) return {};
  const uncounted = [...codes].some((code) => BEFORE_THE_LIMIT.has(code) || ALSO_BEFORE_THE_LIMIT.has(code));
  return rateHeaders(
    uncounted
      ? `Sent when the rate limit counted the request (${counted.join(', ')}); not when it was refused before, at authentication`
      : undefined,
  );
}
const SUCCESS_HEADERS = {
  Location: header('Where the created resource is read', undefined, true),
  'Idempotent-Replayed': header('"true" when the answer is the first one given to this Idempotency-Key', {
    type: 'string',
    enum: ['true'],
  }),
  ETag: header(
    'The version answered, as a strong entity tag: send it back as it came in If-Match to change only that version',
    { type: 'string', pattern: '^"[!#-~]*"$' },
    true,
  ),
  'Accept-Ranges': header('A range of bytes of the file can be asked for in Range', {
    type: 'string',
    enum: ['bytes'],
  }),
  'Content-Disposition': header(
    'A file to save, with its name: `filename` in ASCII (quoted unless it is a token), and `filename*` (RFC 6266) in UTF-8 when the name is not ASCII',
    { type: 'string', pattern: '^attachment; filename=("[ -~]*"|[!#$%&\'*+.^_`|~0-9A-Za-z-]+)' },
  ),
  'Content-Range': header('On 206: the bytes answered and the size of the whole file, `bytes <first>-<last>/<size>`', {
    type: 'string',
    pattern: '^bytes \\d+-\\d+/\\d+$',
  }),
};
/** The size a 416 names, so that the client asks again for a range within it. */
const UNSATISFIED_RANGE = {
  'Content-Range': header(
    'The size of the whole file, `bytes */<size>`',
    { type: 'string', pattern: '^bytes \\*/\\d+$' },
    true,
  ),
};

/** The request headers operations read (Operation.takes). */
const REQUEST_HEADERS = {
  'Idempotency-Key': {
    description: 'Makes the request safe to repeat: kept 24 hours',
    schema: { type: 'string', maxLength: 255 },
  },
  'If-Match': {
    description:
      'Changes only the version of this ETag (or of one of a list of them, separated by commas; * for any): another is 412 PRECONDITION_FAILED',
    schema: { type: 'string' },
  },
  Range: {
    description:
      'One range of bytes of the file, `bytes=<first>-<last>`, `bytes=<first>-` or `bytes=-<suffix length>`: answered 206 with those bytes',
    schema: { type: 'string' },
  },
  'If-Range': {
    description: 'A validator the file has none of: with it, Range is not followed and the whole file is answered',
    schema: { type: 'string' },
  },
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
  add(503, 'STORE_UNAVAILABLE', 'STORE_DAMAGED');
  // A console session's change carries its CSRF token, and so may its read; the API key needs none.
  add(403, 'CSRF_TOKEN_INVALID');
  if (method !== 'get') {
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
  // A path parameter holds what the caller wrote: %-escapes that do not decode to UTF-8 are refused.
  if (path.includes('{')) add(400, 'MALFORMED_PATH');
  if (accessOf(`/v1${path.replace(/\{(\w+)\}/g, ':$1')}`, method.toUpperCase() as HttpMethod) === 'admins')
    add(403, 'FORBIDDEN');
  for (const [status, list] of Object.entries(op.errors ?? {})) add(Number(status), ...list);
  return codes;
}

function errorAnswer(status: number, codes: Set<string>, op: Operation, plain: boolean) {
  const schema = plain
    ? { $ref: `${COMPONENT}PlainError` }
    : {
        type: 'object',
        properties: {
          error: {
            type: 'object',
            properties: {
              code: { type: 'string', enum: [...codes].sort() },
              message: {
                type: 'string',
                description: `Every problem of the request, joined by "; " (at most ${MAX_PROBLEMS})`,
              },
              fields: { $ref: `${COMPONENT}FieldProblems` },
              ...(codes.has('CONTACT_EXISTS')
                ? {
                    contactId: {
                      type: 'string',
                      description: 'On 409 CONTACT_EXISTS: the contact that holds the phone or email',
                    },
                  }
                : {}),
            },
            required: ['code', 'message'],
            additionalProperties: false,
          },
        },
        required: ['error'],
        additionalProperties: false,
      };
  const headers = {
    ...(status === 429 || status === 503 ? RETRY_AFTER : {}),
    ...(status === 416 ? UNSATISFIED_RANGE : {}),
    ...rateHeadersOf(codes, op),
  };
  return {
    description: `${ERROR_WORDS[status] ?? 'Error'}: ${[...codes].sort().join(', ')}`,
    ...(Object.keys(headers).length ? { headers } : {}),
    content: { 'application/json': { schema } },
  };
}

function operation(components: Components, path: string, method: string, op: Operation) {
  const parameters: object[] = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = op.query ?? (op.paged ? pageQuery : undefined);
  if (query) {
    const q = components.of(query, 'input') as {
      properties?: Record<string, JsonSchema & { description?: string }>;
      required?: string[];
    };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: 'query',
        required: q.required?.includes(name) ?? false,
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  for (const name of op.takes ?? []) parameters.push({ name, in: 'header', required: false, ...REQUEST_HEADERS[name] });
  const plain = path === '/incoming_custom_channel_message';
  const responses: Record<string, object> = {};
  for (const [status, answer] of Object.entries(op.answers)) {
    const headers = { ...rateHeaders(), ...Object.fromEntries((op.headers ?? []).map((h) => [h, SUCCESS_HEADERS[h]])) };
    const content =
      answer === null
        ? undefined
        : answer === 'file'
          ? { '*/*': { schema: {} } }
          : answer === 'csv'
            ? { 'text/csv': { schema: { type: 'string' } } }
            : { 'application/json': { schema: components.of(answer, 'output') } };
    responses[status] = {
      description:
        status === '204'
          ? 'Done: no content'
          : status === '206'
            ? 'Part of the file: the bytes Range asked for'
            : 'Success',
      headers,
      ...(content ? { content } : {}),
    };
  }
  for (const [status, codes] of [...errorCodes(path, method, op)].sort(([a], [b]) => a - b))
    responses[status] = errorAnswer(status, codes, op, plain);
  return {
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    description: op.description ?? `${op.summary}.`,
    security: op.keyInHeader ? [{ apiKeyHeader: [] }] : [{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: components.of(op.body, 'input'),
                ...(op.example ? { example: op.example } : {}),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** What a receiver's answer does to a delivery (jobs/deliver.ts), and to the one test event (jobs/webhook-test.ts). */
const RECEIVER_ANSWERS = {
  delivery: {
    '2XX': "Taken: the delivery is sent (and a reply's message with it)",
    '4XX':
      'Refused: the delivery fails at once, but a 408 or 429 is tried again (after Retry-After, when given). ' +
      'A 410 Gone to a subscription disables it: no event is posted to it, nor any retry, until POST /webhooks/{id}/enable ' +
      '(at the Custom Channel Webhook URL, it fails that reply only)',
    '5XX': 'Tried again on the LEADCHAT_WEBHOOK_RETRIES schedule (or after Retry-After); failed after the last attempt',
  },
  test: {
    '2XX': 'Passed: POST /settings/webhook-test answers ok: true',
    '4XX': 'Failed: POST /settings/webhook-test answers ok: false with the status; nothing is tried again',
    '5XX': 'Failed: POST /settings/webhook-test answers ok: false with the status; nothing is tried again',
  },
};

const camel = (name: string) => name.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());

/** One event as the receiver gets it: a signed POST (Standard Webhooks) whose body its schema in contract/events.ts gives. */
function webhook(components: Components, name: WebhookName) {
  const schema = WEBHOOK_PAYLOADS[name];
  const meta = z.globalRegistry.get(schema);
  const sent = (headerName: string, description: string, headerSchema: JsonSchema = { type: 'string' }) => ({
    name: headerName,
    in: 'header',
    required: true,
    description,
    schema: headerSchema,
  });
  return {
    post: {
      operationId: `${camel(name)}Event`,
      tags: ['Webhooks'],
      summary: meta?.title ?? name,
      description:
        `${meta?.description ?? ''} Posted signed to the receiver's URL, with webhook-event: ${name}. ` +
        'Redirects are not followed: a 3xx answer fails the delivery, as any other refusal does.',
      // The receiver asks no credential of the gateway: the signature headers prove the sender.
      security: [],
      parameters: [
        sent('webhook-event', "The event's name", { type: 'string', const: name }),
        sent('webhook-id', "The delivery's id: the same on every retry, so a receiver can tell a repeat"),
        sent('webhook-timestamp', 'When it was signed, in seconds since 1970; refuse one more than 5 minutes away', {
          type: 'string',
          pattern: '^\\d+$',
        }),
        sent(
          'webhook-signature',
          'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">, keyed with the base64 part of the whsec_ secret',
        ),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: components.of(schema, 'output') } } },
      responses: Object.fromEntries(
        Object.entries(RECEIVER_ANSWERS[name === 'test' ? 'test' : 'delivery']).map(([status, description]) => [
          status,
          { description },
        ]),
      ),
    },
  };
}

const AUTHENTICATION =
  "Every request carries the account's API key in one of `x-api-key`, `Authorization: Bearer` or `?apiKey=` (the credit " +
  'grant takes `x-api-key` only). A key given in two of them, or twice in one (two `x-api-key` or two `Authorization` ' +
  'headers), even the same key twice, is 400 AMBIGUOUS_CREDENTIALS; a ' +
  `missing or wrong key is 401. After ${AUTH_FAILURES_PER_ADDRESS} failed authentications from one client address in ` +
  `${AUTH_FAILURE_WINDOW_MS / 60_000} minutes, each further failure from that address is 429 RATE_LIMITED with ` +
  "Retry-After (seconds) until that time has passed; a valid key from it is never refused for those failures. The key acts as the account's owner; a web " +
  "console session acts as its member, and an agent is 403 FORBIDDEN on settings, channels, webhooks, members' changes, " +
  'campaign changes and agency credits.';

export function openApiDocument(serverUrl: string) {
  const components = new Components();
  const paths = Object.fromEntries(
    Object.entries(OPERATIONS).map(([path, methods]) => [
      path,
      Object.fromEntries(
        Object.entries(methods).map(([method, op]) => [method, operation(components, path, method, op!)]),
      ),
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
        'Every answer given once the rate limit counted the request carries RateLimit and RateLimit-Policy, errors included; ' +
        'what is refused before it, at authentication, carries neither (a missing or wrong key, 401; 400 AMBIGUOUS_CREDENTIALS, HTTPS_REQUIRED; ' +
        '403 CSRF_TOKEN_INVALID; 429 after failed authentications; 431). Each response says which of its answers carry them.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'LeadChat issues', url: 'https://github.com/leadchat/n8n-nodes-leadchat/issues' },
    },
    servers: [{ url: serverUrl }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: Object.fromEntries(
      (Object.keys(WEBHOOK_PAYLOADS) as WebhookName[]).map((name) => [name, webhook(components, name)]),
    ),
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
          description:
            'On a 400 about fields of the request, and a 409 MERGE_TOO_LARGE: each problem with its field ("bot.faqs.4.answer", indexes from 0)',
          items: {
            type: 'object',
            properties: {
              field: { type: 'string' },
              code: {
                type: 'string',
                description:
                  "REQUIRED, TOO_LONG, TOO_SHORT, TOO_MANY, TOO_FEW, TOO_BIG, TOO_SMALL, INVALID, or a rule's own code such as INVALID_DURATION",
              },
              message: { type: 'string' },
              limit: { type: 'number', description: 'With TOO_* codes: the limit passed' },
            },
            required: ['field', 'code', 'message'],
            additionalProperties: false,
          },
        },
        PlainError: {
          type: 'object',
          description: "The incoming-message endpoint's errors (spec §7)",
          properties: { error: { type: 'string' } },
          required: ['error'],
          additionalProperties: false,
        },
      },
    },
  };
}
