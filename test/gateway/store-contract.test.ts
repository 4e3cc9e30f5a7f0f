import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { CollectionSpec, Doc, Job, Store } from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import { ADMIN_URL_VARIABLE, createTestDatabase, emptyDatabase } from '../helpers/postgres';

type InterfaceModule = typeof import('../../gateway/src/store/store.js', { with: { 'resolution-mode': 'import' } });
type PostgresModule = typeof import('../../gateway/src/store/postgres/postgres-store.js', { with: { 'resolution-mode': 'import' } });
type CollectionsModule = typeof import('../../gateway/src/domain/collections.js', { with: { 'resolution-mode': 'import' } });
type MigrationsModule = typeof import('../../gateway/src/store/postgres/migrations.js', { with: { 'resolution-mode': 'import' } });
/** Typed here by the signature it promises, not its source: the lowdb adapter is being rewritten. */
interface LowdbModule {
  openLowdbStore(options: { dir: string; collections: CollectionSpec[] }): Promise<Store>;
}

/**
 * The contract of the Store interface (gateway/src/store/store.ts) that every backend passes, on the gateway's
 * own collections. The store is ESM, as the gateway runs it: the compiled files are loaded.
 *
 * The PostgreSQL arm needs the server of the postgres jest project's global setup, which this file runs in.
 */
const DIST = path.resolve(__dirname, '../../gateway/dist');
const HAS_POSTGRES = Boolean(process.env[ADMIN_URL_VARIABLE]);

let StoreConflictError: InterfaceModule['StoreConflictError'];
let StoreWriteError: InterfaceModule['StoreWriteError'];
let collections: CollectionSpec[];

beforeAll(async () => {
  ({ StoreConflictError, StoreWriteError } = (await import(path.join(DIST, 'store/store.js'))) as InterfaceModule);
  ({ collections } = (await import(path.join(DIST, 'domain/collections.js'))) as CollectionsModule);
});

interface Backend {
  name: 'lowdb' | 'postgres';
  /** A store on new, empty storage; `release` removes what it left behind. */
  open(): Promise<{ store: Store; release(): void }>;
}

let armDatabase: string | undefined;

const backends: Backend[] = [
  {
    name: 'lowdb',
    async open() {
      const { openLowdbStore } = (await import(path.join(DIST, 'store/lowdb/lowdb-store.js'))) as LowdbModule;
      const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-contract-'));
      const store = await openLowdbStore({ dir: path.join(dir, 'store'), collections });
      return { store, release: () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'postgres',
    async open() {
      const { openPostgresStore } = (await import(path.join(DIST, 'store/postgres/postgres-store.js'))) as PostgresModule;
      // One database for the arm, emptied for each test: a new one each time would cost a quarter of a second.
      if (armDatabase) await emptyDatabase(armDatabase);
      else armDatabase = await createTestDatabase();
      const store = await openPostgresStore({ url: armDatabase, collections });
      return { store, release: () => undefined };
    },
  },
];

interface Contact extends Doc {
  accountId?: string;
  phone?: string | null;
  email?: string;
  name?: string;
  n?: number;
  tags?: string[];
  extra?: unknown;
}
/** A document with optional numbers, written in steps. */
interface Counted extends Doc {
  n?: number;
  m?: number;
}

/** A conversation of the tests: its contact, and a number written in steps. */
interface Thread extends Counted {
  contactId: string;
}

interface Counter extends Doc {
  accountId: string;
  key: string;
  n: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ids = (docs: Doc[]) => docs.map((d) => d.id);

/** Waits until `done()` holds, for at most `timeoutMs` (far more than it takes), then fails by name. */
async function until(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe.each(backends.filter((b) => b.name === 'lowdb' || HAS_POSTGRES))('$name store', (backend) => {
  let store: Store;
  let release: () => void;

  beforeEach(async () => {
    ({ store, release } = await backend.open());
  });

  afterEach(async () => {
    await store.close();
    release();
  });

  /**
   * Opens the connections a backend pools before a race: a fresh pool opens one per transaction as they come,
   * slowly enough that the first transaction would end before the next began, and nothing would race at all.
   */
  const warmUp = () => Promise.all(Array.from({ length: 10 }, () => store.transact(() => sleep(20))));

  const insertAll = (collection: string, docs: Doc[]) =>
    store.transact(async (tx) => {
      for (const doc of docs) await tx.insert(collection, doc);
    });

  describe('documents', () => {
    test('get returns what was inserted, values intact; an absent id gives undefined', async () => {
      const doc: Contact = { id: 'ct_1', accountId: 'acc_1', name: 'Ann', n: 1.5, tags: ['a', 'b'], extra: { deep: { list: [1, null, true] } }, phone: null };
      const returned = await store.transact((tx) => tx.insert('contacts', doc));
      expect(returned).toEqual(doc);
      expect(await store.get('contacts', 'ct_1')).toEqual(doc);
      expect(await store.get('contacts', 'ct_nope')).toBeUndefined();
      expect(await store.transact((tx) => tx.get('contacts', 'ct_1'))).toEqual(doc);
    });

    test('scan pages in insertion order: limit, after, desc', async () => {
      await insertAll('media', ['m_c', 'm_a', 'm_e', 'm_b', 'm_d'].map((id) => ({ id })));
      expect(ids(await store.scan('media'))).toEqual(['m_c', 'm_a', 'm_e', 'm_b', 'm_d']);
      expect(ids(await store.scan('media', { limit: 2 }))).toEqual(['m_c', 'm_a']);
      expect(ids(await store.scan('media', { limit: 2, after: 'm_a' }))).toEqual(['m_e', 'm_b']);
      expect(ids(await store.scan('media', { after: 'm_b' }))).toEqual(['m_d']);
      expect(ids(await store.scan('media', { order: 'desc' }))).toEqual(['m_d', 'm_b', 'm_e', 'm_a', 'm_c']);
      expect(ids(await store.scan('media', { order: 'desc', limit: 2, after: 'm_e' }))).toEqual(['m_a', 'm_c']);
      expect(await store.scan('media', { after: 'm_unknown' })).toEqual([]);
      expect(ids(await store.transact((tx) => tx.scan('media', { limit: 1, after: 'm_c' })))).toEqual(['m_a']);
    });

    test('find on a unique and a non-unique index, in insertion order, with paging', async () => {
      await insertAll('contacts', [
        { id: 'ct_1', accountId: 'acc_1', phone: '+1', email: 'x@example.com' },
        { id: 'ct_2', accountId: 'acc_1', phone: '+2', email: 'y@example.com' },
        { id: 'ct_3', accountId: 'acc_1', phone: '+3', email: 'x@example.com' },
        { id: 'ct_4', accountId: 'acc_2', phone: '+1', email: 'x@example.com' },
        { id: 'ct_5', accountId: 'acc_1', phone: '+5', email: 'x@example.com' },
      ] as Contact[]);
      expect(ids(await store.find('contacts', 'phone', ['acc_1', '+1']))).toEqual(['ct_1']);
      expect(ids(await store.find('contacts', 'phone', ['acc_2', '+1']))).toEqual(['ct_4']);
      expect(await store.find('contacts', 'phone', ['acc_3', '+1'])).toEqual([]);
      const byEmail = ['acc_1', 'x@example.com'];
      expect(ids(await store.find('contacts', 'email', byEmail))).toEqual(['ct_1', 'ct_3', 'ct_5']);
      expect(ids(await store.find('contacts', 'email', byEmail, { limit: 2 }))).toEqual(['ct_1', 'ct_3']);
      expect(ids(await store.find('contacts', 'email', byEmail, { after: 'ct_3' }))).toEqual(['ct_5']);
      expect(ids(await store.find('contacts', 'email', byEmail, { order: 'desc' }))).toEqual(['ct_5', 'ct_3', 'ct_1']);
      expect(ids(await store.find('contacts', 'email', byEmail, { order: 'desc', after: 'ct_5', limit: 1 }))).toEqual(['ct_3']);
      expect(ids(await store.transact((tx) => tx.find('contacts', 'email', byEmail, { after: 'ct_1' })))).toEqual(['ct_3', 'ct_5']);
    });

    test('a find value is compared as text: a number finds the same document as its string', async () => {
      await insertAll('accounts', [{ id: 'acc_1', parentId: 42 } as Doc, { id: 'acc_2', parentId: '42' } as Doc]);
      expect(ids(await store.find('accounts', 'parentId', [42]))).toEqual(['acc_1', 'acc_2']);
      expect(ids(await store.find('accounts', 'parentId', ['42']))).toEqual(['acc_1', 'acc_2']);
    });

    test('a taken id or unique key fails the transaction with a StoreConflictError; nothing of it is kept', async () => {
      await insertAll('contacts', [{ id: 'ct_1', accountId: 'acc_1', phone: '+1' } as Contact]);
      const byId = store.transact((tx) => tx.insert('contacts', { id: 'ct_1', accountId: 'acc_1', phone: '+9' }));
      await expect(byId).rejects.toBeInstanceOf(StoreConflictError);
      await expect(byId).rejects.toMatchObject({ collection: 'contacts', index: 'id', key: 'ct_1' });
      const byPhone = store.transact((tx) => tx.insert('contacts', { id: 'ct_2', accountId: 'acc_1', phone: '+1' }));
      await expect(byPhone).rejects.toMatchObject({ name: 'StoreConflictError', collection: 'contacts', index: 'phone' });

      const amid = store.transact(async (tx) => {
        await tx.insert('contacts', { id: 'ct_3', accountId: 'acc_1', phone: '+3' });
        await tx.insert('contacts', { id: 'ct_4', accountId: 'acc_1', phone: '+1' });
        await tx.insert('contacts', { id: 'ct_5', accountId: 'acc_1', phone: '+5' });
      });
      await expect(amid).rejects.toMatchObject({ name: 'StoreConflictError', collection: 'contacts', index: 'phone' });
      expect(ids(await store.scan('contacts'))).toEqual(['ct_1']);
    });

    test('documents missing an index field (or holding null) are not in that index and never conflict', async () => {
      await insertAll('contacts', [
        { id: 'ct_1', accountId: 'acc_1', email: 'a@example.com' },
        { id: 'ct_2', accountId: 'acc_1', email: 'a@example.com' },
        { id: 'ct_3', accountId: 'acc_1', phone: null, email: 'a@example.com' },
        { id: 'ct_4', phone: '+1', email: 'a@example.com' },
        { id: 'ct_5', phone: '+1' },
      ] as Contact[]);
      expect(await store.scan('contacts')).toHaveLength(5);
      expect(ids(await store.find('contacts', 'email', ['acc_1', 'a@example.com']))).toEqual(['ct_1', 'ct_2', 'ct_3']);
      expect(await store.find('contacts', 'phone', ['acc_1', 'null'])).toEqual([]);
    });

    test('update merges shallowly and returns the new document; its old keys leave the indexes', async () => {
      await insertAll('contacts', [{ id: 'ct_1', accountId: 'acc_1', phone: '+1', email: 'a@example.com', extra: { a: 1, b: 2 } } as Contact]);
      const updated = await store.transact((tx) => tx.update<Contact>('contacts', 'ct_1', { phone: '+2', extra: { a: 3 }, email: undefined }));
      expect(updated).toEqual({ id: 'ct_1', accountId: 'acc_1', phone: '+2', extra: { a: 3 } });
      expect(await store.get('contacts', 'ct_1')).toEqual(updated);
      expect(await store.find('contacts', 'phone', ['acc_1', '+1'])).toEqual([]);
      expect(ids(await store.find('contacts', 'phone', ['acc_1', '+2']))).toEqual(['ct_1']);
      expect(await store.find('contacts', 'email', ['acc_1', 'a@example.com'])).toEqual([]);
      // The key it left is free.
      await insertAll('contacts', [{ id: 'ct_2', accountId: 'acc_1', phone: '+1' } as Contact]);
    });

    test('touch gives a document the last place, as an insert would; every write of a transaction applies, in order', async () => {
      await insertAll('media', ['m_a', 'm_b', 'm_c'].map((id) => ({ id })));
      await store.transact((tx) => tx.touch<Counted>('media', 'm_a', { n: 1 }));
      expect(ids(await store.scan('media'))).toEqual(['m_b', 'm_c', 'm_a']);
      await store.transact(async (tx) => {
        await tx.insert('media', { id: 'm_d' });
        await tx.update<Counted>('media', 'm_b', { n: 1 });
        await tx.insert('media', { id: 'm_e' });
        await tx.touch<Counted>('media', 'm_d', { n: 2 });
        await tx.touch<Counted>('media', 'm_b', { n: 3 });
        await tx.update<Counted>('media', 'm_e', { n: 4 });
        await tx.update<Counted>('media', 'm_e', { m: 5 });
      });
      expect(ids(await store.scan('media'))).toEqual(['m_c', 'm_a', 'm_e', 'm_d', 'm_b']);
      expect(await Promise.all(['m_b', 'm_d', 'm_e'].map((id) => store.get('media', id)))).toEqual([
        { id: 'm_b', n: 3 },
        { id: 'm_d', n: 2 },
        { id: 'm_e', n: 4, m: 5 },
      ]);
    });

    test('a list read again in a transaction shows its writes: an update in its place, an insert or a touch last, a document leaving or joining', async () => {
      await insertAll('conversations', [{ id: 'cv_1', contactId: 'ct_a' }, { id: 'cv_2', contactId: 'ct_a' }, { id: 'cv_3', contactId: 'ct_b' }] as Thread[]);
      const seen = await store.transact(async (tx) => {
        const lists: string[][] = [];
        const list = async () => void lists.push(ids(await tx.find('conversations', 'contact', ['ct_a'])));
        await list();
        await tx.update<Thread>('conversations', 'cv_1', { n: 1 });
        await list();
        await tx.touch<Thread>('conversations', 'cv_1', { n: 2 });
        await list();
        await tx.insert('conversations', { id: 'cv_4', contactId: 'ct_a' });
        await list();
        await tx.update<Thread>('conversations', 'cv_2', { contactId: 'ct_b' });
        await list();
        await tx.update<Thread>('conversations', 'cv_3', { contactId: 'ct_a' });
        await list();
        await tx.remove('conversations', 'cv_4');
        await list();
        return { lists, first: (await tx.find<Thread>('conversations', 'contact', ['ct_a']))[1] };
      });
      expect(seen.lists).toEqual([
        ['cv_1', 'cv_2'],
        ['cv_1', 'cv_2'],
        ['cv_2', 'cv_1'],
        ['cv_2', 'cv_1', 'cv_4'],
        ['cv_1', 'cv_4'],
        ['cv_3', 'cv_1', 'cv_4'],
        ['cv_3', 'cv_1'],
      ]);
      expect(seen.first).toEqual({ id: 'cv_1', contactId: 'ct_a', n: 2 });
      expect(ids(await store.find('conversations', 'contact', ['ct_a']))).toEqual(['cv_3', 'cv_1']);
    });

    test('update throws for an absent document, a changed id, or a taken unique key (and changes nothing)', async () => {
      await insertAll('contacts', [{ id: 'ct_1', accountId: 'acc_1', phone: '+1' }, { id: 'ct_2', accountId: 'acc_1', phone: '+2' }] as Contact[]);
      await expect(store.transact((tx) => tx.update<Contact>('contacts', 'ct_nope', { name: 'x' }))).rejects.toThrow();
      await expect(store.transact((tx) => tx.update<Contact>('contacts', 'ct_1', { id: 'ct_9' }))).rejects.toThrow();
      await expect(store.transact((tx) => tx.update<Contact>('contacts', 'ct_2', { phone: '+1', name: 'Bo' }))).rejects.toMatchObject({
        name: 'StoreConflictError',
        collection: 'contacts',
        index: 'phone',
      });
      expect(await store.get('contacts', 'ct_2')).toEqual({ id: 'ct_2', accountId: 'acc_1', phone: '+2' });
      expect(await store.get('contacts', 'ct_9')).toBeUndefined();
    });

    test('remove deletes; removing an absent document is a no-op', async () => {
      await insertAll('contacts', [{ id: 'ct_1', accountId: 'acc_1', phone: '+1' } as Contact]);
      await store.transact(async (tx) => {
        await tx.remove('contacts', 'ct_1');
        await tx.remove('contacts', 'ct_nope');
        expect(await tx.get('contacts', 'ct_1')).toBeUndefined();
      });
      expect(await store.get('contacts', 'ct_1')).toBeUndefined();
      expect(await store.find('contacts', 'phone', ['acc_1', '+1'])).toEqual([]);
    });
  });

  describe('transactions', () => {
    test('a transaction that throws leaves nothing behind and rethrows its own error', async () => {
      await insertAll('contacts', [{ id: 'ct_1', accountId: 'acc_1', phone: '+1', name: 'Ann' } as Contact]);
      const failure = new Error('changed my mind');
      const run = store.transact(async (tx) => {
        await tx.insert('contacts', { id: 'ct_2', accountId: 'acc_1', phone: '+2' });
        await tx.update<Contact>('contacts', 'ct_1', { name: 'Bo' });
        await tx.remove('media', 'm_1');
        await tx.enqueue({ kind: 'test', data: {} });
        expect(await tx.get('contacts', 'ct_2')).toBeDefined();
        throw failure;
      });
      await expect(run).rejects.toBe(failure);
      expect(ids(await store.scan('contacts'))).toEqual(['ct_1']);
      expect(await store.get<Contact>('contacts', 'ct_1')).toMatchObject({ name: 'Ann' });
      expect(await store.jobs.nextDueAt()).toBeUndefined();
    });

    test('a conflict that the function turns into an error of its own is final; one it lets through stays a StoreConflictError', async () => {
      await insertAll('accounts', [{ id: 'acc_1', email: 'a@example.com' } as Doc]);
      const own = new Error('that email is taken');
      let runs = 0;
      const handled = store.transact(async (tx) => {
        runs++;
        try {
          await tx.insert('accounts', { id: 'acc_2', email: 'a@example.com' });
          // A backend that sends writes ahead tells of the conflict at the next read.
          await tx.get('accounts', 'acc_1');
        } catch {
          throw own;
        }
      });
      await expect(handled).rejects.toBe(own);
      expect(runs).toBe(1);
      const through = store.transact((tx) => tx.insert('accounts', { id: 'acc_3', email: 'a@example.com' }));
      await expect(through).rejects.toMatchObject({ name: 'StoreConflictError', collection: 'accounts', index: 'email', key: 'a@example.com' });
      expect(ids(await store.scan('accounts'))).toEqual(['acc_1']);
    });

    test('50 concurrent read-then-increment transactions on one document: none is lost', async () => {
      await insertAll('idempotency', [{ id: 'idk_1', accountId: 'acc_1', key: 'k', n: 0 } as Counter]);
      await warmUp();
      await Promise.all(
        Array.from({ length: 50 }, () =>
          store.transact(async (tx) => {
            const counter = (await tx.get<Counter>('idempotency', 'idk_1'))!;
            await sleep(Math.random() * 2);
            await tx.update<Counter>('idempotency', 'idk_1', { n: counter.n + 1 });
          }),
        ),
      );
      expect(await store.get<Counter>('idempotency', 'idk_1')).toMatchObject({ n: 50 });
    });

    test('20 concurrent "find by unique key, insert if absent": one document, every transaction returns it', async () => {
      await warmUp();
      let runs = 0;
      // Where transactions run side by side (PostgreSQL), the first two both look before either inserts, so the
      // race is run every time rather than when the machine's timing allows it.
      const sideBySide = backend.name === 'postgres';
      let looked = 0;
      let bothLooked!: () => void;
      const race = new Promise<void>((resolve) => (bothLooked = resolve));
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.transact(async (tx) => {
            runs++;
            const [found] = await tx.find<Counter>('idempotency', 'key', ['acc_1', 'shared']);
            if (found) return found.id;
            looked += 1;
            if (looked === 2) bothLooked();
            if (sideBySide && looked <= 2) await race;
            return (await tx.insert<Counter>('idempotency', { id: `idk_${i}`, accountId: 'acc_1', key: 'shared', n: i })).id;
          }),
        ),
      );
      const docs = await store.find<Counter>('idempotency', 'key', ['acc_1', 'shared']);
      expect(docs).toHaveLength(1);
      expect(await store.scan('idempotency')).toHaveLength(1);
      expect(new Set(results)).toEqual(new Set([docs[0]!.id]));
      // Where transactions run side by side, the one that lost the race ran again.
      if (sideBySide) expect(runs).toBeGreaterThan(20);
    });
  });

  describe('jobs', () => {
    const claimOne = async (leaseMs = 60_000) => {
      const [job] = await store.jobs.claim(1, leaseMs);
      expect(job).toBeDefined();
      return job!;
    };

    test('a job enqueued in a transaction that throws is not queued', async () => {
      await expect(
        store.transact(async (tx) => {
          await tx.enqueue({ kind: 'test', data: { a: 1 }, key: 'k1' });
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await store.jobs.claim(10, 1000)).toEqual([]);
      expect(await store.jobs.nextDueAt()).toBeUndefined();
      // Its key was never held.
      await store.transact((tx) => tx.enqueue({ kind: 'test', data: {}, key: 'k1' }));
      expect((await store.jobs.list('pending')).map((j) => j.key)).toEqual(['k1']);
    });

    test('a job is queued as typed; a key held by a waiting or running job queues nothing', async () => {
      const before = Date.now();
      await store.transact((tx) => tx.enqueue({ kind: 'reply', data: { n: 1, nested: { a: [1] } }, key: 'k', accountId: 'acc_1' }));
      const [job] = await store.jobs.list('pending');
      expect(job).toEqual({
        id: expect.any(String),
        kind: 'reply',
        data: { n: 1, nested: { a: [1] } },
        accountId: 'acc_1',
        key: 'k',
        status: 'pending',
        runAt: expect.any(Number),
        attempts: 0,
        lease: null,
        lastError: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        updatedAt: expect.any(String),
      });
      expect(job!.runAt).toBeGreaterThanOrEqual(before);
      await store.transact((tx) => tx.enqueue({ kind: 'reply', data: { n: 2 }, key: 'k' }));
      expect(await store.jobs.list('pending')).toEqual([job]);
      const claimed = await claimOne();
      expect(claimed.id).toBe(job!.id);
      await store.transact((tx) => tx.enqueue({ kind: 'reply', data: { n: 3 }, key: 'k' }));
      expect(await store.jobs.list('pending')).toEqual([]);
      await store.transact(async (tx) => {
        await tx.enqueue({ kind: 'reply', data: {} });
        await tx.enqueue({ kind: 'reply', data: {} });
      });
      const unkeyed = await store.jobs.list('pending');
      expect(new Set([job!.id, ...ids(unkeyed)]).size).toBe(3);
      expect(unkeyed[0]).toMatchObject({ key: null, accountId: null });
    });

    test('cancelJobs removes the waiting jobs of a key, not a running one', async () => {
      await store.transact((tx) => tx.enqueue({ kind: 'followup', data: {}, key: 'f1', runAt: Date.now() + 60_000 }));
      await store.transact((tx) => tx.cancelJobs('f1'));
      expect(await store.jobs.list('pending')).toEqual([]);
      await store.transact((tx) => tx.cancelJobs('f1'));
      expect(await store.jobs.nextDueAt()).toBeUndefined();
      await store.transact((tx) => tx.enqueue({ kind: 'followup', data: {}, key: 'f1' }));
      const fresh = await claimOne();
      expect(fresh.key).toBe('f1');
      await store.transact((tx) => tx.cancelJobs('f1'));
      expect(ids(await store.jobs.list('running'))).toEqual([fresh.id]);
    });

    test('claim takes only due jobs, oldest runAt first, at most `limit`', async () => {
      const at = Date.now();
      await store.transact(async (tx) => [
        await tx.enqueue({ kind: 'b', data: {}, runAt: at - 1000 }),
        await tx.enqueue({ kind: 'later', data: {}, runAt: at + 60_000 }),
        await tx.enqueue({ kind: 'a', data: {}, runAt: at - 3000 }),
        await tx.enqueue({ kind: 'c', data: {}, runAt: at - 500 }),
      ]);
      expect(await store.jobs.nextDueAt()).toBe(at - 3000);
      const first = await store.jobs.claim(2, 30_000);
      expect(first.map((j) => j.kind)).toEqual(['a', 'b']);
      const rest = await store.jobs.claim(10, 30_000);
      expect(rest.map((j) => j.kind)).toEqual(['c']);
      expect(await store.jobs.claim(10, 30_000)).toEqual([]);
      expect(await store.jobs.claim(0, 30_000)).toEqual([]);
      for (const job of [...first, ...rest]) {
        expect(job).toMatchObject({ status: 'running', attempts: 1, lease: expect.any(String) });
        expect(job.runAt).toBeGreaterThanOrEqual(at + 30_000);
      }
      // Running jobs are due again when their lease ends, before the job waiting for later.
      expect(await store.jobs.nextDueAt()).toBe(first[0]!.runAt);
    });

    test('claimDue claims as claim does and answers, in the same call, when the next job is due after it', async () => {
      expect(await store.jobs.claimDue(5, 120_000)).toEqual({ jobs: [], nextDueAt: undefined });
      const at = Date.now();
      await store.transact(async (tx) => [
        await tx.enqueue({ kind: 'now', data: {}, runAt: at - 1000 }),
        await tx.enqueue({ kind: 'later', data: {}, runAt: at + 60_000 }),
      ]);
      const first = await store.jobs.claimDue(5, 120_000);
      expect(first.jobs.map((j) => j.kind)).toEqual(['now']);
      // The job waiting for later comes before the claimed one's lease ends.
      expect(first.nextDueAt).toBe(at + 60_000);
      expect(await store.jobs.claimDue(5, 120_000)).toEqual({ jobs: [], nextDueAt: at + 60_000 });
      await store.jobs.settle(first.jobs[0]!, { done: true });
      const running = await store.jobs.claimDue(5, 10_000);
      expect(running.jobs).toEqual([]);
      await store.transact((tx) => tx.enqueue({ kind: 'soon', data: {}, runAt: at - 10 }));
      const soon = await store.jobs.claimDue(5, 10_000);
      // Now the claimed job's lease ends first: it is due again then, if its runner has not settled it.
      expect(soon.nextDueAt).toBe(soon.jobs[0]!.runAt);
      expect(soon.nextDueAt).toBe(await store.jobs.nextDueAt());
    });

    test('a claimed job is not claimed again while its lease holds; after it, with a new lease; a stale settle is refused', async () => {
      await store.transact((tx) => tx.enqueue({ kind: 'deliver', data: {} }));
      const first = await claimOne(150);
      expect(await store.jobs.claim(10, 150)).toEqual([]);
      await sleep(200);
      const second = await claimOne(60_000);
      expect(second).toMatchObject({ id: first.id, attempts: 2, status: 'running' });
      expect(second.lease).not.toBe(first.lease);
      expect(await store.jobs.settle(first, { done: true })).toBe(false);
      expect(await store.jobs.settle(second, { done: true })).toBe(true);
      expect(await store.jobs.settle(second, { done: true })).toBe(false);
      expect(await store.jobs.nextDueAt()).toBeUndefined();
      expect(await store.jobs.list('running')).toEqual([]);
    });

    test('settle with retryAt puts the job back, keeping its key; with dead it gives up and lets the key go', async () => {
      await store.transact((tx) => tx.enqueue({ kind: 'deliver', data: { to: 'x' }, key: 'd1' }));
      const job = await claimOne();
      const retryAt = Date.now() + 100;
      expect(await store.jobs.settle(job, { retryAt, error: 'timeout' })).toBe(true);
      const [waiting] = await store.jobs.list('pending');
      expect(waiting).toMatchObject({ id: job.id, status: 'pending', runAt: retryAt, lease: null, lastError: 'timeout', key: 'd1', attempts: 1 });
      expect(await store.jobs.nextDueAt()).toBe(retryAt);
      expect(await store.jobs.claim(1, 1000)).toEqual([]);
      await sleep(120);
      const again = await claimOne();
      expect(again).toMatchObject({ id: job.id, attempts: 2 });

      expect(await store.jobs.settle(again, { dead: 'gave up' })).toBe(true);
      const dead = await store.jobs.list('dead');
      expect(dead).toEqual([expect.objectContaining({ id: job.id, status: 'dead', runAt: null, key: null, lease: null, lastError: 'gave up', data: { to: 'x' } })]);
      expect(await store.jobs.nextDueAt()).toBeUndefined();
      expect(await store.jobs.claim(10, 1000)).toEqual([]);
      await store.transact((tx) => tx.enqueue({ kind: 'deliver', data: {}, key: 'd1' }));
      const [successor] = await store.jobs.list('pending');
      expect(successor).toMatchObject({ key: 'd1', status: 'pending' });
      expect(successor!.id).not.toBe(job.id);
    });

    test('list pages jobs of one status, oldest first; revive puts a dead job back, due now', async () => {
      await store.transact(async (tx) => {
        for (let i = 0; i < 4; i++) await tx.enqueue({ kind: `k${i}`, data: {} });
      });
      const queued = await store.jobs.list('pending');
      expect(queued.map((j) => j.kind)).toEqual(['k0', 'k1', 'k2', 'k3']);
      const claimed = await store.jobs.claim(4, 60_000);
      for (const job of claimed) expect(await store.jobs.settle(job, { dead: `failed ${job.kind}` })).toBe(true);
      expect(ids(await store.jobs.list('dead'))).toEqual(ids(queued));
      expect(ids(await store.jobs.list('dead', { limit: 2 }))).toEqual(ids(queued.slice(0, 2)));
      expect(ids(await store.jobs.list('dead', { after: queued[1]!.id }))).toEqual(ids(queued.slice(2)));
      expect(ids(await store.jobs.list('dead', { order: 'desc', limit: 1 }))).toEqual([queued[3]!.id]);
      expect(await store.jobs.list('pending')).toEqual([]);

      const before = Date.now();
      expect(await store.jobs.revive(queued[2]!.id)).toBe(true);
      expect(await store.jobs.revive(queued[2]!.id)).toBe(false);
      expect(await store.jobs.revive('job_nope')).toBe(false);
      const due = await store.jobs.nextDueAt();
      expect(due).toBeGreaterThanOrEqual(before);
      expect(due).toBeLessThanOrEqual(Date.now());
      expect(await claimOne()).toMatchObject({ id: queued[2]!.id, kind: 'k2', status: 'running' });
      expect(await store.jobs.list('dead')).toHaveLength(3);
    });

    test('adopt takes in jobs of another store as they are; a running one waits again', async () => {
      const at = Date.now();
      const made = { data: { n: 1 }, accountId: 'acc_1', lastError: null, createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-02T00:00:00.000Z' };
      const jobs: Job[] = [
        { ...made, id: 'job_a', kind: 'a', key: 'ka', status: 'pending', runAt: at - 10, attempts: 0, lease: null },
        { ...made, id: 'job_b', kind: 'b', key: null, status: 'running', runAt: at - 5, attempts: 2, lease: 'lease-of-the-other-store' },
        { ...made, id: 'job_c', kind: 'c', key: null, status: 'dead', runAt: null, attempts: 5, lease: null, lastError: 'gave up' },
      ];
      await store.jobs.adopt(jobs);
      expect(await store.jobs.list('pending')).toEqual([jobs[0], { ...jobs[1], status: 'pending', lease: null }]);
      expect(await store.jobs.list('running')).toEqual([]);
      expect(await store.jobs.list('dead')).toEqual([jobs[2]]);
      await store.transact((tx) => tx.enqueue({ kind: 'a', data: {}, key: 'ka' }));
      expect(ids(await store.jobs.list('pending'))).toEqual(['job_a', 'job_b']);
      const claimed = await store.jobs.claim(10, 60_000);
      expect(claimed.map((j) => [j.id, j.attempts])).toEqual([['job_a', 1], ['job_b', 3]]);
      // All or nothing: one taken id refuses the lot.
      await expect(store.jobs.adopt([{ ...jobs[2]!, id: 'job_d' }, jobs[2]!])).rejects.toBeInstanceOf(StoreConflictError);
      expect(ids(await store.jobs.list('dead'))).toEqual(['job_c']);
    });
  });

  describe('news of queued jobs', () => {
    /** A listener that reads the next due time when called: what a job runner would find then. */
    const listen = () => {
      const seen: Array<number | undefined> = [];
      let calls = 0;
      const unsubscribe = store.jobs.onEnqueued(() => {
        calls += 1;
        void store.jobs.nextDueAt().then((due) => seen.push(due));
      });
      return { seen, calls: () => calls, unsubscribe };
    };
    const later = () => Date.now() + 3_600_000;

    test('a listener is called once a transaction that queued a job has committed, never for one rolled back', async () => {
      const { seen, calls, unsubscribe } = listen();
      await expect(
        store.transact(async (tx) => {
          await tx.enqueue({ kind: 'test', data: {}, runAt: later() });
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      await store.transact((tx) => tx.insert('media', { id: 'med_1' }));
      // Time for a wrong call to arrive: the right one below comes within milliseconds.
      await sleep(300);
      expect(calls()).toBe(0);

      const runAt = later();
      await store.transact((tx) => tx.enqueue({ kind: 'test', data: {}, runAt }));
      await until('the listener', () => seen.length > 0);
      // By then the job is committed: a reader outside the transaction finds it.
      expect(seen[0]).toBe(runAt);

      unsubscribe();
      const before = calls();
      await store.transact((tx) => tx.enqueue({ kind: 'test', data: {}, runAt: later() }));
      await sleep(300);
      expect(calls()).toBe(before);
    });

    test('a transaction that queues many jobs is one call; after a burst of them, a call finds every job', async () => {
      const { seen, calls, unsubscribe } = listen();
      await store.transact(async (tx) => {
        for (let i = 0; i < 50; i++) await tx.enqueue({ kind: 'test', data: { i }, runAt: later() });
      });
      await until('the listener', () => calls() > 0);
      await sleep(300);
      expect(calls()).toBe(1);

      const runAts = Array.from({ length: 20 }, (_, i) => later() - (i + 1) * 60_000);
      await Promise.all(runAts.map((runAt) => store.transact((tx) => tx.enqueue({ kind: 'test', data: {}, runAt }))));
      await until('a call after the last commit', () => seen.includes(Math.min(...runAts)));
      unsubscribe();
    });

    test('revive and adopt are news too', async () => {
      await store.transact((tx) => tx.enqueue({ kind: 'test', data: {} }));
      const [job] = await store.jobs.claim(1, 60_000);
      await store.jobs.settle(job!, { dead: 'gave up' });
      const { calls, unsubscribe } = listen();
      expect(await store.jobs.revive(job!.id)).toBe(true);
      await until('news of the revived job', () => calls() === 1);
      const at = new Date().toISOString();
      await store.jobs.adopt([
        { id: 'job_adopted', kind: 'test', data: {}, accountId: null, key: null, status: 'pending', runAt: later(), attempts: 0, lease: null, lastError: null, createdAt: at, updatedAt: at },
      ]);
      await until('news of the adopted job', () => calls() === 2);
      unsubscribe();
    });

    test('once closing, a store calls no listener, not even for a job committed just before', async () => {
      const { calls } = listen();
      await store.transact((tx) => tx.enqueue({ kind: 'test', data: {}, runAt: later() }));
      // The news may have reached the listener already (on PostgreSQL it travels on another connection); from the
      // moment close is called, it reaches no one.
      const before = calls();
      await store.close();
      await sleep(300);
      expect(calls()).toBe(before);
    });
  });

  describe('gateway settings', () => {
    test('get gives undefined until a value is stored; the first value stored under a name stays', async () => {
      expect(await store.settings.get('tls')).toBeUndefined();
      expect(await store.settings.putIfAbsent('tls', 'first')).toBe('first');
      expect(await store.settings.putIfAbsent('tls', 'second')).toBe('first');
      expect(await store.settings.get('tls')).toBe('first');
      expect(await store.settings.get('other')).toBeUndefined();
    });

    test('concurrent first stores agree on one value', async () => {
      await warmUp();
      const kept = await Promise.all(Array.from({ length: 10 }, (_, i) => store.settings.putIfAbsent('tls', `value ${i}`)));
      expect(new Set(kept).size).toBe(1);
      expect(await store.settings.get('tls')).toBe(kept[0]);
    });
  });

  describe('blobs and hits', () => {
    // Whether a put over an existing id replaces it, the interface does not say (lowdb refuses): not tested.
    test('blobs: put, get (per account), delete', async () => {
      const bytes = Buffer.from([0, 1, 2, 255, 0]);
      await store.blobs.put('acc_1', 'med_1', bytes);
      expect(Buffer.compare((await store.blobs.get('acc_1', 'med_1'))!, bytes)).toBe(0);
      expect(await store.blobs.get('acc_2', 'med_1')).toBeUndefined();
      expect(await store.blobs.get('acc_1', 'med_nope')).toBeUndefined();
      await store.blobs.put('acc_1', 'med_2', Buffer.from('two'));
      expect((await store.blobs.get('acc_1', 'med_2'))!.toString()).toBe('two');
      await store.blobs.delete('acc_1', 'med_1');
      await store.blobs.delete('acc_1', 'med_1');
      expect(await store.blobs.get('acc_1', 'med_1')).toBeUndefined();
    });

    test('hit counts within a fixed window per key and starts a new window after it', async () => {
      const before = Date.now();
      const first = await store.hit('ip:1', 300);
      expect(first.hits).toBe(1);
      expect(first.resetAt).toBeGreaterThanOrEqual(before + 300);
      expect(first.resetAt).toBeLessThanOrEqual(Date.now() + 300);
      expect(await store.hit('ip:1', 300)).toEqual({ hits: 2, resetAt: first.resetAt });
      expect((await store.hit('ip:2', 300)).hits).toBe(1);
      expect(await store.hit('ip:1', 300)).toEqual({ hits: 3, resetAt: first.resetAt });
      await sleep(first.resetAt - Date.now() + 20);
      const next = await store.hit('ip:1', 300);
      expect(next.hits).toBe(1);
      expect(next.resetAt).toBeGreaterThan(first.resetAt);
    });

    test('hit with weight 0 reads the count, a negative weight takes hits back; neither starts a window', async () => {
      const none = await store.hit('fail:1', 60_000, 0);
      expect(none.hits).toBe(0);
      expect((await store.hit('fail:1', 60_000, -1)).hits).toBe(0);
      const first = await store.hit('fail:1', 60_000);
      expect(first.hits).toBe(1);
      expect(await store.hit('fail:1', 60_000, 0)).toEqual({ hits: 1, resetAt: first.resetAt });
      expect(await store.hit('fail:1', 60_000, 0)).toEqual({ hits: 1, resetAt: first.resetAt });
      expect(await store.hit('fail:1', 60_000, 2)).toEqual({ hits: 3, resetAt: first.resetAt });
      expect(await store.hit('fail:1', 60_000, -1)).toEqual({ hits: 2, resetAt: first.resetAt });
      expect(await store.hit('fail:1', 60_000, -5)).toEqual({ hits: 0, resetAt: first.resetAt });
      expect(await store.hit('fail:1', 60_000)).toEqual({ hits: 1, resetAt: first.resetAt });
      expect((await store.hit('fail:2', 60_000, 0)).hits).toBe(0);
    });
  });
});

/** What only the PostgreSQL backend has: a schema made by migrations, several processes on one database. */
(HAS_POSTGRES ? describe : describe.skip)('postgres database', () => {
  let openPostgresStore: PostgresModule['openPostgresStore'];
  const opened: Store[] = [];
  /** Migrated by the first test that opens it, emptied before each. */
  let url: string;

  beforeAll(async () => {
    ({ openPostgresStore } = (await import(path.join(DIST, 'store/postgres/postgres-store.js'))) as PostgresModule);
    url = await createTestDatabase();
  });

  beforeEach(() => emptyDatabase(url));

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  const open = async (url: string, declared = collections) => {
    const store = await openPostgresStore({ url, collections: declared });
    opened.push(store);
    return store;
  };

  const withClient = async <R>(url: string, work: (client: Client) => Promise<R>): Promise<R> => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  test('processes opening a new database at once migrate it once', async () => {
    const empty = await createTestDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(empty)));
    expect(stores.map((s) => s.backend)).toEqual(['postgres', 'postgres', 'postgres', 'postgres']);
    const versions = await withClient(empty, async (c) => (await c.query('SELECT version FROM leadchat_migrations ORDER BY version')).rows);
    // Every migration recorded once, in order, however many processes raced to apply it.
    const { migrations } = (await import(path.join(DIST, 'store/postgres/migrations.js'))) as MigrationsModule;
    expect(versions).toEqual(migrations.map((m) => ({ version: m.version })));
    await open(empty);
  });

  test('a collection or an index declared without a migration is refused by name', async () => {
    await expect(open(url, [...collections, { name: 'surveys', indexes: { account: { fields: ['accountId'] } } }])).rejects.toThrow(
      /collection "surveys" has no table/,
    );
    const changed = collections.map((c) => (c.name === 'lists' ? { ...c, indexes: { ...c.indexes, byName: { fields: ['accountId', 'name'] } } } : c));
    await expect(open(url, changed)).rejects.toThrow(/index "byName" of collection "lists"/);
    const notUnique = collections.map((c) => (c.name === 'memberships' ? { ...c, indexes: { ...c.indexes, member: { fields: ['listId', 'contactId'] } } } : c));
    await expect(open(url, notUnique)).rejects.toThrow(/index "member" of collection "memberships" is declared on listId, contactId/);
    expect((await open(url)).backend).toBe('postgres');
  });

  test('two processes on one database: read-then-write transactions wait for each other', async () => {
    const [a, b] = [await open(url), await open(url)];
    await a.transact((tx) => tx.insert('idempotency', { id: 'idk_1', accountId: 'acc_1', key: 'k', n: 0 }));
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).transact(async (tx) => {
          const counter = (await tx.get<Counter>('idempotency', 'idk_1'))!;
          await tx.update<Counter>('idempotency', 'idk_1', { n: counter.n + 1 });
        }),
      ),
    );
    expect(await b.get<Counter>('idempotency', 'idk_1')).toMatchObject({ n: 40 });
    // Claims of both share the due jobs out: each job once.
    await a.transact(async (tx) => {
      for (let i = 0; i < 30; i++) await tx.enqueue({ kind: 'k', data: { i } });
    });
    const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).jobs.claim(10, 60_000)));
    const claimed = claims.flat().map((j) => j.id);
    expect(claimed).toHaveLength(30);
    expect(new Set(claimed).size).toBe(30);
  });

  test('a job queued through one store is news to the listeners of another on the database', async () => {
    const [a, b] = [await open(url), await open(url)];
    let calls = 0;
    b.jobs.onEnqueued(() => (calls += 1));
    await a.transact((tx) => tx.enqueue({ kind: 'k', data: {} }));
    await until('news on the other store', () => calls === 1);
    expect((await b.jobs.claim(10, 60_000)).map((job) => job.kind)).toEqual(['k']);
  });

  test('a store whose listening connection is cut says so, listens again, and tells its listeners', async () => {
    const warnings: string[] = [];
    const log = { warn: (_fields: object, message: string) => void warnings.push(message), info: () => undefined };
    const listener = await openPostgresStore({ url, collections, log });
    opened.push(listener);
    const writer = await open(url);
    let calls = 0;
    listener.jobs.onEnqueued(() => (calls += 1));
    const database = new URL(url).pathname.slice(1);
    const cut = () =>
      withClient(process.env[ADMIN_URL_VARIABLE]!, async (admin) =>
        (await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN leadchat_jobs'`,
          [database],
        )).rowCount,
      );
    expect(await cut()).toBeGreaterThanOrEqual(2);
    await until('a warning', () => warnings.length > 0);
    expect(warnings[0]).toMatch(/not listening for queued jobs/);
    // Listening again, it tells its listeners: something may have been queued meanwhile.
    await until('news once listening again', () => calls === 1);
    await writer.transact((tx) => tx.enqueue({ kind: 'k', data: {} }));
    await until('news of a job queued after', () => calls === 2);
  });

  test('a connection lost in a transaction is a StoreWriteError, nothing of it is kept, and the store recovers', async () => {
    const store = await open(url);
    const database = new URL(url).pathname.slice(1);
    const run = store.transact(async (tx) => {
      await tx.insert('media', { id: 'med_1' });
      await withClient(process.env[ADMIN_URL_VARIABLE]!, (admin) =>
        admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]),
      );
      await tx.insert('media', { id: 'med_2' });
    });
    await expect(run).rejects.toBeInstanceOf(StoreWriteError);
    expect(await store.scan('media')).toEqual([]);
    await store.transact((tx) => tx.insert('media', { id: 'med_3' }));
    expect(ids(await store.scan('media'))).toEqual(['med_3']);
  });

  test('a document round-trips as JSON and jobs come back with numbers, not strings', async () => {
    const store = await open(url);
    const runAt = Date.now() + 5_000_000_000;
    await store.transact((tx) => tx.enqueue({ kind: 'k', data: { big: 2 ** 53 - 1 }, runAt }));
    const [job] = await store.jobs.list('pending');
    expect(job).toMatchObject({ runAt, data: { big: 2 ** 53 - 1 } });
    expect(await store.jobs.nextDueAt()).toBe(runAt);
    const doc = { id: 'med_1', text: 'é 😀 \\ "quoted"', n: -0.25, big: 2 ** 53 - 1, empty: {}, list: [] };
    await store.transact((tx) => tx.insert('media', doc));
    expect(await store.get('media', 'med_1')).toEqual(doc);
  });
});
