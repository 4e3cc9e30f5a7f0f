import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * The contract check: every answer of /v1 the tests receive is held to the OpenAPI document the gateway's build
 * writes (gateway/dist/openapi.json, the one GET /v1/openapi.json answers). A status the operation does not list,
 * a body its schema refuses, or a header its response does not declare (or declares required and is missing), fails
 * the test that received it. Each operation and status seen is written down
 * (CONTRACT_SEEN_DIR, set by the global setup) for the report of what no test exercises.
 */

const DOCUMENT = path.resolve(__dirname, '../../gateway/dist/openapi.json');
const DOCUMENT_ID = 'openapi.json';
/** The folder the global setup makes for this run, where each test process writes what it saw. */
export const SEEN_DIR_ENV = 'LEADCHAT_TEST_CONTRACT_SEEN_DIR';

interface Header {
  required?: boolean;
  schema: object;
}
interface Response {
  headers?: Record<string, Header>;
  content?: Record<string, { schema: object }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, Response>;
}
interface Webhook {
  operationId: string;
  parameters: Array<{ name: string; in: string; required?: boolean; schema: object }>;
  requestBody: { content: Record<string, { schema: object }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Webhook }>;
  components: object;
}

let compiled:
  | { doc: Document; routes: Array<{ pattern: RegExp; path: string }>; ajv: Ajv2020; headers: Set<string> }
  | undefined;
const validators = new Map<string, ValidateFunction>();
const seen = new Set<string>();

function contract() {
  if (compiled) return compiled;
  const doc = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as Document;
  // Literal segments first: /conversations/retry-failed before /conversations/{id}.
  const routes = Object.keys(doc.paths)
    .sort((a, b) => a.split('{').length - b.split('{').length)
    .map((p) => ({ path: p, pattern: new RegExp(`^/v1${p.replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i') }));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The document's components once: each answer's schema refers to them there, so each is compiled once a file.
  ajv.addSchema({ $id: DOCUMENT_ID, components: doc.components });
  // The headers the document speaks of, on any answer: an answer carrying one its response does not declare is refused.
  const headers = new Set(
    Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).flatMap((op) =>
        Object.values(op.responses).flatMap((r) => Object.keys(r.headers ?? {}).map((h) => h.toLowerCase())),
      ),
    ),
  );
  compiled = { doc, routes, ajv, headers };
  return compiled;
}

/** The document's path and operation a request names, if the document has one. */
export function operationOf(method: string, pathname: string): { path: string; operation: Operation } | undefined {
  const { doc, routes } = contract();
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('..')) return undefined;
  const route = routes.find((r) => r.pattern.test(pathname));
  const operation = route && doc.paths[route.path]![method.toLowerCase()];
  return route && operation ? { path: route.path, operation } : undefined;
}

function validatorOf(operation: Pick<Operation, 'operationId'>, status: string, schema: object): ValidateFunction {
  const key = `${operation.operationId} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = contract().ajv.compile(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)),
    );
    validators.set(key, validate);
  }
  return validate;
}

function record(operationId: string, status: number): void {
  const key = `${operationId} ${status}`;
  if (seen.has(key)) return;
  seen.add(key);
  const dir = process.env[SEEN_DIR_ENV];
  if (dir) appendFileSync(path.join(dir, `${process.pid}.txt`), `${key}\n`);
}

/**
 * Throws when an answer breaks the document: a status its operation does not list, or a body that is not what
 * the document says. Requests outside the document (unknown paths, methods a path does not have, the providers'
 * webhooks, the operator's and the console's routes) are not its business.
 */
export function checkAnswer(
  method: string,
  url: URL,
  answer: { status: number; headers: Record<string, unknown>; text: string },
): void {
  if (!url.pathname.startsWith('/v1/') || method === 'HEAD' || method === 'OPTIONS') return;
  const found = operationOf(method, url.pathname);
  if (!found) return;
  const { operation } = found;
  const where = `${method} ${url.pathname} (${operation.operationId}) answered ${answer.status}`;
  const response = operation.responses[String(answer.status)];
  if (!response)
    throw new Error(`${where}, a status the OpenAPI document does not list for it: ${answer.text.slice(0, 300)}`);
  record(operation.operationId, answer.status);
  checkHeaders(where, response, answer.headers);
  const json = response.content?.['application/json'];
  if (!json) {
    if (!response.content && answer.text !== '') throw new Error(`${where} with a body where the document says none`);
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new Error(`${where} with a body that is not JSON: ${answer.text.slice(0, 200)}`);
  }
  const validate = validatorOf(operation, String(answer.status), json.schema);
  if (!validate(body)) {
    const problems = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    throw new Error(
      `${where} with a body the document refuses:\n  ${problems.join('\n  ')}\nbody: ${answer.text.slice(0, 500)}`,
    );
  }
}

/**
 * The headers of an answer against its response in the document: each it declares required is there, with a value
 * its schema takes, and none the document speaks of elsewhere (RateLimit on a 401, Location on a 200) is there
 * undeclared.
 */
function checkHeaders(where: string, response: Response, headers: Record<string, unknown>): void {
  const declared = new Map(
    Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), { name, header }]),
  );
  for (const { name, header } of declared.values()) {
    const value = headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) throw new Error(`${where} without the ${name} header the document says it carries`);
      continue;
    }
    // Headers share a few small schemas: one validator each, not one per operation.
    const validate = validatorOf({ operationId: 'header' }, JSON.stringify(header.schema), header.schema);
    const typed =
      (header.schema as { type?: string }).type === 'integer' && /^\d+$/.test(String(value)) ? Number(value) : value;
    if (!validate(typed)) throw new Error(`${where} with a ${name} header the document refuses: ${String(value)}`);
  }
  for (const name of contract().headers) {
    if (headers[name] !== undefined && !declared.has(name)) {
      throw new Error(`${where} with a ${name} header the document does not declare for it: ${String(headers[name])}`);
    }
  }
}

/**
 * Throws when a delivery the gateway posted breaks the document's `webhooks`: an event it does not describe, a
 * signature header missing or not of its form, or a body its schema refuses. Answers the event's name.
 */
export function checkDelivery(received: { headers: Record<string, unknown>; body: unknown }): string {
  const event = String(received.headers['webhook-event']);
  const webhook = contract().doc.webhooks[event]?.post;
  if (!webhook) throw new Error(`a delivery of "${event}", an event the OpenAPI document's webhooks do not describe`);
  const where = `the ${event} delivery (${webhook.operationId})`;
  for (const parameter of webhook.parameters.filter((p) => p.in === 'header')) {
    const value = received.headers[parameter.name.toLowerCase()];
    if (value === undefined) {
      if (parameter.required) throw new Error(`${where} without the ${parameter.name} header`);
      continue;
    }
    if (!validatorOf(webhook, parameter.name, parameter.schema)(value))
      throw new Error(`${where} with a ${parameter.name} header the document refuses: ${String(value)}`);
  }
  const validate = validatorOf(webhook, 'body', webhook.requestBody.content['application/json']!.schema);
  if (!validate(received.body)) {
    const problems = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    throw new Error(
      `${where} with a body the document refuses:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(received.body).slice(0, 500)}`,
    );
  }
  return event;
}
