import { consoleAccount, signIn } from '../console/support';
import { openStream } from '../helpers/event-stream';
import {
  api,
  createAccount,
  expectApiError,
  incoming,
  Receiver,
  untilIdle,
  useGateway,
  type Answer,
  type TestAccount,
} from './api-support';

/** Webhook subscriptions: a receiver that answers 410 Gone, and what each subscription tells of its deliveries. */
const ctx = useGateway({ LEADCHAT_WEBHOOK_RETRIES: '1h,1h' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A receiver answering what `answer()` says at the time of each request. */
async function receiver(answer: () => Answer): Promise<Receiver> {
  const r = await Receiver.start(() => answer());
  receivers.push(r);
  return r;
}

async function subscribed(url: string, account?: TestAccount): Promise<{ account: TestAccount; id: string }> {
  account ??= await createAccount(ctx.gw);
  const created = await api(ctx.gw, account, 'POST', 'webhooks', { body: { url, events: ['message_received'] } });
  expect(created.status).toBe(201);
  return { account, id: created.body.id };
}

/** A contact writes (a `message_received` event), and every job this makes due now has run. */
async function contactWrites(account: TestAccount): Promise<string> {
  const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: incoming() });
  expect(res.status).toBe(200);
  await untilIdle(ctx.gw);
  return res.body.messageId;
}

const deliveriesOf = async (account: TestAccount, messageId: string) =>
  (await api(ctx.gw, account, 'GET', `messages/${messageId}`)).body.deliveries as any[];

describe('a receiver answering 410 Gone', () => {
  test('disables its subscription: no event is posted to it, the retries waiting stop, until it is enabled again', async () => {
    let status = 503;
    const hook = await receiver(() => ({ status }));
    const { account, id } = await subscribed(hook.url);

    // A delivery waiting for its retry, an hour away.
    const waiting = await contactWrites(account);
    expect(await deliveriesOf(account, waiting)).toMatchObject([{ status: 'pending', attempts: [{ status: 503 }] }]);

    status = 410;
    const goneAt = await contactWrites(account);
    expect(await deliveriesOf(account, goneAt)).toMatchObject([{ status: 'failed', attempts: [{ status: 410 }] }]);
    const disabled = await api(ctx.gw, account, 'GET', `webhooks/${id}`);
    expect(disabled.body).toMatchObject({
      id,
      status: 'disabled',
      disabledReason: 'gone',
      disabledAt: expect.stringMatching(/Z$/),
    });
    expect((await api(ctx.gw, account, 'GET', 'webhooks')).body.data).toEqual([disabled.body]);

    // The delivery waiting for its retry ends failed at once, not posted, saying why; its retry posts nothing.
    const [stopped] = await deliveriesOf(account, waiting);
    expect(stopped).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(stopped.attempts.at(-1)).toMatchObject({ status: null, error: 'The webhook subscription is disabled' });
    await ctx.gw.advance('2h');
    await untilIdle(ctx.gw);
    expect(hook.requests).toHaveLength(2);

    // A new event is not delivered to it at all.
    expect(await deliveriesOf(account, await contactWrites(account))).toEqual([]);
    expect(hook.requests).toHaveLength(2);

    status = 200;
    const enabled = await api(ctx.gw, account, 'POST', `webhooks/${id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ id, status: 'enabled', disabledReason: null, disabledAt: null });
    expect((await api(ctx.gw, account, 'GET', `webhooks/${id}`)).body).toEqual(enabled.body);
    expect(await deliveriesOf(account, await contactWrites(account))).toMatchObject([{ status: 'sent' }]);
    expect(hook.requests).toHaveLength(3);
  });

  test('enabling one that is enabled changes nothing; an unknown or foreign id is 404', async () => {
    const hook = await receiver(() => ({ status: 200 }));
    const { account, id } = await subscribed(hook.url);
    const before = await api(ctx.gw, account, 'GET', `webhooks/${id}`);
    const enabled = await api(ctx.gw, account, 'POST', `webhooks/${id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toEqual(before.body);
    const stranger = await createAccount(ctx.gw);
    expectApiError(await api(ctx.gw, stranger, 'POST', `webhooks/${id}/enable`), 404, 'WEBHOOK_NOT_FOUND');
    expectApiError(await api(ctx.gw, account, 'POST', 'webhooks/whk_unknown/enable'), 404, 'WEBHOOK_NOT_FOUND');
  });

  test("the console's stream tells webhooks.updated when one is disabled and when it is enabled again", async () => {
    let status = 410;
    const hook = await receiver(() => ({ status }));
    const owner = await consoleAccount(ctx.gw);
    const { account, id } = await subscribed(hook.url, owner);
    const session = await signIn(ctx.gw, owner.email, owner.password);
    const stream = await openStream(ctx.gw, '/console/api/stream', { cookie: session.cookie });
    try {
      const told = () => stream.events.filter((e) => e.event === 'webhooks.updated');
      await contactWrites(account);
      await stream.until(() => told().length === 1);
      expect(told()[0]!.data).toEqual({});
      status = 200;
      await api(ctx.gw, account, 'POST', `webhooks/${id}/enable`);
      await stream.until(() => told().length === 2);
      // Told once: a delivery that goes through again changes nothing the console shows.
      await contactWrites(account);
      expect(hook.requests).toHaveLength(2);
      expect(told()).toHaveLength(2);
    } finally {
      stream.close();
    }
  });

  test('the stream tells webhooks.updated when a disabled one is deleted, so that no page goes on warning of it', async () => {
    const hook = await receiver(() => ({ status: 410 }));
    const owner = await consoleAccount(ctx.gw);
    const { account, id } = await subscribed(hook.url, owner);
    const session = await signIn(ctx.gw, owner.email, owner.password);
    const stream = await openStream(ctx.gw, '/console/api/stream', { cookie: session.cookie });
    try {
      const told = () => stream.events.filter((e) => e.event === 'webhooks.updated');
      await contactWrites(account);
      await stream.until(() => told().length === 1);
      // As a workflow deactivated in n8n deletes its subscription.
      expect((await api(ctx.gw, account, 'DELETE', `webhooks/${id}`)).status).toBe(204);
      await stream.until(() => told().length === 2);
      expect((await api(ctx.gw, account, 'GET', 'webhooks')).body.data).toEqual([]);
    } finally {
      stream.close();
    }
  });
});

describe('replies with their only receiver disabled', () => {
  test("a team member's reply fails naming the subscription disabled and how to enable it", async () => {
    const hook = await receiver(() => ({ status: 410 }));
    const account = await createAccount(ctx.gw);
    const created = await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['reply'] } });
    const id = created.body.id;
    const written = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: incoming() });
    const { contactId } = (await api(ctx.gw, account, 'GET', `messages/${written.body.messageId}`)).body;
    // The hand-off's notice to the contact is a reply: the receiver answers it 410 Gone.
    await untilIdle(ctx.gw);
    expect((await api(ctx.gw, account, 'GET', `webhooks/${id}`)).body.status).toBe('disabled');

    const reply = await api(ctx.gw, account, 'POST', `contacts/${contactId}/messages`, {
      body: { body: 'Sorry for the wait!' },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ status: 'failed', errorCode: 'NO_RECEIVER' });
    expect(reply.body.error).toContain(`webhook subscription ${id}`);
    expect(reply.body.error).toContain('disabled');
    expect(reply.body.error).toContain(`POST /v1/webhooks/${id}/enable`);
  });
});

describe("a subscription's health", () => {
  test('tells its last success, its last failure and how many attempts failed since the last success', async () => {
    let status = 200;
    const hook = await receiver(() => ({ status }));
    const { account, id } = await subscribed(hook.url);
    const health = async () => {
      const { lastSuccessAt, lastFailure, consecutiveFailures, failingSince } = (
        await api(ctx.gw, account, 'GET', `webhooks/${id}`)
      ).body;
      return { lastSuccessAt, lastFailure, consecutiveFailures, failingSince };
    };
    expect(await health()).toEqual({
      lastSuccessAt: null,
      lastFailure: null,
      consecutiveFailures: 0,
      failingSince: null,
    });

    const firstSent = (await deliveriesOf(account, await contactWrites(account)))[0].attempts[0].at;
    expect(await health()).toEqual({
      lastSuccessAt: firstSent,
      lastFailure: null,
      consecutiveFailures: 0,
      failingSince: null,
    });

    status = 500;
    await ctx.gw.advance('1m');
    const failing = await contactWrites(account);
    const [firstFailure] = (await deliveriesOf(account, failing))[0].attempts;
    expect(await health()).toEqual({
      lastSuccessAt: firstSent,
      lastFailure: { at: firstFailure.at, status: 500, error: 'Receiver answered HTTP 500' },
      consecutiveFailures: 1,
      failingSince: firstFailure.at,
    });

    // Its retry fails too: two in a row, failing since the first.
    await ctx.gw.advance('2h');
    await untilIdle(ctx.gw);
    const retried = (await deliveriesOf(account, failing))[0].attempts[1];
    expect(await health()).toEqual({
      lastSuccessAt: firstSent,
      lastFailure: { at: retried.at, status: 500, error: 'Receiver answered HTTP 500' },
      consecutiveFailures: 2,
      failingSince: firstFailure.at,
    });
    expect((await api(ctx.gw, account, 'GET', 'webhooks')).body.data[0]).toMatchObject(await health());

    // A success ends the run of failures; the last failure stays told.
    status = 200;
    const sentAgain = (await deliveriesOf(account, await contactWrites(account)))[0].attempts[0].at;
    expect(await health()).toEqual({
      lastSuccessAt: sentAgain,
      lastFailure: { at: retried.at, status: 500, error: 'Receiver answered HTTP 500' },
      consecutiveFailures: 0,
      failingSince: null,
    });
  });

  test('a receiver that gives no answer is a failure with no status, and the reason', async () => {
    const hook = await receiver(() => ({ status: 200 }));
    const { account, id } = await subscribed(hook.url);
    await hook.close();
    await contactWrites(account);
    const { lastFailure, consecutiveFailures } = (await api(ctx.gw, account, 'GET', `webhooks/${id}`)).body;
    expect(consecutiveFailures).toBe(1);
    expect(lastFailure).toEqual({
      at: expect.stringMatching(/Z$/),
      status: null,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
  });
});

describe('a subscription failing for 5 days', () => {
  test('is disabled once every attempt failed for 5 days, saying so; enabled again, it has 5 days anew', async () => {
    const hook = await receiver(() => ({ status: 500 }));
    const { account, id } = await subscribed(hook.url);
    const read = async () => (await api(ctx.gw, account, 'GET', `webhooks/${id}`)).body;

    await contactWrites(account);
    const since = (await read()).failingSince;
    await ctx.gw.advance('4d');
    const retried = await contactWrites(account);
    expect(await read()).toMatchObject({ status: 'enabled', failingSince: since });

    // A day later, an attempt fails again: 5 days of nothing but failures.
    await ctx.gw.advance('1d');
    await contactWrites(account);
    const disabled = await read();
    expect(disabled).toMatchObject({
      status: 'disabled',
      disabledReason: 'failing',
      disabledAt: disabled.lastFailure.at,
      failingSince: since,
    });
    expect(Date.parse(disabled.disabledAt) - Date.parse(since)).toBeGreaterThanOrEqual(5 * 86_400_000);
    // A delivery still waiting for its retry is not retried again: it failed at once. Which of the attempts due after
    // the day disabled the subscription, this one's retry or another delivery's, is the order the jobs ran in.
    const [waiting] = await deliveriesOf(account, retried);
    expect(waiting).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(waiting.attempts.at(-1)).toMatchObject({ status: null, error: 'The webhook subscription is disabled' });
    // Every attempt before it was the receiver's 500.
    expect(new Set(waiting.attempts.slice(0, -1).map((a: { status: number }) => a.status))).toEqual(new Set([500]));
    const posted = hook.requests.length;
    expect(await deliveriesOf(account, await contactWrites(account))).toEqual([]);
    expect(hook.requests).toHaveLength(posted);

    // Enabled again, its failures so far are forgiven: the next one does not disable it at once.
    const enabled = await api(ctx.gw, account, 'POST', `webhooks/${id}/enable`);
    expect(enabled.body).toMatchObject({ status: 'enabled', consecutiveFailures: 0, failingSince: null });
    await contactWrites(account);
    expect(await read()).toMatchObject({ status: 'enabled', consecutiveFailures: 1 });
  });

  test('a success within the 5 days starts them again', async () => {
    let status = 500;
    const hook = await receiver(() => ({ status }));
    const { account, id } = await subscribed(hook.url);
    await contactWrites(account);
    await ctx.gw.advance('3d');
    status = 200;
    await contactWrites(account);
    status = 500;
    await ctx.gw.advance('1m');
    await contactWrites(account);
    await ctx.gw.advance('3d');
    await contactWrites(account);
    expect((await api(ctx.gw, account, 'GET', `webhooks/${id}`)).body).toMatchObject({
      status: 'enabled',
      consecutiveFailures: expect.any(Number),
    });
  });
});

describe('subscriptions per account', () => {
  test('at most 50: the 51st is 409 TOO_MANY_WEBHOOKS and nothing is made; one deleted makes room', async () => {
    const account = await createAccount(ctx.gw);
    const create = (n: number) =>
      api(ctx.gw, account, 'POST', 'webhooks', {
        body: { url: `https://hooks.example.com/${n}`, events: ['reply'] },
      });
    const made: string[] = [];
    for (let n = 0; n < 50; n++) {
      const res = await create(n);
      expect(res.status).toBe(201);
      made.push(res.body.id);
    }
    const refused = await create(50);
    expectApiError(refused, 409, 'TOO_MANY_WEBHOOKS');
    expect(refused.body.error.message).toMatch(/50/);
    const listed = await api(ctx.gw, account, 'GET', 'webhooks?limit=100');
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual(made);

    expect((await api(ctx.gw, account, 'DELETE', `webhooks/${made[0]}`)).status).toBe(204);
    expect((await create(51)).status).toBe(201);
  });
});
