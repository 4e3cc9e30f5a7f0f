/**
 * The statements a PostgreSQL transaction sends for its writes, seen on a stand-in connection that records them:
 * a document written several times before the transaction's next read or its commit is one statement (one new row
 * version, one round of index upkeep), with what the first one checked, and the collection's order is kept.
 */
import {
  ONE_STATEMENT,
  postgresModules,
  recordingConnection,
  type Row,
  type Sent,
  type PostgresTx,
} from '../helpers/postgres-stand-in';

const modules = postgresModules();

/**
 * A transaction on a connection that answers every statement at once: a read by id finds `stored`, a read of a list
 * finds `listed`, all at row version '7'.
 */
function transaction(stored: Record<string, unknown> = {}, listed: Row[] = []): { tx: PostgresTx; sent: Sent[] } {
  const { sent, query } = recordingConnection((statement) => {
    const id = statement.values?.[0] as string | undefined;
    const byId = statement.text.includes('WHERE id = $1');
    const found = !statement.text.startsWith('SELECT') ? [] : byId ? (id && stored[id] ? [stored[id]] : []) : listed;
    return found.map((doc) => ({ doc, v: '7' }));
  });
  const catalog = new (modules().catalog.Catalog)([
    { name: 'contacts' },
    { name: 'conversations', indexes: { contact: { fields: ['contactId'] } } },
  ]);
  return { tx: new (modules().tx.PostgresTx)({ query } as never, catalog), sent };
}

/**
 * The statements sent, shortened to their verb, table and document: `INSERT contacts ct_1 {...}`; a write that went
 * as the transaction's one statement, committing by itself, ends in `commits`.
 */
const writes = (sent: Sent[]) =>
  sent.map(({ text, values }) => {
    const one = text.startsWith(ONE_STATEMENT);
    const write = one ? text.slice(text.indexOf('(') + 1) : text;
    const verb = /^WITH written AS \(UPDATE|^UPDATE/.test(write) ? 'UPDATE' : write.split(' ')[0];
    const table = /"(\w+)"/.exec(text)?.[1] ?? '';
    const checks = text.includes('xmin =') ? `if ${String(values?.[2])}` : '';
    const renews = text.includes('seq = DEFAULT') ? 'last' : '';
    return [verb, table, values?.[0], values?.[1], checks, renews, one && 'commits'].filter(Boolean).join(' ');
  });

test('a document inserted, then updated and touched before the commit, is one INSERT of the last document', async () => {
  const { tx, sent } = transaction();
  await tx.insert('contacts', { id: 'ct_1', name: 'Ann' });
  await tx.update<Row>('contacts', 'ct_1', { name: 'Anna' });
  await tx.touch<Row>('contacts', 'ct_1', { seen: 1 });
  await tx.commit();
  expect(writes(sent)).toEqual(['INSERT contacts ct_1 {"id":"ct_1","name":"Anna","seen":1} commits']);
});

test('a document read, then written twice, is one UPDATE checking the version read', async () => {
  const { tx, sent } = transaction({ ct_1: { id: 'ct_1', name: 'Ann' } });
  await tx.get('contacts', 'ct_1');
  await tx.update<Row>('contacts', 'ct_1', { name: 'Anna' });
  await tx.touch<Row>('contacts', 'ct_1', { seen: 1 });
  await tx.update<Row>('contacts', 'ct_1', { seen: 2 });
  await tx.commit();
  expect(writes(sent)).toEqual([
    'SELECT contacts ct_1',
    'UPDATE contacts ct_1 {"id":"ct_1","name":"Anna","seen":2} if 7 last commits',
  ]);
});

test('a touch after another document of the collection took the last place is a statement of its own, after it', async () => {
  const { tx, sent } = transaction();
  await tx.insert('conversations', { id: 'cnv_a' });
  await tx.insert('contacts', { id: 'ct_1' });
  await tx.insert('conversations', { id: 'cnv_b' });
  await tx.update<Row>('conversations', 'cnv_a', { n: 1 });
  await tx.touch<Row>('conversations', 'cnv_a', { n: 2 });
  await tx.update<Row>('conversations', 'cnv_b', { n: 3 });
  await tx.commit();
  // Two writes to one table keep their order only as statements of their own, in a transaction block.
  expect(writes(sent)).toEqual([
    'BEGIN',
    'INSERT conversations cnv_a {"id":"cnv_a","n":1}',
    'INSERT contacts ct_1 {"id":"ct_1"}',
    'INSERT conversations cnv_b {"id":"cnv_b","n":3}',
    'UPDATE conversations cnv_a {"id":"cnv_a","n":2} last',
    'COMMIT',
  ]);
});

test("a write after its document's statement went out (with a read) is a statement of its own; a removed document is not written over", async () => {
  const { tx, sent } = transaction();
  await tx.insert('contacts', { id: 'ct_1' });
  await tx.get('contacts', 'ct_2');
  await tx.update<Row>('contacts', 'ct_1', { n: 1 });
  await tx.remove('contacts', 'ct_1');
  await tx.insert('contacts', { id: 'ct_1', again: true });
  await tx.update<Row>('contacts', 'ct_1', { n: 2 });
  await tx.commit();
  expect(writes(sent)).toEqual([
    'BEGIN',
    'INSERT contacts ct_1 {"id":"ct_1"}',
    'SELECT contacts ct_2',
    'UPDATE contacts ct_1 {"id":"ct_1","n":1}',
    'DELETE contacts ct_1',
    'INSERT contacts ct_1 {"id":"ct_1","again":true,"n":2}',
    'COMMIT',
  ]);
});

test('a list read again after the transaction wrote to it costs no statement; one it cannot work out is read again', async () => {
  const { tx, sent } = transaction({}, [
    { id: 'cnv_a', contactId: 'ct_1' },
    { id: 'cnv_b', contactId: 'ct_1' },
  ]);
  const list = async (page?: { limit: number }) =>
    (await tx.find<Row>('conversations', 'contact', ['ct_1'], page)).map((c) => c.id);
  expect(await list()).toEqual(['cnv_a', 'cnv_b']);
  await tx.touch<Row>('conversations', 'cnv_a', { unread: 1 });
  await tx.insert('conversations', { id: 'cnv_c', contactId: 'ct_1' });
  await tx.insert('conversations', { id: 'cnv_d', contactId: 'ct_2' });
  await tx.update<Row>('conversations', 'cnv_b', { contactId: 'ct_2' });
  expect(await list()).toEqual(['cnv_a', 'cnv_c']);
  expect((await tx.find<Row>('conversations', 'contact', ['ct_1']))[0]).toEqual({
    id: 'cnv_a',
    contactId: 'ct_1',
    unread: 1,
  });
  const reads = () => sent.filter((s) => s.text.startsWith('SELECT')).length;
  expect(reads()).toBe(1);
  // A document joining the list by an update: its place is its row's. A page: where a write goes in it is unknown.
  await tx.update<Row>('conversations', 'cnv_d', { contactId: 'ct_1' });
  await list();
  expect(reads()).toBe(2);
  await list({ limit: 1 });
  await tx.update<Row>('conversations', 'cnv_a', { unread: 2 });
  await list({ limit: 1 });
  expect(reads()).toBe(4);
});
