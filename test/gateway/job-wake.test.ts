import { api, createAccount, poll, Receiver, unique, useGateway } from './api-support';

/**
 * Jobs run as soon as the transaction that queued them commits: the store tells the job runner. The poll here is
 * far longer than any wait below, so polling cannot explain a job that runs in time. (Several processes on
 * PostgreSQL: scale-out.test.ts.)
 */
const POLL = '60s';
const IN_TIME_MS = 15_000;

const ctx = useGateway({ LEADCHAT_JOB_POLL: POLL });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(): Promise<Receiver> {
  const r = await Receiver.start();
  receivers.push(r);
  return r;
}

test('a reply is delivered at once, not at the next poll', async () => {
  const hook = await receiver();
  const account = await createAccount(ctx.gw);
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
  for (let i = 0; i < 3; i++) {
    const queued = Date.now();
    const sent = await api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { fromId: unique('lead'), customChannel: 'chat', body: `reply ${i}` } },
    });
    expect(sent.status).toBe(200);
    const delivered = await poll(
      async () => hook.requests.find((r) => r.body?.messageId === sent.body.messageId),
      Boolean,
      IN_TIME_MS,
    );
    expect(delivered?.body.body).toBe(`reply ${i}`);
    expect(Date.now() - queued).toBeLessThan(IN_TIME_MS);
  }
});

test('an auto-recharge event, queued by usage through the admin API, is delivered at once', async () => {
  const hook = await receiver();
  const agency = await createAccount(ctx.gw, { type: 'agency' });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email });
  expect(
    (await api(ctx.gw, agency, 'POST', 'webhooks', { body: { url: hook.url, events: ['auto_recharge'] } })).status,
  ).toBe(201);
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 20 } });
  await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
    body: { email: sub.email, threshold: 10, amount: 30 },
  });

  const queued = Date.now();
  const used = await api(ctx.gw, undefined, 'POST', `/admin/v1/accounts/${sub.id}/credits/usage`, {
    headers: { authorization: `Bearer ${ctx.gw.adminToken}` },
    body: { amount: 15 },
  });
  expect(used.body).toEqual({ balance: 5 });
  const [event] = await hook.waitFor(1, IN_TIME_MS);
  expect(event?.body).toMatchObject({ type: 'auto_recharge', sub_account_id: sub.id, balance: 5 });
  expect(Date.now() - queued).toBeLessThan(IN_TIME_MS);
});
