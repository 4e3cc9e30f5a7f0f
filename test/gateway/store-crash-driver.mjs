// Child process for the store crash test: writes concurrently until killed, printing each change only after its
// transaction resolved (stdout to a pipe is synchronous, so a printed line was acknowledged before any kill).
// Usage: node store-crash-driver.mjs <dir> <tag>
import { openLowdbStore } from '../../gateway/dist/store/lowdb/lowdb-store.js';

const [dir, tag] = process.argv.slice(2);
const WORKERS = 16;

const store = await openLowdbStore({
  dir,
  collections: [
    { name: 'messages', indexes: { key: { unique: true, fields: ['key'] }, worker: { fields: ['worker'] } } },
    { name: 'counters' },
  ],
  // Small pages and frequent checkpoints, so that kills also land in the middle of checkpoints.
  pageSize: 40,
  checkpointEvery: 8,
});

const body = 'm'.repeat(500);
const say = (line) => process.stdout.write(`${line}\n`);

async function worker(w) {
  const name = `${tag}-${w}`;
  const mine = [];
  for (let n = 1; ; n++) {
    const id = `${name}-${n}`;
    await store.transact(async (tx) => tx.insert('messages', { id, key: `k-${id}`, worker: name, body }));
    say(`I ${id}`);
    mine.push(id);
    if (n % 5 === 0) {
      await store.transact(async (tx) =>
        (await tx.get('counters', name)) ? tx.update('counters', name, { n }) : tx.insert('counters', { id: name, n }),
      );
      say(`C ${name} ${n}`);
    }
    if (n % 7 === 0) {
      const victim = mine.shift();
      // Announced first: a kill between the commit and its acknowledgement leaves the removal durable but unacked.
      say(`R ${victim}`);
      await store.transact(async (tx) => tx.remove('messages', victim));
      say(`D ${victim}`);
    }
  }
}

for (let w = 0; w < WORKERS; w++) {
  worker(w).catch((err) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  });
}
