import { checkAnswer, operationOf } from '../helpers/contract';

/** The contract check every test's answers go through (helpers/contract.ts) refuses what the document does not say. */
const url = (p: string) => new URL(p, 'https://127.0.0.1:8443');
const list = { id: 'lst_1', name: 'Leads', createdAt: '2026-11-27T10:00:00.000Z' };
const answer = (status: number, body: unknown) => ({ status, headers: {}, text: body === undefined ? '' : JSON.stringify(body) });

test('paths resolve to the document\'s operations, literal segments first', () => {
  expect(operationOf('GET', '/v1/lists/lst_1')?.operation.operationId).toBe('getList');
  expect(operationOf('POST', '/v1/conversations/retry-failed')?.operation.operationId).toBe('retryAllFailed');
  expect(operationOf('POST', '/v1/conversations/cnv_1/retry-failed')?.operation.operationId).toBe('retryConversationFailed');
  expect(operationOf('DELETE', '/v1/lists/lst_1')).toBeUndefined();
  expect(operationOf('GET', '/v1/nope')).toBeUndefined();
});

test('an answer the document describes passes', () => {
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, list))).not.toThrow();
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(404, { error: { code: 'LIST_NOT_FOUND', message: 'List not found' } }))).not.toThrow();
  expect(() => checkAnswer('DELETE', url('/v1/webhooks/whk_1'), answer(204, undefined))).not.toThrow();
});

test('a status, a code, a missing or an extra field the document does not say: refused', () => {
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(500, { error: { code: 'INTERNAL', message: 'x' } }))).toThrow(/does not list/);
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(404, { error: { code: 'CONTACT_NOT_FOUND', message: 'x' } }))).toThrow(/refuses/);
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(404, {}))).toThrow(/refuses/);
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, { id: 'lst_1', name: 'Leads' }))).toThrow(/createdAt/);
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, { ...list, secret: 'x' }))).toThrow(/additional/);
  expect(() => checkAnswer('GET', url('/v1/lists/lst_1'), answer(200, { ...list, createdAt: 'yesterday' }))).toThrow(/date-time/);
  expect(() => checkAnswer('DELETE', url('/v1/webhooks/whk_1'), answer(204, { deleted: true }))).toThrow(/body where the document says none/);
});
