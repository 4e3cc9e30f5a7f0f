import { spawn } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {
  LowdbStore,
  LowdbStoreOptions,
} from '../../gateway/src/store/lowdb/lowdb-store.js' with { 'resolution-mode': 'import' };
import type { CollectionSpec, Doc, Tx } from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import { gatewayModule } from '../helpers/gateway-modules';

type StoreModule = typeof import('../../gateway/src/store/lowdb/lowdb-store.js', {
  with: { 'resolution-mode': 'import' }
});
type InterfaceModule = typeof import('../../gateway/src/store/store.js', { with: { 'resolution-mode': 'import' } });

// The store is ESM (as the gateway runs it): load the compiled files.
const DIST = path.resolve(__dirname, '../../gateway/dist/store');
const DRIVER = path.resolve(__dirname, 'store-crash-driver.mjs');

let openLowdbStore: StoreModule['openLowdbStore'];
let StoreConflictError: InterfaceModule['StoreConflictError'];
let StoreWriteError: StoreModule['StoreWriteError'];

beforeAll(async () => {
  const lowdbStore = (await gatewayModule(path.join(DIST, 'lowdb', 'lowdb-store.js'))) as StoreModule;
  const contract = (await gatewayModule(path.join(DIST, 'store.js'))) as InterfaceModule;
  ({ openLowdbStore, StoreWriteError } = lowdbStore);
  ({ StoreConflictError } = contract);
});

interface Contact extends Doc {
  phone?: string;
  list?: string;
  name?: string;
  tags?: string[];
}

const COLLECTIONS: CollectionSpec[] = [
  {
    name: 'contacts',
    indexes: {
      phone: { unique: true, fields: ['phone'] },
      list: { fields: ['list'] },
    },
  },
  { name: 'messages' },
];

const dirs: string[] = [];
const open: LowdbStore[] = [];

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-store-'));
  dirs.push(dir);
  return dir;
}

async function openStore(dir: string, options: Partial<LowdbStoreOptions> = {}): Promise<LowdbStore> {
  const store = await openLowdbStore({ dir, collections: COLLECTIONS, ...options });
  open.push(store);
  return store;
}

/** What a crash would leave on disk right now: a copy of the directory while the store is still running. */
function crashImage(dir: string): string {
  const copy = `${dir}-crash-${dirs.length}`;
  cpSync(dir, copy, { recursive: true });
  dirs.push(copy);
  return copy;
}

function journalLines(dir: string): string[] {
  return readFileSync(path.join(dir, 'journal.log'), 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

const ids = (docs: Doc[]): string[] => docs.map((d) => d.id);

afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('documents and indexes', () => {
  test('insert, get, lookup, update and remove', async () => {
    const store = await openStore(tempDir());
    await store.transact(async (tx) => {
      await tx.insert<Contact>('contacts', { id: 'c1', phone: '+1', list: 'a' });
      await tx.insert<Contact>('contacts', { id: 'c2', phone: '+2', list: 'b' });
      await tx.insert<Contact>('contacts', { id: 'c3', phone: '+3', list: 'a' });
    });
    expect(await store.get<Contact>('contacts', 'c2')).toEqual({ id: 'c2', phone: '+2', list: 'b' });
    expect(await store.get('contacts', 'nope')).toBeUndefined();
    expect(ids(await store.find('contacts', 'phone', ['+3']))).toEqual(['c3']);
    expect(ids(await store.find('contacts', 'list', ['a']))).toEqual(['c1', 'c3']);
    expect((await store.scan('contacts')).length).toBe(3);

    const before = (await store.get<Contact>('contacts', 'c1'))!;
    const after = await store.transact(async (tx) => tx.update<Contact>('contacts', 'c1', { list: 'b', name: 'Ann' }));
    expect(after).toEqual({ id: 'c1', phone: '+1', list: 'b', name: 'Ann' });
    expect(before).toEqual({ id: 'c1', phone: '+1', list: 'a' });
    expect(ids(await store.find('contacts', 'list', ['a']))).toEqual(['c3']);
    // Insertion order, not the order in which documents joined the key.
    expect(ids(await store.find('contacts', 'list', ['b']))).toEqual(['c1', 'c2']);

    await store.transact(async (tx) => tx.remove('contacts', 'c2'));
    expect(await store.get('contacts', 'c2')).toBeUndefined();
    expect(await store.find('contacts', 'phone', ['+2'])).toEqual([]);
    expect(ids(await store.scan('contacts'))).toEqual(['c1', 'c3']);
    // Removing what is not there changes nothing.
    await store.transact(async (tx) => tx.remove('contacts', 'c2'));
    expect((await store.scan('contacts')).length).toBe(2);
  });

  test('stored documents cannot be changed behind the store', async () => {
    const store = await openStore(tempDir());
    const doc = await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c1', tags: ['x'] }));
    // The test file's own TypeError (its realm's, not the store's): known by its message.
    expect(() => {
      (doc as { name?: string }).name = 'changed';
    }).toThrow(/object is not extensible/);
    expect(() => doc.tags!.push('y')).toThrow(/object is not extensible/);
    expect(await store.get('contacts', 'c1')).toEqual({ id: 'c1', tags: ['x'] });
  });

  test('unknown collections and indexes, missing documents and changed ids are errors', async () => {
    const store = await openStore(tempDir());
    await expect(store.get('nope', 'x')).rejects.toThrow(/unknown collection/);
    await expect(store.find('contacts', 'nope', ['x'])).rejects.toThrow(/no index/);
    await expect(store.transact(async (tx) => tx.update('contacts', 'ghost', {}))).rejects.toThrow(/no document/);
    await store.transact(async (tx) => tx.insert('contacts', { id: 'c1' }));
    await expect(store.transact(async (tx) => tx.update('contacts', 'c1', { id: 'c2' }))).rejects.toThrow(/id/);
    await expect(store.transact(async (tx) => tx.insert('contacts', { id: '' }))).rejects.toThrow(/id/);
  });

  test('a taken id or unique key is a StoreConflictError', async () => {
    const store = await openStore(tempDir());
    await store.transact(async (tx) => {
      await tx.insert<Contact>('contacts', { id: 'c1', phone: '+1' });
      await tx.insert<Contact>('contacts', { id: 'c2', phone: '+2' });
    });
    const duplicateId = store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c1', phone: '+9' }));
    await expect(duplicateId).rejects.toBeInstanceOf(StoreConflictError);
    await expect(duplicateId).rejects.toMatchObject({ collection: 'contacts', index: 'id', key: 'c1' });
    const duplicatePhone = store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c3', phone: '+1' }));
    await expect(duplicatePhone).rejects.toMatchObject({ collection: 'contacts', index: 'phone', key: '+1' });
    const phoneTakenByUpdate = store.transact(async (tx) => tx.update<Contact>('contacts', 'c2', { phone: '+1' }));
    await expect(phoneTakenByUpdate).rejects.toBeInstanceOf(StoreConflictError);
    // Keeping its own key is not a conflict; documents without a key are not indexed.
    await store.transact(async (tx) => tx.update<Contact>('contacts', 'c1', { phone: '+1', name: 'A' }));
    await store.transact(async (tx) => {
      await tx.insert('contacts', { id: 'c4' });
      await tx.insert('contacts', { id: 'c5' });
    });
    expect((await store.get<Contact>('contacts', 'c2'))!.phone).toBe('+2');
    expect(ids(await store.find('contacts', 'phone', ['+1']))).toEqual(['c1']);
  });

  test('an index leaves out documents lacking any of its fields: no conflict, never found', async () => {
    interface Person extends Doc {
      email?: string | null;
      network?: string;
      handle?: string;
    }
    const collections: CollectionSpec[] = [
      {
        name: 'people',
        indexes: {
          email: { unique: true, fields: ['email'] },
          handle: { unique: true, fields: ['network', 'handle'] },
        },
      },
    ];
    const dir = tempDir();
    const store = await openStore(dir, { collections, checkpointEvery: 3 });
    await store.transact(async (tx) => {
      // Neither field, twice: two documents outside both unique indexes, not a conflict.
      await tx.insert<Person>('people', { id: 'p1' });
      await tx.insert<Person>('people', { id: 'p2' });
      // A null field counts as absent; so does one missing field of two.
      await tx.insert<Person>('people', { id: 'p3', email: null, network: 'x' });
      await tx.insert<Person>('people', { id: 'p4', email: null, network: 'x' });
      await tx.insert<Person>('people', { id: 'p5', handle: 'ann' });
      await tx.insert<Person>('people', { id: 'p6', network: 'x', handle: 'ann', email: 'a@x' });
    });
    const expectIndexes = async (s: LowdbStore): Promise<void> => {
      expect(ids(await s.scan('people'))).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
      expect(ids(await s.find('people', 'handle', ['x', 'ann']))).toEqual(['p6']);
      expect(ids(await s.find('people', 'email', ['a@x']))).toEqual(['p6']);
      // A missing field is not indexed under some stand-in value.
      for (const stand of ['null', 'undefined', '']) expect(await s.find('people', 'email', [stand])).toEqual([]);
      expect(await s.find('people', 'handle', ['x', 'null'])).toEqual([]);
      expect(await s.find('people', 'handle', ['undefined', 'ann'])).toEqual([]);
    };
    await expectIndexes(store);
    // Still true as the page files and the journal hold it.
    await expectIndexes(await openStore(crashImage(dir), { collections }));

    // Gaining the field puts a document in the index (its key is then taken); losing it takes it out again.
    await store.transact(async (tx) => tx.update<Person>('people', 'p1', { email: 'b@x' }));
    const taken = store.transact(async (tx) => tx.update<Person>('people', 'p2', { email: 'b@x' }));
    await expect(taken).rejects.toBeInstanceOf(StoreConflictError);
    await expect(taken).rejects.toMatchObject({ collection: 'people', index: 'email', key: 'b@x' });
    await store.transact(async (tx) => tx.update<Person>('people', 'p1', { email: null }));
    await store.transact(async (tx) => tx.update<Person>('people', 'p2', { email: 'b@x' }));
    await store.transact(async (tx) => tx.insert<Person>('people', { id: 'p7', email: null }));
    expect(ids(await store.find('people', 'email', ['b@x']))).toEqual(['p2']);
    await store.close();
    const reopened = await openStore(dir, { collections });
    expect(ids(await reopened.find('people', 'email', ['b@x']))).toEqual(['p2']);
    await reopened.transact(async (tx) => tx.insert<Person>('people', { id: 'p8', network: 'y' }));
    expect((await reopened.scan('people')).length).toBe(8);
  });

  test('an index key holding a few ids or many keeps them all, in order, as they are added, moved, touched, removed and undone', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { pageSize: 8 });
    // What each list should hold, in order, kept by hand beside the store: every document's place is its number,
    // except a touched one's, which comes after all others.
    const lists = new Map<string, string>();
    let touched: string[] = [];
    const expected = (list: string) => {
      const held = [...lists].filter(([, l]) => l === list).map(([id]) => id);
      const numbered = held.filter((id) => !touched.includes(id)).sort((a, b) => +a.slice(1) - +b.slice(1));
      return [...numbered, ...touched.filter((id) => held.includes(id))];
    };
    const expectLists = async (s: LowdbStore) => {
      for (const list of ['x', 'y']) {
        expect(ids(await s.find('contacts', 'list', [list]))).toEqual(expected(list));
        expect(ids(await s.find('contacts', 'list', [list], { order: 'desc', limit: 3 }))).toEqual(
          expected(list).slice(-3).reverse(),
        );
      }
    };
    const move = async (id: string, list: string) => {
      await store.transact(async (tx) => tx.update<Contact>('contacts', id, { list }));
      lists.set(id, list);
    };
    // Grown one by one from a few to many, each step read back.
    for (let i = 0; i < 40; i++) {
      await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: `c${i}`, phone: `+${i}`, list: 'x' }));
      lists.set(`c${i}`, 'x');
      if (i % 5 === 0) await expectLists(store);
    }
    // Out of the key and back in: an old document comes back at its own place, not at the end.
    for (const [id, list] of [
      ['c3', 'y'],
      ['c5', 'y'],
      ['c3', 'x'],
      ['c1', 'y'],
      ['c5', 'x'],
      ['c4', 'y'],
    ]) {
      await move(id!, list!);
      await expectLists(store);
    }
    // A touched one goes last; a removal undone by a failed transaction puts it back.
    await store.transact(async (tx) => tx.touch<Contact>('contacts', 'c7', { name: 'active' }));
    touched = ['c7'];
    await expect(
      store.transact(async (tx) => {
        await tx.remove('contacts', 'c9');
        await tx.remove('contacts', 'c1');
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    await expectLists(store);
    // Shrunk to a few, and grown again.
    for (let i = 0; i < 36; i++) if (i !== 7) await move(`c${i}`, 'y');
    await expectLists(store);
    expect(expected('x')).toEqual(['c36', 'c37', 'c38', 'c39', 'c7']);
    for (const id of ['c1', 'c37']) {
      await store.transact(async (tx) => tx.remove('contacts', id));
      lists.delete(id);
    }
    for (const id of ['c0', 'c2', 'c4', 'c6']) await move(id, 'x');
    await expectLists(store);
    for (const id of ['c0', 'c6', 'c7']) await move(id, 'y');
    await expectLists(store);
    await store.close();
    const reopened = await openStore(dir, { pageSize: 8 });
    await expectLists(reopened);
    // A key one document holds, then an older one too: the older comes first.
    for (const id of ['c39', 'c2'])
      await reopened.transact(async (tx) => tx.update<Contact>('contacts', id, { list: 'z' }));
    expect(ids(await reopened.find('contacts', 'list', ['z']))).toEqual(['c2', 'c39']);
  });

  test('find and scan page by limit, after (an id) and order, across page files and after reopening', async () => {
    const dir = tempDir();
    const options = { pageSize: 3, checkpointEvery: 4 };
    const store = await openStore(dir, options);
    for (let i = 0; i < 10; i++) {
      const contact: Contact = { id: `c${i}`, phone: `+${i}`, list: i % 2 ? 'odd' : 'even' };
      await store.transact(async (tx) => tx.insert('contacts', contact));
    }
    // c3 joins "even" last, yet sorts there by insertion; c4 is gone.
    await store.transact(async (tx) => tx.update<Contact>('contacts', 'c3', { list: 'even' }));
    await store.transact(async (tx) => tx.remove('contacts', 'c4'));
    const everyone = ['c0', 'c1', 'c2', 'c3', 'c5', 'c6', 'c7', 'c8', 'c9'];
    const even = ['c0', 'c2', 'c3', 'c6', 'c8'];

    const walk = async (s: LowdbStore, limit: number, order: 'asc' | 'desc', index?: string): Promise<string[]> => {
      const walked: string[] = [];
      for (let after: string | undefined; ; ) {
        const page = index
          ? await s.find('contacts', index, ['even'], { limit, after, order })
          : await s.scan('contacts', { limit, after, order });
        expect(page.length).toBeLessThanOrEqual(limit);
        if (page.length === 0) return walked;
        walked.push(...ids(page));
        after = page.at(-1)!.id;
      }
    };
    const expectPages = async (s: LowdbStore): Promise<void> => {
      expect(ids(await s.scan('contacts', { limit: 4 }))).toEqual(['c0', 'c1', 'c2', 'c3']);
      expect(ids(await s.scan('contacts', { limit: 4, after: 'c3' }))).toEqual(['c5', 'c6', 'c7', 'c8']);
      expect(ids(await s.scan('contacts', { after: 'c8' }))).toEqual(['c9']);
      expect(await s.scan('contacts', { after: 'c9' })).toEqual([]);
      expect(ids(await s.scan('contacts', { order: 'desc' }))).toEqual([...everyone].reverse());
      expect(ids(await s.scan('contacts', { order: 'desc', limit: 3 }))).toEqual(['c9', 'c8', 'c7']);
      expect(ids(await s.scan('contacts', { order: 'desc', limit: 3, after: 'c6' }))).toEqual(['c5', 'c3', 'c2']);
      expect(await s.scan('contacts', { order: 'desc', after: 'c0' })).toEqual([]);

      expect(ids(await s.find('contacts', 'list', ['even'], { limit: 2 }))).toEqual(['c0', 'c2']);
      expect(ids(await s.find('contacts', 'list', ['even'], { limit: 2, after: 'c2' }))).toEqual(['c3', 'c6']);
      expect(ids(await s.find('contacts', 'list', ['even'], { order: 'desc' }))).toEqual([...even].reverse());
      expect(ids(await s.find('contacts', 'list', ['even'], { order: 'desc', limit: 2, after: 'c6' }))).toEqual([
        'c3',
        'c2',
      ]);
      // `after` is a place in insertion order: it may name a document outside the key.
      expect(ids(await s.find('contacts', 'list', ['even'], { after: 'c5' }))).toEqual(['c6', 'c8']);
      expect(ids(await s.find('contacts', 'list', ['even'], { order: 'desc', after: 'c7' }))).toEqual([
        'c6',
        'c3',
        'c2',
        'c0',
      ]);
      expect(ids(await s.find('contacts', 'phone', ['+5'], { limit: 1 }))).toEqual(['c5']);
      expect(await s.find('contacts', 'phone', ['+5'], { after: 'c5' })).toEqual([]);
      // An `after` naming no document (here a removed one) gives an empty page, on both backends.
      expect(await s.scan('contacts', { after: 'c4' })).toEqual([]);
      expect(await s.find('contacts', 'list', ['even'], { after: 'c4', order: 'desc' })).toEqual([]);

      // Walking page by page meets every document once, in order, either way.
      for (const limit of [1, 2, 4]) {
        expect(await walk(s, limit, 'asc')).toEqual(everyone);
        expect(await walk(s, limit, 'desc')).toEqual([...everyone].reverse());
        expect(await walk(s, limit, 'asc', 'list')).toEqual(even);
        expect(await walk(s, limit, 'desc', 'list')).toEqual([...even].reverse());
      }
      // The pages documents come back in are whole documents, read back from the page files when dropped.
      expect(await s.scan('contacts', { limit: 1, after: 'c2' })).toEqual([{ id: 'c3', phone: '+3', list: 'even' }]);
    };
    await expectPages(store);

    // Inside a transaction, paging sees the transaction's own changes; they are gone once it throws.
    let seen: string[][] = [];
    const undone = store.transact(async (tx) => {
      await tx.insert<Contact>('contacts', { id: 'c10', list: 'even' });
      await tx.remove('contacts', 'c8');
      seen = [
        ids(await tx.find('contacts', 'list', ['even'], { after: 'c6' })),
        ids(await tx.scan('contacts', { order: 'desc', limit: 2 })),
        ids(await tx.scan('contacts', { after: 'c7' })),
      ];
      throw new Error('undo');
    });
    await expect(undone).rejects.toThrow('undo');
    expect(seen).toEqual([['c10'], ['c10', 'c9'], ['c9', 'c10']]);
    await expectPages(store);

    // Rebuilt from the page files (and the journal) with almost nothing kept in memory: the same pages.
    await expectPages(await openStore(crashImage(dir), { ...options, cacheSize: 1 }));
    await store.close();
    await expectPages(await openStore(dir, { ...options, cacheSize: 1 }));
  });
});

describe('transactions', () => {
  test('a transaction that throws leaves memory and disk as if it never ran', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { pageSize: 2 });
    await store.transact(async (tx) => {
      for (let i = 1; i <= 5; i++) await tx.insert<Contact>('contacts', { id: `c${i}`, phone: `+${i}`, list: 'a' });
    });
    const allBefore = await store.scan('contacts');
    const failure = new Error('validation failed');
    const attempt = store.transact(async (tx) => {
      await tx.insert<Contact>('contacts', { id: 'c6', phone: '+6', list: 'a' });
      await tx.update<Contact>('contacts', 'c1', { list: 'b', phone: '+100' });
      await tx.remove('contacts', 'c2');
      await tx.remove('contacts', 'c4');
      await tx.insert<Contact>('contacts', { id: 'c2', phone: '+2', list: 'a' });
      await tx.insert<Contact>('contacts', { id: 'c7', phone: '+3' }); // taken: throws StoreConflictError
    });
    await expect(attempt).rejects.toBeInstanceOf(StoreConflictError);
    const explicit = store.transact(async (tx) => {
      await tx.remove('contacts', 'c3');
      throw failure;
    });
    await expect(explicit).rejects.toBe(failure);

    const expectUnchanged = async (s: LowdbStore): Promise<void> => {
      expect(await s.scan('contacts')).toEqual(allBefore);
      expect(ids(await s.find('contacts', 'list', ['a']))).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
      expect(await s.find('contacts', 'list', ['b'])).toEqual([]);
      expect(await s.find('contacts', 'phone', ['+100'])).toEqual([]);
      expect(ids(await s.find('contacts', 'phone', ['+1']))).toEqual(['c1']);
      expect(await s.get('contacts', 'c6')).toBeUndefined();
    };
    await expectUnchanged(store);

    // The store still works, and nothing of the failed transactions reaches the disk.
    await store.transact(async (tx) => tx.insert('messages', { id: 'm1' }));
    await expectUnchanged(await openStore(crashImage(dir)));
    await store.close();
    await expectUnchanged(await openStore(dir));
  });

  test('a checkpoint never writes the changes of a transaction still under way', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { checkpointEvery: 1 });
    for (let i = 0; i < 3; i++)
      await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: `c${i}`, phone: `+${i}` }));
    await store.checkpointed();
    const failure = new Error('changed its mind');
    const committed = store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'kept', phone: '+kept' }));
    // Under way (as one waiting for a page file would be) while the record of the commit before it, and the
    // checkpoint due with it, are written: its phantom is already in memory.
    const abandoned = store.transact(async (tx) => {
      await tx.insert<Contact>('contacts', { id: 'phantom', phone: '+phantom' });
      await committed;
      throw failure;
    });
    await expect(abandoned).rejects.toBe(failure);
    // The checkpoint waits for a record written between transactions.
    const before = store.stats().checkpoints;
    await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'after', phone: '+after' }));
    await store.checkpointed();
    expect(store.stats().checkpoints).toBeGreaterThan(before);

    const expectKeptOnly = async (s: LowdbStore): Promise<void> => {
      expect(ids(await s.scan('contacts'))).toEqual(['c0', 'c1', 'c2', 'kept', 'after']);
      expect(await s.find('contacts', 'phone', ['+phantom'])).toEqual([]);
    };
    await expectKeptOnly(store);
    await expectKeptOnly(await openStore(crashImage(dir)));
    await store.close();
    await expectKeptOnly(await openStore(dir));
  });

  test('concurrent "find or create" transactions create exactly one document', async () => {
    const store = await openStore(tempDir());
    let created = 0;
    const findOrCreate = (id: string): Promise<Contact> =>
      store.transact(async (tx) => {
        const existing = await tx.find<Contact>('contacts', 'phone', ['+15550001']);
        if (existing.length > 0) return existing[0]!;
        created += 1;
        return tx.insert<Contact>('contacts', { id, phone: '+15550001' });
      });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => findOrCreate(`c${i}`)));
    expect(created).toBe(1);
    expect(new Set(results.map((c) => c.id))).toEqual(new Set(['c0']));
    expect((await store.scan('contacts')).length).toBe(1);
  });

  test('misuse is refused: a Tx used after its transaction ended', async () => {
    const store = await openStore(tempDir());
    let leaked: Tx | undefined;
    await store.transact(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.insert('contacts', { id: 'c4' })).rejects.toThrow(/over/);
    expect((await store.scan('contacts')).length).toBe(0);
  });

  test('a failed disk write rejects the affected transactions, undoes them, and the store goes on', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c1', phone: '+1' }));

    // Fault injection: the next journal write stores half of its bytes, then the disk is full.
    type File = { writeAll: (data: Buffer) => Promise<void> };
    const journalFile = (store as unknown as { journal: { file: File } }).journal.file;
    const realWrite = journalFile.writeAll.bind(journalFile);
    journalFile.writeAll = async (data: Buffer) => {
      journalFile.writeAll = realWrite;
      await realWrite(data.subarray(0, Math.floor(data.length / 2)));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    const failed = store.transact(async (tx) => {
      await tx.update<Contact>('contacts', 'c1', { name: 'lost' });
      return tx.insert<Contact>('contacts', { id: 'c2', phone: '+2' });
    });
    await expect(failed).rejects.toBeInstanceOf(StoreWriteError);
    expect(await store.get('contacts', 'c2')).toBeUndefined();
    expect((await store.get<Contact>('contacts', 'c1'))!.name).toBeUndefined();
    expect(await store.find('contacts', 'phone', ['+2'])).toEqual([]);

    await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c3', phone: '+2' }));
    const reopened = await openStore(crashImage(dir));
    expect(ids(await reopened.scan('contacts'))).toEqual(['c1', 'c3']);
    expect((await reopened.get<Contact>('contacts', 'c1'))!.name).toBeUndefined();
  });
});

describe('page files: the order they keep, and what opening makes of them', () => {
  const pageFiles = (dir: string) => readdirSync(path.join(dir, 'contacts')).sort();
  const pageOf = (dir: string, id: string) =>
    pageFiles(dir).find((file) =>
      (JSON.parse(readFileSync(path.join(dir, 'contacts', file), 'utf8').split('\n')[1]!).docs as Doc[]).some(
        (d) => d.id === id,
      ),
    );

  async function filled(dir: string) {
    const store = await openStore(dir, { pageSize: 4, checkpointEvery: 1_000 });
    for (let i = 0; i < 10; i++)
      await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: `c${i}`, phone: `+${i}`, list: 'x' }));
    await store.checkpointNow();
    return store;
  }

  test('a touched document comes last in scans and index lists, stays in its page, and keeps that order after a reopen', async () => {
    const dir = tempDir();
    const store = await filled(dir);
    const pagesBefore = pageFiles(dir);
    await store.transact(async (tx) => tx.touch<Contact>('contacts', 'c1', { name: 'active' }));
    await store.transact(async (tx) => tx.touch<Contact>('contacts', 'c5', { name: 'active' }));
    const expected = ['c0', 'c2', 'c3', 'c4', 'c6', 'c7', 'c8', 'c9', 'c1', 'c5'];
    expect(ids(await store.scan('contacts'))).toEqual(expected);
    expect(ids(await store.find('contacts', 'list', ['x'], { order: 'desc', limit: 3 }))).toEqual(['c5', 'c1', 'c9']);
    expect(ids(await store.find('contacts', 'list', ['x'], { order: 'desc', after: 'c1', limit: 2 }))).toEqual([
      'c9',
      'c8',
    ]);
    await store.checkpointNow();
    // One page each rewritten in place: no page added, and c1 is still in the first page file.
    expect(pageFiles(dir)).toEqual(pagesBefore);
    expect(pageOf(dir, 'c1')).toBe('0.json');
    await store.close();

    const reopened = await openStore(dir, { pageSize: 4 });
    expect(ids(await reopened.scan('contacts'))).toEqual(expected);
    expect(ids(await reopened.find('contacts', 'list', ['x']))).toEqual(expected);
    // New documents still come after every touched one.
    await reopened.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c10', phone: '+10', list: 'x' }));
    expect(ids(await reopened.scan('contacts', { order: 'desc', limit: 2 }))).toEqual(['c10', 'c5']);
  });

  test('the order of touches not yet checkpointed comes back from the journal after a crash', async () => {
    const dir = tempDir();
    const store = await filled(dir);
    await store.transact(async (tx) => tx.touch<Contact>('contacts', 'c2', { name: 'a' }));
    await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c10', phone: '+10', list: 'x' }));
    await store.transact(async (tx) => tx.touch<Contact>('contacts', 'c0', { name: 'b' }));
    const image = crashImage(dir);
    const recovered = await openStore(image, { pageSize: 4 });
    expect(ids(await recovered.scan('contacts')).slice(-3)).toEqual(['c2', 'c10', 'c0']);
    expect((await recovered.get<Contact>('contacts', 'c0'))?.name).toBe('b');
  });

  test('a transaction that fails puts a touched document back in its place', async () => {
    const dir = tempDir();
    const store = await filled(dir);
    await expect(
      store.transact(async (tx) => {
        await tx.touch<Contact>('contacts', 'c3', { name: 'x' });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(ids(await store.scan('contacts'))).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']);
    expect(ids(await store.find('contacts', 'list', ['x'], { order: 'desc', limit: 1 }))).toEqual(['c9']);
  });

  test('pages written before documents kept their place are written again at open, in the order they had', async () => {
    const dir = tempDir();
    const store = await filled(dir);
    await store.close();
    // As an earlier version wrote them: no places on the first line.
    for (const file of pageFiles(dir)) {
      const [head, docs] = readFileSync(path.join(dir, 'contacts', file), 'utf8').split('\n');
      const keys = JSON.parse(head!);
      delete keys.seqs;
      writeFileSync(path.join(dir, 'contacts', file), `${JSON.stringify(keys)}\n${docs}`);
    }
    const reopened = await openStore(dir, { pageSize: 4 });
    expect(ids(await reopened.scan('contacts'))).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']);
    for (const file of pageFiles(dir)) {
      expect(JSON.parse(readFileSync(path.join(dir, 'contacts', file), 'utf8').split('\n')[0]!).seqs).toEqual(
        expect.any(Array),
      );
    }
  });

  /** Rewrites a page file of contacts with `change` made to its documents, its keys left for opening to compute. */
  function rewritePage(dir: string, file: string, change: (docs: Contact[]) => Contact[]): void {
    const docs = JSON.parse(readFileSync(path.join(dir, 'contacts', file), 'utf8').split('\n')[1]!).docs as Contact[];
    writeFileSync(path.join(dir, 'contacts', file), JSON.stringify({ docs: change(docs) }));
  }

  test('a document in two page files (a crash in the middle of a checkpoint) opens once, and both pages are written again', async () => {
    const dir = tempDir();
    const store = await filled(dir);
    await store.close();
    const [first, , last] = pageFiles(dir);
    const moved = { id: 'c1', phone: '+1', list: 'x' };
    rewritePage(dir, last!, (docs) => [...docs, moved]);

    const reopened = await openStore(dir, { pageSize: 4 });
    expect(ids(await reopened.scan('contacts')).sort()).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
      'c5',
      'c6',
      'c7',
      'c8',
      'c9',
    ]);
    expect(ids(await reopened.find('contacts', 'phone', ['+1']))).toEqual(['c1']);
    await reopened.close();
    expect(pageFiles(dir).filter((file) => pageOf(dir, 'c1') === file)).toEqual([last]);
    expect(pageOf(dir, 'c0')).toBe(first);
  });

  test('documents known only by their page keys since the open are read, found, changed, touched and removed, and written again whole', async () => {
    const dir = tempDir();
    await (await filled(dir)).close();
    const store = await openStore(dir, { pageSize: 4, checkpointEvery: 1_000, cacheSize: 2 });
    expect((await store.get<Contact>('contacts', 'c5'))?.phone).toBe('+5');
    expect(await store.get('contacts', 'c10')).toBeUndefined();
    await store.transact(async (tx) => {
      await tx.update<Contact>('contacts', 'c2', { phone: '+22' });
      await tx.touch<Contact>('contacts', 'c6', { name: 'active' });
      await tx.remove('contacts', 'c9');
      await tx.insert<Contact>('contacts', { id: 'c10', phone: '+10', list: 'x' });
    });
    const expected = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c7', 'c8', 'c6', 'c10'];
    const check = async (opened: LowdbStore) => {
      expect(ids(await opened.scan('contacts'))).toEqual(expected);
      expect(ids(await opened.find('contacts', 'list', ['x']))).toEqual(expected);
      expect(ids(await opened.find('contacts', 'phone', ['+22']))).toEqual(['c2']);
      expect(await opened.find('contacts', 'phone', ['+2'])).toEqual([]);
      expect(await opened.find('contacts', 'phone', ['+9'])).toEqual([]);
      expect((await opened.get<Contact>('contacts', 'c6'))?.name).toBe('active');
    };
    await check(store);
    await store.checkpointNow();
    await store.close();
    await check(await openStore(dir, { pageSize: 4, cacheSize: 2 }));
  });

  test('a page file holding one id twice (not written by the store) opens with it once, at its last place', async () => {
    const dir = tempDir();
    await (await filled(dir)).close();
    rewritePage(dir, pageFiles(dir)[2]!, (docs) => [...docs, { ...docs[0]!, phone: '+88' }]);

    const store = await openStore(dir, { pageSize: 4 });
    const inOrder = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c9', 'c8'];
    expect(ids(await store.scan('contacts'))).toEqual(inOrder);
    expect(ids(await store.find('contacts', 'list', ['x']))).toEqual(inOrder);
    expect(ids(await store.find('contacts', 'phone', ['+88']))).toEqual(['c8']);
    expect(await store.find('contacts', 'phone', ['+8'])).toEqual([]);
    expect((await store.get<Contact>('contacts', 'c8'))?.phone).toBe('+88');
  });

  test('a page whose documents changed on disk opens from its keys, is found damaged by the check after the open, and told once', async () => {
    const dir = tempDir();
    await (await filled(dir)).close();
    // One byte of the second page's documents changed, the length kept: only the checksum tells.
    const file = path.join(dir, 'contacts', pageFiles(dir)[1]!);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"phone":"+5"', '"phone":"+X"'));

    const told: Array<{ file: string; reason: string }> = [];
    const store = await openStore(dir, { pageSize: 4, onDamaged: (damage) => told.push(damage) });
    await store.checked();
    const damage = {
      file: path.join(path.basename(dir), 'contacts', pageFiles(dir)[1]!),
      reason: 'its documents do not match the checksum written with them',
    };
    expect({ told, damaged: store.damaged() }).toEqual({ told: [damage], damaged: [damage] });
    // What needs its documents is refused, the other pages are served, and the damage is told once.
    expect(ids(await store.find('contacts', 'phone', ['+8']))).toEqual(['c8']);
    await expect(store.get('contacts', 'c5')).rejects.toThrow(/do not match the checksum/);
    expect(told).toHaveLength(1);

    // A page damaged after the check is found at the read of it, and told the same way.
    const first = path.join(dir, 'contacts', pageFiles(dir)[0]!);
    const content = readFileSync(first);
    writeFileSync(first, content.subarray(0, content.length - 10));
    await expect(store.get('contacts', 'c0')).rejects.toThrow(/cut short/);
    expect(told.map(({ file }) => path.basename(file))).toEqual([pageFiles(dir)[1], pageFiles(dir)[0]]);
  });

  test('a page written again by a checkpoint after the open is checked as it is now, not against the keys the open read', async () => {
    const pages = (await gatewayModule(path.join(DIST, 'lowdb', 'pages.js'))) as typeof import(
      '../../gateway/src/store/lowdb/pages.js',
      {
        with: { 'resolution-mode': 'import' }
      }
    );
    const dir = tempDir();
    const store = await filled(dir);
    const file = path.join(dir, 'contacts', pageFiles(dir)[0]!);
    const { check } = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as {
      check: { bytes: number; crc32: string };
    };
    await store.transact(async (tx) => tx.update<Contact>('contacts', 'c1', { name: 'Ada' }));
    await store.checkpointNow();
    expect(await pages.checkPage({ file, check })).toBeUndefined();

    // Cut short, it is damaged whichever check it is held to.
    const content = readFileSync(file);
    writeFileSync(file, content.subarray(0, content.length - 10));
    expect((await pages.checkPage({ file, check }))?.reason).toMatch(
      /^it holds \d+ bytes of documents where \d+ were written/,
    );
    // Gone (a collection emptied since): nothing to check.
    rmSync(file);
    expect(await pages.checkPage({ file, check })).toBeUndefined();
  });

  test('two documents holding one unique key on disk: the store refuses to open, naming both', async () => {
    const dir = tempDir();
    const store = await filled(dir);
    await store.close();
    rewritePage(dir, pageFiles(dir)[2]!, (docs) => docs.map((d) => (d.id === 'c9' ? { ...d, phone: '+2' } : d)));
    await expect(openStore(dir, { pageSize: 4 })).rejects.toThrow('store: contacts.phone "+2" is held by c2 and c9');
  });
});

describe('document cache', () => {
  test('keeps at most its limit of clean documents in memory, and the documents used again stay while others go', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { pageSize: 10, checkpointEvery: 1, cacheSize: 5 });
    // Each write, once its checkpoint has written it, is clean: it may leave memory.
    const write = async (contact: Contact): Promise<void> => {
      await store.transact(async (tx) => tx.insert<Contact>('contacts', contact));
      await store.checkpointed();
    };
    for (let i = 0; i < 60; i++) await write({ id: `c${i}`, phone: `+${i}` });
    await write({ id: 'last', phone: '+last' });
    expect(store.stats().cached).toBeLessThanOrEqual(6);

    // c0 is used at every step while others are written (each write checkpoints, which forgets parsed pages) and
    // read back: it stays in memory as the same object, and the count stays within the limit.
    const c0 = await store.get<Contact>('contacts', 'c0');
    for (let i = 1; i < 60; i++) {
      expect(await store.get<Contact>('contacts', 'c0')).toBe(c0);
      await write({ id: `n${i}`, phone: `+n${i}` });
      expect((await store.get<Contact>('contacts', `c${i}`))!.phone).toBe(`+${i}`);
      expect(store.stats().cached).toBeLessThanOrEqual(5);
    }
  });

  test('documents dropped from memory are read back, found, changed, touched, removed and undone, while other reads of their page are under way', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { pageSize: 4, checkpointEvery: 1_000, cacheSize: 1 });
    const phones = new Map<string, string>();
    for (let i = 0; i < 12; i++) phones.set(`c${i}`, `+${i}`);
    for (const [id, phone] of phones)
      await store.transact(async (tx) => tx.insert<Contact>('contacts', { id, phone, list: 'x' }));
    await store.checkpointNow();
    const order = [...phones.keys()];
    const check = async (s: LowdbStore) => {
      for (const [id, phone] of phones) expect((await s.get<Contact>('contacts', id))?.phone).toBe(phone);
      for (const [id, phone] of phones) expect(ids(await s.find('contacts', 'phone', [phone]))).toEqual([id]);
      expect(ids(await s.find('contacts', 'list', ['x']))).toEqual(order);
    };
    for (let round = 0; round < 4; round++) {
      // Each page's documents dropped, then read at once by reads that share the page's read: the first brings a
      // document back, the next drop it again, the last brings it back to an entry the collection let go of.
      for (const id of ['c8', 'c9', 'c10', 'c11']) await store.get('contacts', id);
      for (let page = 0; page < 2; page++) {
        const [a, b] = [`c${page * 4}`, `c${page * 4 + 1}`];
        await Promise.all([a, b, a, b, a].map((id) => store.get('contacts', id)));
        // What a transaction changes now must not be undone by the let-go entry leaving memory.
        phones.set(a, `+${round}-${a}`);
        await store.transact(async (tx) => tx.update<Contact>('contacts', a, { phone: phones.get(a)! }));
        await Promise.all(['c8', 'c9', b, 'c10', 'c11'].map((id) => store.get('contacts', id)));
        expect((await store.get<Contact>('contacts', a))?.phone).toBe(phones.get(a));
        await store.checkpointNow();
      }
    }
    await check(store);
    // Touched, removed, and a removal undone, all on documents not in memory.
    for (const id of ['c8', 'c9', 'c10', 'c11']) await store.get('contacts', id);
    await store.transact(async (tx) => tx.touch<Contact>('contacts', 'c2', { name: 'active' }));
    await store.transact(async (tx) => tx.remove('contacts', 'c3'));
    await expect(
      store.transact(async (tx) => {
        await tx.remove('contacts', 'c6');
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    phones.delete('c3');
    order.splice(order.indexOf('c3'), 1);
    order.push(order.splice(order.indexOf('c2'), 1)[0]!);
    await check(store);
    await store.checkpointNow();
    for (const id of ['c8', 'c9', 'c10', 'c11']) await store.get('contacts', id);
    await check(store);
    await store.close();
    await check(await openStore(dir, { pageSize: 4, cacheSize: 1 }));
  });

  test('keeps every document changed since the last checkpoint, past its limit, and lets them go once it is written', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { pageSize: 10, checkpointEvery: 1000, cacheSize: 5 });
    for (let i = 0; i < 40; i++) await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: `c${i}` }));
    // A read past the limit trims: none of these may go, their only durable copy being the journal.
    expect(await store.get<Contact>('contacts', 'c0')).toEqual({ id: 'c0' });
    expect(store.stats().cached).toBe(40);

    await store.checkpointNow();
    expect(store.stats().cached).toBeLessThanOrEqual(5);
    for (let i = 0; i < 40; i++) expect(await store.get<Contact>('contacts', `c${i}`)).toEqual({ id: `c${i}` });
    expect(store.stats().cached).toBeLessThanOrEqual(5);
  });

  test('keeps every document a transaction read, past its limit, until it ends; then they may go again', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { pageSize: 10, checkpointEvery: 1000, cacheSize: 5 });
    for (let i = 0; i < 41; i++) await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: `c${i}` }));
    await store.checkpointNow();
    await store.get('contacts', 'c39');
    expect(store.stats().cached).toBeLessThanOrEqual(5);

    await store.transact(async (tx) => {
      const first = await tx.get<Contact>('contacts', 'c0');
      for (let i = 1; i < 40; i++) await tx.get('contacts', `c${i}`);
      expect(store.stats().cached).toBe(40);
      // Read again at the end, the same object: none was dropped while the transaction held it.
      expect(await tx.get<Contact>('contacts', 'c0')).toBe(first);
    });
    // The next document read back from its page trims the cache to its limit.
    await store.get('contacts', 'c40');
    expect(store.stats().cached).toBeLessThanOrEqual(5);
  });

  test('a claim that passes over an account reads none of its due jobs', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { pageSize: 10, checkpointEvery: 1000, cacheSize: 5 });
    const at = Date.now();
    await store.transact(async (tx) => {
      for (let n = 0; n < 50; n++)
        await tx.enqueue({ kind: 'busy', data: { n }, accountId: 'acc_busy', runAt: at - 100 + n });
      await tx.enqueue({ kind: 'other', data: {}, accountId: 'acc_other', runAt: at });
    });
    await store.checkpointNow();
    expect(store.stats().cached).toBeLessThanOrEqual(5);

    const { jobs } = await store.jobs.claimDue('default', 8, 60_000, ['acc_busy']);
    expect(jobs.map((job) => job.kind)).toEqual(['other']);
    // The busy account's 50 due jobs stayed on disk: only the one claimed came into memory.
    expect(store.stats().cached).toBeLessThanOrEqual(6);
    expect((await store.jobs.claimDue('default', 8, 60_000, [])).jobs.map((job) => job.data.n)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7,
    ]);
  });
});

describe('durability', () => {
  test('everything committed survives close and reopen, in insertion order, across many pages', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { pageSize: 7, checkpointEvery: 5 });
    for (let i = 0; i < 60; i++) {
      const contact: Contact = { id: `c${i}`, phone: `+${i}`, list: i % 3 ? 'x' : 'y' };
      await store.transact(async (tx) => tx.insert('contacts', contact));
    }
    await store.transact(async (tx) => {
      await tx.update<Contact>('contacts', 'c4', { list: 'y', name: 'moved' });
      await tx.remove('contacts', 'c10');
      await tx.remove('contacts', 'c11');
    });
    await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c10', phone: '+10b' }));
    const all = await store.scan('contacts');
    const listY = ids(await store.find('contacts', 'list', ['y']));
    await store.close();

    const reopened = await openStore(dir, { pageSize: 7, checkpointEvery: 5 });
    expect(await reopened.scan('contacts')).toEqual(all);
    expect(ids(await reopened.scan('contacts')).slice(-2)).toEqual(['c59', 'c10']);
    expect(ids(await reopened.find('contacts', 'list', ['y']))).toEqual(listY);
    expect(listY.slice(0, 3)).toEqual(['c0', 'c3', 'c4']);
    expect((await reopened.get<Contact>('contacts', 'c10'))!.phone).toBe('+10b');
    expect(await reopened.find('contacts', 'phone', ['+11'])).toEqual([]);
    // Pages are lowdb JSON files of bounded size.
    // The last line holds the documents; the first, their index keys, which opening reads instead of them.
    const page = JSON.parse(
      readFileSync(path.join(dir, 'contacts', '0.json'), 'utf8')
        .split('\n')
        .at(-1)!,
    ) as { docs: Doc[] };
    expect(page.docs.length).toBeLessThanOrEqual(7);
  });

  test('checkpoints write pages and empty the journal; later writes survive a crash', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { pageSize: 5, checkpointEvery: 4 });
    for (let i = 0; i < 30; i++) {
      await store.transact(async (tx) => tx.insert('messages', { id: `m${i}`, n: i }));
      await store.checkpointed();
    }
    await store.transact(async (tx) => tx.update<Doc & { n: number }>('messages', 'm2', { n: 200 }));
    await store.durable();
    await store.checkpointed();
    expect(store.stats().checkpoints).toBeGreaterThan(3);
    expect(journalLines(dir).length).toBeLessThan(4);
    for (let i = 30; i < 33; i++) await store.transact(async (tx) => tx.insert('messages', { id: `m${i}`, n: i }));

    const reopened = await openStore(crashImage(dir), { pageSize: 5, checkpointEvery: 4 });
    expect((await reopened.scan('messages')).length).toBe(33);
    expect(ids(await reopened.scan('messages'))).toEqual(Array.from({ length: 33 }, (_, i) => `m${i}`));
    expect((await reopened.get<Doc & { n: number }>('messages', 'm2'))!.n).toBe(200);
  });

  test('commits go on while a checkpoint writes its pages; a crash in the middle of it loses nothing', async () => {
    const dir = tempDir();
    // One document per page, and a checkpoint after every commit unless one is under way: the first commit's
    // checkpoint writes 300 page files, each made durable on its own.
    const store = await openStore(dir, { pageSize: 1, checkpointBytes: 1 });
    await store.transact(async (tx) => {
      for (let i = 0; i < 300; i++) await tx.insert('messages', { id: `m${i}` });
    });
    const order: string[] = [];
    const checkpointed = store.checkpointed().then(() => order.push('checkpoint'));
    await store.transact(async (tx) => tx.insert('messages', { id: 'during' }));
    order.push('commit');
    // The journal the checkpoint sealed and the new one, as a crash now would leave them.
    const image = crashImage(dir);
    await checkpointed;
    expect(order).toEqual(['commit', 'checkpoint']);
    expect(readdirSync(image).filter((name) => name.startsWith('journal'))).toEqual(['journal.1.log', 'journal.log']);
    const expected = [...Array.from({ length: 300 }, (_, i) => `m${i}`), 'during'];
    expect(ids(await (await openStore(image)).scan('messages'))).toEqual(expected);
    // Once the pages are written, the sealed journal is gone.
    expect(readdirSync(dir).filter((name) => name.startsWith('journal'))).toEqual(['journal.log']);
    await store.close();
    expect(ids(await (await openStore(dir)).scan('messages'))).toEqual(expected);
  });

  test('a torn journal tail left by a crash is cut off and the store opens cleanly', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { checkpointEvery: 1000 });
    for (let i = 0; i < 10; i++) await store.transact(async (tx) => tx.insert('messages', { id: `m${i}` }));
    const image = crashImage(dir);
    const journal = path.join(image, 'journal.log');
    const intact = statSync(journal).size;
    const lastLine = journalLines(image).at(-1)!;
    // Half of a record, as a kill -9 in the middle of a write leaves it.
    appendFileSync(journal, lastLine.slice(0, lastLine.length >> 1));

    const reopened = await openStore(image, { checkpointEvery: 1000 });
    expect(ids(await reopened.scan('messages'))).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    await reopened.transact(async (tx) => tx.insert('messages', { id: 'after' }));
    expect(ids(await (await openStore(crashImage(image))).scan('messages')).at(-1)).toBe('after');

    // Garbage of any shape, several lines of it.
    const image2 = crashImage(dir);
    appendFileSync(path.join(image2, 'journal.log'), '17 0000beef {"not":"a record"}\n\u0000\u0000garbage\nmore');
    const second = await openStore(image2, { checkpointEvery: 1000 });
    expect((await second.scan('messages')).length).toBe(10);
    await second.close();
    expect(statSync(path.join(image2, 'journal.log')).size).toBe(0);
    expect(intact).toBeGreaterThan(0);
  });

  test('damage before intact journal records, or in a page, refuses to open', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { checkpointEvery: 1000 });
    for (let i = 0; i < 3; i++) await store.transact(async (tx) => tx.insert('messages', { id: `m${i}` }));
    const image = crashImage(dir);
    const journal = path.join(image, 'journal.log');
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[0] = lines[0]!.replace('m0', 'x0');
    writeFileSync(journal, lines.join('\n'));
    await expect(openStore(image)).rejects.toThrow(/journal .* damaged/);
    // A sealed journal was durable in full before a checkpoint began: even a torn tail there is damage.
    const sealed = crashImage(dir);
    const [first] = readFileSync(path.join(sealed, 'journal.log'), 'utf8').split('\n');
    writeFileSync(path.join(sealed, 'journal.1.log'), `${first}\n${first!.slice(0, 10)}`);
    await expect(openStore(sealed)).rejects.toThrow(/journal\.1\.log is damaged/);

    await store.close();
    writeFileSync(path.join(dir, 'messages', '0.json'), '{"docs":[{"id":"m0"},');
    await expect(openStore(dir)).rejects.toThrow(/0\.json/);
  });

  test('group commit: concurrent transactions share journal records', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { checkpointEvery: 100000 });
    const burst = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.transact(async (tx) => (await tx.insert('messages', { id: `b${i}` })).id),
      ),
    );
    expect(burst).toHaveLength(200);
    expect(store.stats().commits).toBeLessThanOrEqual(2);

    // Sixteen clients, each sending its next write as soon as the previous one is acknowledged.
    await Promise.all(
      Array.from({ length: 16 }, async (_, client) => {
        for (let i = 0; i < 25; i++)
          await store.transact(async (tx) => tx.insert('messages', { id: `s${client}-${i}` }));
      }),
    );
    const { transactions, commits } = store.stats();
    expect(transactions).toBe(600);
    expect(commits).toBeLessThan(transactions / 4);
    expect(journalLines(dir)).toHaveLength(commits);
    expect((await (await openStore(crashImage(dir))).scan('messages')).length).toBe(600);
  });

  test('each journal write is durable when it returns: the journal, new or after a checkpoint, is open with O_DSYNC', async () => {
    // Linux shows an open file's flags in /proc; O_DSYNC there is octal 010000.
    const O_DSYNC = 0o10000;
    const journalFlags = (dir: string): number[] => {
      const journal = path.join(dir, 'journal.log');
      return readdirSync('/proc/self/fd')
        .filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`) === journal;
          } catch {
            return false;
          }
        })
        .map((fd) => parseInt(/^flags:\s+(\d+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!, 8));
    };
    const dir = tempDir();
    const store = await openStore(dir, { checkpointEvery: 2 });
    await store.transact(async (tx) => tx.insert('messages', { id: 'm1' }));
    expect(journalFlags(dir).map((flags) => flags & O_DSYNC)).toEqual([O_DSYNC]);

    for (let i = 2; i <= 6; i++) {
      await store.transact(async (tx) => tx.insert('messages', { id: `m${i}` }));
      await store.checkpointed();
    }
    expect(store.stats().checkpoints).toBeGreaterThan(0);
    expect(journalFlags(dir).map((flags) => flags & O_DSYNC)).toEqual([O_DSYNC]);
  });

  test('a read-only transaction waits for the commit of what it read; durable() for what was applied', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const write = store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c1', phone: '+1' }));
    const read = store.transact(async (tx) => (await tx.find<Contact>('contacts', 'phone', ['+1']))[0]!.id);
    // The read saw the write: it is answered only once the write's commit is on disk.
    expect(await read).toBe('c1');
    expect(journalLines(dir)).toHaveLength(1);
    await write;
    await store.transact(async (tx) => tx.insert<Contact>('contacts', { id: 'c2', phone: '+2' }).then(() => undefined));
    await store.durable();
    expect(journalLines(dir)).toHaveLength(2);
  });

  test('close() flushes pending writes, and a closed store refuses writes', async () => {
    const dir = tempDir();
    const store = await openLowdbStore({ dir, collections: COLLECTIONS });
    const pending = Array.from({ length: 50 }, (_, i) =>
      store.transact(async (tx) => tx.insert('messages', { id: `m${i}` })),
    );
    await store.close();
    await Promise.all(pending);
    await expect(store.transact(async (tx) => tx.insert('messages', { id: 'late' }))).rejects.toThrow(/closed/);
    expect(statSync(path.join(dir, 'journal.log')).size).toBe(0);
    // The layout: the journal and one folder of page files per collection, the store's own jobs and gateway
    // settings among them; nothing half written is left behind.
    expect(readdirSync(dir).sort()).toEqual(['contacts', 'gateway_settings', 'jobs', 'journal.log', 'messages']);
    expect(readdirSync(path.join(dir, 'messages'))).toEqual(['0.json']);
    expect(readdirSync(path.join(dir, 'contacts'))).toEqual([]);
    expect(readdirSync(path.join(dir, 'jobs'))).toEqual([]);
    expect((await (await openStore(dir)).scan('messages')).length).toBe(50);
  });
});

describe('crash', () => {
  interface Acked {
    inserted: Set<string>;
    removed: Set<string>;
    /** Removals started; those not in `removed` were cut short by the kill. */
    removing: Set<string>;
    counters: Map<string, number>;
  }

  /** Runs the driver until it has acknowledged `atLeast` changes, then kills it with SIGKILL. */
  function runAndKill(dir: string, tag: string, atLeast: number, acked: Acked): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [DRIVER, dir, tag], { stdio: ['ignore', 'pipe', 'pipe'] });
      let buffered = '';
      let count = 0;
      let stderr = '';
      let killed = false;
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [kind, id, n] = line.split(' ');
          if (kind === 'I') acked.inserted.add(id!);
          else if (kind === 'D') acked.removed.add(id!);
          else if (kind === 'R') acked.removing.add(id!);
          else if (kind === 'C') acked.counters.set(id!, Math.max(acked.counters.get(id!) ?? 0, Number(n)));
          count += 1;
        }
        if (count >= atLeast && !killed) {
          killed = true;
          child.kill('SIGKILL');
        }
      });
      child.on('exit', (code, signal) => {
        if (signal === 'SIGKILL') resolve();
        else reject(new Error(`driver exited with ${code}: ${stderr}`));
      });
    });
  }

  test('kill -9 during concurrent commits: every acknowledged change is there and the store opens', async () => {
    const dir = tempDir();
    const acked: Acked = { inserted: new Set(), removed: new Set(), removing: new Set(), counters: new Map() };
    const collections: CollectionSpec[] = [
      { name: 'messages', indexes: { key: { unique: true, fields: ['key'] } } },
      { name: 'counters' },
    ];
    for (const [round, atLeast] of [
      [1, 400],
      [2, 750],
      [3, 1100],
    ] as const) {
      await runAndKill(dir, `r${round}`, atLeast, acked);
      const store = await openLowdbStore({ dir, collections, pageSize: 40 });
      try {
        for (const id of acked.inserted) {
          if (acked.removed.has(id)) expect(await store.get('messages', id)).toBeUndefined();
          // A removal under way at the kill may or may not have committed; either outcome is correct.
          else if (!acked.removing.has(id)) expect((await store.get('messages', id))?.id).toBe(id);
        }
        for (const [name, n] of acked.counters) {
          expect((await store.get<Doc & { n: number }>('counters', name))!.n).toBeGreaterThanOrEqual(n);
        }
        const all = await store.scan<Doc & { key: string }>('messages');
        expect(new Set(ids(all)).size).toBe(all.length);
        for (const doc of all) expect(ids(await store.find('messages', 'key', [doc.key]))).toEqual([doc.id]);
      } finally {
        await store.close();
      }
    }
    expect(acked.inserted.size).toBeGreaterThan(500);
  });
});
