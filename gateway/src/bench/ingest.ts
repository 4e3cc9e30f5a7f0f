/**
 * `npm run bench`: how fast the gateway ingests custom-channel messages, and whether that depends on how much is
 * stored. Starts the built gateway (dist/cli/main.js serve) as a child process on a temporary data dir, then
 * measures POST /v1/incoming_custom_channel_message (requests/s, p50/p99 latency, N concurrent keep-alive HTTPS
 * clients) on an empty store, fills the store through the same API, and measures again. A bare Express endpoint
 * (express.json + res.json, same certificate, same client) measured in the same run, before and after, is the
 * baseline.
 *
 * Settings (environment): LEADCHAT_BENCH_REQUESTS (3000 per run, 3 runs per measurement), LEADCHAT_BENCH_CONCURRENCY (16),
 * LEADCHAT_BENCH_MESSAGES (200000 stored before the second measurement), LEADCHAT_BENCH_FILL_CONCURRENCY (64),
 * LEADCHAT_BENCH_KEEP=1 keeps the data dir. Other LEADCHAT_* variables reach the gateway; the log level defaults
 * to warn so that per-request log lines are not part of the figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, readdirSync, statSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { freePort } from './free-port.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GATEWAY_MAIN = path.join(HERE, '..', 'cli', 'main.js');
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const INCOMING = '/v1/incoming_custom_channel_message';
/** Distinct senders per run: ingest finds an existing contact for most messages, as on a live channel. */
const SENDERS = 1000;
const BODY = 'Hi! I saw your ad and would like to know the price of the premium plan for a team of five.';

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${JSON.stringify(raw)}: expected a positive integer`);
  return n;
}

interface Target {
  name: string;
  url: string;
  ca: string;
  apiKey?: string;
}

interface Result {
  name: string;
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

/** Starts a child and resolves once its output contains `ready`. */
function startChild(args: string[], env: NodeJS.ProcessEnv, ready: string): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // Always drained: a child blocked on a full pipe would look slow.
  child.stdout!.on('data', (c) => (out = (out + c).slice(-20_000)));
  child.stderr!.on('data', (c) => (out = (out + c).slice(-20_000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${out}`)), 30_000);
    const check = () => {
      if (!out.includes(ready)) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({ child, output: () => out });
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** One keep-alive HTTPS client pool, shared by every request to a target. */
function client(target: Target, sockets: number) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca: target.ca });
  const base = new URL(target.url);
  const post = (pathname: string, body: unknown, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = https.request(
        {
          host: base.hostname,
          port: base.port,
          path: pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(payload)),
            ...(target.apiKey ? { 'x-api-key': target.apiKey } : {}),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { post, close: () => agent.destroy() };
}

let sequence = 0;
let phases = 0;
/**
 * Messages of one run: unique messageSids; senders from the run's own pool of SENDERS, so that every measured run
 * creates the same share of new contacts (a third of 3000) instead of finding those an earlier run created.
 */
function messages(): () => unknown {
  const phase = phases++;
  let i = 0;
  return () => ({
    customData: {
      messageSid: `bench-${sequence++}`,
      fromId: `+1555${String(phase).padStart(3, '0')}${String(i++ % SENDERS).padStart(4, '0')}`,
      toId: 'bench-business',
      body: BODY,
      channel: 'bench',
    },
  });
}

/** `count` requests from `concurrency` workers; every one must be answered 200. */
async function drive(
  post: ReturnType<typeof client>['post'],
  count: number,
  concurrency: number,
  onDone?: (done: number) => void,
): Promise<{ latencies: Float64Array; seconds: number; failures: number; firstFailure?: string }> {
  const nextMessage = messages();
  const latencies = new Float64Array(count);
  let next = 0;
  let done = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t0 = process.hrtime.bigint();
        try {
          const res = await post(INCOMING, nextMessage());
          if (res.status !== 200) {
            failures += 1;
            firstFailure ??= `${res.status} ${res.text.slice(0, 200)}`;
          }
        } catch (err) {
          failures += 1;
          firstFailure ??= (err as Error).message;
        }
        latencies[i] = Number(process.hrtime.bigint() - t0) / 1e6;
        done += 1;
        onDone?.(done);
      }
    }),
  );
  return { latencies, seconds: Number(process.hrtime.bigint() - started) / 1e9, failures, firstFailure };
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ROUNDS = 3;

/**
 * A warm-up (TLS sessions, keep-alive sockets, JIT: outside the figures), then ROUNDS runs of `requests`:
 * requests/s is the median run's, latency percentiles are over every request of every run.
 */
async function measure(target: Target, requests: number, concurrency: number, warmUp: number): Promise<Result> {
  const { post, close } = client(target, concurrency);
  try {
    await drive(post, warmUp, concurrency);
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) runs.push(await drive(post, requests, concurrency));
    const failures = runs.reduce((n, r) => n + r.failures, 0);
    if (failures) process.stdout.write(`  ${target.name}: ${failures} failed requests, first: ${runs.find((r) => r.firstFailure)?.firstFailure}\n`);
    const all = new Float64Array(requests * ROUNDS);
    runs.forEach((r, i) => all.set(r.latencies, i * requests));
    all.sort();
    const rates = runs.map((r) => requests / r.seconds).sort((a, b) => a - b);
    return {
      name: target.name,
      requests: requests * ROUNDS,
      seconds: runs.reduce((t, r) => t + r.seconds, 0),
      perSecond: rates[Math.floor(ROUNDS / 2)]!,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      failures,
    };
  } finally {
    close();
  }
}

async function fill(target: Target, count: number, concurrency: number): Promise<number> {
  const { post, close } = client(target, concurrency);
  const started = Date.now();
  const step = Math.max(1000, Math.round(count / 20));
  try {
    const run = await drive(post, count, concurrency, (done) => {
      if (done % step !== 0 && done !== count) return;
      const seconds = (Date.now() - started) / 1000;
      const rate = done / seconds;
      process.stdout.write(`  filled ${done}/${count} in ${seconds.toFixed(0)} s (${rate.toFixed(0)}/s, ~${((count - done) / rate).toFixed(0)} s left)\n`);
    });
    if (run.failures) throw new Error(`${run.failures} requests failed while filling; first: ${run.firstFailure}`);
    return run.seconds;
  } finally {
    close();
  }
}

function diskUsage(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    bytes += entry.isDirectory() ? diskUsage(full) : statSync(full).size;
  }
  return bytes;
}

function residentMb(pid: number | undefined): string {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return `${(kb / 1024).toFixed(0)} MB`;
  } catch {
    return 'n/a';
  }
}

/** The baseline: the least an Express JSON endpoint costs here, over the same TLS. */
async function bareServer(port: number, certFile: string, keyFile: string): Promise<void> {
  const app = express();
  let n = 0;
  app.post(INCOMING, express.json({ limit: '100kb' }), (_req, res) => void res.json({ success: true, messageId: `msg_${++n}` }));
  const server = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, app);
  server.listen(port, '127.0.0.1', () => process.stdout.write('bare server listening\n'));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

async function main(): Promise<void> {
  const requests = setting('LEADCHAT_BENCH_REQUESTS', 3000);
  const concurrency = setting('LEADCHAT_BENCH_CONCURRENCY', 16);
  const stored = setting('LEADCHAT_BENCH_MESSAGES', 200_000);
  const fillConcurrency = setting('LEADCHAT_BENCH_FILL_CONCURRENCY', 64);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-bench-'));
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
  };
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));

  try {
    const port = await freePort();
    const gatewayEnv = {
      ...process.env,
      LEADCHAT_LOG_LEVEL: process.env.LEADCHAT_LOG_LEVEL ?? 'warn',
      LEADCHAT_HOST: '127.0.0.1',
      LEADCHAT_PORT: String(port),
      LEADCHAT_DATA_DIR: dataDir,
      LEADCHAT_ADMIN_TOKEN: ADMIN_TOKEN,
      LEADCHAT_RATE_LIMIT_PER_MINUTE: '1000000',
    };
    const started = await startChild([GATEWAY_MAIN, 'serve'], gatewayEnv, 'listening on');
    gateway = started.child;
    const certFile = path.join(dataDir, 'tls', 'cert.pem');
    const keyFile = path.join(dataDir, 'tls', 'key.pem');
    const ca = readFileSync(certFile, 'utf8');
    const gatewayUrl = `https://127.0.0.1:${port}`;

    const admin = client({ name: 'admin', url: gatewayUrl, ca }, 1);
    const account = await admin.post('/admin/v1/accounts', { name: 'Bench', email: 'bench@example.com' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    admin.close();
    if (account.status !== 201) throw new Error(`account creation failed: ${account.status} ${account.text}`);
    const apiKey = (JSON.parse(account.text) as { apiKey: string }).apiKey;

    const barePort = await freePort();
    bare = (await startChild([fileURLToPath(import.meta.url), 'bare', String(barePort), certFile, keyFile], process.env, 'bare server listening')).child;
    const baseline: Target = { name: 'bare Express (same TLS)', url: `https://127.0.0.1:${barePort}`, ca };
    const target = { url: gatewayUrl, ca, apiKey };
    const warmUp = Math.min(2000, requests);

    const results: Result[] = [];
    process.stdout.write('measuring the bare Express endpoint…\n');
    results.push(await measure({ ...baseline, name: `${baseline.name}, first` }, requests, concurrency, 2 * warmUp));

    const beforeGateway = sequence;
    process.stdout.write('measuring the gateway on an empty store…\n');
    results.push(await measure({ ...target, name: 'gateway, empty store' }, requests, concurrency, warmUp));
    const afterEmpty = sequence - beforeGateway;

    const toFill = Math.max(0, stored - afterEmpty);
    process.stdout.write(`filling the store to ${stored} messages through the API (${fillConcurrency} concurrent clients)…\n`);
    const fillSeconds = await fill({ ...target, name: 'fill' }, toFill, fillConcurrency);
    if (fillSeconds > 300) {
      process.stdout.write(`  the fill took ${(fillSeconds / 60).toFixed(1)} min; LEADCHAT_BENCH_MESSAGES sets a smaller store for a quick run\n`);
    }

    const atFull = sequence - beforeGateway;
    process.stdout.write(`measuring the gateway at ${atFull} stored messages…\n`);
    results.push(await measure({ ...target, name: `gateway, ${stored} messages` }, requests, concurrency, warmUp));
    process.stdout.write('measuring the bare Express endpoint again…\n');
    results.push(await measure({ ...baseline, name: `${baseline.name}, last` }, requests, concurrency, warmUp));
    const rss = residentMb(gateway.pid);
    const onDisk = diskUsage(path.join(dataDir, 'store'));
    await stopChild(bare);

    process.stdout.write(`restarting the gateway on the ${atFull}-message data dir…\n`);
    await stopChild(gateway);
    const restartedAt = process.hrtime.bigint();
    gateway = (await startChild([GATEWAY_MAIN, 'serve'], gatewayEnv, 'listening on')).child;
    const startUpSeconds = Number(process.hrtime.bigint() - restartedAt) / 1e9;
    const rssAfterRestart = residentMb(gateway.pid);

    const pad = (s: string, n: number) => s.padEnd(n);
    const num = (v: number, digits: number, n: number) => v.toFixed(digits).padStart(n);
    process.stdout.write(`\n${pad('', 34)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'failed'.padStart(8)}\n`);
    for (const r of results) {
      process.stdout.write(`${pad(r.name, 34)}${num(r.perSecond, 0, 9)}${num(r.p50, 2, 9)}${num(r.p99, 2, 9)}${String(r.failures).padStart(8)}\n`);
    }
    const [bareFirst, empty, full, bareLast] = results as [Result, Result, Result, Result];
    const bareRate = (bareFirst.perSecond + bareLast.perSecond) / 2;
    const ratio = empty.perSecond / full.perSecond;
    process.stdout.write(
      `\nstored messages during the runs: ${afterEmpty - ROUNDS * requests}–${afterEmpty} (empty), ` +
        `${atFull + warmUp}–${atFull + warmUp + ROUNDS * requests} (full)\n` +
        `empty / ${stored}: ${ratio.toFixed(2)}x in requests/s (${ratio <= 2 ? 'within' : 'NOT within'} 2x); ` +
        `p99 ${empty.p99.toFixed(2)} → ${full.p99.toFixed(2)} ms\n` +
        `gateway / bare Express (mean of both): ${(empty.perSecond / bareRate).toFixed(2)} (empty), ${(full.perSecond / bareRate).toFixed(2)} (${stored})\n` +
        `fill: ${toFill} messages in ${fillSeconds.toFixed(0)} s (${(toFill / fillSeconds).toFixed(0)}/s); ` +
        `store on disk ${(onDisk / 1024 / 1024).toFixed(0)} MB; gateway resident memory ${rss} after the runs\n` +
        `restart on ${atFull} messages: listening after ${startUpSeconds.toFixed(2)} s, resident memory ${rssAfterRestart}\n`,
    );
    if (results.some((r) => r.failures > 0)) process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

if (process.argv[2] === 'bare') {
  void bareServer(Number(process.argv[3]), process.argv[4]!, process.argv[5]!);
} else {
  main().catch((err: Error) => {
    process.stderr.write(`bench: ${err.message}\n`);
    process.exitCode = 1;
  });
}
