import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { generate } from 'selfsigned';
import { Client } from 'pg';
import { createTestDatabase } from '../helpers/postgres';
import { listAll, removeDir, startGateway, tempDir, untilIdle, type GatewayProcess } from '../helpers/gateway';
import { startupLine } from '../helpers/log-lines';
import {
  api,
  createAccount,
  poll,
  Receiver,
  request,
  unique,
  uniquePhone,
  type Reply,
  type TestAccount,
  type TestGateway,
} from './api-support';
import { consoleAccount, signIn } from '../console/support';
import { openStream } from '../helpers/event-stream';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * Three gateway processes on one PostgreSQL database, clients spread over them: every rule of the service holds
 * across processes, deliveries are shared out and survive a process killed mid-delivery.
 */

jest.setTimeout(120_000);

const gws: TestGateway[] = [];
/**
 * What every process of the deployment shares: the database and the retries. Leases and timeouts are the defaults (2
 * minutes, 15 s): on a busy machine a receiver answering after a shorter timeout is asked again, rightly, and a
 * delivery counted twice would then say nothing of the processes sharing the queue.
 */
let shared: Record<string, string>;

beforeAll(async () => {
  const env = (shared = {
    LEADCHAT_DATABASE_URL: await createTestDatabase(),
    LEADCHAT_WEBHOOK_RETRIES: '1s,1s,1s',
  });
  for (let i = 0; i < 3; i++) gws.push(await startGateway(env));
});

afterAll(async () => {
  for (const gw of gws) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

/** Runs `work(i)` for i in 0..n-1 with at most `width` in flight. */
async function spread<T>(n: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

const on = (i: number) => gws[i % gws.length]!;

test('500 incoming messages with 20 % repeated messageSids: one message per messageSid, every repeat answered with the original', async () => {
  const account = await createAccount(gws[0]!);
  const sids = Array.from({ length: 400 }, () => unique('sid'));
  // Seven contacts write: a messageSid sent again comes from the same one.
  const fromOf = new Map(sids.map((sid, i) => [sid, `user-${i % 7}`]));
  const sends = [...sids, ...sids.slice(0, 100)].sort(() => Math.random() - 0.5);
  const replies = await spread(sends.length, 48, (i) =>
    api(on(i), account, 'POST', 'incoming_custom_channel_message', {
      body: {
        customData: { messageSid: sends[i], fromId: fromOf.get(sends[i]!), toId: 'biz', body: `hello ${sends[i]}` },
      },
    }),
  );
  const idOf = new Map<string, Set<string>>();
  replies.forEach((r, i) => {
    expect({ status: r.status, body: r.body }).toMatchObject({ status: 200 });
    idOf.set(sends[i]!, (idOf.get(sends[i]!) ?? new Set()).add(r.body.messageId));
  });
  expect(idOf.size).toBe(400);
  for (const [sid, ids] of idOf) expect({ sid, ids: ids.size }).toEqual({ sid, ids: 1 });

  // Stored: exactly the messages answered, each contact's listed on another process than the one that took them.
  const senders = [...new Set(fromOf.values())];
  const contactIds = await Promise.all(
    senders.map(async (from) => {
      const sid = sids.find((s) => fromOf.get(s) === from)!;
      return (await api(on(1), account, 'GET', `messages/${[...idOf.get(sid)!][0]}`)).body.contactId as string;
    }),
  );
  const listed = (
    await Promise.all(contactIds.map((id, i) => listAll(on(i + 2), account.apiKey, `/contacts/${id}/messages`)))
  ).flat();
  // Each sender was told once that a person will answer (no campaign answers here): the contacts' own are the rest.
  const stored = listed.filter((m) => m.direction === 'incoming');
  expect(listed.length - stored.length).toBe(senders.length);
  expect(stored.map((m) => m.id).sort()).toEqual([...idOf.values()].map((s) => [...s][0]!).sort());
  expect(new Set(stored.map((m) => m.messageSid)).size).toBe(400);
});

test("reads lock nothing they only read: ingest goes on on two processes while another transaction holds the account's webhook subscriptions", async () => {
  const account = await createAccount(gws[0]!);
  const hook = await Receiver.start();
  try {
    expect(
      (await api(gws[0]!, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['message_received'] } }))
        .status,
    ).toBe(201);
    const holder = new Client({ connectionString: shared.LEADCHAT_DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      const held = await holder.query(`SELECT id FROM webhooks WHERE doc->>'accountId' = $1 FOR UPDATE`, [account.id]);
      expect(held.rowCount).toBe(1);
      const replies = await spread(40, 8, (i) =>
        api(gws[i % 2]!, account, 'POST', 'incoming_custom_channel_message', {
          body: { customData: { messageSid: unique('sid'), fromId: `lock-${i % 5}`, toId: 'biz', body: 'Hello' } },
        }),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(40).fill(200));
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    await hook.waitFor(40);
  } finally {
    await hook.close();
  }
});

test('100 concurrent creates of one phone on three processes make one contact', async () => {
  const account = await createAccount(gws[0]!);
  const phone = uniquePhone();
  const replies = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      api(on(i), account, 'POST', 'contacts', { body: { phone, firstName: 'Ann' } }),
    ),
  );
  expect(replies.map((r) => r.status).sort((a, b) => a - b)).toEqual([...Array(99).fill(200), 201]);
  expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
});

describe('credits across processes', () => {
  let agency: TestAccount;
  let sub: TestAccount;
  beforeAll(async () => {
    agency = await createAccount(gws[0]!, { type: 'agency' });
    sub = await createAccount(gws[1]!, { parentEmail: agency.email });
  });

  test('100 concurrent 1-credit grants: the balance is exact', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        api(on(i), agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 1 } }),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(100);
    expect(new Set(replies.map((r) => r.body.new_balance))).toEqual(
      new Set(Array.from({ length: 100 }, (_, i) => i + 1)),
    );
    const credits = await api(gws[2]!, sub, 'GET', 'credits');
    expect(credits.body.balance).toBe(100);
    expect(credits.body.transactions).toHaveLength(100);
  });

  test('20 concurrent grants with one Idempotency-Key grant once', async () => {
    const before = (await api(gws[0]!, sub, 'GET', 'credits')).body.balance as number;
    const key = unique('idem');
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(on(i), agency, 'POST', 'subaccounts/credits', {
          headers: { 'idempotency-key': key },
          body: { email: sub.email, amount: 5 },
        }),
      ),
    );
    for (const r of replies) expect([200, 409]).toContain(r.status);
    const granted = replies.filter((r) => r.status === 200);
    expect(granted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(granted.map((r) => r.body.new_balance))).toEqual(new Set([before + 5]));
    // Once the first has finished, every retry is a replay.
    const again = await api(gws[2]!, agency, 'POST', 'subaccounts/credits', {
      headers: { 'idempotency-key': key },
      body: { email: sub.email, amount: 5 },
    });
    expect({
      status: again.status,
      replayed: again.headers['idempotent-replayed'],
      balance: again.body.new_balance,
    }).toEqual({ status: 200, replayed: 'true', balance: before + 5 });
    expect((await api(gws[1]!, sub, 'GET', 'credits')).body.balance).toBe(before + 5);
  });
});

test('concurrent hand-offs on three processes take the round-robin turn exactly once each: 36 hand-offs give 3 agents 12 each', async () => {
  const account = await createAccount(gws[0]!);
  await api(gws[0]!, account, 'PUT', 'settings', { body: { handoffAssignment: 'round_robin' } });
  const agents: string[] = [];
  for (let i = 0; i < 3; i++) {
    const invited = await api(gws[i]!, account, 'POST', 'members', {
      body: { email: `agent${i}@team.example`, name: `Agent ${i}`, role: 'agent' },
    });
    const token = new URL(invited.body.inviteUrl).hash.slice(1);
    const accepted = await request(gws[i]!, 'POST', `/console/api/invites/${token}`, {
      body: { password: 'a-long-enough-password' },
    });
    expect(accepted.status).toBe(200);
    agents.push(invited.body.id);
  }
  const replies = await spread(36, 36, (i) =>
    api(on(i), account, 'POST', 'incoming_custom_channel_message', {
      body: {
        customData: {
          messageSid: unique('sid'),
          fromId: unique('visitor'),
          toId: 'biz',
          body: 'I want to talk to a human',
        },
      },
    }),
  );
  expect(replies.map((r) => r.status)).toEqual(Array(36).fill(200));
  const handedOff = (await api(gws[1]!, account, 'GET', 'conversations?status=handed_off&limit=100')).body
    .data as Array<{ assigneeId: string }>;
  expect(handedOff).toHaveLength(36);
  const counts = Object.fromEntries(agents.map((id) => [id, handedOff.filter((c) => c.assigneeId === id).length]));
  expect(counts).toEqual(Object.fromEntries(agents.map((id) => [id, 12])));
});

test('an agent going away while hand-offs run on three processes is left with none waiting, and the others share them', async () => {
  const account = await createAccount(gws[0]!);
  await api(gws[0]!, account, 'PUT', 'settings', { body: { handoffAssignment: 'round_robin' } });
  const agents: string[] = [];
  for (let i = 0; i < 3; i++) {
    const invited = await api(gws[i]!, account, 'POST', 'members', {
      body: { email: `away${i}@team.example`, name: `Agent ${i}`, role: 'agent' },
    });
    const token = new URL(invited.body.inviteUrl).hash.slice(1);
    const accepted = await request(gws[i]!, 'POST', `/console/api/invites/${token}`, {
      body: { password: 'a-long-enough-password' },
    });
    expect(accepted.status).toBe(200);
    agents.push(invited.body.id);
  }
  const away = agents[0]!;
  const handOff = (i: number) =>
    api(on(i), account, 'POST', 'incoming_custom_channel_message', {
      body: {
        customData: {
          messageSid: unique('sid'),
          fromId: unique('visitor'),
          toId: 'biz',
          body: 'I want to talk to a human',
        },
      },
    });
  // The first agent goes away on one process while hand-offs run on all three.
  const [replies, gone] = await Promise.all([
    spread(30, 10, handOff),
    new Promise((resolve) => setTimeout(resolve, 50)).then(() =>
      api(gws[1]!, account, 'PUT', `members/${away}/availability`, { body: { availability: 'away' } }),
    ),
  ]);
  expect(gone.status).toBe(200);
  expect(replies.map((r) => r.status)).toEqual(Array(30).fill(200));
  const handedOff = (await api(gws[2]!, account, 'GET', 'conversations?status=handed_off&limit=100')).body
    .data as Array<{ assigneeId: string }>;
  expect(handedOff).toHaveLength(30);
  const counts = agents.map((id) => handedOff.filter((c) => c.assigneeId === id).length);
  expect(counts[0]).toBe(0);
  expect(counts[1]! + counts[2]!).toBe(30);
  expect(Math.abs(counts[1]! - counts[2]!)).toBeLessThanOrEqual(1);
});

test('contacts already on a list, reached from three processes at once: each gets exactly one opening message', async () => {
  const account = await createAccount(gws[0]!);
  const list = (await api(gws[0]!, account, 'POST', 'lists', { body: { name: 'Imported' } })).body;
  const ids = await spread(150, 10, async (i) => {
    const contact = (await api(gws[i % 3]!, account, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
    expect(
      (await api(gws[i % 3]!, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } }))
        .status,
    ).toBe(201);
    return contact.id as string;
  });
  const campaign = (
    await api(gws[0]!, account, 'POST', 'campaigns', {
      body: {
        name: 'Late start',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hello!',
        status: 'live',
        sendRate: '6000/m',
      },
    })
  ).body;
  const answers = await Promise.all(
    gws.map((gw) => api(gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`)),
  );
  expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
  expect(answers.reduce((sum, a) => sum + a.body.queued, 0)).toBe(150);
  const opened = await spread(150, 10, (i) =>
    poll(
      () => api(gws[i % 3]!, account, 'GET', `contacts/${ids[i]}/messages`),
      (r) =>
        r.body.data.some((m: { author: string; status: string }) => m.author === 'campaign' && m.status === 'sent'),
    ),
  );
  expect(opened.map((r) => r.body.data.filter((m: { author: string }) => m.author === 'campaign').length)).toEqual(
    ids.map(() => 1),
  );
});

test('the per-key rate limit is shared: 60 a minute in total over three processes, not 180', async () => {
  const limited = await Promise.all(
    [0, 1, 2].map(() => startGateway({ ...shared, LEADCHAT_RATE_LIMIT_PER_MINUTE: '60' })),
  );
  try {
    const account = await createAccount(limited[0]!);
    const replies = await spread(120, 6, (i) => api(limited[i % 3]!, account, 'GET', 'credits'));
    const passed = replies.filter((r) => r.status === 200).length;
    const refused = replies.filter((r) => r.status === 429);
    expect({ passed, refused: refused.length }).toEqual({ passed: 60, refused: 60 });
    expect(refused[0]!.headers['retry-after']).toMatch(/^\d+$/);
  } finally {
    for (const gw of limited) {
      await gw.stop();
      removeDir(gw.dataDir);
    }
  }
});

describe('deliveries shared by the processes', () => {
  test('500 outgoing messages sent through all three: each delivered exactly once', async () => {
    const receiver = await Receiver.start();
    try {
      const account = await createAccount(gws[0]!);
      await api(gws[0]!, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: receiver.url } });
      const sent = await spread(500, 24, (i) =>
        api(on(i), account, 'POST', 'send_custom_channel_message', {
          body: { customData: { fromId: `lead-${i}`, customChannel: 'chat', body: `reply ${i}` } },
        }),
      );
      for (const r of sent) expect(r.status).toBe(200);
      await receiver.waitFor(500, 60_000);
      // No delivery running or due any more on the shared queue: a second post of one would have come by now.
      await untilIdle(gws[0]!);
      const byMessage = new Map<string, number>();
      for (const req of receiver.requests)
        byMessage.set(req.body.messageId, (byMessage.get(req.body.messageId) ?? 0) + 1);
      expect(byMessage.size).toBe(500);
      expect([...byMessage.values()].every((n) => n === 1)).toBe(true);
      expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(500);
    } finally {
      await receiver.close();
    }
  });

  test('two receivers refusing each of 60 replies at once, on three processes: every reply ends failed, none left pending', async () => {
    // Both receivers answer 400 (final) at the same moment: each settling delivery must see the other's outcome.
    const webhook = await Receiver.start(() => ({ status: 400 }));
    const subscriber = await Receiver.start(() => ({ status: 400 }));
    try {
      const account = await createAccount(gws[0]!);
      await api(gws[0]!, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: webhook.url } });
      await api(gws[1]!, account, 'POST', 'webhooks', { body: { url: subscriber.url, events: ['reply'] } });
      const sent = await spread(60, 12, (i) =>
        api(on(i), account, 'POST', 'send_custom_channel_message', {
          body: { customData: { fromId: `refused-${i}`, customChannel: 'chat', body: `reply ${i}` } },
        }),
      );
      const statuses = await poll(
        () =>
          Promise.all(
            sent.map((r, i) =>
              api(on(i + 1), account, 'GET', `messages/${r.body.messageId}`).then((m) => m.body.status as string),
            ),
          ),
        (all) => all.every((s) => s !== 'pending'),
        30_000,
      );
      expect(statuses).toEqual(Array(60).fill('failed'));
    } finally {
      await Promise.all([webhook.close(), subscriber.close()]);
    }
  });

  test('a process killed while it holds deliveries: another delivers each after the lease, with the same webhook-id', async () => {
    // The receiver holds the first requests open, so the process that claimed them is mid-delivery when killed.
    const held = new Set<string>();
    const receiver = await Receiver.start((_n, req) => {
      if (held.size < 20 && !held.has(req.body.messageId)) {
        held.add(req.body.messageId);
        return undefined;
      }
      return { status: 200 };
    });
    // A deployment of its own, whose processes give up on a receiver after 2 s and hold their claims for 3 s.
    const [victim, taker] = (await deployment(
      {
        LEADCHAT_DATABASE_URL: await createTestDatabase(),
        LEADCHAT_JOB_LEASE: '3s',
        LEADCHAT_WEBHOOK_TIMEOUT: '2s',
        LEADCHAT_WEBHOOK_RETRIES: '1s,1s,1s',
      },
      2,
    )) as [GatewayProcess, GatewayProcess];
    try {
      const account = await createAccount(victim);
      await api(victim, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: receiver.url } });
      const ids = await spread(
        20,
        20,
        async (i) =>
          (
            await api(victim, account, 'POST', 'send_custom_channel_message', {
              body: { customData: { fromId: `kill-${i}`, customChannel: 'chat', body: `held ${i}` } },
            })
          ).body.messageId as string,
      );
      await poll(
        async () => held.size,
        (n) => n >= 20,
        20_000,
      );
      const firstIds = new Map(
        receiver.requests.map((r) => [r.body.messageId as string, r.headers['webhook-id'] as string]),
      );
      await victim.kill();

      for (const id of ids) {
        const message = await poll(
          () => api(taker, account, 'GET', `messages/${id}`),
          (r) => r.body.status === 'sent',
          30_000,
        );
        expect({ id, status: message.body.status }).toEqual({ id, status: 'sent' });
      }
      for (const id of ids) {
        const attempts = receiver.requests.filter((r) => r.body.messageId === id);
        expect(attempts.length).toBeGreaterThanOrEqual(2);
        expect(new Set(attempts.map((r) => r.headers['webhook-id']))).toEqual(new Set([firstIds.get(id)]));
      }
    } finally {
      await victim.kill();
      removeDir(victim.dataDir);
      await stopAll([taker]);
      await receiver.close();
    }
  });
});

test('a request to any process sees what another committed', async () => {
  const account = await createAccount(gws[2]!);
  const created = await request(gws[0]!, 'POST', '/v1/contacts', {
    apiKey: account.apiKey,
    body: { phone: uniquePhone() },
  });
  const read = await request(gws[1]!, 'GET', `/v1/contacts/${created.body.id}`, { apiKey: account.apiKey });
  expect(read.body).toEqual(created.body);
});

/** Gateways of a test of their own, on a database of their own; stopped and removed by the test's end. */
async function deployment(env: Record<string, string>, count: number, together = false): Promise<GatewayProcess[]> {
  const start = () => startGateway(env);
  if (together) return Promise.all(Array.from({ length: count }, start));
  const started: GatewayProcess[] = [];
  for (let i = 0; i < count; i++) started.push(await start());
  return started;
}

async function stopAll(started: TestGateway[]): Promise<void> {
  for (const gw of started) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
}

test("the console's stream on one process hears a change committed on another; one that lost its listening connection tells its streams to read again", async () => {
  const url = await createTestDatabase();
  const started = await deployment({ LEADCHAT_DATABASE_URL: url }, 2);
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const [here, there] = started as [GatewayProcess, GatewayProcess];
    const owner = await consoleAccount(here);
    const session = await signIn(here, owner.email, owner.password);
    const stream = await openStream(here, '/console/api/stream', { cookie: session.cookie });
    expect(stream.status).toBe(200);
    const writes = async () => {
      const res = await api(there, owner, 'POST', 'incoming_custom_channel_message', {
        body: { customData: { messageSid: unique('sid'), fromId: unique('user'), toId: 'biz', body: 'hi' } },
      });
      expect(res.status).toBe(200);
      return res.body.messageId as string;
    };
    const first = await writes();
    await stream.until((events) => events.some((e) => e.event === 'conversation.updated'));
    // The contact's message, then the hand-off notice the gateway sent them (no campaign answers here).
    expect(stream.events.map((e) => e.event)).toEqual(['message.created', 'message.created', 'conversation.updated']);
    expect(stream.events[0]!.data.messageId).toBe(first);

    // The connection that listens is cut: listening again, the process cannot tell what it missed meanwhile.
    const cut = await db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'leadchat-gateway jobs'`,
    );
    expect(cut.rowCount).toBe(2);
    await stream.until((events) => events.some((e) => e.event === 'reset'));
    // Both listen again (the last thing a listening connection does on its own is to turn synchronous commits off).
    const listening = () =>
      db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()
      AND application_name = 'leadchat-gateway jobs' AND (query LIKE 'SET synchronous_commit%' OR query LIKE '%pg_notify%')`);
    expect((await poll(listening, (r) => r.rows[0].n === 2)).rows[0].n).toBe(2);
    const second = await writes();
    await stream.until((events) => events.some((e) => e.data?.messageId === second));
    stream.close();
  } finally {
    await db.end();
    await stopAll(started);
  }
});

test('a delivery queued on a process whose runner is full is run at once by another, not at its next poll', async () => {
  const { CONCURRENCY } = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/jobs/queue.js'))) as {
    CONCURRENCY: number;
  };
  // A poll far longer than the wait below: only the news of the commit can explain a delivery in time.
  const env = {
    LEADCHAT_DATABASE_URL: await createTestDatabase(),
    LEADCHAT_JOB_POLL: '60s',
    LEADCHAT_WEBHOOK_TIMEOUT: '60s',
  };
  const receiver = await Receiver.start((_n, req) =>
    String(req.body?.body).startsWith('held') ? undefined : { status: 200 },
  );
  const started: TestGateway[] = [];
  try {
    const [a] = await deployment(env, 1);
    started.push(a!);
    const account = await createAccount(a!);
    await api(a!, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: receiver.url } });
    const send = (body: string) =>
      api(a!, account, 'POST', 'send_custom_channel_message', {
        body: { customData: { fromId: unique('lead'), customChannel: 'chat', body } },
      });
    // Alone on the database, A claims these itself, and the receiver keeps each one waiting: A's runner is full.
    for (let i = 0; i < CONCURRENCY; i++) expect((await send(`held ${i}`)).status).toBe(200);
    await receiver.waitFor(CONCURRENCY, 20_000);
    expect(receiver.requests).toHaveLength(CONCURRENCY);

    started.push(...(await deployment(env, 1)));
    const queued = Date.now();
    const sent = await send('prompt');
    expect(sent.status).toBe(200);
    const delivered = await poll(async () => receiver.requests.find((r) => r.body?.body === 'prompt'), Boolean, 20_000);
    expect(delivered?.body.messageId).toBe(sent.body.messageId);
    expect(Date.now() - queued).toBeLessThan(20_000);
  } finally {
    await receiver.close();
    await stopAll(started);
  }
});

/** The certificate a gateway presents, checked against `ca`. */
function servedCertificate(gw: TestGateway, ca: string): Promise<{ fingerprint256: string; authorized: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port: Number(new URL(gw.url).port), ca, servername: 'localhost' },
      () => {
        resolve({ fingerprint256: socket.getPeerCertificate().fingerprint256, authorized: socket.authorized });
        socket.end();
      },
    );
    socket.on('error', reject);
  });
}

test('a cursor from one process pages on at another, and every process refuses it to another account', async () => {
  const account = await createAccount(gws[0]!);
  const stranger = await createAccount(gws[1]!);
  const names = ['a', 'b', 'c', 'd'];
  for (const name of names)
    expect((await api(on(names.indexOf(name)), account, 'POST', 'lists', { body: { name } })).status).toBe(201);
  const seen: string[] = [];
  let cursor: string | null = null;
  let i = 0;
  do {
    const page: Reply = await api(on(i++), account, 'GET', 'lists', {
      query: { limit: '1', ...(cursor ? { cursor } : {}) },
    });
    expect(page.status).toBe(200);
    seen.push(...page.body.data.map((l: { name: string }) => l.name));
    cursor = page.body.nextCursor;
  } while (cursor && i < 10);
  expect(seen).toEqual(names);
  const first = (await api(on(0), account, 'GET', 'lists', { query: { limit: '1' } })).body.nextCursor as string;
  for (let p = 0; p < gws.length; p++) {
    const res = await api(on(p), stranger, 'GET', 'lists', { query: { cursor: first } });
    expect({ p, status: res.status, code: res.body.error?.code }).toEqual({ p, status: 400, code: 'INVALID_CURSOR' });
  }
});

describe('failed authentications from one address, counted by every process', () => {
  const pair: TestGateway[] = [];
  beforeAll(async () => {
    const env = { LEADCHAT_DATABASE_URL: await createTestDatabase(), LEADCHAT_TRUST_PROXY: '1' };
    for (let i = 0; i < 2; i++) pair.push(await startGateway(env));
  });
  afterAll(async () => {
    for (const gw of pair) {
      await gw.stop();
      removeDir(gw.dataDir);
    }
  });

  test('20 failures spread over two processes: the 21st is refused wherever it comes, the right key still works', async () => {
    const [one, two] = pair as [TestGateway, TestGateway];
    const account = await createAccount(one);
    const from = (address: string) => ({ 'x-forwarded-for': address, 'x-forwarded-proto': 'https' });
    const guesser = from('203.0.113.7');
    for (let i = 0; i < 20; i++) {
      expect((await api(pair[i % 2]!, { apiKey: `lck_wrong-${i}` }, 'GET', 'lists', { headers: guesser })).status).toBe(
        401,
      );
    }
    for (const gw of [one, two]) {
      const refused = await api(gw, { apiKey: 'lck_wrong-again' }, 'GET', 'lists', { headers: guesser });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await api(gw, account, 'GET', 'lists', { headers: guesser })).status).toBe(200);
      expect(
        (await api(gw, { apiKey: 'lck_wrong-elsewhere' }, 'GET', 'lists', { headers: from('203.0.113.8') })).status,
      ).toBe(401);
    }
  });
});

test('processes started at once on a new database serve one certificate, copied into each data dir without its key', async () => {
  const started = await deployment({ LEADCHAT_DATABASE_URL: await createTestDatabase() }, 3, true);
  try {
    const ca = started[0]!.ca;
    const fingerprint256 = new X509Certificate(ca).fingerprint256;
    for (const gw of started) {
      expect(await servedCertificate(gw, ca)).toEqual({ fingerprint256, authorized: true });
      expect(readFileSync(path.join(gw.dataDir, 'tls', 'cert.pem'), 'utf8')).toBe(ca);
      expect(existsSync(path.join(gw.dataDir, 'tls', 'key.pem'))).toBe(false);
      expect(startupLine(gw.output()).certificate).toBe(
        `${path.join(gw.dataDir, 'tls', 'cert.pem')} (self-signed, shared by every process on the database; SHA-256 ${fingerprint256})`,
      );
      expect(gw.output()).not.toContain('PRIVATE KEY');
    }
  } finally {
    await stopAll(started);
  }
});

test('the first process keeps the certificate its data dir already held; a later one serves it too and drops its own key', async () => {
  const dirs = [tempDir(), tempDir()];
  const pairs = await Promise.all(
    dirs.map(async (dir) => {
      const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
        keyType: 'ec',
        curve: 'P-256',
        algorithm: 'sha256',
        extensions: [
          {
            name: 'subjectAltName',
            altNames: [
              { type: 2, value: 'localhost' },
              { type: 7, ip: '127.0.0.1' },
            ],
          },
        ],
      });
      mkdirSync(path.join(dir, 'tls'));
      writeFileSync(path.join(dir, 'tls', 'cert.pem'), pems.cert);
      writeFileSync(path.join(dir, 'tls', 'key.pem'), pems.private, { mode: 0o600 });
      return pems;
    }),
  );
  const env = { LEADCHAT_DATABASE_URL: await createTestDatabase() };
  const started: TestGateway[] = [];
  try {
    for (const dir of dirs) started.push(await startGateway(env, dir));
    const kept = pairs[0]!;
    for (const gw of started) {
      expect(await servedCertificate(gw, kept.cert)).toEqual({
        fingerprint256: new X509Certificate(kept.cert).fingerprint256,
        authorized: true,
      });
      expect(readFileSync(path.join(gw.dataDir, 'tls', 'cert.pem'), 'utf8')).toBe(kept.cert);
    }
    expect(readFileSync(path.join(dirs[0]!, 'tls', 'key.pem'), 'utf8')).toBe(kept.private);
    expect(existsSync(path.join(dirs[1]!, 'tls', 'key.pem'))).toBe(false);
  } finally {
    await stopAll(started);
  }
});
