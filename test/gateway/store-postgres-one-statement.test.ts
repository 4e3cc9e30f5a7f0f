/**
 * A PostgreSQL transaction that writes after its last read commits its writes as one statement, seen on stand-in
 * connections that record their statements: no BEGIN or COMMIT around them, each write a part of it, its checks and
 * job notifications in its main query. It fails as the part that could fail so, and a connection that breaks once it
 * went out leaves the outcome unknown, as at a COMMIT.
 */
import path from 'node:path';
import { ONE_STATEMENT, postgresModules, recordingConnection, type Row, type Sent } from '../helpers/postgres-stand-in';
import { gatewayModule } from '../helpers/gateway-modules';

const modules = postgresModules();

let store: typeof import('../../gateway/src/store/store.js', { with: { 'resolution-mode': 'import' } });
beforeAll(async () => {
  store = await gatewayModule(path.resolve(__dirname, '../../gateway/dist/store/store.js'));
});

const catalog = () =>
  new (modules().catalog.Catalog)([
    { name: 'contacts' },
    { name: 'conversations' },
    { name: 'messages', indexes: { sid: { fields: ['messageSid'], unique: true } } },
  ]);

/**
 * A transaction on a connection that finds every document by id at row version '7', and answers the one statement
 * with `failure` when given one.
 */
function transaction(failure?: unknown, contended?: Set<string>) {
  const { sent, query: record } = recordingConnection(({ text, values }) =>
    text.startsWith('SELECT') ? [{ doc: { id: values![0], name: 'Ann' }, v: '7' }] : [],
  );
  const query = (config: string | Sent) => {
    const answer = record(config);
    const text = typeof config === 'string' ? config : config.text;
    return failure !== undefined && text.startsWith(ONE_STATEMENT) ? Promise.reject(failure) : answer;
  };
  return { tx: new (modules().tx.PostgresTx)({ query } as never, catalog(), contended), sent };
}

/** A read, then writes to three tables and a job queued: the request of an incoming message, in short. */
async function readThenWrite(tx: ReturnType<typeof transaction>['tx']): Promise<void> {
  await tx.get('contacts', 'ct_1');
  await tx.get('conversations', 'cnv_1');
  await tx.touch<Row>('conversations', 'cnv_1', { unread: 1 });
  await tx.update<Row>('contacts', 'ct_1', { name: 'Anna' });
  await tx.insert('messages', { id: 'msg_1', messageSid: 'sid-1' });
  await tx.enqueue({ kind: 'deliver', data: { id: 'dlv_1' }, accountId: 'acc_1' });
}

test('writes after the last read go as one statement that commits by itself: no BEGIN, no COMMIT', async () => {
  const { tx, sent } = transaction();
  await readThenWrite(tx);
  await tx.commit();
  expect(sent.map(({ text }) => text.split(' ')[0])).toEqual(['SELECT', 'SELECT', 'WITH']);
  const [one] = sent.slice(2);
  expect(one!.text.startsWith(ONE_STATEMENT)).toBe(true);
  // Each write is a part, its parameters after those of the parts before it.
  expect(one!.text).toContain('leadchat_commit_0 AS (UPDATE "conversations" SET doc = $2::jsonb, seq = DEFAULT');
  expect(one!.text).toContain('leadchat_commit_1 AS (UPDATE "contacts" SET doc = $5::jsonb WHERE id = $4');
  expect(one!.text).toContain('leadchat_commit_2 AS (INSERT INTO "messages" (id, doc) VALUES ($7, $8::jsonb))');
  expect(one!.text).toContain('leadchat_commit_3 AS (INSERT INTO leadchat_jobs');
  expect(one!.values!.slice(0, 8)).toEqual([
    'cnv_1',
    '{"id":"cnv_1","name":"Ann","unread":1}',
    '7',
    'ct_1',
    '{"id":"ct_1","name":"Anna"}',
    '7',
    'msg_1',
    '{"id":"msg_1","messageSid":"sid-1"}',
  ]);
  // A document written meanwhile fails it all; the job queued tells the runners once it committed.
  expect(one!.text).toContain(
    'SELECT leadchat_changed() WHERE NOT EXISTS (SELECT 1 FROM leadchat_commit_0) OR NOT EXISTS (SELECT 1 FROM leadchat_commit_1)',
  );
  expect(one!.text).toContain("UNION ALL SELECT pg_notify('leadchat_jobs', queue) FROM leadchat_commit_3");
});

test('a transaction that only reads sends neither BEGIN nor COMMIT; one that wrote nothing sends nothing', async () => {
  const reads = transaction();
  await reads.tx.get('contacts', 'ct_1');
  await reads.tx.commit();
  expect(reads.sent.map(({ text }) => text.split(' ')[0])).toEqual(['SELECT']);
  const nothing = transaction();
  await nothing.tx.commit();
  expect(await nothing.tx.rollback()).toBe(true);
  expect(nothing.sent).toEqual([]);
});

test('a race lost by the one statement: a conflict, and the next attempt reads locked every document it checked', async () => {
  const contended = new Set<string>();
  const { tx } = transaction(Object.assign(new Error('changed'), { code: '40001', severity: 'ERROR' }), contended);
  await readThenWrite(tx);
  const failure = await tx.commit().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(store.StoreConflictError);
  expect(tx.lost(failure)).toBe(true);
  expect([...contended].map((key) => key.split('\u0000'))).toEqual([
    ['conversations', 'cnv_1'],
    ['contacts', 'ct_1'],
  ]);
  // Nothing of it was kept: there is no block to roll back.
  expect(await tx.rollback()).toBe(true);
});

test('a key taken in the one statement is a conflict on the write to that table', async () => {
  const taken = Object.assign(new Error('duplicate key'), {
    code: '23505',
    severity: 'ERROR',
    table: 'messages',
    constraint: 'messages_sid',
  });
  const { tx } = transaction(taken);
  await readThenWrite(tx);
  const failure = await tx.commit().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(store.StoreConflictError);
  expect((failure as { collection: string }).collection).toBe('messages');
  expect(tx.lost(failure)).toBe(true);
});

test('a connection that breaks once the one statement went out: the outcome is unknown, as at a COMMIT', async () => {
  const { tx } = transaction(new Error('Connection terminated unexpectedly'));
  await readThenWrite(tx);
  await expect(tx.commit()).rejects.toBeInstanceOf(store.CommitOutcomeUnknownError);
});

test('the tests know the one statement by the way the store begins it', () => {
  expect(modules().oneStatement.ONE_STATEMENT).toBe(ONE_STATEMENT);
});

test('a read that failed fails the transaction at its commit, as in a block, though the function went on', async () => {
  const { sent, query: record } = recordingConnection(() => []);
  const query = (config: string | Sent) => {
    void record(config);
    return Promise.reject(Object.assign(new Error('canceling statement'), { code: '57014', severity: 'ERROR' }));
  };
  const tx = new (modules().tx.PostgresTx)({ query } as never, catalog());
  await tx.get('contacts', 'ct_1').catch(() => undefined);
  await tx.insert('messages', { id: 'msg_1' });
  await expect(tx.commit()).rejects.toThrow(/canceling statement/);
  expect(sent.map(({ text }) => text.split(' ')[0])).toEqual(['SELECT']);
});
