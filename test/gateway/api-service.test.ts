import net from 'node:net';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { BACKEND, freePort, removeDir, startGateway, tempDir } from '../helpers/gateway';
import { createTestDatabase } from '../helpers/postgres';
import {
  api,
  createAccount,
  expectApiError,
  incoming,
  poll,
  Receiver,
  request,
  untilIdle,
  useGateway,
  type TestGateway,
} from './api-support';

/** Running it as a service: the probes a balancer and a supervisor ask, and the metrics Prometheus scrapes. */
const METRICS_TOKEN = 'metrics-scraper-token-0123456789';
const ctx = useGateway({ LEADCHAT_METRICS_TOKEN: METRICS_TOKEN, LEADCHAT_WEBHOOK_RETRIES: '1h' });

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

type Sample = ReturnType<typeof parsePrometheusTextFormat>[number]['metrics'][number];
type Families = Map<string, Sample[]>;

async function scrape(gw: TestGateway, token = gw.adminToken): Promise<{ text: string; families: Families }> {
  const res = await request(gw, 'GET', '/metrics', bearer(token));
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const parsed = parsePrometheusTextFormat(res.text);
  return { text: res.text, families: new Map(parsed.map((family) => [family.name, family.metrics])) };
}

/** The value of the sample with exactly these labels; 0 when there is none (a counter never incremented). */
function valueOf(families: Families, name: string, labels: Record<string, string> = {}): number {
  const sample = (families.get(name) ?? []).find(
    (s) => JSON.stringify(sorted(s.labels)) === JSON.stringify(sorted(labels)),
  );
  return sample ? Number(sample.value ?? sample.count) : 0;
}
const sorted = (labels: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));

describe('GET /healthz and GET /readyz', () => {
  test('answer without a key, and tell nothing but their status', async () => {
    const health = await request(ctx.gw, 'GET', '/healthz');
    expect({ status: health.status, body: health.body }).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await request(ctx.gw, 'GET', '/readyz');
    expect({ status: ready.status, body: ready.body }).toEqual({
      status: 200,
      body: { status: 'ready', checks: { store: 'ok', jobs: 'ok', shutdown: 'no' } },
    });
    for (const res of [health, ready]) {
      expect(res.text).not.toMatch(/version|leadchat|node|postgres/i);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  test('a shutdown is told at /readyz while the gateway still serves, for LEADCHAT_SHUTDOWN_DELAY; a second signal ends it', async () => {
    const gw = await startGateway({ LEADCHAT_SHUTDOWN_DELAY: '10m' });
    try {
      const account = await createAccount(gw);
      gw.process.kill('SIGTERM');
      const ready = await poll(
        () => request(gw, 'GET', '/readyz'),
        (res) => res.status === 503,
      );
      expect({ status: ready.status, body: ready.body }).toEqual({
        status: 503,
        body: { status: 'unavailable', checks: { store: 'ok', jobs: 'ok', shutdown: 'begun' } },
      });
      expect((await request(gw, 'GET', '/healthz')).status).toBe(200);
      expect((await api(gw, account, 'GET', 'lists')).status).toBe(200);
      expect(gw.process.exitCode).toBeNull();
      // The second signal: the wait ends, requests drain, the store closes, exit 0.
      expect(await gw.stop()).toBe(0);
    } finally {
      await gw.kill();
      removeDir(gw.dataDir);
    }
  });
});

describe('GET /metrics', () => {
  test('is refused without the admin token or the metrics token; the metrics token opens nothing else', async () => {
    const account = await createAccount(ctx.gw);
    expectApiError(await request(ctx.gw, 'GET', '/metrics'), 401, 'UNAUTHORIZED');
    expectApiError(await request(ctx.gw, 'GET', '/metrics', bearer('not-the-token-0123456789')), 401, 'UNAUTHORIZED');
    expectApiError(await request(ctx.gw, 'GET', '/metrics', bearer(account.apiKey)), 401, 'UNAUTHORIZED');
    expectApiError(await request(ctx.gw, 'GET', '/admin/v1/accounts', bearer(METRICS_TOKEN)), 401, 'UNAUTHORIZED');
    expect((await scrape(ctx.gw, METRICS_TOKEN)).families.size).toBeGreaterThan(10);
  });

  test('counts known traffic exactly, by route, channel, status, event and reason, with no id, key or text in a label', async () => {
    // A gateway of its own: its counters start at zero.
    const gw = await startGateway({ LEADCHAT_WEBHOOK_RETRIES: '1h' });
    const hooks = [await Receiver.start(), await Receiver.start((n) => ({ status: n === 1 ? 400 : 503 }))];
    try {
      const account = await createAccount(gw);
      await api(gw, account, 'POST', 'webhooks', { body: { url: hooks[0]!.url, events: ['message_received'] } });

      const sids = ['m-1', 'm-2', 'm-3', 'm-4', 'm-5'].map((s) => `${s}-${account.id}`);
      const answers = [];
      for (const [i, sid] of sids.entries()) {
        answers.push(
          await api(gw, account, 'POST', 'incoming_custom_channel_message', {
            body: incoming({ messageSid: sid, fromId: `sender-${i}`, body: `secret text ${i}` }),
          }),
        );
      }
      answers.push(
        await api(gw, account, 'POST', 'incoming_custom_channel_message', {
          body: incoming({ messageSid: sids[0], fromId: 'sender-0', body: 'secret text 0' }),
        }),
      );
      const contactId = (await api(gw, account, 'GET', `messages/${answers[0]!.body.messageId}`)).body
        .contactId as string;
      expect((await api(gw, account, 'POST', `contacts/${contactId}/bot`, { body: { active: false } })).status).toBe(
        200,
      );

      // Two replies the receiver takes; then one it refuses for good (400) and one it asks to retry (503, in an hour).
      await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hooks[0]!.url } });
      for (const fromId of ['sender-1', 'sender-2']) {
        expect(
          (
            await api(gw, account, 'POST', 'send_custom_channel_message', {
              body: { customData: { customChannel: 'web-chat', fromId, body: 'secret reply' } },
            })
          ).status,
        ).toBe(200);
      }
      await untilIdle(gw);
      await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hooks[1]!.url } });
      for (const fromId of ['sender-3', 'sender-4']) {
        await api(gw, account, 'POST', 'send_custom_channel_message', {
          body: { customData: { customChannel: 'web-chat', fromId, body: 'secret reply' } },
        });
      }
      await hooks[1]!.waitFor(2);
      await untilIdle(gw);

      const { text, families } = await scrape(gw);
      const byStatus = new Map<number, number>();
      for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
      for (const [status, count] of byStatus) {
        expect(
          valueOf(families, 'leadchat_http_requests_total', {
            method: 'POST',
            route: '/v1/incoming_custom_channel_message',
            status: String(status),
          }),
        ).toBe(count);
      }
      // The parser folds a histogram's labelled series into one: its count is read from the text.
      expect(text).toContain(
        'leadchat_http_request_duration_seconds_count{method="POST",route="/v1/incoming_custom_channel_message"} 6\n',
      );
      expect(
        valueOf(families, 'leadchat_http_requests_total', {
          method: 'POST',
          route: '/v1/contacts/:id/bot',
          status: '200',
        }),
      ).toBe(1);
      expect(valueOf(families, 'leadchat_messages_received_total', { channel: 'custom' })).toBe(5);
      expect(valueOf(families, 'leadchat_messages_sent_total', { channel: 'custom', status: 'sent' })).toBe(2);
      // The refused reply, and the five hand-off notices written before a URL was set (NO_RECEIVER).
      expect(valueOf(families, 'leadchat_messages_sent_total', { channel: 'custom', status: 'failed' })).toBe(6);
      expect(
        valueOf(families, 'leadchat_webhook_deliveries_total', { event: 'message_received', outcome: 'sent' }),
      ).toBe(5);
      expect(valueOf(families, 'leadchat_webhook_deliveries_total', { event: 'reply', outcome: 'sent' })).toBe(2);
      expect(valueOf(families, 'leadchat_webhook_deliveries_total', { event: 'reply', outcome: 'failed' })).toBe(1);
      expect(valueOf(families, 'leadchat_webhook_deliveries_total', { event: 'reply', outcome: 'retry' })).toBe(1);
      // The attempt the receiver asked to retry is the one failed job attempt; the delivery refused for good is
      // counted among the deliveries only.
      expect(families.get('leadchat_job_attempts_failed_total')).toEqual([
        expect.objectContaining({ labels: { kind: 'deliver' }, value: '1' }),
      ]);
      expect(valueOf(families, 'leadchat_handoffs_total', { reason: 'team' })).toBe(1);
      // No campaign answers these senders: each went to the team once.
      expect(valueOf(families, 'leadchat_handoffs_total', { reason: 'no_campaign' })).toBe(5);
      // What the store wrote, by collection: each of the five senders a contact with its keys, a conversation and
      // messages, on either backend.
      for (const collection of ['messages', 'conversations', 'contacts', 'contact_search'])
        expect(valueOf(families, 'leadchat_store_writes_total', { collection })).toBeGreaterThanOrEqual(5);
      // The retry waits an hour: one delivery job queued, none late, none dead.
      expect(valueOf(families, 'leadchat_jobs_queued', { kind: 'deliver' })).toBe(1);
      expect(valueOf(families, 'leadchat_jobs_oldest_due_seconds', { kind: 'deliver' })).toBe(0);
      expect((families.get('leadchat_jobs_dead') ?? []).every((s) => Number(s.value) === 0)).toBe(true);
      if (BACKEND === 'lowdb') expect(valueOf(families, 'leadchat_store_commit_duration_seconds')).toBeGreaterThan(0);
      else {
        // Requests and jobs each opened connections of their own pool.
        expect(valueOf(families, 'leadchat_db_pool_connections', { pool: 'requests', state: 'total' })).toBeGreaterThan(
          0,
        );
        expect(valueOf(families, 'leadchat_db_pool_connections', { pool: 'jobs', state: 'total' })).toBeGreaterThan(0);
      }
      expect(valueOf(families, 'leadchat_process_resident_memory_bytes')).toBeGreaterThan(10_000_000);

      for (const secret of [
        account.id,
        account.apiKey,
        contactId,
        gw.adminToken,
        'secret text',
        'secret reply',
        sids[0]!,
        'web-chat',
        'sender-1',
      ]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await Promise.all(hooks.map((h) => h.close()));
      await gw.stop();
      removeDir(gw.dataDir);
    }
  });

  test("counts what a contact's message costs the store, by collection: a change that writes more shows here", async () => {
    const gw = await startGateway();
    try {
      const account = await createAccount(gw);
      await untilIdle(gw);
      const writes = async () =>
        new Map(
          ((await scrape(gw)).families.get('leadchat_store_writes_total') ?? []).map((s) => [
            s.labels!.collection!,
            Number(s.value),
          ]),
        );
      const cost = async (body: Record<string, unknown>) => {
        const before = await writes();
        expect((await api(gw, account, 'POST', 'incoming_custom_channel_message', { body })).status).toBe(200);
        await untilIdle(gw);
        const after = await writes();
        return Object.fromEntries(
          [...after].map(([c, n]) => [c, n - (before.get(c) ?? 0)] as const).filter(([, n]) => n > 0),
        );
      };
      // A new sender known by their number, no campaign to answer: the contact with its ID and its phone's two search
      // keys, the conversation, the message and the hand-off's notice to the contact, and (where jobs are documents)
      // the reminder of the team 15 minutes on. A change that writes more per message changes this on purpose.
      expect(await cost(incoming({ fromId: '+14155550199', body: 'Hi, what does it cost?' }))).toEqual({
        contacts: 1,
        external_ids: 1,
        contact_search: 2,
        conversations: 1,
        messages: 2,
        ...(BACKEND === 'lowdb' ? { jobs: 1 } : {}),
      });
      // The same sender again, the team told already: the message and its conversation.
      expect(await cost(incoming({ fromId: '+14155550199', body: 'Still there?' }))).toEqual({
        conversations: 1,
        messages: 1,
      });
    } finally {
      await gw.stop();
      removeDir(gw.dataDir);
    }
  });
});

describe('GET /metrics, the bot', () => {
  test("counts the bot's answers and hand-offs exactly, by kind and reason", async () => {
    const gw = await startGateway({ LEADCHAT_BOT_DEBOUNCE: '0s' });
    const hook = await Receiver.start();
    try {
      const account = await createAccount(gw);
      await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
      const faqs = [
        { question: 'How much does a teeth cleaning cost?', answer: 'A cleaning costs $90.' },
        { question: 'What are your opening hours?', answer: 'We are open Monday to Friday, 9am to 6pm.' },
      ];
      const campaign = (
        await api(gw, account, 'POST', 'campaigns', {
          body: { name: 'Smile', channel: 'custom', customChannel: 'chat', bot: { faqs } },
        })
      ).body;
      const say = (fromId: string, body: string) =>
        api(gw, account, 'POST', 'incoming_custom_channel_message', {
          body: incoming({ fromId, body, channel: 'chat', campaignId: campaign.id }),
        });
      expect((await say('answered-lead', 'hi, how much is a cleaning?')).status).toBe(200);
      expect((await say('handed-off-lead', 'Can you fix my car transmission?')).status).toBe(200);
      await hook.waitFor(2);
      await untilIdle(gw);
      const answers = hook.requests.map((r) => `${r.body?.toId}: ${r.body?.body}`).sort();
      expect(answers).toEqual([
        'answered-lead: A cleaning costs $90.',
        expect.stringMatching(/^handed-off-lead: .*team will get back to you/),
      ]);

      const { families } = await scrape(gw);
      expect(valueOf(families, 'leadchat_bot_replies_total', { kind: 'answer' })).toBe(1);
      expect(valueOf(families, 'leadchat_bot_replies_total', { kind: 'handoff' })).toBe(1);
      expect(valueOf(families, 'leadchat_handoffs_total', { reason: 'bot_not_confident' })).toBe(1);
      expect(valueOf(families, 'leadchat_messages_received_total', { channel: 'custom' })).toBe(2);
      expect(valueOf(families, 'leadchat_messages_sent_total', { channel: 'custom', status: 'sent' })).toBe(2);
    } finally {
      await hook.close();
      await gw.stop();
      removeDir(gw.dataDir);
    }
  });
});

// The database is the store's part that can go away while the process runs.
if (BACKEND === 'postgres') {
  describe('readiness follows the database', () => {
    test('/readyz answers 503 while PostgreSQL is out of reach and 200 once it is back; /healthz answers throughout', async () => {
      const database = new URL(await createTestDatabase());
      const relay = await Relay.start(Number(database.port));
      const dataDir = tempDir();
      database.port = String(relay.port);
      const gw = await startGateway({ LEADCHAT_DATABASE_URL: database.toString() }, dataDir);
      try {
        expect((await request(gw, 'GET', '/readyz')).status).toBe(200);
        await relay.stop();
        const down = await request(gw, 'GET', '/readyz');
        expect({ status: down.status, body: down.body }).toEqual({
          status: 503,
          body: { status: 'unavailable', checks: { store: 'unavailable', jobs: 'ok', shutdown: 'no' } },
        });
        expect(down.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|password/);
        expect((await request(gw, 'GET', '/healthz')).status).toBe(200);
        await relay.resume();
        const up = await poll(
          () => request(gw, 'GET', '/readyz'),
          (res) => res.status === 200,
        );
        expect(up.status).toBe(200);
      } finally {
        await gw.stop();
        await relay.stop();
        removeDir(dataDir);
      }
    });
  });
}

/** A TCP relay to PostgreSQL on loopback that the test can cut (the database out of reach) and restore. */
class Relay {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    readonly port: number,
    private readonly target: number,
  ) {}

  static async start(target: number): Promise<Relay> {
    const relay = new Relay(await freePort(), target);
    await relay.resume();
    return relay;
  }

  resume(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.once('close', () => this.sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    return new Promise((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
