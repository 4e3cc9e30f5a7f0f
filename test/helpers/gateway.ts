import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { checkAnswer } from './contract';
import { createTestDatabase } from './postgres';

/**
 * A gateway serving HTTPS on 127.0.0.1 with a fresh data dir: a process of its own (startGateway, here) or one in
 * the test's process (startInProcess, in-process.ts).
 */
export interface TestGateway {
  url: string;
  apiBase: string;
  dataDir: string;
  adminToken: string;
  ca: string;
  /** The environment it was configured by, as an operator would set it. */
  env: Record<string, string>;
  /** What it wrote: its log lines (and a process's other output). */
  output: () => string;
  /** Stops it as SIGTERM does, then resolves with the exit code. */
  stop(): Promise<number | null>;
  /** In this process only: moves the gateway's clock forward directly (see in-process.ts). */
  advance?(by: string): Promise<void>;
  /** In this process only: runs what the gateway would do within `horizonMs` of its clock (see in-process.ts). */
  settle?(horizonMs: number): Promise<void>;
  /** In this process only: epoch ms on the gateway's clock. */
  now?(): number;
}

/**
 * A real gateway process on a free port with a fresh data dir, as a user would run it: for what needs a process
 * (a crash, signals, its output, several processes, the command line).
 */
export interface GatewayProcess extends TestGateway {
  process: ChildProcess;
  /** Its exit code, once it has exited (a signal the test sent itself is waited for here rather than by stop()). */
  exited: Promise<number | null>;
  /** SIGKILL: a crash. */
  kill(): Promise<void>;
}

export const GATEWAY_MAIN = path.resolve(__dirname, '../../gateway/dist/cli/main.js');

/** The backend gateways run on: the embedded default, or PostgreSQL in the jest project that sets this. */
export const BACKEND: 'lowdb' | 'postgres' = process.env.LEADCHAT_TEST_BACKEND === 'postgres' ? 'postgres' : 'lowdb';
/** On PostgreSQL, a data dir stands for its database: a gateway restarted on the same dir finds the same data. */
const databases = new Map<string, string>();

/** The settings that put a gateway on its data dir's database, on PostgreSQL; none on the embedded store. */
export async function backendEnv(dataDir: string): Promise<Record<string, string>> {
  if (BACKEND !== 'postgres') return {};
  let url = databases.get(dataDir);
  if (!url) databases.set(dataDir, (url = await createTestDatabase()));
  return { LEADCHAT_DATABASE_URL: url };
}
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export function tempDir(prefix = 'leadchat-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** `main`: the `leadchat-gateway` command to run, this build's unless another release's (release.ts). */
export async function startGateway(
  env: Record<string, string> = {},
  dataDir = tempDir(),
  main = GATEWAY_MAIN,
): Promise<GatewayProcess> {
  // A free port may be taken by another process before the gateway binds it: another port is tried then.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(env, dataDir, main);
    } catch (err) {
      if (attempt === 3 || env.LEADCHAT_PORT !== undefined || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
}

async function launch(env: Record<string, string>, dataDir: string, main: string): Promise<GatewayProcess> {
  const port = await freePort();
  const fullEnv: Record<string, string> = {
    LEADCHAT_PORT: String(port),
    LEADCHAT_HOST: '127.0.0.1',
    LEADCHAT_DATA_DIR: dataDir,
    LEADCHAT_ADMIN_TOKEN: ADMIN_TOKEN,
    LEADCHAT_LOG_LEVEL: 'warn',
    // Each gateway of the suite would pay for it; api-warm-up.test.ts runs it.
    LEADCHAT_WARM_UP: '0',
    LEADCHAT_RATE_LIMIT_PER_MINUTE: '100000',
    // A console test file keeps one session through all its tests, hundreds of requests (the manual clock never ends
    // a window); the test of the console's budget sets its own.
    LEADCHAT_CONSOLE_RATE_LIMIT_PER_MINUTE: '100000',
    // Test files sign in from one address many times a minute (the manual clock never ends a window), and are
    // refused often on purpose: the tests of the limit and of the delay set them themselves.
    LEADCHAT_SIGN_IN_RATE_LIMIT_PER_MINUTE: '100000',
    LEADCHAT_SIGN_IN_REFUSAL_DELAY: '0s',
    ...(await backendEnv(dataDir)),
    ...env,
  };
  const child = spawn(process.execPath, [main, 'serve'], {
    env: { PATH: process.env.PATH ?? '', ...fullEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stopSent = false;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${out}`)), 20_000);
    const check = () => {
      if (out.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${out}`));
    });
  });
  const url = `https://127.0.0.1:${port}`;
  const ca = fullEnv.LEADCHAT_TLS_CERT
    ? readFileSync(fullEnv.LEADCHAT_TLS_CERT, 'utf8')
    : readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
  return {
    url,
    apiBase: `${url}/v1`,
    dataDir,
    adminToken: fullEnv.LEADCHAT_ADMIN_TOKEN!,
    ca,
    env: fullEnv,
    process: child,
    output: () => out,
    exited,
    stop: async () => {
      closeConnections(url);
      // Once: a second SIGTERM arriving while the process exits would find its handler gone and end it by the signal.
      if (child.exitCode === null && !stopSent) child.kill('SIGTERM');
      stopSent = true;
      return exited;
    },
    kill: async () => {
      closeConnections(url);
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface Reply<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface RequestOptions {
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** A value sent as JSON, or a string/Buffer sent as it is. */
  body?: unknown;
  apiKey?: string;
  /** Where the key goes: the x-api-key header (default), a Bearer header or the apiKey query parameter. */
  keyIn?: 'header' | 'bearer' | 'query';
  /** The loopback address the request comes from (127.0.0.2, …): another client, as the gateway sees it. */
  localAddress?: string;
}

const contexts = new Map<string, tls.SecureContext>();
/**
 * The options of a connection trusting the gateway's certificate `ca`, in a TLS context made once: OpenSSL takes
 * about 3 ms of CPU to make one from `ca`, as much as the rest of a test's request.
 */
export function trusting(ca: string): { secureContext: tls.SecureContext } {
  let secureContext = contexts.get(ca);
  if (!secureContext) contexts.set(ca, (secureContext = tls.createSecureContext({ ca })));
  return { secureContext };
}

/**
 * The connections `request` keeps open to each gateway, by its URL and certificate. A TLS handshake costs both ends
 * about 3 ms of CPU, more than most requests' own work, and the suite sends tens of thousands of them. A connection
 * idle for a second is closed, well before the gateway's keep-alive timeout (5 s) could close it under a request.
 */
const agents = new Map<string, https.Agent>();
const IDLE_MS = 1_000;

function agentFor(gw: Pick<TestGateway, 'url' | 'ca'>): https.Agent {
  const key = `${gw.url} ${gw.ca}`;
  let agent = agents.get(key);
  if (!agent) agents.set(key, (agent = new https.Agent({ keepAlive: true, timeout: IDLE_MS, ...trusting(gw.ca) })));
  return agent;
}

/**
 * Closes the idle connections `request` keeps to the gateway at `url`: a gateway stopping waits for its clients'
 * idle connections to close, as they were told they may be reused. One carrying a request closes after its answer,
 * which tells it so from the start of the shutdown.
 */
export function closeConnections(url: string): void {
  for (const [key, agent] of agents)
    if (key.startsWith(`${url} `)) {
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
      agents.delete(key);
    }
}

/** An HTTPS request to the gateway, trusting its certificate; an answer of /v1 is held to the OpenAPI document (contract.ts). */
export function request<T = any>(
  gw: Pick<TestGateway, 'url' | 'ca'>,
  method: string,
  pathname: string,
  opts: RequestOptions = {},
): Promise<Reply<T>> {
  const url = new URL(pathname, gw.url);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey) {
    const where = opts.keyIn ?? 'header';
    if (where === 'header') headers['x-api-key'] = opts.apiKey;
    else if (where === 'bearer') headers.authorization = `Bearer ${opts.apiKey}`;
    else url.searchParams.set('apiKey', opts.apiKey);
  }
  let payload: string | Buffer | undefined;
  if (opts.body !== undefined) {
    payload = typeof opts.body === 'string' || Buffer.isBuffer(opts.body) ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  return sendAsIs(gw, method, url, headers, payload, opts.localAddress);
}

/**
 * Sends one request as it is, on a connection kept to the gateway, and answers what came back; an answer of /v1 is
 * held to the OpenAPI document.
 */
export function sendAsIs<T = any>(
  gw: Pick<TestGateway, 'url' | 'ca'>,
  method: string,
  url: URL,
  headers: Record<string, string>,
  payload?: string | Buffer,
  localAddress?: string,
): Promise<Reply<T>> {
  // A Host header of the test's own would be checked against the certificate: the certificate's name is checked instead.
  const servername = headers.host === undefined ? undefined : 'localhost';
  const attempt = (onKept: boolean): Promise<Reply<T>> =>
    new Promise((resolve, reject) => {
      let answered = false;
      const req = https.request(
        url,
        { method, headers, agent: onKept ? agentFor(gw) : false, ...trusting(gw.ca), localAddress, servername },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: any = text;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              // not JSON: leave the text
            }
            const reply = { status: res.statusCode ?? 0, headers: res.headers, body, text };
            try {
              checkAnswer(method, url, reply);
            } catch (err) {
              return reject(err);
            }
            resolve(reply);
          });
        },
      );
      req.on('error', (err) => {
        // A kept connection the gateway closed (it stopped, restarted, or ended it after its last answer) as this
        // request went out on it: the request never reached it, and goes again on a new connection.
        if (onKept && req.reusedSocket && !answered) resolve(attempt(false));
        else reject(err);
      });
      req.end(payload);
    });
  return attempt(true);
}

let counter = 0;
export interface TestAccount {
  id: string;
  email: string;
  name: string;
  type: 'agency' | 'standard';
  parentId: string | null;
  apiKey: string;
}

export async function createAccount(
  gw: TestGateway,
  opts: { type?: 'agency' | 'standard'; parentEmail?: string; email?: string; name?: string } = {},
): Promise<TestAccount> {
  counter += 1;
  const res = await request(gw, 'POST', '/admin/v1/accounts', {
    headers: { authorization: `Bearer ${gw.adminToken}` },
    body: {
      name: opts.name ?? `Account ${counter}`,
      email: opts.email ?? `owner${counter}-${process.pid}@example.com`,
      type: opts.type ?? 'standard',
      ...(opts.parentEmail ? { parentEmail: opts.parentEmail } : {}),
    },
  });
  if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${res.text}`);
  return res.body;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Every item of a paged /v1 list (`{data, nextCursor}`), walked 200 at a time; `query` adds filters ("&status=active"). */
export async function listAll(
  gw: TestGateway,
  apiKey: string,
  pathname: string,
  query = '',
): Promise<Array<Record<string, any>>> {
  const all: Array<Record<string, any>> = [];
  let cursor: string | null = null;
  do {
    const page: Reply = await request(
      gw,
      'GET',
      `/v1${pathname}?limit=200${query}${cursor ? `&cursor=${cursor}` : ''}`,
      { apiKey },
    );
    expect(page.status).toBe(200);
    all.push(...page.body.data);
    cursor = page.body.nextCursor;
  } while (cursor);
  return all;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout read as JSON, when it is. */
  json: any;
}

/**
 * Runs the built `leadchat-gateway` command with only PATH and `env` in its environment, as an operator types it,
 * `input` piped to it. A command still running after a minute is ended and answers code -1: a backup of a store under
 * load on a busy machine may take many seconds, a hung one fails the test.
 */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [GATEWAY_MAIN, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        let json: any;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr, json });
      },
    );
    // What the operator pipes in: nothing unless given, so that a command reading its input ends.
    child.stdin?.end(input);
  });
}

/** The gateway's jobs of one status, every page of them, through the operator's API. */
async function jobsOf(
  gw: TestGateway,
  status: 'pending' | 'running',
): Promise<Array<{ kind: string; runAt: string | null }>> {
  const all: Array<{ kind: string; runAt: string | null }> = [];
  for (let cursor: string | null = null; ; ) {
    const res: Reply = await request(gw, 'GET', '/admin/v1/jobs', {
      headers: { authorization: `Bearer ${gw.adminToken}` },
      query: { status, limit: '200', ...(cursor ? { cursor } : {}) },
    });
    if (res.status !== 200) throw new Error(`listing jobs failed: ${res.status} ${res.text}`);
    all.push(...res.body.data);
    if (!(cursor = res.body.nextCursor)) return all;
  }
}

/**
 * Waits until the gateway has nothing left to do within `horizonMs`: no job running, none due before then (a bot
 * reply waiting out its debounce, a delivery's next try). What a test then reads is what the gateway did, with no
 * fixed sleep: "nothing happened" is asserted once everything that could have happened has. Idle twice in a row,
 * so that a job that ran between the two reads and queued another is seen.
 */
export async function untilIdle(gw: TestGateway, { horizonMs = 5_000, timeoutMs = 20_000 } = {}): Promise<void> {
  // In this process the clock stands still: what would happen within the horizon is run now, by jumps.
  if (gw.settle) return gw.settle(horizonMs);
  const deadline = Date.now() + timeoutMs;
  for (let calm = 0; calm < 2; ) {
    const busy =
      (await jobsOf(gw, 'running')).length > 0 ||
      (await jobsOf(gw, 'pending')).some((j) => j.runAt !== null && Date.parse(j.runAt) <= clockOf(gw) + horizonMs);
    calm = busy ? 0 : calm + 1;
    if (busy && Date.now() > deadline) throw new Error(`the gateway was still busy after ${timeoutMs} ms`);
    if (calm < 2) await new Promise((r) => setTimeout(r, 25));
  }
}

/** How far each gateway's clock runs ahead of this process's: untilIdle reads due times on the gateway's clock. */
const clockOffsets = new WeakMap<TestGateway, number>();

/** Epoch ms on a gateway's clock: its own in this process, a process's as its last move of the clock said. */
export const clockOf = (gw: TestGateway): number => gw.now?.() ?? Date.now() + (clockOffsets.get(gw) ?? 0);

/**
 * Moves the clock of a gateway forward (a process must be started with LEADCHAT_TEST_CLOCK=1): its jobs then due
 * run at once.
 */
export async function advanceClock(gw: TestGateway, by: string): Promise<void> {
  if (gw.advance) return gw.advance(by);
  const res = await request(gw, 'POST', '/admin/v1/clock', {
    headers: { authorization: `Bearer ${gw.adminToken}` },
    body: { advance: by },
  });
  if (res.status !== 200) throw new Error(`moving the clock failed: ${res.status} ${res.text}`);
  clockOffsets.set(gw, Date.parse(res.body.now) - Date.now());
}

export interface KeepAliveReply {
  status: number;
  body: any;
}

/**
 * A keep-alive client of one gateway for load in tests: up to `sockets` requests at once, JSON in and out, the
 * account's key in x-api-key. Its sockets die with the gateway's process; `close` ends them otherwise.
 */
export function keepAliveClient(gw: Pick<TestGateway, 'url' | 'ca'>, apiKey: string, sockets: number) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca: gw.ca });
  const call = (method: string, pathname: string, body?: unknown) =>
    new Promise<KeepAliveReply>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        new URL(pathname, gw.url),
        {
          method,
          agent,
          headers: { 'x-api-key': apiKey, ...(payload ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c) => (text += c))
            .on('end', () => {
              try {
                resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
              } catch {
                reject(new Error(`not JSON (${res.statusCode}): ${text.slice(0, 200)}`));
              }
            });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { call, close: () => agent.destroy() };
}
