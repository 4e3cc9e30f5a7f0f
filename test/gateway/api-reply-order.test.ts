import { BACKEND, removeDir } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import {
  api,
  createAccount,
  incoming,
  poll,
  Receiver,
  settledMessage,
  unique,
  type Answer,
  type Received,
  type TestAccount,
} from './api-support';

/**
 * A custom channel's replies reach its receivers in the order they were made, one conversation at a time: a reply
 * waits while an earlier one of its conversation is still being delivered (retrying), and goes once that one is sent
 * or has failed for good. Other conversations are never held. On PostgreSQL two gateways share the database, each
 * with its own connections and job runners as a process of the deployment has: the replies are made on both, and
 * either may post them.
 */

const ENV = { LEADCHAT_WEBHOOK_RETRIES: '100ms,100ms,100ms' };
const gws: InProcessGateway[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  gws.push(await startInProcess(ENV));
  // A second process of the same deployment: the same database, its own runners.
  if (BACKEND === 'postgres')
    gws.push(await startInProcess({ ...ENV, LEADCHAT_DATABASE_URL: gws[0]!.env.LEADCHAT_DATABASE_URL! }));
}, 30_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  for (const gw of gws) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

/** The gateway process the `i`th request goes to: every process in turn. */
const on = (i: number) => gws[i % gws.length]!;

/** A receiver answering each request as `respond` says; `accepted` lists the bodies of the replies it took, in order. */
async function receiver(respond: (n: number, req: Received) => Answer = () => ({ status: 200 })) {
  const accepted: string[] = [];
  const r = await Receiver.start((n, req) => {
    const answer = respond(n, req);
    if (answer.status < 300) accepted.push(req.body.body);
    return answer;
  });
  receivers.push(r);
  return Object.assign(r, { accepted });
}

async function accountWith(url: string | null): Promise<TestAccount> {
  const account = await createAccount(gws[0]!);
  const res = await api(gws[0]!, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: url } });
  expect(res.status).toBe(200);
  return account;
}

/** A reply to the contact known by `fromId`, made through process `i`; answers its message's id. */
async function reply(account: TestAccount, fromId: string, body: string, i = 0): Promise<string> {
  const res = await api(on(i), account, 'POST', 'send_custom_channel_message', {
    body: { customData: { customChannel: 'web-chat', fromId, body } },
  });
  expect(res.status).toBe(200);
  return res.body.messageId;
}

/**
 * Waits until `r` received `n` requests, on the wall clock: the gateways' clocks stay where they are, so a retry the
 * first answer asked for (100 ms on their clock) waits for what the test does next. (Receiver.waitFor moves them.)
 */
async function arrived(r: Receiver, n: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; r.requests.length < n && Date.now() < deadline; )
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(r.requests.length).toBeGreaterThanOrEqual(n);
}

const message = async (account: TestAccount, id: string) => (await api(gws[0]!, account, 'GET', `messages/${id}`)).body;

describe('replies of one conversation reach the Custom Channel Webhook in the order they were made', () => {
  test('a reply refused once (503) and retried is still posted before the reply made while it waited', async () => {
    const hook = await receiver((n) => ({ status: n === 1 ? 503 : 200 }));
    const account = await accountWith(hook.url);
    const fromId = unique('visitor');
    const first = await reply(account, fromId, 'Our opening hours are 9 to 5.');
    await arrived(hook, 1);
    const second = await reply(account, fromId, 'Anything else I can help with?', 1);

    // While the first waits for its retry, the second waits for the first: nothing of it is posted.
    const waiting = await message(account, second);
    expect(waiting).toMatchObject({ status: 'pending', deliveries: [{ status: 'pending', attempts: [] }] });

    expect((await settledMessage(on(0), account, second)).status).toBe('sent');
    expect((await settledMessage(on(0), account, first)).status).toBe('sent');
    expect(hook.accepted).toEqual(['Our opening hours are 9 to 5.', 'Anything else I can help with?']);
    expect(hook.requests.map((r) => r.body.messageId)).toEqual([first, first, second]);
  });

  test('a reply that failed for good lets the later ones go, in order; another conversation is never held', async () => {
    // Whatever is posted for the stuck conversation's first reply is refused with a 503, every time.
    const hook = await receiver((_n, req) => ({ status: req.body.body === 'stuck' ? 503 : 200 }));
    const account = await accountWith(hook.url);
    const stuck = unique('stuck-visitor');
    const other = unique('other-visitor');
    const first = await reply(account, stuck, 'stuck');
    await arrived(hook, 1);
    const second = await reply(account, stuck, 'second', 1);
    const third = await reply(account, stuck, 'third');
    // Another conversation's reply goes at once, while the stuck one retries.
    const elsewhere = await reply(account, other, 'elsewhere', 1);
    expect((await settledMessage(on(0), account, elsewhere)).status).toBe('sent');
    expect((await message(account, second)).deliveries[0].attempts).toEqual([]);

    const failed = await settledMessage(on(0), account, first);
    expect(failed.status).toBe('failed');
    expect(failed.deliveries[0].attempts).toHaveLength(4);
    expect((await settledMessage(on(0), account, third)).status).toBe('sent');
    expect((await settledMessage(on(0), account, second)).status).toBe('sent');
    expect(hook.accepted).toEqual(['elsewhere', 'second', 'third']);
    // Nothing of the stuck conversation went before its first reply's last attempt.
    const posted = hook.requests.map((r) => r.body.body).filter((b) => b !== 'elsewhere');
    expect(posted).toEqual(['stuck', 'stuck', 'stuck', 'stuck', 'second', 'third']);
  });

  test('many replies of three conversations made on every process, some refused once: each conversation in order', async () => {
    // Every third request is refused, whichever reply it carries: its reply is retried.
    const hook = await receiver((n) => ({ status: n % 3 === 1 ? 503 : 200 }));
    const account = await accountWith(hook.url);
    const visitors = [unique('a'), unique('b'), unique('c')];
    const made = new Map(visitors.map((v) => [v, [] as string[]]));
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const visitor = visitors[i % visitors.length]!;
      const body = `${visitor} #${i}`;
      ids.push(await reply(account, visitor, body, i));
      made.get(visitor)!.push(body);
    }
    for (const id of ids) expect((await settledMessage(on(0), account, id, 30_000)).status).toBe('sent');
    for (const visitor of visitors)
      expect(hook.accepted.filter((b) => b.startsWith(`${visitor} `))).toEqual(made.get(visitor));
  });
});

describe('a reply sent again, a changed URL, the other receivers', () => {
  test('a failed reply sent again by hand goes after the replies made before, and one made after waits for it', async () => {
    // The first reply is refused for good at once (404); sent again, it is refused once more (503), then taken.
    let firstPosts = 0;
    const hook = await receiver((_n, req) => {
      if (req.body.body !== 'first') return { status: 200 };
      firstPosts += 1;
      return { status: firstPosts === 1 ? 404 : firstPosts === 2 ? 503 : 200 };
    });
    const account = await accountWith(hook.url);
    const fromId = unique('visitor');
    const first = await reply(account, fromId, 'first');
    expect((await settledMessage(on(0), account, first)).status).toBe('failed');
    const second = await reply(account, fromId, 'second', 1);
    expect((await settledMessage(on(0), account, second)).status).toBe('sent');

    const retried = await api(on(1), account, 'POST', `messages/${first}/retry`);
    expect(retried.status).toBe(200);
    // Sent again, it is refused once (its third request): its retry waits on the gateways' clocks, which stay.
    await arrived(hook, 3);
    expect(firstPosts).toBe(2);
    const third = await reply(account, fromId, 'third');
    expect((await message(account, third)).deliveries[0]).toMatchObject({ status: 'pending', attempts: [] });

    expect((await settledMessage(on(0), account, third)).status).toBe('sent');
    const again = await settledMessage(on(0), account, first);
    expect(again.status).toBe('sent');
    expect(again.deliveries[0].attempts.map((a: { status: number }) => a.status)).toEqual([404, 503, 200]);
    expect(hook.accepted).toEqual(['second', 'first', 'third']);
  });

  test('the replies waiting behind a retried one go to the URL saved meanwhile, in order', async () => {
    const down = await receiver(() => ({ status: 503 }));
    const fixed = await receiver();
    const account = await accountWith(down.url);
    const fromId = unique('visitor');
    const first = await reply(account, fromId, 'first');
    await arrived(down, 1);
    const second = await reply(account, fromId, 'second', 1);
    const saved = await api(on(1), account, 'PUT', 'settings', { body: { customChannelWebhookUrl: fixed.url } });
    expect(saved.status).toBe(200);

    expect((await settledMessage(on(0), account, second)).status).toBe('sent');
    expect((await settledMessage(on(0), account, first)).status).toBe('sent');
    expect(down.requests.map((r) => r.body.body)).toEqual(['first']);
    expect(fixed.accepted).toEqual(['first', 'second']);
  });

  test('the URL cleared while replies wait: the one retrying fails, then each one behind it, saying why', async () => {
    const down = await receiver(() => ({ status: 503 }));
    const account = await accountWith(down.url);
    const fromId = unique('visitor');
    const first = await reply(account, fromId, 'first');
    await arrived(down, 1);
    const second = await reply(account, fromId, 'second', 1);
    await api(on(0), account, 'PUT', 'settings', { body: { customChannelWebhookUrl: null } });

    for (const id of [first, second]) {
      const m = await settledMessage(on(0), account, id);
      expect(m).toMatchObject({ status: 'failed', error: expect.stringMatching(/No Custom Channel Webhook URL/) });
    }
    expect(down.requests.map((r) => r.body.body)).toEqual(['first']);
  });

  test('a "reply" subscription gets its copies in order too; one refusing holds its own copies, not the owner\'s', async () => {
    const owner = await receiver();
    const copies = await receiver((n) => ({ status: n === 1 ? 503 : 200 }));
    const account = await accountWith(owner.url);
    const created = await api(on(0), account, 'POST', 'webhooks', { body: { url: copies.url, events: ['reply'] } });
    expect(created.status).toBe(201);
    const fromId = unique('visitor');
    const first = await reply(account, fromId, 'first');
    await arrived(copies, 1);
    const second = await reply(account, fromId, 'second', 1);

    // The owner's platform decides the replies' status: both are sent while the subscription's first copy waits.
    expect((await settledMessage(on(0), account, second)).status).toBe('sent');
    expect((await settledMessage(on(0), account, first)).status).toBe('sent');
    expect(owner.accepted).toEqual(['first', 'second']);
    await poll(
      async () => copies.accepted.length,
      (n) => n >= 2,
    );
    expect(copies.requests.map((r) => r.body.body)).toEqual(['first', 'first', 'second']);
  });

  test('events are not held: a message_received retried after a 503 comes after the next one (occurredAt orders them)', async () => {
    const hook = await receiver((n) => (n === 1 ? { status: 503, headers: { 'retry-after': '60' } } : { status: 200 }));
    const account = await accountWith(null);
    const created = await api(on(0), account, 'POST', 'webhooks', {
      body: { url: hook.url, events: ['message_received'] },
    });
    expect(created.status).toBe(201);
    const fromId = unique('visitor');
    const write = (body: string, i: number) =>
      api(on(i), account, 'POST', 'incoming_custom_channel_message', { body: incoming({ fromId, body }) });
    expect((await write('first question', 0)).status).toBe(200);
    await arrived(hook, 1);
    await on(0).advance('1s');
    expect((await write('second question', 1)).status).toBe(200);
    await poll(
      async () => hook.accepted.length,
      (n) => n >= 2,
      120_000,
    );
    expect(hook.accepted).toEqual(['second question', 'first question']);
    const [second, first] = hook.requests.slice(1).map((r) => Date.parse(r.body.occurredAt));
    expect(first!).toBeLessThan(second!);
  });
});
