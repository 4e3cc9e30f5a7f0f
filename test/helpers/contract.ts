import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { _ } from 'ajv';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import standaloneCode from 'ajv/dist/standalone';
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
/** The folder of the document's validators, as the global setup wrote it for the run (`validatorsFolder`). */
export const VALIDATORS_ENV = 'LEADCHAT_TEST_CONTRACT_VALIDATORS';
const CACHE = path.resolve(__dirname, '../../node_modules/.cache/leadchat-contract');
const load = createRequire(__filename);

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

let compiled: { doc: Document; routes: Array<{ pattern: RegExp; path: string }>; headers: Set<string> } | undefined;
const validators = new Map<string, ValidateFunction>();
const seen = new Set<string>();

function contract() {
  if (compiled) return compiled;
  const doc = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as Document;
  // Literal segments first: /conversations/retry-failed before /conversations/{id}.
  const routes = Object.keys(doc.paths)
    .sort((a, b) => a.split('{').length - b.split('{').length)
    .map((p) => ({ path: p, pattern: new RegExp(`^/v1${p.replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i') }));
  // The headers the document speaks of, on any answer: an answer carrying one its response does not declare is refused.
  const headers = new Set(
    Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).flatMap((op) =>
        Object.values(op.responses).flatMap((r) => Object.keys(r.headers ?? {}).map((h) => h.toLowerCase())),
      ),
    ),
  );
  compiled = { doc, routes, headers };
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

/** What the check holds a value to, by the name `schemasOf` gives it. */
function validatorOf(key: string): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    const folder = (process.env[VALIDATORS_ENV] ??= validatorsFolder());
    validate = (load(path.join(folder, fileOf(key))) as { validate: ValidateFunction }).validate;
    validators.set(key, validate);
  }
  return validate;
}

const fileOf = (key: string) => `${createHash('sha256').update(key).digest('hex').slice(0, 16)}.cjs`;

/** An operation's schema by its part: an answer's status, or a delivery's header or `body`. */
const partKey = (operationId: string, part: string) => `${operationId} ${part}`;
// Headers share a few small schemas: one validator each, not one per operation.
const headerKey = (schema: object) => `header ${JSON.stringify(schema)}`;

/** Every schema the check holds something to: an answer's body, a header's value, a delivery's header and body. */
function schemasOf(doc: Document): Map<string, object> {
  const schemas = new Map<string, object>();
  for (const methods of Object.values(doc.paths))
    for (const op of Object.values(methods))
      for (const [status, response] of Object.entries(op.responses)) {
        const json = response.content?.['application/json'];
        if (json) schemas.set(partKey(op.operationId, status), json.schema);
        for (const header of Object.values(response.headers ?? {}))
          schemas.set(headerKey(header.schema), header.schema);
      }
  for (const { post } of Object.values(doc.webhooks)) {
    for (const parameter of post.parameters.filter((p) => p.in === 'header'))
      schemas.set(partKey(post.operationId, parameter.name), parameter.schema);
    schemas.set(partKey(post.operationId, 'body'), post.requestBody.content['application/json']!.schema);
  }
  return schemas;
}

/**
 * The document's validators as code (ajv's standalone code), one file each, written once for each version of the
 * document and of ajv under node_modules/.cache: compiled in each test file, they cost ajv about 10 ms a schema,
 * and a file meeting a hundred operations a second or more. The global setup writes them for the run; answers their
 * folder.
 */
export function validatorsFolder(): string {
  const text = readFileSync(DOCUMENT, 'utf8');
  const { version } = load('ajv/package.json') as { version: string };
  const folder = path.join(CACHE, createHash('sha256').update(`${version}\n${text}`).digest('hex').slice(0, 16));
  if (existsSync(folder)) return folder;
  const doc = JSON.parse(text) as Document;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    // A component is a function of the file that names it, not written again into every schema naming it.
    inlineRefs: false,
    code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
  });
  addFormats(ajv);
  // The components once, each schema referring to them there.
  ajv.addSchema({ $id: DOCUMENT_ID, components: doc.components });
  const written = `${folder}.${process.pid}`;
  mkdirSync(written, { recursive: true });
  [...schemasOf(doc)].forEach(([key, schema], i) => {
    ajv.addSchema(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)),
      `s${i}`,
    );
    writeFileSync(path.join(written, fileOf(key)), standaloneCode(ajv, { validate: `s${i}` }));
  });
  renameSync(written, folder);
  // An earlier document's validators: no run reads them again.
  for (const other of readdirSync(CACHE))
    if (path.join(CACHE, other) !== folder) rmSync(path.join(CACHE, other), { recursive: true, force: true });
  return folder;
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
  const validate = validatorOf(partKey(operation.operationId, String(answer.status)));
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
    const validate = validatorOf(headerKey(header.schema));
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
    if (!validatorOf(partKey(webhook.operationId, parameter.name))(value))
      throw new Error(`${where} with a ${parameter.name} header the document refuses: ${String(value)}`);
  }
  const validate = validatorOf(partKey(webhook.operationId, 'body'));
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
