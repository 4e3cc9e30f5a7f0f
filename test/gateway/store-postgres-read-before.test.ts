/**
 * A document the PostgreSQL store read outside a transaction, taken by a later transaction as its own read of it
 * (Tx.readBefore), seen on stand-in connections that record their statements: the transaction reads it no more, and
 * its write of it applies only if the row is still the version read then. A document the store cannot vouch for is
 * read again, and one an earlier attempt of the transaction lost a race on is read locked.
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

const catalog = () => new (modules().catalog.Catalog)([{ name: 'contacts' }]);

/** A connection on which every document by id is `stored`, at row version `version`. */
const connection = (stored: Row, version: string) =>
  recordingConnection(({ text }) => (text.startsWith('SELECT') ? [{ doc: { ...stored }, v: version }] : []));

/** A document as the store's own read outside a transaction answers it, at row version '5'. */
async function readByStore(): Promise<Row> {
  const { query } = connection({ id: 'ct_1', name: 'Ann' }, '5');
  const reads = new (modules().documents.DocumentReads)((text, values) => query({ text, values }) as never, catalog());
  return (await reads.get<Row>('contacts', 'ct_1'))!;
}

/** A transaction whose connection holds the document at row version '9' (changed since the store's read). */
function transaction(contended?: Set<string>): { tx: PostgresTx; sent: Sent[] } {
  const { sent, query } = connection({ id: 'ct_1', name: 'Anne' }, '9');
  return { tx: new (modules().tx.PostgresTx)({ query } as never, catalog(), contended), sent };
}

/**
 * The statements: verb, what a read locks, and the version a write checks; a write that went as the transaction's one
 * statement, committing by itself, ends in `commits`.
 */
const statements = (sent: Sent[]) =>
  sent.map(({ text, values }) => {
    const one = text.startsWith(ONE_STATEMENT);
    const verb = one || /^WITH written AS \(UPDATE/.test(text) ? 'UPDATE' : text.split(' ')[0];
    const locks = text.includes('FOR UPDATE') ? 'locked' : '';
    const checks = text.includes('xmin =') ? `if ${String(values?.[2])}` : '';
    return [verb, locks, checks, one && 'commits'].filter(Boolean).join(' ');
  });

test('a document the store read is not read again: its write checks the version read then', async () => {
  const before = await readByStore();
  const { tx, sent } = transaction();
  expect(await tx.readBefore!('contacts', before)).toEqual({ id: 'ct_1', name: 'Ann' });
  await tx.update<Row>('contacts', 'ct_1', { name: 'Anna' });
  await tx.commit();
  expect(statements(sent)).toEqual(['UPDATE if 5 commits']);
});

test('a document the store did not answer as it is (a copy) is read again, in the transaction', async () => {
  const before = { ...(await readByStore()) };
  const { tx, sent } = transaction();
  expect(await tx.readBefore!('contacts', before)).toEqual({ id: 'ct_1', name: 'Anne' });
  await tx.update<Row>('contacts', 'ct_1', { name: 'Anna' });
  await tx.commit();
  expect(statements(sent)).toEqual(['SELECT', 'UPDATE if 9 commits']);
});

test('a document an earlier attempt lost a race on is read again, locked: the attempt takes its turn on it', async () => {
  const before = await readByStore();
  const { tx, sent } = transaction(new Set(['contacts\u0000ct_1']));
  expect(await tx.readBefore!('contacts', before)).toEqual({ id: 'ct_1', name: 'Anne' });
  await tx.update<Row>('contacts', 'ct_1', { name: 'Anna' });
  await tx.commit();
  expect(statements(sent)).toEqual(['BEGIN', 'SELECT locked', 'UPDATE if 9', 'COMMIT']);
});
