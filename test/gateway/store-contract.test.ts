import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Pool } from 'pg';
import type {
  CollectionSpec,
  Doc,
  Job,
  JobStats,
  Store,
} from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import type { HealthLog } from '../../gateway/src/store/health.js' with { 'resolution-mode': 'import' };
import { ADMIN_URL_VARIABLE, createTestDatabase, emptyDatabase } from '../helpers/postgres';
import { COMMITTING, Relay } from '../helpers/relay';
import { gatewayModule } from '../helpers/gateway-modules';

type InterfaceModule = typeof import('../../gateway/src/store/store.js', { with: { 'resolution-mode': 'import' } });
type PostgresModule = typeof import('../../gateway/src/store/postgres/postgres-store.js', {
  with: { 'resolution-mode': 'import' }
});
type CollectionsModule = typeof import('../../gateway/src/domain/collections.js', {
  with: { 'resolution-mode': 'import' }
});
type MigrationsModule = typeof import('../../gateway/src/store/postgres/migrations.js', {
  with: { 'resolution-mode': 'import' }
});
type HealthModule = typeof import('../../gateway/src/store/health.js', { with: { 'resolution-mode': 'import' } });
type BatchesModule = typeof import('../../gateway/src/store/batches.js', { with: { 'resolution-mode': 'import' } });
type BackgroundModule = typeof import('../../gateway/src/store/background.js', {
  with: { 'resolution-mode': 'import' }
});
/** Typed here by the signature it promises, not its source: the lowdb adapter is being rewritten. */
interface LowdbModule {
  openLowdbStore(options: {
    dir: string;
    collections: CollectionSpec[];
    pageSize?: number;
    health?: InstanceType<HealthModule['StoreHealth']>;
  }): Promise<Store>;
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
let StoreUnavailableError: InterfaceModule['StoreUnavailableError'];
let CommitOutcomeUnknownError: InterfaceModule['CommitOutcomeUnknownError'];
let DEFAULT_QUEUE: InterfaceModule['DEFAULT_QUEUE'];
let StoreHealth: HealthModule['StoreHealth'];
let collections: CollectionSpec[];
let batchesOf: BatchesModule['batchesOf'];
let firstWanted: BatchesModule['firstWanted'];

beforeAll(async () => {
  ({ StoreConflictError, StoreWriteError, StoreUnavailableError, CommitOutcomeUnknownError, DEFAULT_QUEUE } =
    (await gatewayModule(path.join(DIST, 'store/store.js'))) as InterfaceModule);
  ({ StoreHealth } = (await gatewayModule(path.join(DIST, 'store/health.js'))) as HealthModule);
  ({ collections } = (await gatewayModule(path.join(DIST, 'domain/collections.js'))) as CollectionsModule);
  ({ batchesOf, firstWanted } = (await gatewayModule(path.join(DIST, 'store/batches.js'))) as BatchesModule);
});

/** What a store's health logged, line by line. */
interface Line {
  level: 'warn' | 'info';
  fields: Record<string, unknown>;
  message: string;
}

/** A log that keeps its lines, for a StoreHealth of a test. */
function keptLog(): HealthLog & { lines: Line[] } {
  const lines: Line[] = [];
  return {
    lines,
    warn: (fields, message) => void lines.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
    info: (fields, message) => void lines.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
  };
}

const byKind = (a: JobStats, b: JobStats) => a.kind.localeCompare(b.kind);

/** The queue as JobQueue.stats() tells it, counted again from every job listed. */
async function recount(store: Store, at: number): Promise<JobStats[]> {
  const kinds = new Map<string, JobStats>();
  for (const status of ['pending', 'running', 'dead'] as const) {
    for (const job of await store.jobs.list(status)) {
      let kind = kinds.get(job.kind);
      if (!kind) kinds.set(job.kind, (kind = { kind: job.kind, queued: 0, dead: 0, oldestDueAt: null }));
      if (status === 'dead') kind.dead += 1;
      else kind.queued += 1;
      if (job.runAt !== null && job.runAt <= at) kind.oldestDueAt = Math.min(kind.oldestDueAt ?? job.runAt, job.runAt);
    }
  }
  return [...kinds.values()].sort(byKind);
}

const statsOf = async (store: Store) => (await store.jobs.stats()).sort(byKind);

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
      const { openLowdbStore } = (await gatewayModule(path.join(DIST, 'store/lowdb/lowdb-store.js'))) as LowdbModule;
      const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-contract-'));
      const store = await openLowdbStore({ dir: path.join(dir, 'store'), collections });
      return { store, release: () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'postgres',
    async open() {
      const { openPostgresStore } = (await gatewayModule(
        path.join(DIST, 'store/postgres/postgres-store.js'),
      )) as PostgresModule;
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
      const doc: Contact = {
        id: 'ct_1',
        accountId: 'acc_1',
        name: 'Ann',
        n: 1.5,
        tags: ['a', 'b'],
        extra: { deep: { list: [1, null, true] } },
        phone: null,
      };
      const returned = await store.transact((tx) => tx.insert('contacts', doc));
      expect(returned).toEqual(doc);
      expect(await store.get('contacts', 'ct_1')).toEqual(doc);
      expect(await store.get('contacts', 'ct_nope')).toBeUndefined();
      expect(await store.transact((tx) => tx.get('contacts', 'ct_1'))).toEqual(doc);
    });

    test('scan pages in insertion order: limit, after, desc', async () => {
      await insertAll(
        'media',
        ['m_c', 'm_a', 'm_e', 'm_b', 'm_d'].map((id) => ({ id })),
      );
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
      expect(ids(await store.find('contacts', 'email', byEmail, { order: 'desc', after: 'ct_5', limit: 1 }))).toEqual([
        'ct_3',
      ]);
      expect(ids(await store.transact((tx) => tx.find('contacts', 'email', byEmail, { after: 'ct_1' })))).toEqual([
        'ct_3',
        'ct_5',
      ]);
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
      await expect(byPhone).rejects.toMatchObject({
        name: 'StoreConflictError',
        collection: 'contacts',
        index: 'phone',
      });

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
      await insertAll('contacts', [
        { id: 'ct_1', accountId: 'acc_1', phone: '+1', email: 'a@example.com', extra: { a: 1, b: 2 } } as Contact,
      ]);
      const updated = await store.transact((tx) =>
        tx.update<Contact>('contacts', 'ct_1', { phone: '+2', extra: { a: 3 }, email: undefined }),
      );
      expect(updated).toEqual({ id: 'ct_1', accountId: 'acc_1', phone: '+2', extra: { a: 3 } });
      expect(await store.get('contacts', 'ct_1')).toEqual(updated);
      expect(await store.find('contacts', 'phone', ['acc_1', '+1'])).toEqual([]);
      expect(ids(await store.find('contacts', 'phone', ['acc_1', '+2']))).toEqual(['ct_1']);
      expect(await store.find('contacts', 'email', ['acc_1', 'a@example.com'])).toEqual([]);
      // The key it left is free.
      await insertAll('contacts', [{ id: 'ct_2', accountId: 'acc_1', phone: '+1' } as Contact]);
    });

    test('touch gives a document the last place, as an insert would; every write of a transaction applies, in order', async () => {
      await insertAll(
        'media',
        ['m_a', 'm_b', 'm_c'].map((id) => ({ id })),
      );
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

    test('a page after a place a read gave starts where that document was, even once touch has moved it; after an id, where it is now', async () => {
      await insertAll(
        'conversations',
        ['cv_1', 'cv_2', 'cv_3', 'cv_4'].map((id) => ({ id, contactId: 'ct_a' })) as Thread[],
      );
      const newest = { order: 'desc', limit: 2 } as const;
      const first = await store.findPlaced<Thread>('conversations', 'contact', ['ct_a'], newest);
      expect(first.map((p) => p.doc)).toEqual([
        { id: 'cv_4', contactId: 'ct_a' },
        { id: 'cv_3', contactId: 'ct_a' },
      ]);
      expect(first[0]!.place).toBeGreaterThan(first[1]!.place);
      // The last one shown gets new activity: it moves to the top.
      await store.transact((tx) => tx.touch<Thread>('conversations', 'cv_3', { n: 1 }));
      const next = await store.findPlaced<Thread>('conversations', 'contact', ['ct_a'], {
        ...newest,
        after: first[1]!.place,
      });
      expect(next.map((p) => p.doc.id)).toEqual(['cv_2', 'cv_1']);
      expect(ids(await store.find('conversations', 'contact', ['ct_a'], { ...newest, after: 'cv_3' }))).toEqual([
        'cv_4',
        'cv_2',
      ]);
      // Oldest first, a place works the same way; its moved document is now last.
      const oldest = await store.findPlaced<Thread>('conversations', 'contact', ['ct_a'], {
        limit: 10,
        after: next[1]!.place,
      });
      expect(oldest.map((p) => p.doc.id)).toEqual(['cv_2', 'cv_4', 'cv_3']);
      expect(oldest.map((p) => p.place)).toEqual([...oldest.map((p) => p.place)].sort((a, b) => a - b));
    });

    test('an index walked in batches meets a document moved up meanwhile once; a page of the wanted reads no batch past the one filling it', async () => {
      const seven = ['cv_1', 'cv_2', 'cv_3', 'cv_4', 'cv_5', 'cv_6', 'cv_7'];
      await insertAll('conversations', seven.map((id) => ({ id, contactId: 'ct_a' })) as Thread[]);
      const met: string[][] = [];
      for await (const batch of batchesOf<Thread>(store, 'conversations', 'contact', ['ct_a'], {
        size: 3,
        order: 'desc',
      })) {
        met.push(batch.map((p) => p.doc.id));
        // The walk has passed cv_7: new activity moves it up again, behind the walk.
        if (met.length === 1) await store.transact((tx) => tx.touch<Thread>('conversations', 'cv_7', { n: 1 }));
      }
      expect(met).toEqual([['cv_7', 'cv_6', 'cv_5'], ['cv_4', 'cv_3', 'cv_2'], ['cv_1']]);
      const read: number[] = [];
      const counted = (async function* () {
        for await (const batch of batchesOf<Thread>(store, 'conversations', 'contact', ['ct_a'], { size: 2 })) {
          read.push(batch.length);
          yield batch;
        }
      })();
      const odd = await firstWanted(counted, (p) => Number(p.doc.id.slice(3)) % 2 === 1, 2);
      expect(odd.map((p) => p.doc.id)).toEqual(['cv_1', 'cv_3']);
      expect(read).toEqual([2, 2]);
    });

    test('a list read again in a transaction shows its writes: an update in its place, an insert or a touch last, a document leaving or joining', async () => {
      await insertAll('conversations', [
        { id: 'cv_1', contactId: 'ct_a' },
        { id: 'cv_2', contactId: 'ct_a' },
        { id: 'cv_3', contactId: 'ct_b' },
      ] as Thread[]);
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
      await insertAll('contacts', [
        { id: 'ct_1', accountId: 'acc_1', phone: '+1' },
        { id: 'ct_2', accountId: 'acc_1', phone: '+2' },
      ] as Contact[]);
      await expect(store.transact((tx) => tx.update<Contact>('contacts', 'ct_nope', { name: 'x' }))).rejects.toThrow();
      await expect(store.transact((tx) => tx.update<Contact>('contacts', 'ct_1', { id: 'ct_9' }))).rejects.toThrow();
      await expect(
        store.transact((tx) => tx.update<Contact>('contacts', 'ct_2', { phone: '+1', name: 'Bo' })),
      ).rejects.toMatchObject({
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
      expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBeUndefined();
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
      await expect(through).rejects.toMatchObject({
        name: 'StoreConflictError',
        collection: 'accounts',
        index: 'email',
        key: 'a@example.com',
      });
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
            return (
              await tx.insert<Counter>('idempotency', { id: `idk_${i}`, accountId: 'acc_1', key: 'shared', n: i })
            ).id;
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
      const [job] = await store.jobs.claim(DEFAULT_QUEUE, 1, leaseMs);
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
      expect(await store.jobs.claim(DEFAULT_QUEUE, 10, 1000)).toEqual([]);
      expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBeUndefined();
      // Its key was never held.
      await store.transact((tx) => tx.enqueue({ kind: 'test', data: {}, key: 'k1' }));
      expect((await store.jobs.list('pending')).map((j) => j.key)).toEqual(['k1']);
    });

    test('a job is queued as typed; a key held by a waiting or running job queues nothing', async () => {
      const before = Date.now();
      await store.transact((tx) =>
        tx.enqueue({ kind: 'reply', data: { n: 1, nested: { a: [1] } }, key: 'k', accountId: 'acc_1' }),
      );
      const [job] = await store.jobs.list('pending');
      expect(job).toEqual({
        id: expect.any(String),
        kind: 'reply',
        data: { n: 1, nested: { a: [1] } },
        queue: DEFAULT_QUEUE,
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
      expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBeUndefined();
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
      expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBe(at - 3000);
      const first = await store.jobs.claim(DEFAULT_QUEUE, 2, 30_000);
      expect(first.map((j) => j.kind)).toEqual(['a', 'b']);
      const rest = await store.jobs.claim(DEFAULT_QUEUE, 10, 30_000);
      expect(rest.map((j) => j.kind)).toEqual(['c']);
      expect(await store.jobs.claim(DEFAULT_QUEUE, 10, 30_000)).toEqual([]);
      expect(await store.jobs.claim(DEFAULT_QUEUE, 0, 30_000)).toEqual([]);
      for (const job of [...first, ...rest]) {
        expect(job).toMatchObject({ status: 'running', attempts: 1, lease: expect.any(String) });
        expect(job.runAt).toBeGreaterThanOrEqual(at + 30_000);
      }
      // Running jobs are due again when their lease ends, before the job waiting for later.
      expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBe(first[0]!.runAt);
    });

    test('each queue is claimed on its own: its due jobs, its next due time and its news, whatever the others hold', async () => {
      const at = Date.now();
      const heard: string[] = [];
      const unsubscribe = [DEFAULT_QUEUE, 'slow'].map((queue) => store.jobs.onEnqueued(queue, () => heard.push(queue)));
      try {
        await store.transact(async (tx) => {
          for (let n = 0; n < 5; n++)
            await tx.enqueue({ kind: 'file', data: { n }, queue: 'slow', runAt: at - 1000 + n });
        });
        await until('news of the slow queue', () => heard.includes('slow'));
        // A burst may come as one call or as several: which queues heard of it is what counts.
        expect(new Set(heard)).toEqual(new Set(['slow']));
        await store.transact((tx) => tx.enqueue({ kind: 'opening', data: {}, runAt: at - 500 }));
        await store.transact((tx) =>
          tx.enqueue({ kind: 'opening', data: {}, queue: DEFAULT_QUEUE, runAt: at + 60_000 }),
        );
        await until('news of the default queue', () => heard.includes(DEFAULT_QUEUE));
        expect(heard.slice(heard.indexOf(DEFAULT_QUEUE)).every((queue) => queue === DEFAULT_QUEUE)).toBe(true);
      } finally {
        for (const off of unsubscribe) off();
      }
      expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBe(at - 500);
      expect(await store.jobs.nextDueAt('slow')).toBe(at - 1000);
      expect(await store.jobs.nextDueAt('none')).toBeUndefined();
      // The default queue's claim passes over the slow queue's older jobs.
      const opening = await store.jobs.claimDue(DEFAULT_QUEUE, 10, 60_000);
      expect(opening.jobs.map((job) => [job.kind, job.queue])).toEqual([['opening', DEFAULT_QUEUE]]);
      expect(opening.nextDueAt).toBe(at + 60_000);
      const files = await store.jobs.claim('slow', 3, 60_000);
      expect(files.map((job) => [job.data.n, job.queue])).toEqual([
        [0, 'slow'],
        [1, 'slow'],
        [2, 'slow'],
      ]);
      expect(await store.jobs.nextDueAt('slow')).toBe(at - 1000 + 3);
      await store.jobs.settle(files[0]!, { retryAt: at - 1 });
      expect((await store.jobs.claim('slow', 10, 60_000)).map((job) => job.data.n)).toEqual([3, 4, 0]);
      expect(await store.jobs.claim('none', 10, 60_000)).toEqual([]);
    });

    test("claimDue skipping accounts leaves their due jobs where they are and takes the others', oldest first", async () => {
      const at = Date.now();
      await store.transact(async (tx) => [
        await tx.enqueue({ kind: 'a', data: { n: 1 }, accountId: 'acc_busy', runAt: at - 3000 }),
        await tx.enqueue({ kind: 'a', data: { n: 2 }, accountId: 'acc_busy', runAt: at - 2000 }),
        await tx.enqueue({ kind: 'b', data: { n: 3 }, accountId: 'acc_other', runAt: at - 1000 }),
        await tx.enqueue({ kind: 'c', data: { n: 4 }, runAt: at - 500 }),
      ]);
      const shared = await store.jobs.claimDue(DEFAULT_QUEUE, 5, 60_000, ['acc_busy']);
      expect(shared.jobs.map((job) => job.data.n)).toEqual([3, 4]);
      // Still due: the jobs it left.
      expect(shared.nextDueAt).toBe(at - 3000);
      const rest = await store.jobs.claimDue(DEFAULT_QUEUE, 5, 60_000, []);
      expect(rest.jobs.map((job) => job.data.n)).toEqual([1, 2]);
    });

    test('a claim takes the due jobs of every account, and of none, in the order they came due', async () => {
      const at = Date.now();
      const due: Array<[string | null, number]> = [
        ['acc_a', 5],
        [null, 6],
        ['acc_b', 4],
        ['acc_a', 3],
        ['acc_b', 2],
        ['acc_a', 1],
      ];
      await store.transact(async (tx) => {
        for (const [accountId, ago] of due)
          await tx.enqueue({ kind: 'k', data: { ago }, accountId, runAt: at - ago * 1000 });
        await tx.enqueue({ kind: 'k', data: { ago: -1 }, accountId: 'acc_b', runAt: at + 60_000 });
      });
      expect((await store.jobs.claim(DEFAULT_QUEUE, 4, 60_000)).map((job) => job.data.ago)).toEqual([6, 5, 4, 3]);
      const rest = await store.jobs.claimDue(DEFAULT_QUEUE, 10, 60_000, ['acc_a']);
      expect(rest.jobs.map((job) => job.data.ago)).toEqual([2]);
      expect(rest.nextDueAt).toBe(at - 1000);
    });

    test('claimDue claims as claim does and answers, in the same call, when the next job is due after it', async () => {
      expect(await store.jobs.claimDue(DEFAULT_QUEUE, 5, 120_000)).toEqual({ jobs: [], nextDueAt: undefined });
      const at = Date.now();
      await store.transact(async (tx) => [
        await tx.enqueue({ kind: 'now', data: {}, runAt: at - 1000 }),
        await tx.enqueue({ kind: 'later', data: {}, runAt: at + 60_000 }),
      ]);
      const first = await store.jobs.claimDue(DEFAULT_QUEUE, 5, 120_000);
      expect(first.jobs.map((j) => j.kind)).toEqual(['now']);
      // The job waiting for later comes before the claimed one's lease ends.
      expect(first.nextDueAt).toBe(at + 60_000);
      expect(await store.jobs.claimDue(DEFAULT_QUEUE, 5, 120_000)).toEqual({ jobs: [], nextDueAt: at + 60_000 });
      await store.jobs.settle(first.jobs[0]!, { done: true });
      const running = await store.jobs.claimDue(DEFAULT_QUEUE, 5, 10_000);
      expect(running.jobs).toEqual([]);
      await store.transact((tx) => tx.enqueue({ kind: 'soon', data: {}, runAt: at - 10 }));
      const soon = await store.jobs.claimDue(DEFAULT_QUEUE, 5, 10_000);
      // Now the claimed job's lease ends first: it is due again then, if its runner has not settled it.
      expect(soon.nextDueAt).toBe(soon.jobs[0]!.runAt);
      expect(soon.nextDueAt).toBe(await store.jobs.nextDueAt(DEFAULT_QUEUE));
    });

    test('a claimed job is not claimed again while its lease holds; after it, with a new lease; a stale settle is refused', async () => {
      await store.transact((tx) => tx.enqueue({ kind: 'deliver', data: {} }));
      const first = await claimOne(150);
      expect(await store.jobs.claim(DEFAULT_QUEUE, 10, 150)).toEqual([]);
      await sleep(200);
      const second = await claimOne(60_000);
      expect(second).toMatchObject({ id: first.id, attempts: 2, status: 'running' });
      expect(second.lease).not.toBe(first.lease);
      expect(await store.jobs.settle(first, { done: true })).toBe(false);
      expect(await store.jobs.settle(second, { done: true })).toBe(true);
      expect(await store.jobs.settle(second, { done: true })).toBe(false);
      expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBeUndefined();
      expect(await store.jobs.list('running')).toEqual([]);
    });

    test("a transaction ends a claimed job with what it records: both commit or neither; a lost lease's end is nothing", async () => {
      await store.transact((tx) => tx.enqueue({ kind: 'deliver', data: {} }));
      const job = await claimOne();
      await expect(
        store.transact(async (tx) => {
          await tx.insert('contacts', { id: 'c-undone' });
          await tx.settle(job, { done: true });
          throw new Error('undone');
        }),
      ).rejects.toThrow('undone');
      expect((await store.jobs.list('running')).map((j) => j.id)).toEqual([job.id]);
      expect(await store.get('contacts', 'c-undone')).toBeUndefined();

      await store.transact(async (tx) => {
        await tx.insert('contacts', { id: 'c-recorded' });
        await tx.settle(job, { done: true });
      });
      expect(await store.get('contacts', 'c-recorded')).toBeDefined();
      expect(await store.jobs.list('running')).toEqual([]);
      expect(await store.jobs.settle(job, { done: true })).toBe(false);

      await store.transact((tx) => tx.enqueue({ kind: 'deliver', data: {} }));
      const next = await claimOne();
      const retryAt = Date.now() + 60_000;
      await store.transact((tx) => tx.settle({ ...next, lease: 'a-lease-lost' }, { done: true }));
      expect((await store.jobs.list('running')).map((j) => j.id)).toEqual([next.id]);
      await store.transact((tx) => tx.settle(next, { retryAt, error: 'timeout' }));
      expect(await store.jobs.list('pending')).toMatchObject([{ id: next.id, runAt: retryAt, lastError: 'timeout' }]);
    });

    test('settle with later puts the job back as it planned: its attempts start over and no error is kept', async () => {
      await store.transact((tx) => tx.enqueue({ kind: 'housekeeping', data: {}, key: 'h1' }));
      let job = await claimOne();
      for (let run = 0; run < 3; run++) {
        expect(job.attempts).toBe(1);
        expect(await store.jobs.settle(job, { later: Date.now() - 1 })).toBe(true);
        const [waiting] = await store.jobs.list('pending');
        expect(waiting).toMatchObject({
          id: job.id,
          status: 'pending',
          attempts: 0,
          lease: null,
          lastError: null,
          key: 'h1',
        });
        job = await claimOne();
      }
      await store.jobs.settle(job, { done: true });
    });

    test('settle with retryAt puts the job back, keeping its key; with dead it gives up and lets the key go', async () => {
      await store.transact((tx) => tx.enqueue({ kind: 'deliver', data: { to: 'x' }, key: 'd1' }));
      const job = await claimOne();
      const retryAt = Date.now() + 100;
      expect(await store.jobs.settle(job, { retryAt, error: 'timeout' })).toBe(true);
      const [waiting] = await store.jobs.list('pending');
      expect(waiting).toMatchObject({
        id: job.id,
        status: 'pending',
        runAt: retryAt,
        lease: null,
        lastError: 'timeout',
        key: 'd1',
        attempts: 1,
      });
      expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBe(retryAt);
      expect(await store.jobs.claim(DEFAULT_QUEUE, 1, 1000)).toEqual([]);
      await sleep(120);
      const again = await claimOne();
      expect(again).toMatchObject({ id: job.id, attempts: 2 });

      expect(await store.jobs.settle(again, { dead: 'gave up' })).toBe(true);
      const dead = await store.jobs.list('dead');
      expect(dead).toEqual([
        expect.objectContaining({
          id: job.id,
          status: 'dead',
          runAt: null,
          key: null,
          lease: null,
          lastError: 'gave up',
          data: { to: 'x' },
        }),
      ]);
      expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBeUndefined();
      expect(await store.jobs.claim(DEFAULT_QUEUE, 10, 1000)).toEqual([]);
      await store.transact((tx) => tx.enqueue({ kind: 'deliver', data: {}, key: 'd1' }));
      const [successor] = await store.jobs.list('pending');
      expect(successor).toMatchObject({ key: 'd1', status: 'pending' });
      expect(successor!.id).not.toBe(job.id);
    });

    test('list pages jobs of one status, oldest first; revive puts a dead job back, due now; discard removes one', async () => {
      await store.transact(async (tx) => {
        for (let i = 0; i < 4; i++) await tx.enqueue({ kind: `k${i}`, data: {} });
      });
      const queued = await store.jobs.list('pending');
      expect(queued.map((j) => j.kind)).toEqual(['k0', 'k1', 'k2', 'k3']);
      const claimed = await store.jobs.claim(DEFAULT_QUEUE, 4, 60_000);
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
      const due = await store.jobs.nextDueAt(DEFAULT_QUEUE);
      expect(due).toBeGreaterThanOrEqual(before);
      expect(due).toBeLessThanOrEqual(Date.now());
      expect(await claimOne()).toMatchObject({ id: queued[2]!.id, kind: 'k2', status: 'running' });
      expect(await store.jobs.list('dead')).toHaveLength(3);

      // discard removes a dead job, and only a dead one.
      expect(await store.jobs.discard(queued[0]!.id)).toBe(true);
      expect(await store.jobs.discard(queued[0]!.id)).toBe(false);
      expect(await store.jobs.discard(queued[2]!.id)).toBe(false);
      expect(ids(await store.jobs.list('dead'))).toEqual([queued[1]!.id, queued[3]!.id]);
      expect((await store.jobs.stats()).reduce((n, s) => n + s.dead, 0)).toBe(2);
    });

    test("discardOfAccount removes an account's waiting and dead jobs, in every queue; its running one and another account's stay", async () => {
      await store.transact(async (tx) => {
        for (let i = 0; i < 3; i++) await tx.enqueue({ kind: `gone${i}`, data: {}, accountId: 'acc_gone' });
        await tx.enqueue({
          kind: 'gone-later',
          data: {},
          accountId: 'acc_gone',
          queue: 'deliveries',
          runAt: Date.now() + 60_000,
        });
        await tx.enqueue({ kind: 'stays', data: {}, accountId: 'acc_stays' });
        await tx.enqueue({ kind: 'nobody', data: {} });
      });
      const [running, dead] = await store.jobs.claim(DEFAULT_QUEUE, 2, 60_000);
      expect([running!.kind, dead!.kind]).toEqual(['gone0', 'gone1']);
      expect(await store.jobs.settle(dead!, { dead: 'failed' })).toBe(true);

      expect(await store.jobs.discardOfAccount('acc_gone')).toBe(3);
      expect(await store.jobs.discardOfAccount('acc_gone')).toBe(0);
      expect((await store.jobs.list('pending')).map((j) => j.kind)).toEqual(['stays', 'nobody']);
      expect((await store.jobs.list('running')).map((j) => j.kind)).toEqual(['gone0']);
      expect(await store.jobs.list('dead')).toEqual([]);
      expect((await store.jobs.stats()).reduce((n, s) => n + s.queued + s.dead, 0)).toBe(3);
      // Its runner settles it as any other.
      expect(await store.jobs.settle(running!, { done: true })).toBe(true);
    });

    test('adopt takes in jobs of another store as they are; a running one waits again', async () => {
      const at = Date.now();
      const made = {
        data: { n: 1 },
        queue: DEFAULT_QUEUE,
        accountId: 'acc_1',
        lastError: null,
        createdAt: '2024-01-01T00:00:00.000Z',
        updatedAt: '2024-01-02T00:00:00.000Z',
      };
      const jobs: Job[] = [
        { ...made, id: 'job_a', kind: 'a', key: 'ka', status: 'pending', runAt: at - 10, attempts: 0, lease: null },
        {
          ...made,
          id: 'job_b',
          kind: 'b',
          queue: 'other',
          key: null,
          status: 'running',
          runAt: at - 5,
          attempts: 2,
          lease: 'lease-of-the-other-store',
        },
        {
          ...made,
          id: 'job_c',
          kind: 'c',
          key: null,
          status: 'dead',
          runAt: null,
          attempts: 5,
          lease: null,
          lastError: 'gave up',
        },
      ];
      await store.jobs.adopt(jobs);
      expect(await store.jobs.list('pending')).toEqual([jobs[0], { ...jobs[1], status: 'pending', lease: null }]);
      expect(await store.jobs.list('running')).toEqual([]);
      expect(await store.jobs.list('dead')).toEqual([jobs[2]]);
      await store.transact((tx) => tx.enqueue({ kind: 'a', data: {}, key: 'ka' }));
      expect(ids(await store.jobs.list('pending'))).toEqual(['job_a', 'job_b']);
      // Each in its own queue.
      const claimed = [
        ...(await store.jobs.claim(DEFAULT_QUEUE, 10, 60_000)),
        ...(await store.jobs.claim('other', 10, 60_000)),
      ];
      expect(claimed.map((j) => [j.id, j.queue, j.attempts])).toEqual([
        ['job_a', DEFAULT_QUEUE, 1],
        ['job_b', 'other', 3],
      ]);
      // All or nothing: one taken id refuses the lot.
      await expect(store.jobs.adopt([{ ...jobs[2]!, id: 'job_d' }, jobs[2]!])).rejects.toBeInstanceOf(
        StoreConflictError,
      );
      expect(ids(await store.jobs.list('dead'))).toEqual(['job_c']);
    });

    test('stats: the counts per kind and the oldest due job match a full recount after enqueue, claim, settle, dead, revive, cancel and a rollback', async () => {
      expect(await store.jobs.stats()).toEqual([]);
      const at = Date.now();
      await store.transact(async (tx) => {
        for (let i = 0; i < 6; i++)
          await tx.enqueue({ kind: 'deliver', data: { i }, key: `d${i}`, runAt: at - 60_000 + i * 1000 });
        for (let i = 0; i < 4; i++)
          await tx.enqueue({ kind: 'follow_up', data: { i }, key: `f${i}`, runAt: at + 3_600_000 + i });
        await tx.enqueue({ kind: 'reply', data: {}, runAt: at - 30_000 });
      });
      expect(await statsOf(store)).toEqual(await recount(store, Date.now()));

      // The three oldest due: one done, one put back for later, one given up and then revived.
      const [done, retried, given] = await store.jobs.claim(DEFAULT_QUEUE, 3, 60_000);
      expect([done, retried, given].map((j) => j!.data)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
      await store.jobs.settle(done!, { done: true });
      await store.jobs.settle(retried!, { retryAt: at + 120_000, error: 'later' });
      await store.jobs.settle(given!, { dead: 'gave up' });
      expect(await store.jobs.revive(given!.id)).toBe(true);
      // The next oldest given up for good; the one after it left running.
      const [dead] = await store.jobs.claim(DEFAULT_QUEUE, 1, 60_000);
      await store.jobs.settle(dead!, { dead: 'gave up' });
      const [running] = await store.jobs.claim(DEFAULT_QUEUE, 1, 60_000);
      expect([dead!.data, running!.data]).toEqual([{ i: 3 }, { i: 4 }]);
      await store.transact(async (tx) => {
        await tx.cancelJobs('f0');
        await tx.cancelJobs('f1');
      });
      // Taken back: neither the job it queued nor the one it cancelled changes a count.
      await expect(
        store.transact(async (tx) => {
          await tx.enqueue({ kind: 'reply', data: {} });
          await tx.enqueue({ kind: 'brand_new', data: {} });
          await tx.cancelJobs('f2');
          throw new Error('no');
        }),
      ).rejects.toThrow('no');

      const stats = await statsOf(store);
      expect(stats).toEqual([
        // 1 put back for later, 2 revived (due now), 4 running (due when its lease ends), 5 waiting since at - 55 s.
        { kind: 'deliver', queued: 4, dead: 1, oldestDueAt: at - 55_000 },
        { kind: 'follow_up', queued: 2, dead: 0, oldestDueAt: null },
        { kind: 'reply', queued: 1, dead: 0, oldestDueAt: at - 30_000 },
      ]);
      expect(stats).toEqual(await recount(store, Date.now()));
      // Every job settled: the kinds leave the gauges, but for the dead job.
      for (const job of await store.jobs.claim(DEFAULT_QUEUE, 20, 60_000)) await store.jobs.settle(job, { done: true });
      await store.jobs.settle(running!, { done: true });
      await store.transact(async (tx) => {
        for (const key of ['d1', 'f2', 'f3']) await tx.cancelJobs(key);
      });
      expect(await statsOf(store)).toEqual([{ kind: 'deliver', queued: 0, dead: 1, oldestDueAt: null }]);
    });
  });

  describe('news of queued jobs', () => {
    /** A listener that reads the next due time when called: what a job runner would find then. */
    const listen = () => {
      const seen: Array<number | undefined> = [];
      let calls = 0;
      const unsubscribe = store.jobs.onEnqueued(DEFAULT_QUEUE, () => {
        calls += 1;
        void store.jobs.nextDueAt(DEFAULT_QUEUE).then((due) => seen.push(due));
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
      const [job] = await store.jobs.claim(DEFAULT_QUEUE, 1, 60_000);
      await store.jobs.settle(job!, { dead: 'gave up' });
      const { calls, unsubscribe } = listen();
      expect(await store.jobs.revive(job!.id)).toBe(true);
      await until('news of the revived job', () => calls() === 1);
      const at = new Date().toISOString();
      await store.jobs.adopt([
        {
          id: 'job_adopted',
          kind: 'test',
          data: {},
          queue: DEFAULT_QUEUE,
          accountId: null,
          key: null,
          status: 'pending',
          runAt: later(),
          attempts: 0,
          lease: null,
          lastError: null,
          createdAt: at,
          updatedAt: at,
        },
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
      const kept = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.settings.putIfAbsent('tls', `value ${i}`)),
      );
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

    test('blobs: deleteAccount removes every file of an account, and only its', async () => {
      await store.blobs.put('acc_gone', 'med_a', Buffer.from('a'));
      await store.blobs.put('acc_gone', 'med_b', Buffer.from('b'));
      await store.blobs.put('acc_stays', 'med_a', Buffer.from('kept'));
      await store.blobs.deleteAccount('acc_gone');
      await store.blobs.deleteAccount('acc_gone');
      expect(await store.blobs.get('acc_gone', 'med_a')).toBeUndefined();
      expect(await store.blobs.get('acc_gone', 'med_b')).toBeUndefined();
      expect((await store.blobs.get('acc_stays', 'med_a'))!.toString()).toBe('kept');
    });

    test('blobs: a part is read at its offset, cut where the file ends, and only in its account', async () => {
      const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
      await store.blobs.put('acc_1', 'med_part', bytes);
      const read = (start: number, end: number, account = 'acc_1') =>
        store.blobs.get(account, 'med_part', { start, end });
      expect(Buffer.compare((await read(0, 0))!, bytes.subarray(0, 1))).toBe(0);
      expect(Buffer.compare((await read(65_530, 65_549))!, bytes.subarray(65_530, 65_550))).toBe(0);
      expect(Buffer.compare((await read(69_990, 80_000))!, bytes.subarray(69_990))).toBe(0);
      expect(await read(0, 9, 'acc_2')).toBeUndefined();
      expect(await store.blobs.get('acc_1', 'med_nope', { start: 0, end: 9 })).toBeUndefined();
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
    ({ openPostgresStore } = (await gatewayModule(
      path.join(DIST, 'store/postgres/postgres-store.js'),
    )) as PostgresModule);
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

  /** A new database as a gateway before migration `version` left it, holding the rows `seed` inserts. */
  const databaseBefore = async (version: number, seed: string): Promise<string> => {
    const database = await createTestDatabase();
    const { migrate, migrations } = (await gatewayModule(
      path.join(DIST, 'store/postgres/migrations.js'),
    )) as MigrationsModule;
    const pool = new Pool({ connectionString: database });
    try {
      await migrate(
        pool,
        migrations.filter((m) => m.version < version),
      );
      await pool.query(seed);
    } finally {
      await pool.end();
    }
    return database;
  };

  test('processes opening a new database at once migrate it once', async () => {
    const empty = await createTestDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(empty)));
    expect(stores.map((s) => s.backend)).toEqual(['postgres', 'postgres', 'postgres', 'postgres']);
    const versions = await withClient(
      empty,
      async (c) => (await c.query('SELECT version FROM leadchat_migrations ORDER BY version')).rows,
    );
    // Every migration recorded once, in order, however many processes raced to apply it.
    const { migrations } = (await gatewayModule(path.join(DIST, 'store/postgres/migrations.js'))) as MigrationsModule;
    expect(versions).toEqual(migrations.map((m) => ({ version: m.version })));
    await open(empty);
  });

  test('background work takes connections from a pool of its own: jobs holding all of theirs keep no request waiting', async () => {
    const { inBackground } = (await gatewayModule(path.join(DIST, 'store/background.js'))) as BackgroundModule;
    const store = await openPostgresStore({ url, collections, poolSize: 1, jobPoolSize: 1 });
    opened.push(store);
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const order: string[] = [];
    // A job's transaction holds the only background connection until the test lets it go.
    const job = inBackground('postgres', () =>
      store.transact(async (tx) => {
        await tx.insert('media', { id: 'med_job' });
        order.push('job holds');
        await held;
      }),
    );
    await until('the job holding its connection', () => order.includes('job holds'));
    const second = inBackground('postgres', () =>
      store
        .transact(async (tx) => void (await tx.insert('media', { id: 'med_second_job' })))
        .then(() => void order.push('second job')),
    );
    await store.transact((tx) => tx.insert('media', { id: 'med_request' }));
    order.push('request');
    expect(await store.get('media', 'med_request')).toEqual({ id: 'med_request' });
    letGo();
    await Promise.all([job, second]);
    // The second job waited for the first; the request waited for neither.
    expect(order).toEqual(['job holds', 'request', 'second job']);
  });

  test('a collection or an index declared without a migration is refused by name', async () => {
    await expect(
      open(url, [...collections, { name: 'surveys', indexes: { account: { fields: ['accountId'] } } }]),
    ).rejects.toThrow(/collection "surveys" has no table/);
    const changed = collections.map((c) =>
      c.name === 'lists' ? { ...c, indexes: { ...c.indexes, byName: { fields: ['accountId', 'name'] } } } : c,
    );
    await expect(open(url, changed)).rejects.toThrow(/index "byName" of collection "lists"/);
    const notUnique = collections.map((c) =>
      c.name === 'memberships' ? { ...c, indexes: { ...c.indexes, member: { fields: ['listId', 'contactId'] } } } : c,
    );
    await expect(open(url, notUnique)).rejects.toThrow(
      /index "member" of collection "memberships" is declared on listId, contactId/,
    );
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
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).jobs.claim(DEFAULT_QUEUE, 10, 60_000)),
    );
    const claimed = claims.flat().map((j) => j.id);
    expect(claimed).toHaveLength(30);
    expect(new Set(claimed).size).toBe(30);
  });

  test('a job queued through one store is news to the listeners of another on the database', async () => {
    const [a, b] = [await open(url), await open(url)];
    let calls = 0;
    b.jobs.onEnqueued(DEFAULT_QUEUE, () => (calls += 1));
    await a.transact((tx) => tx.enqueue({ kind: 'k', data: {} }));
    await until('news on the other store', () => calls === 1);
    expect((await b.jobs.claim(DEFAULT_QUEUE, 10, 60_000)).map((job) => job.kind)).toEqual(['k']);
  });

  test('a store whose listening connection is cut says so, listens again, and tells its listeners', async () => {
    const warnings: string[] = [];
    const log = { warn: (_fields: object, message: string) => void warnings.push(message), info: () => undefined };
    const listener = await openPostgresStore({ url, collections, log });
    opened.push(listener);
    const writer = await open(url);
    let calls = 0;
    listener.jobs.onEnqueued(DEFAULT_QUEUE, () => (calls += 1));
    const database = new URL(url).pathname.slice(1);
    const cut = () =>
      withClient(
        process.env[ADMIN_URL_VARIABLE]!,
        async (admin) =>
          (
            await admin.query(
              `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'leadchat-gateway jobs'`,
              [database],
            )
          ).rowCount,
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
        admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        ),
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
    expect(await store.jobs.nextDueAt(DEFAULT_QUEUE)).toBe(runAt);
    const doc = { id: 'med_1', text: 'é 😀 \\ "quoted"', n: -0.25, big: 2 ** 53 - 1, empty: {}, list: [] };
    await store.transact((tx) => tx.insert('media', doc));
    expect(await store.get('media', 'med_1')).toEqual(doc);
  });

  test('the job counts migration 15 keeps are those of the jobs already there, and of any writer after it', async () => {
    // A database of the version before, with jobs in it, as an older gateway left it.
    const empty = await databaseBefore(
      15,
      `INSERT INTO leadchat_jobs (id, kind, data, status, run_at, created_at, updated_at)
       SELECT 'job_' || g, CASE WHEN g % 3 = 0 THEN 'deliver' ELSE 'follow_up' END, '{}', CASE WHEN g % 10 = 0 THEN 'dead' ELSE 'pending' END,
              CASE WHEN g % 10 = 0 THEN NULL ELSE 1 END, now(), now() FROM generate_series(1, 100) g`,
    );
    const store = await open(empty);
    expect(await statsOf(store)).toEqual(await recount(store, Date.now()));
    // An operator's own statement is counted too.
    await withClient(empty, (c) => c.query(`DELETE FROM leadchat_jobs WHERE kind = 'deliver' AND status = 'dead'`));
    await withClient(empty, (c) =>
      c.query(`UPDATE leadchat_jobs SET status = 'dead', run_at = NULL WHERE id = 'job_1'`),
    );
    const stats = await statsOf(store);
    expect(stats).toEqual(await recount(store, Date.now()));
    expect(stats).toEqual([
      { kind: 'deliver', queued: 30, dead: 0, oldestDueAt: 1 },
      { kind: 'follow_up', queued: 59, dead: 8, oldestDueAt: 1 },
    ]);
  });

  test('migration 17 puts the provider entries already waiting in the inbound queue, every other job in the default queue', async () => {
    const empty = await databaseBefore(
      17,
      `INSERT INTO leadchat_jobs (id, kind, data, status, run_at, created_at, updated_at)
       SELECT 'job_' || g, CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'deliver' END, jsonb_build_object('n', g), 'pending', g, now(), now()
       FROM generate_series(1, 6) g`,
    );
    const store = await open(empty);
    const claimed = async (queue: string) =>
      (await store.jobs.claim(queue, 10, 60_000)).map((job) => [job.kind, job.data.n]);
    expect(await claimed('inbound')).toEqual([
      ['inbound', 2],
      ['inbound', 4],
      ['inbound', 6],
    ]);
    expect(await claimed(DEFAULT_QUEUE)).toEqual([
      ['deliver', 1],
      ['deliver', 3],
      ['deliver', 5],
    ]);
  });

  test('migration 19: the contacts an older gateway found unreachable are read by campaign, and by campaign and reason, in the order found', async () => {
    const empty = await databaseBefore(
      19,
      `INSERT INTO "unreachable" (id, doc)
       SELECT r || ':cmp_' || (g % 2) || ':ct_' || g, jsonb_build_object('id', r || ':cmp_' || (g % 2) || ':ct_' || g, 'accountId', 'acc_1',
              'campaignId', 'cmp_' || (g % 2), 'contactId', 'ct_' || g, 'reason', r)
       FROM generate_series(1, 6) g, (VALUES ('no_phone'), ('opted_out')) AS reasons(r) WHERE (g + length(r)) % 3 <> 0
       ORDER BY g, r`,
    );
    const store = await open(empty);
    const found = async (index: string, values: string[]) =>
      (await store.find<any>('unreachable', index, values)).map((u) => `${u.reason}:${u.contactId}`);
    expect(await found('campaign', ['cmp_0'])).toEqual([
      'no_phone:ct_2',
      'opted_out:ct_2',
      'opted_out:ct_4',
      'no_phone:ct_6',
    ]);
    expect(await found('reason', ['cmp_1', 'no_phone'])).toEqual(['no_phone:ct_3', 'no_phone:ct_5']);
  });

  test("migration 20 finds an older database's deliveries by the contact their event is about, and its memberships by contact", async () => {
    const empty = await databaseBefore(
      20,
      `INSERT INTO deliveries (id, doc) VALUES
         ('dlv_1', '{"id":"dlv_1","messageId":null,"payload":{"type":"handoff","contactId":"ct_a"}}'),
         ('dlv_2', '{"id":"dlv_2","messageId":null,"payload":{"type":"auto_recharge"}}'),
         ('dlv_3', '{"id":"dlv_3","messageId":"msg_1","payload":{"contactId":"ct_a"}}');
       INSERT INTO memberships (id, doc) VALUES ('lsm_1', '{"id":"lsm_1","listId":"lst_1","contactId":"ct_a"}')`,
    );
    const store = await open(empty);
    expect((await store.find('deliveries', 'contact', ['ct_a'])).map((d) => d.id)).toEqual(['dlv_1', 'dlv_3']);
    expect(await store.get('deliveries', 'dlv_2')).not.toHaveProperty('contactId');
    expect((await store.find('memberships', 'contact', ['ct_a'])).map((m) => m.id)).toEqual(['lsm_1']);
  });

  test("migration 27 finds an older database's pending deliveries by their receiver, and none that was settled", async () => {
    const empty = await databaseBefore(
      27,
      `INSERT INTO deliveries (id, doc) VALUES
         ('dlv_1', '{"id":"dlv_1","target":"wh_1","status":"pending","messageId":null}'),
         ('dlv_2', '{"id":"dlv_2","target":"wh_1","status":"failed","messageId":null}'),
         ('dlv_3', '{"id":"dlv_3","target":"settings","status":"pending","messageId":"msg_1"}'),
         ('dlv_4', '{"id":"dlv_4","target":"wh_1","status":"pending","messageId":"msg_1"}')`,
    );
    const store = await open(empty);
    expect((await store.find('deliveries', 'pending', ['wh_1'])).map((d) => d.id)).toEqual(['dlv_1', 'dlv_4']);
    expect((await store.find('deliveries', 'pending', ['settings'])).map((d) => d.id)).toEqual(['dlv_3']);
    expect(await store.get('deliveries', 'dlv_2')).not.toHaveProperty('pendingTarget');
    // The embedded store's walk that names them is not needed on this one.
    expect(await store.settings.get('pending-deliveries-named-1')).toBeDefined();
  });

  test("migration 28 finds an older database's credit entries by kind and by their UTC day", async () => {
    const empty = await databaseBefore(
      28,
      `INSERT INTO transactions (id, doc) VALUES
         ('ctx_1', '{"id":"ctx_1","accountId":"acc_1","kind":"grant","createdAt":"2026-03-01T23:30:00.000Z"}'),
         ('ctx_2', '{"id":"ctx_2","accountId":"acc_1","kind":"usage","createdAt":"2026-03-02T00:10:00.000Z"}')`,
    );
    const store = await open(empty);
    expect((await store.find('transactions', 'kind', ['acc_1', 'usage'])).map((t) => t.id)).toEqual(['ctx_2']);
    expect((await store.find('transactions', 'accountDay', ['acc_1', '2026-03-01'])).map((t) => t.id)).toEqual([
      'ctx_1',
    ]);
    expect((await store.find('transactions', 'kindDay', ['acc_1', 'usage', '2026-03-02'])).map((t) => t.id)).toEqual([
      'ctx_2',
    ]);
    // The embedded store's walk that dates them is not needed on this one.
    expect(await store.settings.get('credit-days-1')).toBeDefined();
  });

  describe('through a relay the test cuts', () => {
    let relay: Relay;

    beforeEach(async () => {
      relay = await Relay.start(Number(new URL(url).port));
    });

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await relay.cut();
    });

    const openThrough = async (log = keptLog()) => {
      const store = await openPostgresStore({
        url: relay.through(url),
        collections,
        log,
        health: new StoreHealth(log),
      });
      opened.push(store);
      return { store, log };
    };

    test('the database out of reach: a read fails with StoreUnavailableError, a transaction with StoreWriteError; the health says once that it is away, and that it is back', async () => {
      const { store, log } = await openThrough();
      await store.transact((tx) => tx.insert('media', { id: 'med_1' }));
      await relay.cut();
      const read = store.get('media', 'med_1');
      await expect(read).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(read).rejects.not.toBeInstanceOf(StoreWriteError);
      await expect(store.transact((tx) => tx.insert('media', { id: 'med_2' }))).rejects.toBeInstanceOf(StoreWriteError);
      await expect(store.ping()).rejects.toThrow();
      expect(store.health.up).toBe(false);
      store.health.refused();
      await relay.resume();
      expect(ids(await store.scan('media'))).toEqual(['med_1']);
      expect(store.health.up).toBe(true);
      const away = log.lines.filter((line) => line.message.startsWith('the store is unavailable'));
      expect(away).toEqual([
        {
          level: 'warn',
          fields: {
            failure: expect.stringMatching(/^connection_(refused|reset|terminated)$/),
            reason: expect.any(String),
          },
          message: expect.any(String),
        },
      ]);
      const back = log.lines.filter((line) => line.message === 'the store is available again');
      expect(back).toEqual([
        {
          level: 'info',
          fields: { failure: away[0]!.fields.failure, awayMs: expect.any(Number), refused: 1 },
          message: 'the store is available again',
        },
      ]);
      // Known classes only: no stack trace in any line.
      expect(log.lines.filter((line) => 'err' in line.fields)).toEqual([]);
    });

    test('a connection that breaks once the commit went out: CommitOutcomeUnknownError, whether the database committed or not; never run again', async () => {
      const { store } = await openThrough();
      // Writes after the last read commit as one statement; a read after a write opens a block, which COMMIT ends.
      for (const [when, kept, block] of [
        ['after', true, false],
        ['before', false, false],
        ['after', true, true],
        ['before', false, true],
      ] as const) {
        const id = `med_${when}_${block ? 'block' : 'one'}`;
        let runs = 0;
        const cut = relay.cutAt(block ? 'COMMIT' : COMMITTING, when);
        const saving = store.transact(async (tx) => {
          runs += 1;
          await tx.get('media', 'med_none');
          await tx.insert('media', { id });
          if (block) await tx.get('media', 'med_none');
        });
        await expect(saving).rejects.toBeInstanceOf(CommitOutcomeUnknownError);
        await cut;
        expect(runs).toBe(1);
        // Only the database knows what became of it.
        expect(Boolean(await store.get('media', id))).toBe(kept);
        expect(store.health.up).toBe(true);
      }
    });

    test('a connection that breaks before the commit went out: StoreWriteError, nothing kept', async () => {
      const { store } = await openThrough();
      // A read after a write sends the write ahead, in a transaction block (BEGIN): the connection breaks there.
      const cut = relay.cutAt('BEGIN', 'before');
      const saving = store.transact(async (tx) => {
        await tx.insert('media', { id: 'med_1' });
        await tx.get('media', 'med_none');
      });
      await expect(saving).rejects.toBeInstanceOf(StoreWriteError);
      await cut;
      expect(await store.get('media', 'med_1')).toBeUndefined();
    });
  });
});

describe('store health', () => {
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const shutdown = () =>
    Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      severity: 'FATAL',
    });

  test('an outage logs one line when the store goes away (its class, no stack trace), one per failure class per 10 s meanwhile, one when it is back', () => {
    let now = 1_000_000;
    const log = keptLog();
    const health = new StoreHealth(log, () => now);
    health.answered();
    expect(health.up).toBe(true);
    health.failed(
      new StoreUnavailableError('store: the database is out of reach: connect ECONNREFUSED 127.0.0.1:5432', {
        cause: refused(),
      }),
    );
    health.failed(shutdown());
    expect(health.up).toBe(false);
    for (let i = 0; i < 3; i++) {
      health.refused();
      health.report(refused(), { route: '/v1/contacts' }, 'request refused: the store is unavailable');
      now += 1000;
    }
    health.report(shutdown(), {}, 'job queue unavailable; polling again');
    health.report(shutdown(), {}, 'job queue unavailable; polling again');
    now += 10_000;
    health.report(refused(), { route: '/v1/contacts' }, 'request refused: the store is unavailable');
    now += 500;
    health.answered();
    health.answered();
    expect(health.up).toBe(true);
    const reason = 'connect ECONNREFUSED 127.0.0.1:5432';
    expect(log.lines).toEqual([
      {
        level: 'warn',
        fields: { failure: 'connection_refused', reason },
        message: 'the store is unavailable: what needs it is refused (503) until it is back',
      },
      {
        level: 'warn',
        fields: { failure: 'admin_shutdown', reason: 'terminating connection due to administrator command' },
        message: 'job queue unavailable; polling again',
      },
      {
        level: 'warn',
        fields: { route: '/v1/contacts', failure: 'connection_refused', reason, leftOut: 3 },
        message: 'request refused: the store is unavailable',
      },
      {
        level: 'info',
        fields: { failure: 'connection_refused', awayMs: 13_500, refused: 3 },
        message: 'the store is available again',
      },
    ]);
  });

  test('a failure of no known class keeps its stack trace; the next outage is told anew', () => {
    const log = keptLog();
    const health = new StoreHealth(log);
    const odd = Object.assign(new Error('could not read block 7'), { code: 'XX001' });
    health.failed(odd);
    health.answered();
    health.failed(refused());
    expect(log.lines.map((line) => [line.level, line.fields.failure, line.fields.err])).toEqual([
      ['warn', 'unknown', odd],
      ['info', 'unknown', undefined],
      ['warn', 'connection_refused', undefined],
    ]);
  });

  test('the known failure classes', async () => {
    const { failureClass } = (await gatewayModule(path.join(DIST, 'store/health.js'))) as HealthModule;
    const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
    expect(
      [
        coded('ECONNRESET'),
        coded('EPIPE'),
        new Error('Connection terminated unexpectedly'),
        new Error('Client has encountered a connection error and is not queryable'),
        coded('57P02'),
        coded('57P03', 'the database system is starting up'),
        new Error('timeout exceeded when trying to connect'),
        coded('ETIMEDOUT'),
        coded('ENOSPC'),
        new StoreWriteError('store: the change could not be saved', { cause: coded('EIO') }),
        coded('EACCES'),
        new StoreWriteError('store: a checkpoint could not write its pages', { cause: coded('EPERM') }),
        new Error('syntax error at or near "SELEC"'),
      ].map(failureClass),
    ).toEqual([
      'connection_reset',
      'connection_reset',
      'connection_terminated',
      'connection_terminated',
      'crash_shutdown',
      'cannot_connect_now',
      'timeout',
      'timeout',
      'disk_full',
      'disk_io_error',
      'permission_denied',
      'permission_denied',
      undefined,
    ]);
  });
});

describe('embedded store: its job counts as it opens, and its health', () => {
  let openLowdbStore: LowdbModule['openLowdbStore'];
  const dirs: string[] = [];

  beforeAll(async () => {
    ({ openLowdbStore } = (await gatewayModule(path.join(DIST, 'store/lowdb/lowdb-store.js'))) as LowdbModule);
  });

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-tally-'));
    dirs.push(dir);
    return path.join(dir, 'store');
  };

  /** Jobs of three kinds over several pages: waiting, due, running, dead. */
  async function fill(store: Store): Promise<void> {
    const at = Date.now();
    await store.transact(async (tx) => {
      for (let i = 0; i < 30; i++) await tx.enqueue({ kind: 'follow_up', data: { i }, runAt: at + 3_600_000 - i });
      for (let i = 0; i < 12; i++) await tx.enqueue({ kind: 'deliver', data: { i }, runAt: at - 1000 * (i + 1) });
      await tx.enqueue({ kind: 'reply', data: {}, runAt: at - 50 });
    });
    const claimed = await store.jobs.claim(DEFAULT_QUEUE, 5, 60_000);
    for (const job of claimed.slice(0, 3)) await store.jobs.settle(job, { dead: 'gave up' });
  }

  test('the counts are found again from the page keys after a restart and after a crash, and from pages written before the index on kind', async () => {
    const dir = tempDir();
    const store = await openLowdbStore({ dir, collections, pageSize: 7 });
    await fill(store);
    const before = await statsOf(store);
    expect(before.map((k) => [k.kind, k.queued, k.dead])).toEqual([
      ['deliver', 9, 3],
      ['follow_up', 30, 0],
      ['reply', 1, 0],
    ]);
    // A crash: the journal holds what the pages do not.
    const crashed = `${dir}-crashed`;
    cpSync(dir, crashed, { recursive: true });
    await store.close();

    // Running jobs wait again after a restart (due now): the counts stay, the oldest due may move.
    const same = (stats: JobStats[]) => stats.map((k) => [k.kind, k.queued, k.dead]);
    for (const where of [dir, crashed]) {
      const reopened = await openLowdbStore({ dir: where, collections, pageSize: 7 });
      try {
        expect(same(await statsOf(reopened))).toEqual(same(before));
        expect(await statsOf(reopened)).toEqual(await recount(reopened, Date.now()));
      } finally {
        await reopened.close();
      }
    }

    // Pages whose keys were computed for other indexes (before the index on kind): counted from their documents,
    // then written again with keys of this shape.
    const pages = path.join(dir, 'jobs');
    for (const file of readdirSync(pages)) {
      const [head, docs] = readFileSync(path.join(pages, file), 'utf8').split('\n');
      writeFileSync(
        path.join(pages, file),
        `${JSON.stringify({ ...JSON.parse(head!), shape: 'an older shape' })}\n${docs}`,
      );
    }
    const upgraded = await openLowdbStore({ dir, collections, pageSize: 7 });
    try {
      expect(same(await statsOf(upgraded))).toEqual(same(before));
    } finally {
      await upgraded.close();
    }
    for (const file of readdirSync(pages)) {
      expect(
        (JSON.parse(readFileSync(path.join(pages, file), 'utf8').split('\n')[0]!) as { shape: string }).shape,
      ).toContain('"kind"');
    }
  });

  test('places hold across a restart: a page after a place read before it starts where it did', async () => {
    const dir = tempDir();
    const store = await openLowdbStore({ dir, collections, pageSize: 3 });
    const all = Array.from({ length: 8 }, (_, i) => ({ id: `cv_${i}`, contactId: 'ct_a' }));
    await store.transact(async (tx) => {
      for (const doc of all) await tx.insert('conversations', doc);
    });
    await store.transact((tx) => tx.touch<Thread>('conversations', 'cv_2', { n: 1 }));
    const before = await store.findPlaced('conversations', 'contact', ['ct_a'], { order: 'desc' });
    await store.close();
    const reopened = await openLowdbStore({ dir, collections, pageSize: 3 });
    try {
      expect(await reopened.findPlaced('conversations', 'contact', ['ct_a'], { order: 'desc' })).toEqual(before);
      const after = await reopened.findPlaced('conversations', 'contact', ['ct_a'], {
        order: 'desc',
        after: before[3]!.place,
      });
      expect(after.map((p) => p.doc.id)).toEqual(before.slice(4).map((p) => p.doc.id));
    } finally {
      await reopened.close();
    }
  });

  test("each queue's jobs are found again from the page keys after a restart; a job stored before queues were kept is in the default queue", async () => {
    const dir = tempDir();
    const store = await openLowdbStore({ dir, collections, pageSize: 7 });
    const at = Date.now();
    await store.transact(async (tx) => {
      for (let i = 0; i < 10; i++) {
        await tx.enqueue({ kind: 'inbound', data: { i }, queue: 'inbound', runAt: at - 1000 + i });
        await tx.enqueue({ kind: 'deliver', data: { i }, runAt: at - 2000 + i });
      }
    });
    await store.close();
    const named = (kind: string) => Array.from({ length: 10 }, (_, i) => `${kind}${i}`);
    const claimAll = async (from: Store, queue: string) =>
      (await from.jobs.claim(queue, 100, 60_000)).map((job) => `${job.kind}${String(job.data.i)}`);

    // Pages written before queues were kept: their jobs have no queue, their keys another shape, no check of their documents.
    const before = `${dir}-before-queues`;
    cpSync(dir, before, { recursive: true });
    const pages = path.join(before, 'jobs');
    for (const file of readdirSync(pages)) {
      const [head, docs] = readFileSync(path.join(pages, file), 'utf8').split('\n');
      const withoutQueue = (JSON.parse(docs!) as { docs: Array<Record<string, unknown>> }).docs.map(
        ({ queue: _queue, ...job }) => job,
      );
      writeFileSync(
        path.join(pages, file),
        `${JSON.stringify({ ...JSON.parse(head!), shape: 'an older shape', check: undefined })}\n${JSON.stringify({ docs: withoutQueue })}`,
      );
    }

    const reopened = await openLowdbStore({ dir, collections, pageSize: 7 });
    try {
      expect(await claimAll(reopened, 'inbound')).toEqual(named('inbound'));
      expect(await claimAll(reopened, DEFAULT_QUEUE)).toEqual(named('deliver'));
    } finally {
      await reopened.close();
    }
    const upgraded = await openLowdbStore({ dir: before, collections, pageSize: 7 });
    try {
      expect(await claimAll(upgraded, 'inbound')).toEqual([]);
      const claimed = await upgraded.jobs.claim(DEFAULT_QUEUE, 100, 60_000);
      expect(claimed.map((job) => `${job.kind}${String(job.data.i)}`)).toEqual([
        ...named('deliver'),
        ...named('inbound'),
      ]);
      expect(new Set(claimed.map((job) => job.queue))).toEqual(new Set([DEFAULT_QUEUE]));
    } finally {
      await upgraded.close();
    }
  });

  test('a failed disk write: the health says the store is away (disk_full), and back once the disk has room again', async () => {
    const log = keptLog();
    const store = await openLowdbStore({ dir: tempDir(), collections, health: new StoreHealth(log) });
    try {
      type File = { writeAll: (data: Buffer) => Promise<void> };
      const journalFile = (store as unknown as { journal: { file: File } }).journal.file;
      const realWrite = journalFile.writeAll.bind(journalFile);
      journalFile.writeAll = async () => {
        journalFile.writeAll = realWrite;
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      };
      await expect(store.transact((tx) => tx.insert('media', { id: 'med_1' }))).rejects.toBeInstanceOf(StoreWriteError);
      expect(store.health.up).toBe(false);
      // A write going through is not enough: the store is back once the disk takes a megabyte again (a probe).
      await store.transact((tx) => tx.insert('media', { id: 'med_2' }));
      await store.ping();
      expect(store.health.up).toBe(true);
      expect(log.lines).toEqual([
        {
          level: 'warn',
          fields: {
            failure: 'disk_full',
            reason: 'ENOSPC: no space left on device, write',
            remedy: "free space on the data dir's file system",
          },
          message: expect.stringMatching(/^the store is unavailable/),
        },
        {
          level: 'info',
          fields: { failure: 'disk_full', awayMs: expect.any(Number), refused: 0 },
          message: 'the store is available again',
        },
      ]);
    } finally {
      await store.close();
    }
  });
});
