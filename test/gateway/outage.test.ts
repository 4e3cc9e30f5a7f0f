import path from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { BACKEND, removeDir, startGateway, tempDir } from '../helpers/gateway';
import { createTestDatabase } from '../helpers/postgres';
import { COMMITTING, Relay } from '../helpers/relay';
import {
  api,
  createAccount,
  expectApiError,
  expectPlainError,
  incoming,
  poll,
  request,
  untilIdle,
  type Reply,
  type TestGateway,
} from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

type MigrationsModule = typeof import('../../gateway/src/store/postgres/migrations.js', {
  with: { 'resolution-mode': 'import' }
});

/**
 * What an operator meets when the store goes away under a running gateway: `/metrics` still answers and says so
 * (`leadchat_store_up`), a refused request's 503 says what is known of its change, and the log tells the outage in a
 * few lines. On PostgreSQL the database is cut away through a relay on loopback that the test controls.
 */
type Sample = ReturnType<typeof parsePrometheusTextFormat>[number]['metrics'][number];
type Families = Map<string, Sample[]>;

async function scrape(gw: TestGateway): Promise<Families> {
  const res = await request(gw, 'GET', '/metrics', { headers: { authorization: `Bearer ${gw.adminToken}` } });
  expect(res.status).toBe(200);
  return new Map(parsePrometheusTextFormat(res.text).map((family) => [family.name, family.metrics]));
}

/** The value of the sample with these labels (among others); undefined when there is none. */
function valueOf(families: Families, name: string, labels: Record<string, string> = {}): number | undefined {
  const sample = (families.get(name) ?? []).find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  return sample === undefined ? undefined : Number(sample.value);
}

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** The gateway's log lines (JSON, one a line) from `from` characters of its output on. */
const logLines = (gw: TestGateway, from = 0): LogLine[] =>
  gw
    .output()
    .slice(from)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

const expectRetryAfter = (res: Reply) => expect(res.headers['retry-after']).toBe('5');

describe('GET /metrics while the store answers', () => {
  test("says leadchat_store_up 1, with the queue's gauges", async () => {
    const gw = await startGateway();
    try {
      const families = await scrape(gw);
      expect(valueOf(families, 'leadchat_store_up')).toBe(1);
      // The housekeeping job waits its hour in every gateway.
      expect(valueOf(families, 'leadchat_jobs_queued', { kind: 'housekeeping' })).toBe(1);
      expect(valueOf(families, 'leadchat_jobs_oldest_due_seconds', { kind: 'housekeeping' })).toBe(0);
    } finally {
      await gw.stop();
      removeDir(gw.dataDir);
    }
  });
});

// The database is the store's part that can go away while the process runs.
if (BACKEND === 'postgres') {
  describe('a database outage', () => {
    let url: string;
    let relay: Relay;
    let gw: TestGateway;

    beforeAll(async () => {
      url = await createTestDatabase();
      relay = await Relay.start(Number(new URL(url).port));
      gw = await startGateway({ LEADCHAT_DATABASE_URL: relay.through(url), LEADCHAT_LOG_LEVEL: 'info' });
    });

    afterAll(async () => {
      await gw?.stop();
      await relay?.cut();
      if (gw) removeDir(gw.dataDir);
    });

    test('each migration applied to a new database is logged with its version, name and time; none when there is nothing to apply', async () => {
      const { migrations } = (await gatewayModule(
        path.resolve(__dirname, '../../gateway/dist/store/postgres/migrations.js'),
      )) as MigrationsModule;
      const applied = logLines(gw).filter((line) => line.msg === 'database migrated');
      expect(applied.map((line) => [line.level, line.version, line.name])).toEqual(
        migrations.map((m) => [30, m.version, m.name]),
      );
      for (const line of applied) expect(line.ms).toEqual(expect.any(Number));
      const again = await startGateway({ LEADCHAT_DATABASE_URL: url, LEADCHAT_LOG_LEVEL: 'info' }, tempDir());
      try {
        expect(again.output()).toContain('listening on');
        expect(logLines(again).filter((line) => line.msg === 'database migrated')).toEqual([]);
      } finally {
        await again.stop();
        removeDir(again.dataDir);
      }
    });

    test('the database away: /metrics answers with leadchat_store_up 0, requests get 503 STORE_UNAVAILABLE with Retry-After, the log says it once; back: 1, the queue, and a line saying for how long and how many were refused', async () => {
      const account = await createAccount(gw);
      await untilIdle(gw);
      expect(valueOf(await scrape(gw), 'leadchat_store_up')).toBe(1);
      const from = gw.output().length;

      await relay.cut();
      const read = await api(gw, account, 'GET', 'lists');
      expectApiError(read, 503, 'STORE_UNAVAILABLE');
      expectRetryAfter(read);
      expect(read.body.error.message).toBe('The store is unavailable; retry later');
      const write = await api(gw, account, 'POST', 'contacts', { body: { phone: '+14155550100', name: 'Dana' } });
      expectApiError(write, 503, 'STORE_UNAVAILABLE');
      expectRetryAfter(write);
      const message = await api(gw, account, 'POST', 'incoming_custom_channel_message', { body: incoming() });
      expectPlainError(message, 503);
      expectRetryAfter(message);

      const down = await scrape(gw);
      expect(valueOf(down, 'leadchat_store_up')).toBe(0);
      // The queue is not shown stale: its gauges are left out until the store answers.
      expect(down.get('leadchat_jobs_queued') ?? []).toEqual([]);
      expect(down.get('leadchat_jobs_dead') ?? []).toEqual([]);
      // What the process knows of itself is all there, the refusals included.
      expect(valueOf(down, 'leadchat_process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
      expect(valueOf(down, 'leadchat_http_requests_total', { method: 'GET', route: '/v1/lists', status: '503' })).toBe(
        1,
      );

      await relay.resume();
      const up = await poll(
        () => scrape(gw),
        (families) => valueOf(families, 'leadchat_store_up') === 1,
      );
      expect(valueOf(up, 'leadchat_store_up')).toBe(1);
      expect(valueOf(up, 'leadchat_jobs_queued', { kind: 'housekeeping' })).toBe(1);

      const outage = await poll(
        async () => logLines(gw, from),
        (lines) => lines.some((line) => line.msg === 'the store is available again'),
      );
      const away = outage.filter((line) => line.msg.startsWith('the store is unavailable'));
      expect(away).toEqual([
        expect.objectContaining({
          level: 40,
          failure: expect.stringMatching(/^connection_(refused|reset|terminated)$/),
          reason: expect.any(String),
        }),
      ]);
      const back = outage.filter((line) => line.msg === 'the store is available again');
      expect(back).toEqual([
        expect.objectContaining({ level: 30, failure: away[0]!.failure, awayMs: expect.any(Number), refused: 3 }),
      ]);
      // Meanwhile (well within 10 s): what failed is told at most once per failure class, and nothing of the class of
      // the line saying it is away after that line (the connection listening for jobs may see the cut, and say so,
      // before any request does).
      const failed = outage.filter((line) => line.level >= 40 && line !== away[0]).map((line) => line.failure);
      expect(failed).toEqual([...new Set(failed)]);
      const after = outage.slice(outage.indexOf(away[0]!) + 1);
      expect(after.filter((line) => line.level >= 40 && line.failure === away[0]!.failure)).toEqual([]);
      // Known failure classes: not one stack trace.
      expect(gw.output().slice(from)).not.toMatch(/"stack"|"err"|\n\s+at /);
    });

    test('a contact saved as the connection breaks once COMMIT went out: 503 COMMIT_OUTCOME_UNKNOWN; repeating it is safe whether it was kept or not', async () => {
      const account = await createAccount(gw);
      await untilIdle(gw);
      for (const [when, phone, repeated] of [
        ['after', '+14155550111', 200],
        ['before', '+14155550122', 201],
      ] as const) {
        const cut = relay.cutAt(COMMITTING, when);
        const first = await api(gw, account, 'POST', 'contacts', { body: { phone, name: 'Lee' } });
        expectApiError(first, 503, 'COMMIT_OUTCOME_UNKNOWN');
        expectRetryAfter(first);
        expect(first.body.error.message).toMatch(/may have been saved.*same messageSid or Idempotency-Key is safe/);
        await cut;
        // 200: the contact was kept after all, and is answered as the existing one; 201: it was not, and is made now.
        const again = await api(gw, account, 'POST', 'contacts', { body: { phone, name: 'Lee' } });
        expect(again.status).toBe(repeated);
        const found = await api(gw, account, 'GET', 'contacts', { query: { phoneNumber: phone } });
        expect(found.status).toBe(200);
        expect(found.body.id).toBe(again.body.id);
      }
    });

    test('a credit grant whose commit outcome is unknown: repeated with its Idempotency-Key it is granted once, whichever commit lost its answer', async () => {
      const agency = await createAccount(gw, { type: 'agency' });
      const sub = await createAccount(gw, { parentEmail: agency.email });
      await untilIdle(gw);
      const grant = (key: string) =>
        api(gw, agency, 'POST', 'subaccounts/credits', {
          body: { email: sub.email, amount: 10 },
          headers: { 'Idempotency-Key': key },
        });
      // The request commits twice: its claim of the key (the first COMMIT), then the grant with its answer (the second).
      const cases = [
        ['the grant kept', 1, 'after'],
        ['the grant not kept', 1, 'before'],
        ['the claim kept', 0, 'after'],
      ] as const;
      let balance = 0;
      for (const [what, skip, when] of cases) {
        const key = `outage-${what.replaceAll(' ', '-')}`;
        const cut = relay.cutAt(COMMITTING, when, skip);
        const first = await grant(key);
        expectApiError(first, 503, 'COMMIT_OUTCOME_UNKNOWN');
        await cut;
        const again = await grant(key);
        balance += 10;
        expect({ what, status: again.status, body: again.body }).toEqual({
          what,
          status: 200,
          body: expect.objectContaining({ credits_added: 10, new_balance: balance }),
        });
      }
      const ledger = await api(gw, sub, 'GET', 'credits');
      expect(ledger.body.balance).toBe(30);
      expect(ledger.body.transactions.filter((t: { kind: string }) => t.kind === 'grant')).toHaveLength(3);
    });

    test('an incoming message whose commit outcome is unknown: repeated with its messageSid it is stored once, and counted at most once', async () => {
      const account = await createAccount(gw);
      await untilIdle(gw);
      const counted = async () =>
        valueOf(await scrape(gw), 'leadchat_messages_received_total', { channel: 'custom' }) ?? 0;
      const before = await counted();
      const body = incoming({ body: 'Was this one kept?' });
      const cut = relay.cutAt(COMMITTING, 'after');
      const first = await api(gw, account, 'POST', 'incoming_custom_channel_message', { body });
      expectPlainError(first, 503);
      expectRetryAfter(first);
      expect(first.body.error).toMatch(/may have been saved.*same messageSid/);
      await cut;
      const again = await api(gw, account, 'POST', 'incoming_custom_channel_message', { body });
      expect(again.status).toBe(200);
      const stored = await api(gw, account, 'GET', `messages/${again.body.messageId}`);
      const thread = await api(gw, account, 'GET', `contacts/${stored.body.contactId}/messages`);
      expect(thread.body.data.filter((m: { body: string }) => m.body === 'Was this one kept?')).toHaveLength(1);
      // The commit whose answer was lost is not counted, and its repetition is a duplicate: one short of the store,
      // never over (see README, "During a database outage").
      expect((await counted()) - before).toBe(0);
    });
  });
}
