import https from 'node:https';
import { percentile } from './stats.js';

/**
 * The ingest benchmarks' load: keep-alive HTTPS clients posting incoming custom-channel messages, and the
 * figures of a measurement (median requests/s of ROUNDS runs, p50/p99 over every request).
 */
export const INCOMING = '/v1/incoming_custom_channel_message';
export const ROUNDS = 3;
/** Distinct senders per run: ingest finds an existing contact for most messages, as on a live channel. */
const SENDERS = 1000;
const BODY = 'Hi! I saw your ad and would like to know the price of the premium plan for a team of five.';

export interface Target {
  url: string;
  ca: string;
  apiKey?: string;
}

export interface Result {
  name: string;
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

export type Post = (
  pathname: string,
  body: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; text: string }>;

/** One keep-alive HTTPS client pool, shared by every request to a target. */
export function client(target: Target, sockets: number): { post: Post; close: () => void } {
  const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca: target.ca });
  const base = new URL(target.url);
  const post: Post = (pathname, body, headers = {}) =>
    new Promise((resolve, reject) => {
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
  return { post, close: () => agent.destroy() };
}

let sequence = 0;
let phases = 0;

/** Messages posted so far by this process, to every target. */
export function messagesSent(): number {
  return sequence;
}

/**
 * Messages of one run: unique messageSids; senders from the run's own pool of SENDERS, so that every measured run
 * creates the same share of new contacts (a third of 3000) instead of finding those an earlier run created. With
 * several targets (processes, or accounts) each has its own share of the pool, so the share stays the same.
 */
function messages(targets: number): (target: number) => unknown {
  const phase = phases++;
  const perTarget = Math.max(1, Math.floor(SENDERS / targets));
  const sent = new Array<number>(targets).fill(0);
  return (target) => ({
    customData: {
      messageSid: `bench-${sequence++}`,
      fromId: `+1555${String(phase).padStart(3, '0')}${String(target * perTarget + (sent[target]++ % perTarget)).padStart(4, '0')}`,
      toId: 'bench-business',
      body: BODY,
      channel: 'bench',
    },
  });
}

/**
 * `count` requests from `concurrency` workers; every one must be answered 200. Worker w posts through
 * `posts[w % posts.length]`: with several targets, the clients are spread round-robin over them.
 */
export async function drive(
  posts: Post[],
  count: number,
  concurrency: number,
  onDone?: (done: number) => void,
): Promise<{ latencies: Float64Array; seconds: number; failures: number; firstFailure?: string }> {
  const nextMessage = messages(posts.length);
  const latencies = new Float64Array(count);
  let next = 0;
  let done = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async (_, worker) => {
      const target = worker % posts.length;
      const post = posts[target]!;
      for (let i = next++; i < count; i = next++) {
        const t0 = process.hrtime.bigint();
        try {
          const res = await post(INCOMING, nextMessage(target));
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

/**
 * A warm-up (TLS sessions, keep-alive sockets, JIT: outside the figures), then ROUNDS runs of `requests`:
 * requests/s is the median run's, latency percentiles are over every request of every run. With several
 * targets, each gets its own pool and an equal share of the `concurrency` clients.
 */
export async function measure(
  name: string,
  targets: Target[],
  requests: number,
  concurrency: number,
  warmUp: number,
): Promise<Result> {
  const clients = targets.map((t) => client(t, Math.ceil(concurrency / targets.length)));
  const posts = clients.map((c) => c.post);
  try {
    await drive(posts, warmUp, concurrency);
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) runs.push(await drive(posts, requests, concurrency));
    const failures = runs.reduce((n, r) => n + r.failures, 0);
    if (failures)
      process.stdout.write(
        `  ${name}: ${failures} failed requests, first: ${runs.find((r) => r.firstFailure)?.firstFailure}\n`,
      );
    const all = new Float64Array(requests * ROUNDS);
    runs.forEach((r, i) => all.set(r.latencies, i * requests));
    all.sort();
    const rates = runs.map((r) => requests / r.seconds).sort((a, b) => a - b);
    return {
      name,
      requests: requests * ROUNDS,
      seconds: runs.reduce((t, r) => t + r.seconds, 0),
      perSecond: rates[Math.floor(ROUNDS / 2)]!,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      failures,
    };
  } finally {
    for (const c of clients) c.close();
  }
}

/**
 * The gateway's rate as a share of the baseline's, from `pairs` back-to-back runs of each, alternating: a machine
 * whose speed drifts during the benchmark moves both runs of a pair alike. The median pair's ratio, and the range.
 */
export interface Share {
  median: number;
  low: number;
  high: number;
  /** Requests made to the target. */
  sent: number;
}

export async function interleaved(
  baseline: Target,
  target: Target,
  requests: number,
  concurrency: number,
  pairs: number,
): Promise<Share> {
  const clients = [client(baseline, concurrency), client(target, concurrency)];
  try {
    const warmUp = Math.min(1000, requests);
    for (const c of clients) await drive([c.post], warmUp, concurrency);
    const ratios: number[] = [];
    for (let pair = 0; pair < pairs; pair++) {
      const [bare, gateway] = [
        await drive([clients[0]!.post], requests, concurrency),
        await drive([clients[1]!.post], requests, concurrency),
      ];
      ratios.push(bare.seconds / gateway.seconds);
    }
    ratios.sort((a, b) => a - b);
    return {
      median: ratios[Math.floor(pairs / 2)]!,
      low: ratios[0]!,
      high: ratios.at(-1)!,
      sent: warmUp + pairs * requests,
    };
  } finally {
    for (const c of clients) c.close();
  }
}
