import { removeDir } from '../helpers/gateway';
import { forgetDone, openStoreOf } from '../helpers/stopped-store';
import { startInProcess } from '../helpers/in-process';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  Receiver,
  settledMessage,
  unique,
  untilIdle,
  useGateway,
  verifyStandardWebhook,
  type InProcessGateway,
  type TestAccount,
} from './api-support';

/**
 * Spec §6.2: an agency's auto-recharge event carries an idempotency_key; granting with that key as
 * Idempotency-Key tops the sub-account up exactly once. A request no receiver took, or the rule saved again, asks
 * anew under the next key. Also: deliveries are durable jobs that a restart resumes.
 */
const ctx = useGateway({ LEADCHAT_WEBHOOK_RETRIES: '100ms,100ms' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function agencyWithSub(
  gw: InProcessGateway = ctx.gw,
  respond?: Parameters<typeof Receiver.start>[0],
): Promise<{ agency: TestAccount; sub: TestAccount; hook: Receiver; secret: string }> {
  const agency = await createAccount(gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  const hook = await Receiver.start(respond);
  receivers.push(hook);
  const created = await api(gw, agency, 'POST', 'webhooks', { body: { url: hook.url, events: ['auto_recharge'] } });
  expect(created.status).toBe(201);
  return { agency, sub, hook, secret: created.body.secret };
}

const admin = () => ({ authorization: `Bearer ${ctx.gw.adminToken}` });

test('a balance below the threshold sends one signed event; granting with its key tops up exactly once', async () => {
  const { agency, sub, hook, secret } = await agencyWithSub();
  const rule = await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
    body: { email: sub.email, threshold: 10, amount: 50 },
  });
  expect(rule.status).toBe(200);
  expect(rule.body).toEqual({
    sub_account_id: sub.id,
    balance: 0,
    autoRecharge: { enabled: true, threshold: 10, amount: 50, pending: true },
  });

  const [event] = await hook.waitFor(1);
  expect(verifyStandardWebhook(secret, event!)).toBe(true);
  expect(event!.headers['webhook-event']).toBe('auto_recharge');
  expect(event!.body).toEqual({
    type: 'auto_recharge',
    idempotency_key: expect.stringMatching(/^ar_/),
    sub_account_id: sub.id,
    sub_account_email: sub.email,
    balance: 0,
    threshold: 10,
    amount: 50,
  });

  // The receiver's workflow runs twice for the same event: the credits are granted once.
  const grant = () =>
    api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
      headers: { 'idempotency-key': event!.body.idempotency_key },
      body: { email: sub.email, amount: event!.body.amount, description: 'Auto-recharge' },
    });
  const first = await grant();
  const second = await grant();
  expect(first.status).toBe(200);
  expect(second.body).toEqual(first.body);
  expect(second.headers['idempotent-replayed']).toBe('true');
  const credits = await api(ctx.gw, sub, 'GET', 'credits');
  expect(credits.body).toMatchObject({ balance: 50, autoRecharge: { pending: false } });
  expect(credits.body.transactions).toHaveLength(1);

  // Saving the rule again while the balance is above the threshold sends nothing.
  await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
    body: { email: sub.email, threshold: 10, amount: 50 },
  });
  await untilIdle(ctx.gw);
  expect(hook.requests).toHaveLength(1);
});

test('usage that crosses the threshold sends a new event with a new key, and only one per shortfall', async () => {
  const { agency, sub, hook } = await agencyWithSub();
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 20 } });
  await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
    body: { email: sub.email, threshold: 10, amount: 30 },
  });

  const use = (amount: number) =>
    api(ctx.gw, undefined, 'POST', `/admin/v1/accounts/${sub.id}/credits/usage`, {
      headers: admin(),
      body: { amount },
    });
  expect((await use(5)).body).toEqual({ balance: 15 });
  await untilIdle(ctx.gw);
  expect(hook.requests).toHaveLength(0);

  expect((await use(6)).body).toEqual({ balance: 9 });
  expect((await use(4)).body).toEqual({ balance: 5 });
  const [event] = await hook.waitFor(1);
  expect(event!.body).toMatchObject({ balance: 9, threshold: 10, amount: 30 });
  await untilIdle(ctx.gw);
  expect(hook.requests).toHaveLength(1);

  expectApiError(await use(100), 409, 'INSUFFICIENT_CREDITS');

  // Topped up and drained again: a second shortfall, a second key.
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 30 } });
  await use(30);
  const events = await hook.waitFor(2);
  expect(events[1]!.body.idempotency_key).not.toBe(event!.body.idempotency_key);
});

test("a request's grant that leaves the balance still below the threshold asks again at once, with the next key; other grants meanwhile do not", async () => {
  const { agency, sub, hook } = await agencyWithSub();
  await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
    body: { email: sub.email, threshold: 10, amount: 4 },
  });
  const [first] = await hook.waitFor(1);
  const grant = (amount: number, key?: string) =>
    api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
      headers: key ? { 'idempotency-key': key } : {},
      body: { email: sub.email, amount },
    });

  // A grant of the agency's own while the request waits is not its answer: the request still waits.
  expect((await grant(1)).body.new_balance).toBe(1);
  await untilIdle(ctx.gw);
  expect(hook.requests).toHaveLength(1);

  // The request's own grant: 5 is still below 10, and the rule says to add 4 below 10.
  expect((await grant(4, first!.body.idempotency_key)).body.new_balance).toBe(5);
  const [, second] = await hook.waitFor(2);
  expect(second!.body).toMatchObject({ balance: 5, threshold: 10, amount: 4 });
  expect(second!.body.idempotency_key).not.toBe(first!.body.idempotency_key);
  // The first request's grant made again is the same grant, and asks nothing more.
  expect((await grant(4, first!.body.idempotency_key)).body.new_balance).toBe(5);
  await untilIdle(ctx.gw);
  expect(hook.requests).toHaveLength(2);

  expect((await grant(4, second!.body.idempotency_key)).body.new_balance).toBe(9);
  const [, , third] = await hook.waitFor(3);
  expect((await grant(4, third!.body.idempotency_key)).body.new_balance).toBe(13);
  await untilIdle(ctx.gw);
  expect(hook.requests).toHaveLength(3);
  expect((await api(ctx.gw, agency, 'GET', `subaccounts/${sub.id}/credits`)).body).toMatchObject({
    balance: 13,
    autoRecharge: { enabled: true, threshold: 10, amount: 4, pending: false },
  });
});

test('saving the rule again withdraws a request its receiver missed and asks at once, with the next key', async () => {
  const { agency, sub, hook } = await agencyWithSub(ctx.gw, (n) => ({ status: n === 1 ? 404 : 200 }));
  const save = async (enabled = true) =>
    (
      await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
        body: { email: sub.email, enabled, threshold: 10, amount: 50 },
      })
    ).body.autoRecharge;

  expect(await save()).toMatchObject({ pending: true });
  // Before the retry schedule has run: it is not asked again by itself yet.
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(hook.requests).toHaveLength(1);

  // The receiver refused the request: saving the rule again asks anew, under a key the first grant could not use.
  expect(await save()).toMatchObject({ pending: true });
  const [missed, asked] = await hook.waitFor(2);
  expect(asked!.body).toMatchObject({ balance: 0, threshold: 10, amount: 50 });
  expect(asked!.body.idempotency_key).not.toBe(missed!.body.idempotency_key);

  // Disabled, the rule waits for nothing; enabled again, it asks again.
  expect(await save(false)).toMatchObject({ enabled: false, pending: false });
  await untilIdle(ctx.gw);
  expect(hook.requests).toHaveLength(2);
  expect(await save(true)).toMatchObject({ enabled: true, pending: true });
  const keys = (await hook.waitFor(3)).map((r) => r.body.idempotency_key);
  expect(new Set(keys).size).toBe(3);
});

test('a request no receiver took is asked again once the retry schedule has run, and no sooner', async () => {
  const gw = await startInProcess({ LEADCHAT_WEBHOOK_RETRIES: '1m,1m' });
  try {
    // The first request is refused at once, the one asked again is taken.
    const { agency, sub, hook } = await agencyWithSub(gw, (n) => ({ status: n === 1 ? 404 : 200 }));
    await api(gw, agency, 'PUT', 'subaccounts/auto-recharge', {
      body: { email: sub.email, threshold: 10, amount: 50 },
    });
    await untilIdle(gw);
    expect(hook.requests).toHaveLength(1);

    await advanceClock(gw, '2m');
    await untilIdle(gw);
    expect(hook.requests).toHaveLength(2);
    const [refused, taken] = hook.requests;
    expect(taken!.body.idempotency_key).not.toBe(refused!.body.idempotency_key);
    expect((await api(gw, sub, 'GET', 'credits')).body.autoRecharge).toMatchObject({ pending: true });

    // A request a receiver took waits for its grant: it is not asked again.
    await advanceClock(gw, '10m');
    await untilIdle(gw);
    expect(hook.requests).toHaveLength(2);
  } finally {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

test('a request made while the agency had no receiver reaches the receiver subscribed later, at once and once', async () => {
  const gw = await startInProcess({ LEADCHAT_WEBHOOK_RETRIES: '1m,1m' });
  try {
    const agency = await createAccount(gw, { type: 'agency', email: `${unique('agency')}@example.com` });
    const sub = await createAccount(gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
    await api(gw, agency, 'PUT', 'subaccounts/auto-recharge', {
      body: { email: sub.email, threshold: 10, amount: 50 },
    });
    await untilIdle(gw);

    const hook = await Receiver.start();
    receivers.push(hook);
    await api(gw, agency, 'POST', 'webhooks', { body: { url: hook.url, events: ['auto_recharge'] } });
    await untilIdle(gw, { horizonMs: 0 });
    const heard = [
      expect.objectContaining({
        sub_account_id: sub.id,
        idempotency_key: `ar_${sub.id}_1`,
        balance: 0,
        threshold: 10,
        amount: 50,
      }),
    ];
    expect(hook.requests.map((r) => r.body)).toEqual(heard);
    // Taken, it waits for its grant: not asked again when the retry schedule has run.
    await advanceClock(gw, '2m');
    await untilIdle(gw);
    expect(hook.requests.map((r) => r.body)).toEqual(heard);
  } finally {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

test('a receiver subscribed, or enabled again, while a request waits hears it at once, under its own key', async () => {
  const gw = await startInProcess({ LEADCHAT_WEBHOOK_RETRIES: '1h,1h' });
  try {
    // The agency's receiver is gone when the balance falls: 410 Gone disables its subscription.
    let status = 410;
    const { agency, sub, hook } = await agencyWithSub(gw, () => ({ status }));
    await api(gw, agency, 'PUT', 'subaccounts/auto-recharge', {
      body: { email: sub.email, threshold: 10, amount: 50 },
    });
    await untilIdle(gw);
    const [missed] = hook.requests;
    const [subscription] = (await api(gw, agency, 'GET', 'webhooks')).body.data;
    expect(subscription.status).toBe('disabled');

    // Back, and enabled again (the n8n workflow activated again): the request still waiting comes at once.
    status = 200;
    expect((await api(gw, agency, 'POST', `webhooks/${subscription.id}/enable`)).status).toBe(200);
    await untilIdle(gw);
    expect(hook.requests.map((r) => r.body)).toEqual([
      missed!.body,
      expect.objectContaining({ idempotency_key: missed!.body.idempotency_key, sub_account_id: sub.id }),
    ]);

    // A workflow made anew (its trigger subscribes again) hears it too; granting with the key grants once.
    const again = await Receiver.start();
    receivers.push(again);
    await api(gw, agency, 'POST', 'webhooks', { body: { url: again.url, events: ['auto_recharge'] } });
    await untilIdle(gw);
    expect(again.requests.map((r) => r.body.idempotency_key)).toEqual([missed!.body.idempotency_key]);
    for (const receiver of [hook, again]) {
      const granted = await api(gw, agency, 'POST', 'subaccounts/credits', {
        headers: { 'idempotency-key': receiver.requests.at(-1)!.body.idempotency_key },
        body: { email: sub.email, amount: 50, description: 'Auto-recharge' },
      });
      expect(granted.status).toBe(200);
    }
    expect((await api(gw, sub, 'GET', 'credits')).body).toMatchObject({ balance: 50 });
  } finally {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

test('a request an earlier release left waiting is asked again once the retry schedule has run from the upgrade', async () => {
  const env = { LEADCHAT_WEBHOOK_RETRIES: '1m,1m' };
  let gw = await startInProcess(env);
  try {
    const agency = await createAccount(gw, { type: 'agency', email: `${unique('agency')}@example.com` });
    const sub = await createAccount(gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
    // Subscribed before the upgrade (one subscribing after it hears the request waiting at once).
    const hook = await Receiver.start();
    receivers.push(hook);
    await api(gw, agency, 'POST', 'webhooks', { body: { url: hook.url, events: ['auto_recharge'] } });
    expect(await gw.stop()).toBe(0);
    await asAnEarlierReleaseLeftIt(gw.env, sub.id);

    gw = await startInProcess(env, gw.dataDir);
    await untilIdle(gw, { horizonMs: 0 });
    expect(hook.requests).toHaveLength(0);
    await advanceClock(gw, '2m');
    await untilIdle(gw);
    expect(hook.requests.map((r) => r.body)).toEqual([
      expect.objectContaining({ sub_account_id: sub.id, idempotency_key: `ar_${sub.id}_2`, balance: 0, amount: 50 }),
    ]);
    expect((await api(gw, sub, 'GET', 'credits')).body.autoRecharge).toMatchObject({ pending: true });
  } finally {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

/**
 * As an earlier release left a request that no receiver took: the rule waiting for its grant, nothing to look at it
 * again, and no walk of this release done yet.
 */
async function asAnEarlierReleaseLeftIt(env: Record<string, string>, subId: string): Promise<void> {
  const store = await openStoreOf(env);
  try {
    await store.transact(async (tx) => {
      await tx.update<any>('accounts', subId, {
        autoRecharge: { enabled: true, thresholdCents: 1000, amountCents: 5000, sequence: 1, pending: true },
      });
    });
  } finally {
    await store.close();
  }
  await forgetDone(env, ['auto-recharge-requests-watched-1']);
}

test('only an agency sets auto-recharge, and only for its own sub-accounts', async () => {
  const { agency, sub } = await agencyWithSub();
  const other = await createAccount(ctx.gw, { type: 'agency', email: `${unique('other')}@example.com` });
  expectApiError(
    await api(ctx.gw, sub, 'PUT', 'subaccounts/auto-recharge', { body: { email: sub.email, threshold: 1, amount: 1 } }),
    403,
    'NOT_AGENCY',
  );
  expectApiError(
    await api(ctx.gw, other, 'PUT', 'subaccounts/auto-recharge', {
      body: { email: sub.email, threshold: 1, amount: 1 },
    }),
    404,
    'SUB_ACCOUNT_NOT_FOUND',
  );
  expectApiError(
    await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
      body: { email: sub.email, threshold: -1, amount: 1 },
    }),
    400,
  );
  expectApiError(
    await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
      keyIn: 'bearer',
      body: { email: sub.email, threshold: 1, amount: 1 },
    }),
    401,
  );
});

test('a delivery still pending at shutdown is resumed by the next start, with the same webhook-id', async () => {
  const gw = await startInProcess({ LEADCHAT_WEBHOOK_RETRIES: '2s' });
  try {
    const account = await createAccount(gw);
    const hook = await Receiver.start((n) => (n === 1 ? { status: 503 } : { status: 200 }));
    receivers.push(hook);
    await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
    const sent = await api(gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { fromId: 'u-1', customChannel: 'chat', body: 'Hello' } },
    });
    const [first] = await hook.waitFor(1);
    expect(await gw.stop()).toBe(0);

    const restarted = await startInProcess({ LEADCHAT_WEBHOOK_RETRIES: '2s' }, gw.dataDir);
    try {
      const message = await settledMessage(restarted, account, sent.body.messageId);
      expect(message.status).toBe('sent');
      const second = hook.requests[1]!;
      expect(second.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(second.body).toEqual(first!.body);
      expect(message.deliveries[0].attempts.map((a: { status: number }) => a.status)).toEqual([503, 200]);
    } finally {
      await restarted.stop();
    }
  } finally {
    removeDir(gw.dataDir);
  }
});
