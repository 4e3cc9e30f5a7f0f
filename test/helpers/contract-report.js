const { readdirSync, readFileSync, rmSync } = require('node:fs');
const path = require('node:path');

const DOCUMENT = path.resolve(__dirname, '../../gateway/dist/openapi.json');
/** Where each test process wrote the operations and statuses it received (see contract.ts). */
const SEEN_DIR_ENV = 'LEADCHAT_TEST_CONTRACT_SEEN_DIR';
/**
 * The codes every operation of a kind can answer (authentication, rate limit, the store, a body's format, a console
 * session's CSRF token, a lost race), each proven by tests of their own: a status that can carry only these is
 * counted, not listed.
 */
const SHARED = new Set([
  'UNAUTHORIZED',
  'AMBIGUOUS_CREDENTIALS',
  'VALIDATION_ERROR',
  'HTTPS_REQUIRED',
  'RATE_LIMITED',
  'HEADERS_TOO_LARGE',
  'STORE_UNAVAILABLE',
  'COMMIT_OUTCOME_UNKNOWN',
  'INVALID_JSON',
  'INVALID_ENCODING',
  'UNREADABLE_BODY',
  'MALFORMED_PATH',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INVALID_CURSOR',
  'CSRF_TOKEN_INVALID',
  'CONFLICT',
]);

/**
 * The error codes a status of an operation can carry, as the document lists them (none for a success): in the error
 * schema, or, for an answer whose error is plain text (`{"error": "message"}`), at the end of its description.
 */
const codesOf = (response) =>
  response.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum ??
  /: ([A-Z0-9_, ]+)$/.exec(response.description ?? '')?.[1].split(', ') ??
  [];
const shared = (response) => {
  const codes = codesOf(response);
  return codes.length > 0 && codes.every((code) => SHARED.has(code));
};

/**
 * A jest reporter: after a run of the whole suite, which of the OpenAPI document's operations and statuses no test
 * received.
 */
class ContractReport {
  onRunComplete(_contexts, results) {
    const dir = process.env[SEEN_DIR_ENV];
    if (!dir) return;
    const seen = new Set(
      readdirSync(dir).flatMap((file) => readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean)),
    );
    rmSync(dir, { recursive: true, force: true });
    if (results.numTotalTestSuites < 20) return;
    const doc = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    const pairs = operations.flatMap((op) => Object.keys(op.responses).map((status) => `${op.operationId} ${status}`));
    const sharedPairs = new Set(
      operations.flatMap((op) =>
        Object.entries(op.responses)
          .filter(([, r]) => shared(r))
          .map(([status]) => `${op.operationId} ${status}`),
      ),
    );
    const received = (list) => list.filter((p) => seen.has(p)).length;
    const successes = pairs.filter((p) => /\s2\d\d$/.test(p));
    const missedOps = operations.filter(
      (op) => !Object.keys(op.responses).some((s) => seen.has(`${op.operationId} ${s}`)),
    );
    const missed = pairs.filter((p) => !seen.has(p) && !sharedPairs.has(p));
    const lines = [
      `Contract: the tests received ${operations.length - missedOps.length} of ${operations.length} operations, ${received(pairs)} of ${pairs.length} statuses (${received(successes)} of ${successes.length} successes).`,
      ...(missedOps.length ? [`Operations no test received: ${missedOps.map((op) => op.operationId).join(', ')}`] : []),
      ...(missed.length
        ? [`Statuses no test received (besides those of the codes every operation shares): ${missed.join(', ')}`]
        : []),
    ];
    process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}

module.exports = ContractReport;
