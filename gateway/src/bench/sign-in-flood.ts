/**
 * `npm run bench` (sign-in flood): what a flood of console sign-ins does to the embedded store's writes. Starts the
 * built gateway on the embedded store with its default limits, then measures one client writing contacts one after
 * another (POST /v1/contacts, each answered once durable) for a while at rest, then while 16 clients sign in in
 * parallel with wrong passwords as fast as they are answered, each attempt from the next of 200 loopback addresses
 * (127.0.1.1 … 127.0.1.200) and for an email of its own (unknown emails are hashed too), then while 16 clients sign in
 * one member with the right password in a loop from one address. Prints each phase's write p50 and p99, the p50's
 * ratio to the one at rest, and how the sign-ins were answered; and the machine's load average before and after. The
 * sign-in clients run on a thread of their own: on the writer's event loop they would delay its answers themselves.
 *
 * The three phases run ROUNDS times in turn, each flood's ratio taken to the rest just before it, and the median
 * ratio of each is the figure: the machine's other load drifts, and a phase measured once would carry its drift.
 *
 * Settings (environment): LEADCHAT_BENCH_SIGN_IN_SECONDS (10, each phase), LEADCHAT_BENCH_SIGN_IN_CLIENTS (16),
 * LEADCHAT_BENCH_SIGN_IN_ADDRESSES (200), LEADCHAT_BENCH_SIGN_IN_ROUNDS (3).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { freePort } from './free-port.js';
import { ADMIN_TOKEN, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import { setting } from './setting.js';

const SECONDS = setting('LEADCHAT_BENCH_SIGN_IN_SECONDS', 10);
const CLIENTS = setting('LEADCHAT_BENCH_SIGN_IN_CLIENTS', 16);
const ADDRESSES = setting('LEADCHAT_BENCH_SIGN_IN_ADDRESSES', 200);
const ROUNDS = setting('LEADCHAT_BENCH_SIGN_IN_ROUNDS', 3);
const PASSWORD = 'bench-password-long-enough';

interface Gateway {
  child: ChildProcess;
  url: string;
  ca: string;
  dataDir: string;
}

interface Answer {
  status: number;
  text: string;
}

/** One HTTPS request through `agent` (whose local address the request comes from). */
function call(
  gw: Gateway,
  agent: https.Agent,
  method: string,
  pathname: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(pathname, gw.url),
      {
        method,
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c) => (text += c))
          .on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function gateway(): Promise<Gateway> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-sign-in-bench-'));
  const port = await freePort();
  const child = await startGateway(gatewayEnv({ LEADCHAT_PORT: String(port), LEADCHAT_DATA_DIR: dataDir }));
  return {
    child,
    url: `https://127.0.0.1:${port}`,
    ca: readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8'),
    dataDir,
  };
}

/** A keep-alive agent whose connections come from `localAddress`. */
const agentFrom = (gw: Gateway, localAddress: string) =>
  new https.Agent({ keepAlive: true, maxSockets: CLIENTS, ca: gw.ca, localAddress });

/** An account with a console password: its API key and its email. */
async function account(gw: Gateway, agent: https.Agent): Promise<{ apiKey: string; email: string }> {
  const email = 'owner@bench.example';
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const created = await call(gw, agent, 'POST', '/admin/v1/accounts', { name: 'Bench', email }, admin);
  if (created.status !== 201) throw new Error(`account creation failed: ${created.status} ${created.text}`);
  const { id, apiKey } = JSON.parse(created.text) as { id: string; apiKey: string };
  const set = await call(gw, agent, 'PUT', `/admin/v1/accounts/${id}/password`, { password: PASSWORD }, admin);
  if (set.status !== 200) throw new Error(`setting the password failed: ${set.status} ${set.text}`);
  return { apiKey, email };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

/** Contacts written one after another until `until`: each write's time in ms, sorted. */
async function writes(gw: Gateway, agent: https.Agent, apiKey: string, until: number): Promise<number[]> {
  const times: number[] = [];
  for (let n = 0; Date.now() < until; n++) {
    const started = performance.now();
    const res = await call(
      gw,
      agent,
      'POST',
      '/v1/contacts',
      { firstName: 'Lead', phone: `+1415${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}` },
      { 'x-api-key': apiKey },
    );
    if (res.status !== 201 && res.status !== 200) throw new Error(`a write failed: ${res.status} ${res.text}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

/** How the sign-ins of a phase were answered: count by status and code. */
type Answers = Map<string, number>;

/** What a flood thread is told: the gateway, until when, and which sign-ins to send. */
interface Flood {
  gw: Pick<Gateway, 'url' | 'ca'>;
  until: number;
  kind: 'wrong' | 'right';
  email: string;
}

/**
 * On the flood's thread: `CLIENTS` clients signing in as fast as they are answered until `until`. Wrong sign-ins go
 * each from the next of ADDRESSES loopback addresses, for an email of their own; right ones all from one address.
 */
async function flood({ gw, until, kind, email }: Flood): Promise<Answers> {
  const target = { ...gw, child: undefined as never, dataDir: '' };
  const agents =
    kind === 'wrong'
      ? Array.from({ length: ADDRESSES }, (_, i) => agentFrom(target, `127.0.1.${(i % 254) + 1}`))
      : [agentFrom(target, '127.0.2.1')];
  const answers: Answers = new Map();
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < until) {
        const n = next++;
        const attempt =
          kind === 'wrong'
            ? { email: `nobody-${n}@bench.example`, password: 'a guess' }
            : { email, password: PASSWORD };
        const res = await call(target, agents[n % agents.length]!, 'POST', '/console/api/session', attempt);
        const code = res.status === 200 ? '' : ` ${(JSON.parse(res.text) as { error: { code: string } }).error.code}`;
        const key = `${res.status}${code}`;
        answers.set(key, (answers.get(key) ?? 0) + 1);
      }
    }),
  );
  for (const agent of agents) agent.destroy();
  return answers;
}

/** Runs `flood` on a thread of its own: its answers once it is over. */
function floodThread(task: Flood): Promise<Answers> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: task });
    worker.once('message', (answers: Array<[string, number]>) => resolve(new Map(answers)));
    worker.once('error', reject);
  });
}

interface Row {
  phase: string;
  times: number[];
  /** Its write p50 over that of the rest just before it. */
  ratio: number;
  answers?: Answers;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const load = os.loadavg();
  const gw = await gateway();
  const agents: https.Agent[] = [];
  try {
    const own = agentFrom(gw, '127.0.0.1');
    agents.push(own);
    const { apiKey, email } = await account(gw, own);
    // The code's first runs, the store's first writes: not part of any phase.
    await writes(gw, own, apiKey, Date.now() + 2_000);

    const rows: Row[] = [];
    let rest = NaN;
    const phase = async (name: string, kind?: Flood['kind']) => {
      const until = Date.now() + SECONDS * 1000;
      const [times, answers] = await Promise.all([
        writes(gw, own, apiKey, until),
        kind && floodThread({ gw: { url: gw.url, ca: gw.ca }, until, kind, email }),
      ]);
      if (!kind) rest = percentile(times, 50);
      rows.push({ phase: name, times, ratio: percentile(times, 50) / rest, answers });
    };
    const wrong = `${CLIENTS} parallel wrong sign-ins, ${ADDRESSES} addresses`;
    const right = `${CLIENTS} parallel right sign-ins, one address`;
    for (let round = 0; round < ROUNDS; round++) {
      await phase('at rest');
      await phase(wrong, 'wrong');
      await phase(right, 'right');
    }

    console.log(
      `\nSign-in flood against the embedded store's writes (${ROUNDS} rounds of ${SECONDS} s phases, ${os.cpus().length} cores)`,
    );
    console.log('phase                                              writes   p50 ms   p99 ms   p50 ÷ rest   sign-ins');
    for (const { phase: name, times, ratio, answers } of rows) {
      const told = answers ? [...answers].map(([key, count]) => `${key}: ${count}`).join(', ') : '';
      console.log(
        `${name.padEnd(50)} ${String(times.length).padStart(6)} ${percentile(times, 50).toFixed(1).padStart(8)} ${percentile(
          times,
          99,
        )
          .toFixed(1)
          .padStart(8)} ${ratio.toFixed(2).padStart(12)}   ${told}`,
      );
    }
    for (const name of [wrong, right]) {
      const ratios = rows.filter((r) => r.phase === name).map((r) => r.ratio);
      console.log(`median p50 ÷ rest, ${name}: ${median(ratios).toFixed(2)}`);
    }
    const after = os.loadavg();
    console.log(
      `load average (1, 5, 15 min): before ${load.map((l) => l.toFixed(2)).join(', ')}; after ${after
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
  } finally {
    for (const agent of agents) agent.destroy();
    await stopChild(gw.child);
    rmSync(gw.dataDir, { recursive: true, force: true });
  }
}

if (isMainThread) await main();
else parentPort!.postMessage([...(await flood(workerData as Flood))]);
