/**
 * `npm run bench` (the hot path): the gateway's POST /v1/incoming_custom_channel_message beside a bare Express 5
 * JSON POST over the same certificate, driven by autocannon (a load generator light enough that, on a 2-core
 * machine, the load's own CPU does not hide the server's), at 16 and at 64 connections: alone, and for an account
 * with one `message_received` subscription whose deliveries a loopback receiver counts (a run lasts until each of
 * its messages was delivered, and its rate includes them). Rounds are interleaved: each round runs every target once
 * at each load, its order turned round each time, so that a machine whose speed drifts moves them alike. Prints each
 * target's median requests/s, the median of the rounds' ratios to the bare endpoint, the CPU a request costs
 * each server (from /proc), and the documents each message cost the store, by collection, from the gateway's
 * `leadchat_store_writes_total` (a build that counts them): a count that no noise of the machine moves.
 *
 * LEADCHAT_BENCH_BASELINE runs another build of the gateway beside this one, in the same rounds, and prints this
 * build's rate over it: a directory holding a build, a version of test/gateway/releases.json (or `previous`), or
 * a git ref of this repository (built once from its commit under the system's temp dir, see release-build.ts).
 *
 * Settings (environment): LEADCHAT_BENCH_HOT_REQUESTS (3000 per run), LEADCHAT_BENCH_HOT_ROUNDS (3),
 * LEADCHAT_BENCH_HOT_CONNECTIONS (16,64), LEADCHAT_BENCH_HOT_SCENARIOS (incoming,subscribed), LEADCHAT_LOG_LEVEL (info: the
 * access log on, as served by default), LEADCHAT_BENCH_CPU_PROF=<dir> runs this build under `node --cpu-prof`
 * (profile-shares.ts folds the profile into the hot path's steps).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startBareExpress } from './bare-express.js';
import { freePort } from './free-port.js';
import { hookReceiver, type HookReceiver } from './hook-receiver.js';
import { createAccount, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import { client, INCOMING } from './http-load.js';
import { cpuSeconds, memoryMb } from './process-usage.js';
import { baselineGateway } from './release-build.js';
import { setting } from './setting.js';
import { median } from './stats.js';
import { perMessage, storeWrites, writesBetween } from './store-writes.js';

const BODY = 'Hi! I saw your ad and would like to know the price of the premium plan for a team of five.';
/** Distinct senders per run, as the ingest bench: a third of a 3000-request run's senders are new contacts. */
const SENDERS = 1000;

/** A server under load: its URL and certificate, and per scenario the API key to post with. */
interface Server {
  name: string;
  url: string;
  ca: string;
  process: ChildProcess;
  keys?: { incoming: string; subscribed?: string };
}

type Scenario = 'incoming' | 'subscribed';

interface Run {
  perSecond: number;
  cpuMs: number | undefined;
  p50: number;
  p99: number;
  failures: number;
  /** What the gateway's store wrote during the run, by collection (a build that counts it). */
  writes?: Map<string, number>;
}

let phases = 0;

/** `requests` posts at `connections`, each a new messageSid from the run's own pool of senders. */
async function load(
  server: Server,
  apiKey: string | undefined,
  connections: number,
  requests: number,
): Promise<{ result: autocannon.Result; lastAnswer: bigint }> {
  const phase = phases++;
  let n = 0;
  const body = () =>
    JSON.stringify({
      customData: {
        messageSid: `hot-${phase}-${n}`,
        fromId: `+1666${String(phase).padStart(3, '0')}${String(n++ % SENDERS).padStart(4, '0')}`,
        toId: 'bench-business',
        body: BODY,
        channel: 'bench',
      },
    });
  const options: autocannon.Options = {
    url: server.url,
    connections,
    amount: requests,
    timeout: 60,
    // autocannon connects with rejectUnauthorized: false whatever it is given: the certificate is not checked, which
    // is harmless only because every target here is a server this bench started on the loopback interface.
    servername: 'localhost',
    requests: [
      {
        method: 'POST',
        path: INCOMING,
        headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
        setupRequest: (req) => ({ ...req, body: body() }),
      },
    ],
  };
  // autocannon settles on its next one-second tick: the run ends with its last answer instead.
  let lastAnswer = process.hrtime.bigint();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (err, done) => (err ? reject(err as Error) : resolve(done)));
    instance.on('response', () => (lastAnswer = process.hrtime.bigint()));
  });
  return { result, lastAnswer };
}

/** One measured run; with a subscription, it lasts until each acknowledged message was delivered. */
async function measure(
  server: Server,
  scenario: Scenario,
  connections: number,
  requests: number,
  deliveries: HookReceiver,
): Promise<Run> {
  const apiKey = server.keys ? (scenario === 'subscribed' ? server.keys.subscribed : server.keys.incoming) : undefined;
  const deliveredBefore = deliveries.received();
  const writesBefore = server.keys ? await storeWrites(server.url, server.ca) : undefined;
  const cpuBefore = cpuSeconds(server.process.pid!);
  const started = process.hrtime.bigint();
  const { result, lastAnswer } = await load(server, apiKey, connections, requests);
  const ok = result['2xx'];
  let ended = lastAnswer;
  if (server.keys && scenario === 'subscribed') {
    const deadline = Date.now() + 300_000;
    while (deliveries.received() - deliveredBefore < ok) {
      if (Date.now() > deadline) throw new Error(`${server.name}: deliveries did not all arrive within 5 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    if (deliveries.lastAt() > ended) ended = deliveries.lastAt();
  }
  const seconds = Number(ended - started) / 1e9;
  const cpuAfter = cpuSeconds(server.process.pid!);
  const writesAfter = writesBefore && (await storeWrites(server.url, server.ca));
  return {
    perSecond: requests / seconds,
    cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1000) / requests,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: requests - ok,
    writes: writesBefore && writesAfter && writesBetween(writesBefore, writesAfter),
  };
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function gatewayServer(
  name: string,
  dataDir: string,
  hookUrl: string,
  main?: string,
  node: string[] = [],
): Promise<Server> {
  const port = await freePort();
  // As a user runs it: the access log on (info), unless LEADCHAT_LOG_LEVEL says otherwise.
  const env = gatewayEnv({
    LEADCHAT_PORT: String(port),
    LEADCHAT_DATA_DIR: dataDir,
    LEADCHAT_DATABASE_URL: '',
    LEADCHAT_LOG_LEVEL: process.env.LEADCHAT_LOG_LEVEL ?? 'info',
  });
  const child = await startGateway(env, main, node);
  const url = `https://127.0.0.1:${port}`;
  const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
  const incoming = await createAccount(url, ca, 'hot@example.com');
  const subscribedKey = await createAccount(url, ca, 'hot-subscribed@example.com');
  const subscribe = await fetchJson(url, ca, subscribedKey, '/v1/webhooks', {
    url: hookUrl,
    events: ['message_received'],
  });
  if (subscribe >= 300) process.stdout.write(`  ${name}: the subscription was refused (${subscribe}); it runs alone\n`);
  return {
    name,
    url,
    ca,
    process: child,
    keys: { incoming, subscribed: subscribe < 300 ? subscribedKey : undefined },
  };
}

/** A POST over the gateway's certificate; its status. */
async function fetchJson(url: string, ca: string, apiKey: string, pathname: string, body: unknown): Promise<number> {
  const c = client({ url, ca, apiKey }, 1);
  try {
    return (await c.post(pathname, body)).status;
  } finally {
    c.close();
  }
}

async function main(): Promise<void> {
  const requests = setting('LEADCHAT_BENCH_HOT_REQUESTS', 3000);
  const rounds = setting('LEADCHAT_BENCH_HOT_ROUNDS', 3);
  const levels = (process.env.LEADCHAT_BENCH_HOT_CONNECTIONS || '16,64').split(',').map(Number);
  const scenarios = (process.env.LEADCHAT_BENCH_HOT_SCENARIOS || 'incoming,subscribed').split(',') as Scenario[];
  const profileDir = process.env.LEADCHAT_BENCH_CPU_PROF;
  const baselineGiven = process.env.LEADCHAT_BENCH_BASELINE;
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-hot-'));
    dirs.push(dir);
    return dir;
  };
  const cpus = os.cpus();
  process.stdout.write(
    `LeadChat hot path: POST ${INCOMING} (autocannon, HTTPS keep-alive), ${rounds} interleaved rounds × ${requests} ` +
      `requests per target, at ${levels.join(' and ')} connections; node ${process.version}, ` +
      `${cpus.length} CPU(s) ${cpus[0]?.model ?? ''}; load ${loadavg()}\n`,
  );
  const baseline = baselineGiven ? await baselineGateway(baselineGiven) : undefined;

  const servers: Server[] = [];
  const hooks = await hookReceiver();
  try {
    const dataDir = tempDir();
    const node = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const current = await gatewayServer('this build', dataDir, hooks.url, undefined, node);
    servers.push(current);
    const barePort = await freePort();
    const bare: Server = {
      name: 'bare Express',
      url: `https://127.0.0.1:${barePort}`,
      ca: current.ca,
      process: await startBareExpress(barePort, dataDir),
    };
    servers.push(bare);
    const targets: Server[] = [bare, current];
    if (baseline) {
      const previous = await gatewayServer(baseline.name, tempDir(), hooks.url, baseline.main);
      servers.push(previous);
      targets.push(previous);
    }

    // Warm-up (TLS sessions, JIT, the first contacts): outside the figures.
    for (const server of targets)
      for (const scenario of scenarios) await measure(server, scenario, levels[0]!, Math.min(1000, requests), hooks);

    let failures = 0;
    for (const connections of levels) {
      for (const scenario of scenarios) {
        const runs = new Map<Server, Run[]>(targets.map((t) => [t, []]));
        const loadBefore = loadavg();
        for (let round = 0; round < rounds; round++) {
          const order = round % 2 ? [...targets].reverse() : targets;
          for (const server of order) {
            if (server.keys && scenario === 'subscribed' && !server.keys.subscribed) continue;
            runs.get(server)!.push(await measure(server, scenario, connections, requests, hooks));
          }
        }
        const label = `${connections} connections, ${scenario === 'incoming' ? 'incoming alone' : 'with one message_received subscription (delivered)'}`;
        const block = [`\n${label}; load ${loadBefore} → ${loadavg()}`];
        block.push(
          `${'target'.padEnd(44)}${'req/s'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'CPU ms/req'.padStart(12)}${'failed'.padStart(8)}  ratio to bare (rounds)`,
        );
        const bareRuns = runs.get(bare)!;
        for (const server of targets) {
          const own = runs.get(server)!;
          if (!own.length) continue;
          const ratios = own.map((r, i) => r.perSecond / bareRuns[i]!.perSecond);
          const cpu = own.map((r) => r.cpuMs).filter((c): c is number => c !== undefined);
          failures += own.reduce((sum, r) => sum + r.failures, 0);
          block.push(
            `${server.name.padEnd(44)}${median(own.map((r) => r.perSecond))
              .toFixed(0)
              .padStart(8)}` +
              `${median(own.map((r) => r.p50))
                .toFixed(1)
                .padStart(8)}${median(own.map((r) => r.p99))
                .toFixed(1)
                .padStart(8)}` +
              `${(cpu.length ? median(cpu).toFixed(3) : 'n/a').padStart(12)}${String(own.reduce((s, r) => s + r.failures, 0)).padStart(8)}` +
              (server === bare
                ? ''
                : `  ${median(ratios).toFixed(2)}x (${ratios.map((r) => r.toFixed(2)).join(', ')})`),
          );
        }
        for (const server of targets) {
          const counted = runs.get(server)!.flatMap((r) => (r.writes ? [r.writes] : []));
          if (!counted.length) continue;
          const sum = new Map<string, number>();
          for (const writes of counted) for (const [c, n] of writes) sum.set(c, (sum.get(c) ?? 0) + n);
          block.push(`store writes per message, ${server.name}: ${perMessage(sum, counted.length * requests)}`);
        }
        const previous = targets[2];
        if (previous && runs.get(previous)!.length) {
          const ratios = runs.get(current)!.map((r, i) => r.perSecond / runs.get(previous)!.at(i)!.perSecond);
          block.push(
            `this build / ${previous.name}: ${median(ratios).toFixed(2)}x (${ratios.map((r) => r.toFixed(2)).join(', ')})`,
          );
        }
        process.stdout.write(`${block.join('\n')}\n`);
      }
    }
    process.stdout.write(
      `\nthis build's resident memory ${memoryMb(current.process.pid).rss} (peak ${memoryMb(current.process.pid).peak}); ` +
        `deliveries received ${hooks.received()}; load ${loadavg()}\n`,
    );
    if (failures) process.exitCode = 1;
  } finally {
    await Promise.all(servers.map((s) => stopChild(s.process)));
    hooks.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`hot path bench: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
