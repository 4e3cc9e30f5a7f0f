import { cpSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { LowdbStore } from '../../gateway/src/store/lowdb/lowdb-store.js' with { 'resolution-mode': 'import' };
import type { CollectionSpec, Doc } from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import { removeDir, tempDir } from '../helpers/gateway';
import { gatewayModule } from '../helpers/gateway-modules';

type StoreModule = typeof import('../../gateway/src/store/lowdb/lowdb-store.js', {
  with: { 'resolution-mode': 'import' }
});
type SnapshotModule = typeof import('../../gateway/src/store/lowdb/snapshot.js', {
  with: { 'resolution-mode': 'import' }
});

/**
 * The embedded store's snapshot point, exactly: a snapshot holds every transaction acknowledged before the point,
 * none started after it, each whole, and the media files of those it holds; taken again and again while writers
 * commit and checkpoints seal and release journals. A snapshot opens as the store recovers from a crash.
 */

jest.setTimeout(120_000);

// The store is ESM (as the gateway runs it): load the compiled files.
const DIST = path.resolve(__dirname, '../../gateway/dist/store/lowdb');
let openLowdbStore: StoreModule['openLowdbStore'];
let takeSnapshot: SnapshotModule['takeSnapshot'];

beforeAll(async () => {
  ({ openLowdbStore } = (await gatewayModule(path.join(DIST, 'lowdb-store.js'))) as StoreModule);
  ({ takeSnapshot } = (await gatewayModule(path.join(DIST, 'snapshot.js'))) as SnapshotModule);
});

interface Note extends Doc {
  writer: number;
  text: string;
  media: boolean;
}
interface Tally extends Doc {
  notes: number;
}

const COLLECTIONS: CollectionSpec[] = [
  { name: 'notes', indexes: { writer: { fields: ['writer'] } } },
  { name: 'tallies' },
];
const WRITERS = 16;
const SNAPSHOTS = 8;

/** Resolves once `done()` holds, looking again every few milliseconds while the writers commit. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 2));
}

const open = (dataDir: string) =>
  openLowdbStore({
    dir: path.join(dataDir, 'store'),
    mediaDir: path.join(dataDir, 'media'),
    collections: COLLECTIONS,
    pageSize: 100,
    checkpointEvery: 40,
    cacheSize: 50,
  });

test(`${SNAPSHOTS} snapshots taken while ${WRITERS} writers commit each hold exactly what was acknowledged at their point`, async () => {
  const dataDir = tempDir('leadchat-snapshot-');
  const copies = tempDir('leadchat-snapshot-copies-');
  const store: LowdbStore = await open(dataDir);
  const started = new Set<string>();
  const acked = new Set<string>();
  let stopping = false;
  const writer = async (w: number) => {
    for (let n = 0; !stopping; n++) {
      const id = `w${w}-n${n}`;
      const media = n % 5 === 0;
      started.add(id);
      // Media files are written before the record that names them, as the gateway writes them.
      if (media) await store.blobs.put('acct', id, Buffer.from(`bytes of ${id}`));
      await store.transact(async (tx) => {
        await tx.insert<Note>('notes', {
          id,
          writer: w,
          text: `note ${n} of writer ${w} ${'·'.repeat(n % 90)}`,
          media,
        });
        const tally = await tx.lock<Tally>('tallies', `w${w}`);
        if (tally) await tx.update<Tally>('tallies', tally.id, { notes: tally.notes + 1 });
        else await tx.insert<Tally>('tallies', { id: `w${w}`, notes: 1 });
      });
      acked.add(id);
    }
  };
  const writing = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  const points: Array<{ copy: string; acked: Set<string>; started: Set<string> }> = [];
  try {
    for (let i = 0; i < SNAPSHOTS; i++) {
      // Each point past a checkpoint more, and a different number of commits into the journal after it: snapshots
      // amid journals sealed and released, at the writers' pace whatever the machine's.
      const checkpoints = store.stats().checkpoints;
      await until(() => store.stats().checkpoints > checkpoints);
      const commits = acked.size;
      await until(() => acked.size >= commits + 5 * i);
      let point: { acked: Set<string>; started: Set<string> } | undefined;
      const snapshot = await takeSnapshot(
        store,
        dataDir,
        () => (point = { acked: new Set(acked), started: new Set(started) }),
      );
      // A copy of its own: opening a snapshot must not touch the running store's files, which it links.
      const copy = path.join(copies, `s${i}`);
      cpSync(path.join(snapshot.dir, 'data'), copy, { recursive: true });
      await snapshot.remove();
      points.push({ copy, ...point! });
    }
  } finally {
    stopping = true;
    await writing;
  }
  expect(store.stats().checkpoints).toBeGreaterThanOrEqual(SNAPSHOTS);
  // No snapshot is left in the data dir.
  expect(readdirSync(dataDir).filter((name) => name.startsWith('.'))).toEqual([]);

  for (const { copy, acked: ackedThen, started: startedThen } of points) {
    const restored = await open(copy);
    try {
      const notes = await restored.scan<Note>('notes');
      const ids = new Set(notes.map((n) => n.id));
      expect([...ackedThen].filter((id) => !ids.has(id))).toEqual([]);
      expect([...ids].filter((id) => !startedThen.has(id))).toEqual([]);
      // Each transaction whole: every writer's tally counts exactly its notes held.
      for (let w = 0; w < WRITERS; w++) {
        const held = notes.filter((n) => n.writer === w).length;
        expect({ w, tally: (await restored.get<Tally>('tallies', `w${w}`))?.notes ?? 0 }).toEqual({ w, tally: held });
      }
      for (const note of notes.filter((n) => n.media)) {
        expect((await restored.blobs.get('acct', note.id))?.toString()).toBe(`bytes of ${note.id}`);
      }
    } finally {
      await restored.close();
    }
  }

  // The running store lost nothing to the snapshots.
  const all = new Set((await store.scan<Note>('notes')).map((n) => n.id));
  expect([...acked].filter((id) => !all.has(id))).toEqual([]);
  await store.close();
  expect(existsSync(path.join(dataDir, 'store', 'journal.log'))).toBe(true);
  removeDir(dataDir);
  removeDir(copies);
});
