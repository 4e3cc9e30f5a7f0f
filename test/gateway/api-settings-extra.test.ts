import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { removeDir } from '../helpers/gateway';
import { startInProcess } from '../helpers/in-process';
import {
  api,
  createAccount,
  expectApiError,
  Receiver,
  verifyStandardWebhook,
  type TestAccount,
  type TestGateway,
} from './api-support';

/**
 * POST /v1/settings/webhook-test (one signed `test` event posted at once, the receiver's answer given back) and
 * GET /v1/lists/{id}.
 */
let gw: TestGateway;
const receivers: Receiver[] = [];
beforeAll(async () => {
  gw = await startInProcess({ LEADCHAT_WEBHOOK_TIMEOUT: '1s' });
}, 30_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

async function receiver(respond?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> {
  const r = await Receiver.start(respond);
  receivers.push(r);
  return r;
}

async function withUrl(url: string): Promise<TestAccount> {
  const account = await createAccount(gw);
  expect((await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: url } })).status).toBe(200);
  return account;
}

const creditsOf = async (account: TestAccount) => (await api(gw, account, 'GET', 'credits')).body;

describe('POST /v1/settings/webhook-test', () => {
  test('posts one `test` event signed with the account secret, and answers what the receiver did', async () => {
    const r = await receiver(() => ({ status: 204 }));
    const account = await withUrl(`${r.url}?from=leadchat`);
    const { webhookSecret } = (await api(gw, account, 'GET', 'settings')).body;
    const res = await api(gw, account, 'POST', 'settings/webhook-test');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      url: `${r.url}?from=leadchat`,
      status: 204,
      ok: true,
      error: null,
      durationMs: expect.any(Number),
      webhookId: expect.stringMatching(/^dlv_/),
    });
    // Synchronous: the receiver has it by the time the answer comes.
    expect(r.requests).toHaveLength(1);
    const got = r.requests[0]!;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hook?from=leadchat');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-event']).toBe('test');
    expect(got.headers['webhook-id']).toBe(res.body.webhookId);
    expect(verifyStandardWebhook(webhookSecret, got)).toBe(true);
    expect(verifyStandardWebhook('whsec_' + Buffer.alloc(32, 7).toString('base64'), got)).toBe(false);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(got.body).toEqual({
      type: 'test',
      occurredAt: expect.stringMatching(/Z$/),
      accountId: account.id,
      message: expect.any(String),
    });
  });

  test('a rotated secret signs the next test, the replaced one beside it as on deliveries', async () => {
    const r = await receiver();
    const account = await withUrl(r.url);
    const replaced = (await api(gw, account, 'GET', 'settings')).body.webhookSecret;
    const rotated = (await api(gw, account, 'POST', 'settings/webhook-secret')).body.webhookSecret;
    expect((await api(gw, account, 'POST', 'settings/webhook-test')).body.ok).toBe(true);
    expect(verifyStandardWebhook(rotated, r.requests[0]!)).toBe(true);
    expect(verifyStandardWebhook(replaced, r.requests[0]!)).toBe(true);
  });

  test('a receiver answering 500 → 200 with ok false and the status; nothing is retried or stored', async () => {
    const r = await receiver(() => ({ status: 500, body: 'boom' }));
    const account = await withUrl(r.url);
    const before = await creditsOf(account);
    const res = await api(gw, account, 'POST', 'settings/webhook-test');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      url: r.url,
      status: 500,
      ok: false,
      error: 'Receiver answered HTTP 500',
      durationMs: expect.any(Number),
      webhookId: expect.any(String),
    });
    await new Promise((done) => setTimeout(done, 500));
    expect(r.requests).toHaveLength(1);
    expect(await creditsOf(account)).toEqual(before);
  });

  test('a redirect is not followed: ok false with the 3xx status', async () => {
    const r = await receiver(() => ({ status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }));
    const account = await withUrl(r.url);
    const res = await api(gw, account, 'POST', 'settings/webhook-test');
    expect(res.body).toMatchObject({ status: 302, ok: false, error: 'Receiver answered HTTP 302' });
  });

  test('a receiver that is down → 200 with ok false, no status and the connection error', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const account = await withUrl(`http://127.0.0.1:${port}/hook`);
    const res = await api(gw, account, 'POST', 'settings/webhook-test');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      url: `http://127.0.0.1:${port}/hook`,
      status: null,
      ok: false,
      error: expect.stringMatching(/^ECONNREFUSED/),
      durationMs: expect.any(Number),
      webhookId: expect.any(String),
    });
  });

  test('a receiver that hangs → ok false after the configured webhook timeout', async () => {
    const r = await receiver(() => undefined);
    const account = await withUrl(r.url);
    const res = await api(gw, account, 'POST', 'settings/webhook-test');
    expect(res.body).toMatchObject({ status: null, ok: false, error: 'Receiver did not answer within 1000 ms' });
    expect(res.body.durationMs).toBeGreaterThanOrEqual(900);
    expect(res.body.durationMs).toBeLessThan(5000);
  });

  test('no URL set → 409 NO_WEBHOOK_URL, nothing posted', async () => {
    const account = await createAccount(gw);
    expectApiError(await api(gw, account, 'POST', 'settings/webhook-test'), 409, 'NO_WEBHOOK_URL');
    const r = await receiver();
    await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: r.url } });
    await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: null } });
    expectApiError(await api(gw, account, 'POST', 'settings/webhook-test'), 409, 'NO_WEBHOOK_URL');
    expect(r.requests).toHaveLength(0);
  });

  test('the secret never shows in the answer; no key → 401', async () => {
    const r = await receiver();
    const account = await withUrl(r.url);
    const { webhookSecret } = (await api(gw, account, 'GET', 'settings')).body;
    const res = await api(gw, account, 'POST', 'settings/webhook-test');
    expect(res.text).not.toContain(webhookSecret.slice(6));
    expectApiError(await api(gw, { apiKey: '' }, 'POST', 'settings/webhook-test'), 401);
    expect(r.requests).toHaveLength(1);
  });

  test(`more than 10 tests a minute → 429 RATE_LIMITED with Retry-After; another account is not held back`, async () => {
    const r = await receiver();
    const account = await withUrl(r.url);
    for (let i = 0; i < 10; i++) expect((await api(gw, account, 'POST', 'settings/webhook-test')).status).toBe(200);
    const limited = await api(gw, account, 'POST', 'settings/webhook-test');
    expectApiError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(r.requests).toHaveLength(10);
    const other = await withUrl(r.url);
    expect((await api(gw, other, 'POST', 'settings/webhook-test')).status).toBe(200);
  });
});

describe('GET /v1/lists/{id}', () => {
  test('one list as GET /v1/lists shows it; another account’s or an unknown one → 404', async () => {
    const owner = await createAccount(gw);
    const created = (await api(gw, owner, 'POST', 'lists', { body: { name: '  Spring leads  ' } })).body;
    const res = await api(gw, owner, 'GET', `lists/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id, name: 'Spring leads', createdAt: created.createdAt });
    expect((await api(gw, owner, 'GET', 'lists')).body.data).toContainEqual(res.body);

    const stranger = await createAccount(gw);
    expectApiError(await api(gw, stranger, 'GET', `lists/${created.id}`), 404, 'LIST_NOT_FOUND');
    expectApiError(await api(gw, owner, 'GET', 'lists/lst_unknown'), 404, 'LIST_NOT_FOUND');
    expectApiError(
      await api(gw, owner, 'PUT', `lists/${created.id}`, { body: { name: 'x' } }),
      405,
      'METHOD_NOT_ALLOWED',
    );
  });
});

describe('a URL the operator no longer allows', () => {
  test('saved before LEADCHAT_WEBHOOK_TARGETS=public: the test is refused with TARGET_REFUSED, nothing posted', async () => {
    const r = await receiver();
    const account = await withUrl(r.url);
    await gw.stop();
    gw = await startInProcess({ LEADCHAT_WEBHOOK_TARGETS: 'public' }, gw.dataDir);
    const res = await api(gw, account, 'POST', 'settings/webhook-test');
    expectApiError(res, 400, 'TARGET_REFUSED');
    expect(res.body.error.message).toMatch(/127\.0\.0\.1 is not a public address/);
    expect(r.requests).toHaveLength(0);
  }, 30_000);
});
