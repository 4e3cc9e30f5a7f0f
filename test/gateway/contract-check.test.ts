import { checkAnswer, operationOf } from '../helpers/contract';

/** The contract check every test's answers go through (helpers/contract.ts) refuses what the document does not say. */
const url = (p: string) => new URL(p, 'https://127.0.0.1:8443');
const list = { id: 'lst_1', name: 'Leads', createdAt: '2026-11-27T10:00:00.000Z' };
/** What the rate limit writes on every answer it counted. */
const RATE = { ratelimit: '"per-key"; r=59; t=60', 'ratelimit-policy': '"per-key"; q=60; w=60; pk=:MTIzNDU2Nzg5MGFi:' };
const answer = (status: number, body: unknown, headers: Record<string, unknown> = RATE) => ({
  status,
  headers,
  text: body === undefined ? '' : JSON.stringify(body),
});

test("paths resolve to the document's operations, literal segments first", () => {
  expect(operationOf('GET', '/v1/lists/lst_1')?.operation.operationId).toBe('getList');
  expect(operationOf('POST', '/v1/conversations/retry-failed')?.operation.operationId).toBe('retryAllFailed');
  expect(operationOf('POST', '/v1/conversations/cnv_1/retry-failed')?.operation.operationId).toBe(
    'retryConversationFailed',
  );
  expect(operationOf('PUT', '/v1/lists/lst_1')).toBeUndefined();
  expect(operationOf('GET', '/v1/nope')).toBeUndefined();
});

test('an answer the document describes passes', () => {
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, list))).not.toThrow();
  expect(() =>
    checkAnswer(
      'GET',
      url('/v1/lists/lst_1'),
      answer(404, { error: { code: 'LIST_NOT_FOUND', message: 'List not found' } }),
    ),
  ).not.toThrow();
  expect(() => checkAnswer('DELETE', url('/v1/webhooks/whk_1'), answer(204, undefined))).not.toThrow();
});

test('a status, a code, a missing or an extra field the document does not say: refused', () => {
  expect(() =>
    checkAnswer('GET', url('/v1/lists/lst_1'), answer(500, { error: { code: 'INTERNAL', message: 'x' } })),
  ).toThrow(/does not list/);
  expect(() =>
    checkAnswer('GET', url('/v1/lists/lst_1'), answer(404, { error: { code: 'CONTACT_NOT_FOUND', message: 'x' } })),
  ).toThrow(/refuses/);
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(404, {}))).toThrow(/refuses/);
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, { id: 'lst_1', name: 'Leads' }))).toThrow(
    /createdAt/,
  );
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, { ...list, secret: 'x' }))).toThrow(/additional/);
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, { ...list, createdAt: 'yesterday' }))).toThrow(
    /date-time/,
  );
  expect(() => checkAnswer('DELETE', url('/v1/webhooks/whk_1'), answer(204, { deleted: true }))).toThrow(
    /body where the document says none/,
  );
});

describe('headers', () => {
  const notFound = { error: { code: 'LIST_NOT_FOUND', message: 'List not found' } };
  const unauthorized = { error: { code: 'UNAUTHORIZED', message: 'Invalid or missing API key' } };

  test('an answer the rate limit counted, error or success, must carry its headers', () => {
    expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(404, notFound))).not.toThrow();
    expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(404, notFound, {}))).toThrow(
      /without the RateLimit header/,
    );
    expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, list, { ratelimit: RATE.ratelimit }))).toThrow(
      /without the RateLimit-Policy header/,
    );
  });

  test('an answer given before the rate limit counted the request must not carry them', () => {
    expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(401, unauthorized, {}))).not.toThrow();
    expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(401, unauthorized))).toThrow(
      /ratelimit header the document does not declare/,
    );
  });

  test('a status whose answers come before and after the count: the headers may be there or not', () => {
    const limited = {
      error: { code: 'RATE_LIMITED', message: 'Rate limit of 60 requests per minute exceeded; retry after 12 s' },
    };
    expect(() =>
      checkAnswer('GET', url('/v1/lists/lst_1'), answer(429, limited, { ...RATE, 'retry-after': '12' })),
    ).not.toThrow();
    expect(() =>
      checkAnswer('GET', url('/v1/lists/lst_1'), answer(429, limited, { 'retry-after': '12' })),
    ).not.toThrow();
    expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(429, limited, RATE))).toThrow(
      /without the Retry-After header/,
    );
    expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(429, limited, { 'retry-after': 'soon' }))).toThrow(
      /Retry-After header the document refuses/,
    );
  });

  test('a header of another answer is refused where the document does not declare it', () => {
    expect(() =>
      checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, list, { ...RATE, location: '/v1/lists/lst_1' })),
    ).toThrow(/location header the document does not declare/);
  });
});
