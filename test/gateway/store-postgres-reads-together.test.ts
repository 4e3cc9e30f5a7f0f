/**
 * A PostgreSQL transaction's reads asked for together (Promise.all), seen on a stand-in connection that records its
 * statements and answers each part of a combined one: those that take no lock go as one statement, each read answered
 * with its own rows in its own order; a locking read goes alone; a long run of reads goes as a few statements.
 */
import {
  postgresModules,
  recordingConnection,
  type Row,
  type Sent,
  type PostgresTx,
} from '../helpers/postgres-stand-in';

const modules = postgresModules();

/** Contacts ct_0 … ct_29 by id; ct_1's conversations, which the connection answers newest first (no order promised). */
const contacts = new Map(Array.from({ length: 30 }, (_, i) => [`ct_${i}`, { id: `ct_${i}` }]));
const conversations = [
  { doc: { id: 'cnv_c', contactId: 'ct_1' }, seq: '30' },
  { doc: { id: 'cnv_a', contactId: 'ct_1' }, seq: '10' },
  { doc: { id: 'cnv_b', contactId: 'ct_1' }, seq: '20' },
];

/** The rows of one read: a document by id (its parameter `$n` among `values`), or ct_1's conversations. */
function answer(text: string, values: unknown[]): Array<Record<string, unknown>> {
  if (text.includes('"conversations"')) return conversations.map((c) => ({ ...c, v: '7' }));
  const n = Number(/WHERE id = \$(\d+)/.exec(text)![1]);
  const doc = contacts.get(values[n - 1] as string);
  return doc ? [{ doc, v: '7', seq: '1' }] : [];
}

function transaction(): { tx: PostgresTx; sent: Sent[] } {
  const { sent, query } = recordingConnection(({ text, values = [] }) => {
    if (text.startsWith('SELECT 0 AS leadchat_part'))
      return text
        .split(' UNION ALL ')
        .flatMap((part, i) => answer(part, values).map((row) => ({ leadchat_part: i, ...row })));
    return text.startsWith('SELECT') ? answer(text, values) : [];
  });
  const catalog = new (modules().catalog.Catalog)([
    { name: 'contacts' },
    { name: 'conversations', indexes: { contact: { fields: ['contactId'] } } },
  ]);
  return { tx: new (modules().tx.PostgresTx)({ query } as never, catalog), sent };
}

const selects = (sent: Sent[]) => sent.filter((s) => s.text.startsWith('SELECT'));

test('reads asked for together go as one statement, each answered with its own rows, in its order', async () => {
  const { tx, sent } = transaction();
  const [first, absent, listed, second] = await Promise.all([
    tx.get<Row>('contacts', 'ct_2'),
    tx.get<Row>('contacts', 'ct_99'),
    tx.find<Row>('conversations', 'contact', ['ct_1']),
    tx.get<Row>('contacts', 'ct_3'),
  ]);
  expect(first).toEqual({ id: 'ct_2' });
  expect(absent).toBeUndefined();
  expect(listed.map((c) => c.id)).toEqual(['cnv_a', 'cnv_b', 'cnv_c']);
  expect(second).toEqual({ id: 'ct_3' });
  expect(selects(sent)).toHaveLength(1);
  expect(selects(sent)[0]!.values).toEqual(['ct_2', 'ct_99', 'ct_1', 'ct_3']);
  // Each read's version is kept: a write of one of them checks it.
  await tx.update<Row>('contacts', 'ct_3', { name: 'Ann' });
  await tx.commit();
  expect(sent.some((s) => s.text.includes('xmin =') && s.values?.[0] === 'ct_3' && s.values[2] === '7')).toBe(true);
});

test('a locking read goes alone; the reads next to it still go together', async () => {
  const { tx, sent } = transaction();
  await Promise.all([tx.get('contacts', 'ct_1'), tx.lock('contacts', 'ct_2'), tx.get('contacts', 'ct_3')]);
  expect(selects(sent).map((s) => (s.text.includes('FOR UPDATE') ? 'locked' : 'read'))).toEqual([
    'read',
    'locked',
    'read',
  ]);
  await Promise.all([tx.lock('contacts', 'ct_4'), tx.get('contacts', 'ct_5'), tx.get('contacts', 'ct_6')]);
  expect(selects(sent)).toHaveLength(5);
  expect(selects(sent)[4]!.values).toEqual(['ct_5', 'ct_6']);
});

test('a long run of reads goes as a few statements of a bounded size', async () => {
  const { tx, sent } = transaction();
  const ids = Array.from({ length: 20 }, (_, i) => `ct_${i}`);
  const found = await Promise.all(ids.map((id) => tx.get<Row>('contacts', id)));
  expect(found.map((c) => c?.id)).toEqual(ids);
  expect(selects(sent).map((s) => s.values?.length)).toEqual([16, 4]);
});

test('outside a transaction, reads by id asked for together go as one statement; a list read goes alone', async () => {
  const { sent, query } = recordingConnection(({ text, values = [] }) =>
    text.startsWith('SELECT 0 AS leadchat_part')
      ? text
          .split(' UNION ALL ')
          .flatMap((part, i) => answer(part, values).map((row) => ({ leadchat_part: i, ...row })))
      : answer(text, values),
  );
  const catalog = new (modules().catalog.Catalog)([
    { name: 'contacts' },
    { name: 'conversations', indexes: { contact: { fields: ['contactId'] } } },
  ]);
  const joined = modules().together.readsTogether((text, values) => query({ text, values }) as never);
  const reads = new (modules().documents.DocumentReads)(joined, catalog);
  const [first, absent, listed, second] = await Promise.all([
    reads.get<Row>('contacts', 'ct_2'),
    reads.get<Row>('contacts', 'ct_99'),
    reads.find<Row>('conversations', 'contact', ['ct_1']),
    reads.get<Row>('contacts', 'ct_3'),
  ]);
  expect([first, absent, second]).toEqual([{ id: 'ct_2' }, undefined, { id: 'ct_3' }]);
  expect(listed.map((c) => c.id)).toHaveLength(3);
  expect(sent.map((s) => s.values)).toEqual([['ct_1'], ['ct_2', 'ct_99', 'ct_3']]);
  // Each document keeps the version read, for a transaction to take that read as its own.
  expect(modules().documents.versionRead(second!)).toBe('7');
  // One read alone goes as it is.
  await reads.get<Row>('contacts', 'ct_4');
  expect(sent[2]!.text).toMatch(/^SELECT doc, xmin::text AS v FROM "contacts" WHERE id = \$1$/);
});
