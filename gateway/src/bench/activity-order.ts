/**
 * `npm run bench`: what an inbox's activity order costs the embedded store. LEADCHAT_BENCH_CONVERSATIONS (20000)
 * conversations are stored, then as many messages touch conversations picked at random (an older one each time, as in
 * a real inbox, where a lead writes back days later). Prints the touches per second, the page files written by the
 * checkpoints after them, the page files the collection ends with, and that the last one touched lists first.
 *
 * A touched conversation takes the last place in order and stays in its page: a touch dirties one page, and the
 * collection keeps its size (before, each one moved to the last page, leaving a hole behind and a page more to write).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLowdbStore } from '../store/lowdb/lowdb-store.js';
import type { CollectionSpec, Doc } from '../store/store.js';
import { setting } from './setting.js';

interface Conversation extends Doc {
  accountId: string;
  lastMessage: string;
  touches: number;
}

const COLLECTIONS: CollectionSpec[] = [{ name: 'conversations', indexes: { account: { fields: ['accountId'] } } }];
const BATCH = 100;

async function main(): Promise<void> {
  const count = setting('LEADCHAT_BENCH_CONVERSATIONS', 20_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-bench-activity-'));
  try {
    const store = await openLowdbStore({ dir, collections: COLLECTIONS });
    for (let i = 0; i < count; i += BATCH) {
      await store.transact(async (tx) => {
        for (let j = i; j < Math.min(count, i + BATCH); j++) {
          await tx.insert<Conversation>('conversations', {
            id: `c${j}`,
            accountId: 'acc',
            lastMessage: 'x'.repeat(300),
            touches: 0,
          });
        }
      });
    }
    await store.checkpointNow();
    const pagesBefore = store.stats().pagesWritten;

    // A fixed sequence of picks, so that runs compare.
    let seed = 1;
    const pick = () => Math.floor(((seed = (seed * 48271) % 2147483647) / 2147483647) * count);
    let last = '';
    const started = performance.now();
    const touches = Array.from({ length: count }, (_, n) => {
      const id = (last = `c${pick()}`);
      return store.transact((tx) => tx.touch<Conversation>('conversations', id, { touches: n + 1 }));
    });
    await Promise.all(touches);
    await store.checkpointNow();
    const seconds = (performance.now() - started) / 1000;
    const [newest] = await store.find<Conversation>('conversations', 'account', ['acc'], { order: 'desc', limit: 1 });
    const pagesWritten = store.stats().pagesWritten - pagesBefore;
    await store.close();

    process.stdout.write(
      `Activity order on the embedded store: ${count} conversations, then ${count} touches of random ones\n` +
        `  ${(count / seconds).toFixed(0)} touches/s (checkpoint included); ${pagesWritten} page files written; ` +
        `${readdirSync(path.join(dir, 'conversations')).length} page files in the end; ` +
        `the last touched lists first: ${newest?.id === last ? 'yes' : 'NO'}\n`,
    );
    if (newest?.id !== last) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
