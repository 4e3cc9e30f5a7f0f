import { freePort } from '../helpers/gateway';
import {
  api,
  createAccount,
  expectApiError,
  HANDOFF_NOTICE,
  incoming,
  NEW_WEBHOOK,
  poll,
  Receiver,
  settledMessage,
  unique,
  uniquePhone,
  useGateway,
  verifyStandardWebhook,
  type TestAccount,
} from './api-support';

/** Spec §2.5/§4.4 (send) and part F: reply delivery to the owner's URL, signed, retried, recorded. */
const ctx = useGateway({ LEADCHAT_WEBHOOK_RETRIES: '100ms,100ms,100ms' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(respond?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> {
  const r = await Receiver.start(respond);
  receivers.push(r);
  return r;
}

/** A fresh account whose Custom Channel Webhook URL is `url` (if given); returns it with its signing secret. */
async function accountWith(url?: string): Promise<TestAccount & { secret: string }> {
  const account = await createAccount(ctx.gw);
  if (url) {
    const res = await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: url } });
    expect(res.status).toBe(200);
  }
  const settings = await api(ctx.gw, account, 'GET', 'settings');
  expect(settings.body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  return { ...account, secret: settings.body.webhookSecret };
}

const send = (account: TestAccount, customData: Record<string, unknown>) =>
  api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
    body: { customData: { customChannel: 'web-chat', body: 'Hi from us', ...customData } },
  });

const attemptShape = (status: number | null, error: unknown) => ({
  at: expect.stringMatching(/Z$/),
  status,
  latencyMs: expect.any(Number),
  error,
  // Every receiver here is on loopback: what it wrote is never shown back (see api-targets.test.ts).
  responseExcerpt: null,
});

describe('delivery to the Custom Channel Webhook URL', () => {
  test('2xx → sent; the payload is exactly §2.6, signed per Standard Webhooks; the attempt is recorded', async () => {
    const hook = await receiver(() => ({ status: 200, body: 'thanks' }));
    const account = await accountWith(hook.url);
    const fromId = unique('ext-user');
    const res = await send(account, { fromId, body: 'Your order shipped', customChannel: 'shop-chat' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      messageId: expect.any(String),
      contactId: expect.any(String),
      message: expect.any(String),
      errorCode: null,
    });
    expect(res.body.message.length).toBeGreaterThan(0);

    const m = await settledMessage(ctx.gw, account, res.body.messageId);
    expect(m).toMatchObject({
      id: res.body.messageId,
      contactId: res.body.contactId,
      direction: 'outgoing',
      body: 'Your order shipped',
      status: 'sent',
      error: null,
      toId: fromId,
      channel: 'shop-chat',
    });
    expect(m.deliveries).toEqual([
      {
        id: expect.any(String),
        target: 'customChannelWebhook',
        status: 'sent',
        attempts: [attemptShape(200, null)],
        nextAttemptAt: null,
      },
    ]);

    expect(hook.requests).toHaveLength(1);
    const [req] = hook.requests;
    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/hook');
    expect(req!.headers['content-type']).toMatch(/^application\/json/);
    expect(req!.body).toStrictEqual({
      contactId: res.body.contactId,
      messageId: res.body.messageId,
      userId: account.id,
      body: 'Your order shipped',
      toId: fromId,
      channel: 'shop-chat',
    });
    expect(Object.keys(req!.body).sort()).toEqual(['body', 'channel', 'contactId', 'messageId', 'toId', 'userId']);
    expect(req!.headers['webhook-id']).toBe(m.deliveries[0].id);
    expect(Math.abs(Number(req!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(req!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifyStandardWebhook(account.secret, req!)).toBe(true);
    // The signature covers the body: a changed body does not verify.
    expect(verifyStandardWebhook(account.secret, { ...req!, raw: req!.raw.replace('shipped', 'lost') })).toBe(false);
  });

  test('incoming messages are not posted to the URL; only replies are', async () => {
    const hook = await receiver();
    const account = await accountWith(hook.url);
    const fromId = unique('visitor');
    const received = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId }),
    });
    expect(received.status).toBe(200);
    const res = await send(account, { fromId, body: 'Reply to your message' });
    await settledMessage(ctx.gw, account, res.body.messageId);
    // The gateway's hand-off notice (no campaign answers here) is a reply too.
    expect(hook.requests.map((r) => r.body.body)).toEqual([HANDOFF_NOTICE, 'Reply to your message']);
    // The reply went to the contact the incoming message created.
    const incomingMessage = await api(ctx.gw, account, 'GET', `messages/${received.body.messageId}`);
    expect(res.body.contactId).toBe(incomingMessage.body.contactId);
    expect(hook.requests[0]!.body.toId).toBe(fromId);
  });

  test('500 then 200 → retried with the same webhook-id, ends sent', async () => {
    const hook = await receiver((n) => (n === 1 ? { status: 500, body: 'try later' } : { status: 200 }));
    const account = await accountWith(hook.url);
    const res = await send(account, { fromId: unique('u') });
    const m = await settledMessage(ctx.gw, account, res.body.messageId);
    expect(m.status).toBe('sent');
    expect(m.error).toBeNull();
    expect(m.deliveries[0].attempts).toEqual([
      attemptShape(500, expect.stringContaining('500')),
      attemptShape(200, null),
    ]);
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests[1]!.headers['webhook-id']).toBe(hook.requests[0]!.headers['webhook-id']);
    expect(hook.requests[1]!.raw).toBe(hook.requests[0]!.raw);
    for (const r of hook.requests) expect(verifyStandardWebhook(account.secret, r)).toBe(true);
  });

  test('a receiver that drops the connection in the middle of its answer → retried, ends sent', async () => {
    const hook = await receiver((n) => (n === 1 ? { status: 200, cut: true } : { status: 200 }));
    const account = await accountWith(hook.url);
    const res = await send(account, { fromId: unique('u') });
    const m = await settledMessage(ctx.gw, account, res.body.messageId);
    expect(m.status).toBe('sent');
    expect(m.deliveries[0].attempts).toEqual([
      attemptShape(null, expect.stringMatching(/^ECONNRESET: /)),
      attemptShape(200, null),
    ]);
  });

  test.each([408, 429, 503])('%i then 200 → retried, ends sent', async (status) => {
    const hook = await receiver((n) => {
      if (n > 1) return { status: 204 };
      return status === 429 ? { status, headers: { 'retry-after': '0' } } : { status };
    });
    const account = await accountWith(hook.url);
    const res = await send(account, { fromId: unique('u') });
    const m = await settledMessage(ctx.gw, account, res.body.messageId);
    expect(m.status).toBe('sent');
    expect(m.deliveries[0].attempts.map((a: { status: number }) => a.status)).toEqual([status, 204]);
  });

  test('Retry-After from the receiver is honoured over the schedule', async () => {
    const hook = await receiver((n) => (n === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }));
    const account = await accountWith(hook.url);
    const m = await settledMessage(ctx.gw, account, (await send(account, { fromId: unique('u') })).body.messageId);
    expect(m.status).toBe('sent');
    const [first, second] = m.deliveries[0].attempts.map((a: { at: string }) => Date.parse(a.at));
    // The schedule says 100 ms; the receiver asked for 2 s.
    expect(second - first).toBeGreaterThanOrEqual(1900);
  });

  test('a Retry-After shorter than the schedule waits the schedule: "503, Retry-After: 0" spends no retry at once', async () => {
    const hook = await receiver(() => ({ status: 503, headers: { 'retry-after': '0' } }));
    const account = await accountWith(hook.url);
    const m = await settledMessage(ctx.gw, account, (await send(account, { fromId: unique('u') })).body.messageId);
    expect(m.status).toBe('failed');
    const at = m.deliveries[0].attempts.map((a: { at: string }) => Date.parse(a.at));
    expect(at).toHaveLength(4);
    // The schedule says 100 ms (±20 %) before each retry; the receiver asked for none.
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(80);
  });

  test.each([400, 404, 410])('%i → failed at once, with the error visible', async (status) => {
    const hook = await receiver(() => ({ status, body: 'no such conversation' }));
    const account = await accountWith(hook.url);
    const res = await send(account, { fromId: unique('u') });
    expect(res.status).toBe(200);
    const m = await settledMessage(ctx.gw, account, res.body.messageId);
    expect(m.status).toBe('failed');
    expect(m.error).toContain(String(status));
    expect(m.deliveries).toEqual([
      {
        id: expect.any(String),
        target: 'customChannelWebhook',
        status: 'failed',
        attempts: [attemptShape(status, expect.stringContaining(String(status)))],
        nextAttemptAt: null,
      },
    ]);
    expect(hook.requests).toHaveLength(1);
  });

  test('always 500 → failed after the bounded attempts (1 + 3 retries), error visible', async () => {
    const hook = await receiver(() => ({ status: 500, body: 'down' }));
    const account = await accountWith(hook.url);
    const res = await send(account, { fromId: unique('u') });
    const m = await settledMessage(ctx.gw, account, res.body.messageId);
    expect(m.status).toBe('failed');
    expect(m.error).toContain('500');
    expect(m.deliveries[0].status).toBe('failed');
    expect(m.deliveries[0].attempts).toHaveLength(4);
    for (const a of m.deliveries[0].attempts) expect(a).toEqual(attemptShape(500, expect.stringContaining('500')));
    expect(hook.requests).toHaveLength(4);
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // The message reads the same through the contact's history.
    const history = await api(ctx.gw, account, 'GET', `contacts/${res.body.contactId}/messages`);
    expect(history.body.data).toEqual([
      expect.objectContaining({ id: res.body.messageId, status: 'failed', error: m.error }),
    ]);
  });

  test('no URL configured → failed with that reason', async () => {
    const account = await accountWith();
    const res = await send(account, { fromId: unique('u') });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(false);
    const m = await settledMessage(ctx.gw, account, res.body.messageId);
    expect(m.status).toBe('failed');
    expect(m.error).toMatch(/Custom Channel Webhook/i);
    expect(m.deliveries).toEqual([]);
  });

  test('receiver not listening → failed after the retries with a connection error', async () => {
    const port = await freePort();
    const account = await accountWith(`http://127.0.0.1:${port}/nothing-here`);
    const res = await send(account, { fromId: unique('u') });
    const m = await settledMessage(ctx.gw, account, res.body.messageId);
    expect(m.status).toBe('failed');
    expect(m.error).toMatch(/ECONNREFUSED/);
    expect(m.deliveries[0].attempts).toHaveLength(4);
    for (const a of m.deliveries[0].attempts)
      expect(a).toEqual(attemptShape(null, expect.stringMatching(/ECONNREFUSED/)));
  });

  test('a rotated webhook secret signs the next delivery, the replaced one beside it for 24 hours, then alone', async () => {
    // A receiver still holding the replaced secret, as an n8n credential not yet updated: 401 to any other.
    let held = '';
    const hook = await receiver((_n, req) => ({ status: verifyStandardWebhook(held, req) ? 200 : 401 }));
    const account = await accountWith(hook.url);
    held = account.secret;
    const rotatedAt = ctx.gw.now();
    const rotated = await api(ctx.gw, account, 'POST', 'settings/webhook-secret');
    expect(rotated.status).toBe(200);
    const secret = rotated.body.webhookSecret as string;
    expect(secret).not.toBe(account.secret);
    const until = new Date(rotatedAt + 24 * 3_600_000).toISOString();
    expect(rotated.body.previousSecretExpiresAt).toBe(until);
    expect((await api(ctx.gw, account, 'GET', 'settings')).body.previousSecretExpiresAt).toBe(until);

    const reply = async () =>
      settledMessage(ctx.gw, account, (await send(account, { fromId: unique('u') })).body.messageId);
    expect((await reply()).status).toBe('sent');
    const during = hook.requests.at(-1)!;
    expect(verifyStandardWebhook(secret, during)).toBe(true);
    expect(during.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);

    await ctx.gw.advance(rotatedAt + 24 * 3_600_000 - 1_000 - ctx.gw.now());
    expect((await reply()).status).toBe('sent');

    await ctx.gw.advance('1s');
    const after = await reply();
    expect(after.status).toBe('failed');
    expect(after.error).toBe('Receiver answered HTTP 401');
    const last = hook.requests.at(-1)!;
    expect(verifyStandardWebhook(secret, last)).toBe(true);
    expect(last.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect((await api(ctx.gw, account, 'GET', 'settings')).body.previousSecretExpiresAt).toBeNull();
  });

  test('a secret rotated twice in a day: each replaced one signs for 24 hours after its own rotation', async () => {
    const hook = await receiver();
    const account = await accountWith(hook.url);
    const first = (await api(ctx.gw, account, 'POST', 'settings/webhook-secret')).body.webhookSecret as string;
    await ctx.gw.advance('1h');
    const second = await api(ctx.gw, account, 'POST', 'settings/webhook-secret');
    const secret = second.body.webhookSecret as string;
    expect(second.body.previousSecretExpiresAt).toBe(new Date(ctx.gw.now() + 24 * 3_600_000).toISOString());
    const signedBy = async () => {
      await settledMessage(ctx.gw, account, (await send(account, { fromId: unique('u') })).body.messageId);
      const got = hook.requests.at(-1)!;
      return [secret, first, account.secret].map((s) => verifyStandardWebhook(s, got));
    };
    expect(await signedBy()).toEqual([true, true, true]);
    await ctx.gw.advance('23h');
    expect(await signedBy()).toEqual([true, true, false]);
    await ctx.gw.advance('1h');
    expect(await signedBy()).toEqual([true, false, false]);
  });

  test('a changed URL takes the next reply', async () => {
    const first = await receiver();
    const second = await receiver();
    const account = await accountWith(first.url);
    await settledMessage(ctx.gw, account, (await send(account, { fromId: unique('u') })).body.messageId);
    await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: second.url } });
    const m = await settledMessage(ctx.gw, account, (await send(account, { fromId: unique('u') })).body.messageId);
    expect(m.status).toBe('sent');
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
  });

  /** A reply whose first post `down` refused for an hour; answers the account and the message's id. */
  async function waitingForRetry(down: Receiver) {
    const account = await accountWith(down.url);
    const res = await send(account, { fromId: unique('u') });
    // Within a minute of the clock: the retry an hour later must wait for what the test changes meanwhile.
    await attempted(account, res.body.messageId, 1, 60_000);
    return { account, messageId: res.body.messageId as string };
  }
  /** The message once its delivery made `n` attempts, the clock moved up to `within` (the hour of a Retry-After). */
  const attempted = async (account: TestAccount, messageId: string, n: number, within = 2 * 3_600_000) =>
    (
      await poll(
        () => api(ctx.gw, account, 'GET', `messages/${messageId}`),
        (r) => r.body.deliveries[0]?.attempts.length >= n,
        within,
      )
    ).body;
  const downForAnHour = () => receiver(() => ({ status: 503, headers: { 'retry-after': '3600' } }));

  test('a reply waiting for its retry goes to the URL saved meanwhile, the same delivery', async () => {
    const down = await downForAnHour();
    const fixed = await receiver();
    const { account, messageId } = await waitingForRetry(down);
    await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: fixed.url } });
    const m = await attempted(account, messageId, 2);
    expect(m.status).toBe('sent');
    expect(m.deliveries[0].attempts.map((a: { status: number }) => a.status)).toEqual([503, 200]);
    expect([down.requests.length, fixed.requests.length]).toEqual([1, 1]);
    expect(fixed.requests[0]!.headers['webhook-id']).toBe(down.requests[0]!.headers['webhook-id']);
    expect(verifyStandardWebhook(account.secret, fixed.requests[0]!)).toBe(true);
  });

  test('a reply waiting for its retry is posted nowhere once the URL is cleared: it fails, saying so', async () => {
    const down = await downForAnHour();
    const { account, messageId } = await waitingForRetry(down);
    await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: null } });
    const m = await attempted(account, messageId, 2);
    expect(m.status).toBe('failed');
    expect(m.error).toMatch(/No Custom Channel Webhook URL/);
    expect(m.deliveries[0]).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(down.requests).toHaveLength(1);
  });
});

describe('send: the contact', () => {
  test('is created from fromId with the names/email given, then updated by later sends', async () => {
    const hook = await receiver();
    const account = await accountWith(hook.url);
    const fromId = unique('crm');
    const first = await send(account, { fromId, firstName: 'Ines', lastName: 'Moura', email: 'Ines@Example.com' });
    const contact = await api(ctx.gw, account, 'GET', `contacts/${first.body.contactId}`);
    expect(contact.body).toMatchObject({
      id: first.body.contactId,
      firstName: 'Ines',
      lastName: 'Moura',
      email: 'ines@example.com',
      fromId,
    });

    const second = await send(account, { fromId, firstName: 'Inês', email: 'ines.moura@example.com' });
    expect(second.body.contactId).toBe(first.body.contactId);
    expect((await api(ctx.gw, account, 'GET', `contacts/${first.body.contactId}`)).body).toMatchObject({
      firstName: 'Inês',
      lastName: 'Moura',
      email: 'ines.moura@example.com',
      createdAt: contact.body.createdAt,
    });

    const third = await send(account, { fromId });
    expect(third.body.contactId).toBe(first.body.contactId);
    expect((await api(ctx.gw, account, 'GET', `contacts/${first.body.contactId}`)).body).toMatchObject({
      firstName: 'Inês',
      lastName: 'Moura',
    });

    await settledMessage(ctx.gw, account, third.body.messageId);
    const history = await api(ctx.gw, account, 'GET', `contacts/${first.body.contactId}/messages`);
    expect(history.body.data.map((m: { id: string }) => m.id)).toEqual([
      first.body.messageId,
      second.body.messageId,
      third.body.messageId,
    ]);
  });

  test('updates a contact first made by an incoming message', async () => {
    const account = await accountWith();
    const fromId = unique('visitor');
    const received = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId, firstName: 'Jo' }),
    });
    const contactId = (await api(ctx.gw, account, 'GET', `messages/${received.body.messageId}`)).body.contactId;
    const res = await send(account, { fromId, lastName: 'Park', email: 'jo@example.com' });
    expect(res.body.contactId).toBe(contactId);
    expect((await api(ctx.gw, account, 'GET', `contacts/${contactId}`)).body).toMatchObject({
      firstName: 'Jo',
      lastName: 'Park',
      email: 'jo@example.com',
    });
  });

  test.each<[string, Record<string, unknown>]>([
    ['no customData', {}],
    ['no fromId', { customData: { customChannel: 'c', body: 'b' } }],
    ['no customChannel', { customData: { fromId: 'f', body: 'b' } }],
    ['no body', { customData: { fromId: 'f', customChannel: 'c' } }],
    ['whitespace body', { customData: { fromId: 'f', customChannel: 'c', body: '  ' } }],
    ['numeric fromId', { customData: { fromId: 5, customChannel: 'c', body: 'b' } }],
    ['invalid email', { customData: { fromId: 'f', customChannel: 'c', body: 'b', email: 'x' } }],
  ])('%s → 400 {error:{code,message}}, nothing stored', async (_what, body) => {
    const hook = await receiver();
    const account = await accountWith(hook.url);
    expectApiError(await api(ctx.gw, account, 'POST', 'send_custom_channel_message', { body }), 400);
    // A valid send afterwards is the first message the receiver sees.
    await settledMessage(ctx.gw, account, (await send(account, { fromId: 'f' })).body.messageId);
    expect(hook.requests).toHaveLength(1);
  });
});

describe('webhook subscriptions (POST /v1/webhooks)', () => {
  test('a "reply" subscription receives the reply too, signed with its own secret', async () => {
    const settingsHook = await receiver();
    const subHook = await receiver();
    const account = await accountWith(settingsHook.url);
    const created = await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: subHook.url, events: ['reply'] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      url: subHook.url,
      events: ['reply'],
      createdAt: expect.any(String),
      ...NEW_WEBHOOK,
      secret: expect.stringMatching(/^whsec_/),
    });
    const subSecret = created.body.secret as string;
    expect(subSecret).not.toBe(account.secret);

    const res = await send(account, { fromId: unique('u'), body: 'to both' });
    const m = await allDelivered(account, res.body.messageId);
    expect(m.status).toBe('sent');
    expect(m.deliveries.map((d: { target: string }) => d.target).sort()).toEqual(
      [created.body.id, 'customChannelWebhook'].sort(),
    );

    const [toSettings] = await settingsHook.waitFor(1);
    const [toSub] = await subHook.waitFor(1);
    expect(toSub!.body).toStrictEqual(toSettings!.body);
    expect(toSub!.headers['webhook-id']).not.toBe(toSettings!.headers['webhook-id']);
    expect(verifyStandardWebhook(subSecret, toSub!)).toBe(true);
    expect(verifyStandardWebhook(account.secret, toSub!)).toBe(false);
    expect(verifyStandardWebhook(account.secret, toSettings!)).toBe(true);
  });

  test('the owner\'s platform decides a reply\'s status: the Custom Channel Webhook failing it fails it, whatever a "reply" subscription answered', async () => {
    const settingsHook = await receiver(() => ({ status: 500, body: 'down' }));
    const subHook = await receiver();
    const account = await accountWith(settingsHook.url);
    const hook = await receiver();
    await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: subHook.url, events: ['reply'] } });
    await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['delivery_failed'] } });
    const res = await send(account, { fromId: unique('u'), body: 'to both' });
    const m = await allDelivered(account, res.body.messageId);
    expect(m).toMatchObject({ status: 'failed', error: expect.stringContaining('500') });
    const statusOf = (owner: boolean) =>
      m.deliveries.find((d: { target: string }) => (d.target === 'customChannelWebhook') === owner).status;
    expect([statusOf(true), statusOf(false)]).toEqual(['failed', 'sent']);
    const [failed] = await hook.waitFor(1);
    expect(failed!.body).toMatchObject({
      type: 'delivery_failed',
      messageId: res.body.messageId,
      channel: m.channel,
      customChannel: m.channel,
      error: m.error,
      errorCode: m.errorCode,
    });
    const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations')).body.data as any[];
    expect(conversation.failed).toBe(1);
  });

  test('a subscription alone delivers the reply; DELETE → 204, then GET → 404 and no more deliveries', async () => {
    const subHook = await receiver();
    const account = await accountWith();
    const created = await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: subHook.url, events: ['reply'] } });
    const first = await allDelivered(account, (await send(account, { fromId: unique('u') })).body.messageId);
    expect(first.status).toBe('sent');
    expect(subHook.requests).toHaveLength(1);

    const del = await api(ctx.gw, account, 'DELETE', `webhooks/${created.body.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectApiError(await api(ctx.gw, account, 'GET', `webhooks/${created.body.id}`), 404, 'WEBHOOK_NOT_FOUND');
    expectApiError(await api(ctx.gw, account, 'DELETE', `webhooks/${created.body.id}`), 404, 'WEBHOOK_NOT_FOUND');

    const second = await settledMessage(ctx.gw, account, (await send(account, { fromId: unique('u') })).body.messageId);
    expect(second.status).toBe('failed');
    expect(second.error).toMatch(/Custom Channel Webhook/i);
    expect(subHook.requests).toHaveLength(1);
  });

  test('an "auto_recharge" subscription does not receive replies', async () => {
    const subHook = await receiver();
    const settingsHook = await receiver();
    const account = await accountWith(settingsHook.url);
    await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: subHook.url, events: ['auto_recharge'] } });
    const m = await settledMessage(ctx.gw, account, (await send(account, { fromId: unique('u') })).body.messageId);
    expect(m.deliveries).toHaveLength(1);
    expect(subHook.requests).toHaveLength(0);
  });
});

/**
 * Waits until every delivery of the message has settled, not just the first to succeed, and the message with them:
 * the answer reads the message and its deliveries one after the other, so one answer may catch a commit between.
 */
async function allDelivered(account: TestAccount, messageId: string): Promise<any> {
  const res = await poll(
    () => api(ctx.gw, account, 'GET', `messages/${messageId}`),
    (r) =>
      r.status === 200 &&
      r.body.status !== 'pending' &&
      r.body.deliveries.length > 0 &&
      r.body.deliveries.every((d: { status: string }) => d.status !== 'pending'),
  );
  return res.body;
}

describe('with LEADCHAT_WEBHOOK_TIMEOUT=400ms', () => {
  const slow = useGateway({ LEADCHAT_WEBHOOK_RETRIES: '100ms,100ms', LEADCHAT_WEBHOOK_TIMEOUT: '400ms' });

  async function sendVia(url: string) {
    const account = await createAccount(slow.gw);
    await api(slow.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: url } });
    const res = await api(slow.gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { fromId: 'f', customChannel: 'c', body: 'b' } },
    });
    return settledMessage(slow.gw, account, res.body.messageId);
  }

  test('a receiver that does not answer in time is retried; the timeout is recorded', async () => {
    const hook = await receiver((n) => (n === 1 ? undefined : { status: 200 }));
    const m = await sendVia(hook.url);
    expect(m.status).toBe('sent');
    const attempts = m.deliveries[0].attempts;
    expect(attempts[0]).toEqual(attemptShape(null, expect.stringMatching(/did not answer within 400 ms/)));
    expect(attempts.at(-1)).toEqual(attemptShape(200, null));
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  test("a receiver's answer is read no further than the part kept: a 2xx whose body goes on is taken at once", async () => {
    const hook = await receiver(() => ({ status: 200, body: 'x'.repeat(64 * 1024), unfinished: true }));
    const m = await sendVia(hook.url);
    expect(m.status).toBe('sent');
    expect(m.deliveries[0].attempts).toEqual([attemptShape(200, null)]);
    expect(hook.requests).toHaveLength(1);
  });

  test('a receiver that never answers → failed after the last attempt', async () => {
    const hook = await receiver(() => undefined);
    const m = await sendVia(hook.url);
    expect(m.status).toBe('failed');
    expect(m.error).toMatch(/did not answer within 400 ms/);
    expect(m.deliveries[0].attempts).toHaveLength(3);
  });
});

describe("with LEADCHAT_WEBHOOK_TARGETS naming the receivers' host", () => {
  const allowed = useGateway({ LEADCHAT_WEBHOOK_TARGETS: '127.0.0.1' });

  test("a receiver's long answer: the attempt keeps its first 500 characters", async () => {
    const hook = await receiver(() => ({ status: 200, body: `${'é'.repeat(400)}${'x'.repeat(200_000)}` }));
    const account = await createAccount(allowed.gw);
    await api(allowed.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
    const res = await api(allowed.gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { fromId: 'f', customChannel: 'c', body: 'b' } },
    });
    const m = await settledMessage(allowed.gw, account, res.body.messageId);
    expect(m.status).toBe('sent');
    expect(m.deliveries[0].attempts[0].responseExcerpt).toBe(`${'é'.repeat(400)}${'x'.repeat(100)}`);
  });
});

describe('with LEADCHAT_WEBHOOK_RETRIES=1h', () => {
  const patient = useGateway({ LEADCHAT_WEBHOOK_RETRIES: '1h' });

  test('while a receiver is down, the delivery says how many attempts failed and when the next one is due', async () => {
    const hook = await receiver(() => ({ status: 503 }));
    const account = await createAccount(patient.gw);
    await api(patient.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
    const sent = await api(patient.gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { fromId: 'f', customChannel: 'c', body: 'b' } },
    });
    // The gateway's time: this file's other tests moved its clock ahead of the system's.
    const before = patient.gw.now();
    const m = (
      await poll(
        () => api(patient.gw, account, 'GET', `messages/${sent.body.messageId}`),
        (r) => r.body.deliveries[0]?.attempts.length === 1,
      )
    ).body;
    expect(m.status).toBe('pending');
    expect(m.deliveries[0]).toMatchObject({ status: 'pending', attempts: [expect.objectContaining({ status: 503 })] });
    // One hour ±20 % from the failed attempt.
    const next = Date.parse(m.deliveries[0].nextAttemptAt);
    expect(next).toBeGreaterThan(before + 0.75 * 3_600_000);
    expect(next).toBeLessThan(patient.gw.now() + 1.25 * 3_600_000);
  });
});

describe('a receiver that holds every delivery (LEADCHAT_WEBHOOK_TIMEOUT=60s)', () => {
  const held = useGateway({ LEADCHAT_WEBHOOK_TIMEOUT: '60s' });

  test("another account's opening message goes at once: deliveries never take the slots of openings, sends and the bot", async () => {
    const silent = await Receiver.start(() => undefined);
    try {
      const busy = await createAccount(held.gw);
      await api(held.gw, busy, 'PUT', 'settings', { body: { customChannelWebhookUrl: silent.url } });
      // More replies than a runner has slots, each held by the receiver until its timeout.
      for (let i = 0; i < 12; i++) {
        const res = await api(held.gw, busy, 'POST', 'send_custom_channel_message', {
          body: { customData: { fromId: `visitor-${i}`, customChannel: 'web-chat', body: 'Hi' } },
        });
        expect(res.status).toBe(200);
      }
      await silent.waitFor(8);

      const other = await createAccount(held.gw);
      const list = (await api(held.gw, other, 'POST', 'lists', { body: { name: 'Leads' } })).body;
      const campaign = await api(held.gw, other, 'POST', 'campaigns', {
        body: { name: 'Funnel', channel: 'sms', listId: list.id, openingMessage: 'Hi!', status: 'live' },
      });
      expect(campaign.status).toBe(201);
      const contact = (await api(held.gw, other, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
      expect(
        (await api(held.gw, other, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } })).status,
      ).toBe(201);

      const sent = await poll(
        async () =>
          ((await api(held.gw, other, 'GET', `contacts/${contact.id}/messages`)).body.data as any[]).filter(
            (m) => m.direction === 'outgoing' && m.status === 'sent',
          ),
        (m) => m.length > 0,
      );
      expect(sent).toHaveLength(1);
    } finally {
      await silent.close();
    }
  });
});

describe('one account whose receiver holds every delivery', () => {
  const shared = useGateway({ LEADCHAT_WEBHOOK_TIMEOUT: '60s', LEADCHAT_WEBHOOK_RETRIES: '1h' });

  test("another account's delivery goes in the first slot freed, not after the whole backlog", async () => {
    const silent = await Receiver.start(() => undefined);
    let backlogSentBefore: number | undefined;
    const heard = await Receiver.start(() => {
      backlogSentBefore = silent.requests.length;
      return { status: 200 };
    });
    try {
      const busy = await createAccount(shared.gw);
      await api(shared.gw, busy, 'PUT', 'settings', { body: { customChannelWebhookUrl: silent.url } });
      // Four times the slots of the deliveries' runner, each reply held by the receiver.
      const made = await Promise.all(
        Array.from({ length: 32 }, (_, i) =>
          api(shared.gw, busy, 'POST', 'send_custom_channel_message', {
            body: { customData: { fromId: `visitor-${i}`, customChannel: 'web-chat', body: 'Hi' } },
          }),
        ),
      );
      expect(made.every((res) => res.status === 200)).toBe(true);
      await silent.waitFor(8);

      const other = await createAccount(shared.gw);
      await api(shared.gw, other, 'PUT', 'settings', { body: { customChannelWebhookUrl: heard.url } });
      const res = await api(shared.gw, other, 'POST', 'send_custom_channel_message', {
        body: { customData: { fromId: 'visitor', customChannel: 'web-chat', body: 'Hello' } },
      });
      expect(res.status).toBe(200);
      expect(silent.requests).toHaveLength(8);

      // One slot freed: it goes to the other account, not to the backlog's ninth reply.
      silent.release();
      await heard.waitFor(1, 30_000);
      expect(backlogSentBefore).toBe(8);
    } finally {
      await Promise.all([silent.close(), heard.close()]);
    }
  });
});
