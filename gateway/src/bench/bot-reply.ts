/**
 * `npm run bench` (fourth part): how long a contact waits for the FAQ bot's answer. Starts the built gateway on the
 * embedded store in a temporary data dir with LEADCHAT_BOT_DEBOUNCE=0ms (the debounce, 2 s by default, is a wait
 * chosen on purpose; what is measured is everything else), a local HTTP receiver as the account's Custom Channel
 * Webhook, and a campaign with the FAQs of the evaluation set's dental clinic (gateway/eval/faq-bot). Then it posts
 * LEADCHAT_BENCH_QUESTIONS (300) of that clinic's customer questions as incoming custom-channel messages, each from
 * a new contact naming the campaign, first one at a time and then from LEADCHAT_BENCH_CONCURRENCY (8) clients at
 * once, and times each from the start of its POST to the moment the receiver gets the bot's reply (a signed
 * delivery; a question the bot hands off gets its notice, which counts the same). Prints p50, p95 and max for both,
 * and the gateway's resident memory. Target: p50 under 50 ms one at a time.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Api } from './api.js';
import { freePort } from './free-port.js';
import { createAccount, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import { memoryMb } from './process-usage.js';
import { setting } from './setting.js';

const EVAL_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'eval',
  'faq-bot',
  'dental-clinic.json',
);

interface Business {
  faqs: Array<{ question: string; answer: string }>;
  questions: Array<{ text: string }>;
}

/** The Custom Channel Webhook: resolves the waiter of each contact (toId) when its reply arrives. */
async function receiver(): Promise<{ url: string; waitFor: (toId: string) => Promise<number>; close: () => void }> {
  const waiting = new Map<string, (at: number) => void>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req
      .setEncoding('utf8')
      .on('data', (c) => (raw += c))
      .on('end', () => {
        const at = performance.now();
        res.end('ok');
        const toId = (JSON.parse(raw) as { toId?: string }).toId;
        if (toId) waiting.get(toId)?.(at);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/replies`,
    waitFor: (toId) => new Promise((resolve) => waiting.set(toId, resolve)),
    close: () => server.close(),
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function round(
  api: Api,
  replies: Awaited<ReturnType<typeof receiver>>,
  campaignId: string,
  questions: string[],
  concurrency: number,
  tag: string,
): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < questions.length) {
      const i = next++;
      const fromId = `${tag}-${i}`;
      const arrived = replies.waitFor(fromId);
      const started = performance.now();
      await api.expect(
        'POST',
        '/v1/incoming_custom_channel_message',
        {
          customData: {
            messageSid: `${tag}-sid-${i}`,
            fromId,
            toId: 'clinic',
            body: questions[i]!,
            channel: 'chat',
            campaignId,
          },
        },
        [200],
      );
      times.push((await arrived) - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const count = setting('LEADCHAT_BENCH_QUESTIONS', 300);
  const concurrency = setting('LEADCHAT_BENCH_CONCURRENCY', 8);
  const business = JSON.parse(readFileSync(EVAL_FILE, 'utf8')) as Business;
  const questions = Array.from({ length: count }, (_, i) => business.questions[i % business.questions.length]!.text);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-bench-bot-'));
  const replies = await receiver();
  let gateway: ChildProcess | undefined;
  try {
    const port = await freePort();
    gateway = await startGateway(
      gatewayEnv({
        LEADCHAT_PORT: String(port),
        LEADCHAT_DATA_DIR: dataDir,
        LEADCHAT_DATABASE_URL: '',
        LEADCHAT_BOT_DEBOUNCE: '0ms',
      }),
    );
    const url = `https://127.0.0.1:${port}`;
    const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
    const api = new Api(url, ca, concurrency, await createAccount(url, ca));
    await api.expect('PUT', '/v1/settings', { customChannelWebhookUrl: replies.url }, [200]);
    const campaign = await api.expect(
      'POST',
      '/v1/campaigns',
      { name: 'Bright Smile Dental', channel: 'custom', customChannel: 'chat', bot: { faqs: business.faqs } },
      [201],
    );

    process.stdout.write(
      `\nBot reply latency: FAQ bot, embedded store, ${business.faqs.length} FAQs, ${count} questions; from the POST of the contact's message to the reply at the Custom Channel Webhook (debounce 0 ms)\n` +
        `${'clients'.padEnd(10)}${'p50 ms'.padStart(10)}${'p95 ms'.padStart(10)}${'max ms'.padStart(10)}${'gateway RSS'.padStart(14)}\n`,
    );
    for (const [clients, tag] of [
      [1, 'one'],
      [concurrency, 'many'],
    ] as const) {
      const times = await round(api, replies, campaign.id, questions, clients, tag);
      process.stdout.write(
        `${String(clients).padEnd(10)}${percentile(times, 50).toFixed(1).padStart(10)}${percentile(times, 95).toFixed(1).padStart(10)}${times.at(-1)!.toFixed(1).padStart(10)}${memoryMb(gateway.pid).rss.padStart(14)}\n`,
      );
    }
    api.close();
  } finally {
    replies.close();
    await stopChild(gateway);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.message}\n`);
  process.exitCode = 1;
});
