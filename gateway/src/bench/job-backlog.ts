/**
 * `npm run bench`: a job queue's backlog, as a gateway finds it when it starts after a while away (a day's hand-off
 * reminders come due, a paused campaign's openings): LEADCHAT_BENCH_BACKLOG (20000) jobs of one account due at once
 * and, queued after them, one of another account. A runner as the gateway's (8 slots) runs them with a handler that
 * does nothing, so what is measured is the queue: how long the backlog takes, and after how many of its jobs the other
 * account's starts (the first slot freed is theirs: jobs/queue.ts).
 *
 * The store is closed and opened again between the queueing and the run, as a restart: on the embedded store the
 * jobs are then on disk, read back as they are claimed. PostgreSQL as in the job queue's bench (jobs.ts).
 */
import { newId } from '../ids.js';
import { JobRunner } from '../jobs/queue.js';
import { DEFAULT_QUEUE, type Store } from '../store/store.js';
import { benchEngine, onEachStore } from './each-store.js';

const BACKLOG = Number(process.env.LEADCHAT_BENCH_BACKLOG ?? 20_000);

/** The backlog, due in the order queued, then the other account's job, due after all of them. */
async function queueBacklog(store: Store): Promise<void> {
  const accountId = newId('acc');
  const from = Date.now() - BACKLOG - 1000;
  for (let i = 0; i < BACKLOG; i += 1000) {
    await store.transact(async (tx) => {
      for (let j = i; j < Math.min(BACKLOG, i + 1000); j++)
        await tx.enqueue({ kind: 'backlog', data: { j }, runAt: from + j, accountId });
    });
  }
  await store.transact((tx) => tx.enqueue({ kind: 'other', data: {}, runAt: from + BACKLOG, accountId: newId('acc') }));
}

/** Runs the queue until nothing is due: the seconds it took, and how many of the backlog ran before the other job. */
async function runBacklog(store: Store): Promise<{ seconds: number; before: number; otherMs: number }> {
  const gw = benchEngine(store);
  let ran = 0;
  let other: { before: number; at: number } | undefined;
  const runner = new JobRunner(
    gw,
    (kind) =>
      kind === 'backlog'
        ? async () => void (ran += 1)
        : async () => void (other = { before: ran, at: performance.now() }),
    { queue: DEFAULT_QUEUE, leaseMs: 600_000 },
  );
  const started = performance.now();
  await runner.drain();
  await runner.stop();
  if (ran !== BACKLOG || !other) throw new Error(`the runner ran ${ran} of ${BACKLOG} jobs and ${other ? 1 : 0} other`);
  return { seconds: (performance.now() - started) / 1000, before: other.before, otherMs: other.at - started };
}

async function measure(name: string, open: () => Promise<Store>): Promise<void> {
  const queued = await open();
  await queueBacklog(queued);
  await queued.close();
  const store = await open();
  try {
    const { seconds, before, otherMs } = await runBacklog(store);
    process.stdout.write(
      `${name.padEnd(12)}${seconds.toFixed(1).padStart(10)}${(BACKLOG / seconds).toFixed(0).padStart(10)}` +
        `${String(before).padStart(16)}${otherMs.toFixed(0).padStart(12)}\n`,
    );
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  process.stdout.write(
    `\nA backlog: ${BACKLOG} jobs of one account due at once, then one of another account, after a restart\n`,
  );
  process.stdout.write(
    `${'backend'.padEnd(12)}${'run in'.padStart(10)}${'jobs'.padStart(10)}${"other's started".padStart(16)}${'after'.padStart(12)}\n`,
  );
  process.stdout.write(
    `${''.padEnd(12)}${'s'.padStart(10)}${'per s'.padStart(10)}${'after, jobs'.padStart(16)}${'ms'.padStart(12)}\n`,
  );
  await onEachStore('backlog', measure);
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.message}\n`);
  process.exitCode = 1;
});
