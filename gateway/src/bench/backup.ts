/**
 * `npm run bench` (backup): what `leadchat-gateway backup` of a running gateway costs, and what its clients see
 * meanwhile. Starts the built gateway on the embedded store, fills it with LEADCHAT_BENCH_BACKUP_MESSAGES incoming
 * custom-channel messages through the API (from 1,000 senders per 10,000), then takes backups with the CLI while one
 * client posts a message every 20 ms. Prints, for each backup: how long the command took, the archive's size, the
 * gateway's CPU (all its threads), and the p50, p99 and slowest answer of the requests posted meanwhile.
 *
 * Settings (environment): LEADCHAT_BENCH_BACKUP_MESSAGES (50000), LEADCHAT_BENCH_BACKUPS (3).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';
import { createAccount, GATEWAY_MAIN, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import { client, drive, INCOMING, type Post } from './http-load.js';
import { cpuSeconds } from './process-usage.js';
import { setting } from './setting.js';
import { percentile } from './stats.js';

const MESSAGES = setting('LEADCHAT_BENCH_BACKUP_MESSAGES', 50_000);
const BACKUPS = setting('LEADCHAT_BENCH_BACKUPS', 3);
/** Messages of one fill run: each run has senders of its own, as the ingest benchmark's runs do. */
const PER_RUN = 10_000;
const PROBE_EVERY_MS = 20;

/** Runs `backup --to file` against the gateway at `url`; its exit code. */
function backup(env: NodeJS.ProcessEnv, url: string, file: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const cli = spawn(process.execPath, [GATEWAY_MAIN, 'backup', '--to', file], {
      env: { ...env, LEADCHAT_URL: url },
      stdio: 'ignore',
    });
    cli.once('error', reject).once('exit', resolve);
  });
}

/** Posts one new message every PROBE_EVERY_MS until `stop()`; the answers' times, in milliseconds. */
function probe(post: Post): { stop: () => Promise<number[]> } {
  const times: number[] = [];
  let running = true;
  let n = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const reply = await post(INCOMING, {
        customData: {
          messageSid: `backup-probe-${n++}`,
          fromId: '+15550009999',
          toId: 'bench',
          body: 'hi',
          channel: 'bench',
        },
      });
      if (reply.status !== 200) throw new Error(`a request during the backup failed: ${reply.status} ${reply.text}`);
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return times.sort((a, b) => a - b);
    },
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-bench-backup-'));
  let gateway: ChildProcess | undefined;
  try {
    const port = await freePort();
    const env = gatewayEnv({ LEADCHAT_PORT: String(port), LEADCHAT_DATA_DIR: dataDir, LEADCHAT_DATABASE_URL: '' });
    gateway = await startGateway(env);
    const url = `https://127.0.0.1:${port}`;
    const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
    const target = { url, ca, apiKey: await createAccount(url, ca) };

    process.stdout.write(`filling the embedded store with ${MESSAGES} messages through the API…\n`);
    const fill = client(target, 64);
    try {
      for (let left = MESSAGES; left > 0; left -= PER_RUN) {
        const run = await drive([fill.post], Math.min(PER_RUN, left), 64, () => undefined);
        if (run.failures) throw new Error(`${run.failures} requests failed while filling; first: ${run.firstFailure}`);
      }
    } finally {
      fill.close();
    }

    process.stdout.write(`\n${'backup'.padEnd(8)}${'took s'.padStart(8)}${'MB'.padStart(7)}`);
    process.stdout.write(`${'CPU s'.padStart(7)}${'requests'.padStart(10)}${'p50 ms'.padStart(8)}`);
    process.stdout.write(`${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}\n`);
    const prober = client(target, 1);
    try {
      for (let i = 1; i <= BACKUPS; i++) {
        const file = path.join(dataDir, `bench-${i}.tar.gz`);
        const cpuBefore = cpuSeconds(gateway.pid!) ?? NaN;
        const during = probe(prober.post);
        const started = performance.now();
        const code = await backup(env, url, file);
        const took = (performance.now() - started) / 1000;
        const times = await during.stop();
        const cpu = (cpuSeconds(gateway.pid!) ?? NaN) - cpuBefore;
        if (code !== 0) throw new Error(`backup exited with ${code}`);
        const mb = statSync(file).size / 1024 / 1024;
        rmSync(file);
        process.stdout.write(
          `${String(i).padEnd(8)}${took.toFixed(2).padStart(8)}${mb.toFixed(1).padStart(7)}${cpu.toFixed(2).padStart(7)}` +
            `${String(times.length).padStart(10)}${percentile(times, 50).toFixed(1).padStart(8)}` +
            `${percentile(times, 99).toFixed(1).padStart(8)}${times.at(-1)!.toFixed(1).padStart(8)}\n`,
        );
      }
    } finally {
      prober.close();
    }
  } finally {
    await stopChild(gateway);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
