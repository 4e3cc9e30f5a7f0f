import path from 'node:path';

import {
  api,
  ConnectionTrap,
  createAccount,
  expectApiError,
  poll,
  Receiver,
  type TestAccount,
  type TestGateway,
} from './api-support';
import { removeDir } from '../helpers/gateway';
import { startInProcess } from '../helpers/in-process';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * The target policy (LEADCHAT_WEBHOOK_TARGETS) holds for every URL the gateway connects to on a tenant's behalf: the
 * webhooks, the Custom Channel Webhook and the bot's base URL. Each refusal is proven by a loopback trap that
 * counts connections: under `public` it never gets one, whatever form the address is written in.
 */

jest.setTimeout(60_000);

type TargetPolicyModule = typeof import('../../gateway/src/outbound/target-policy.js', {
  with: { 'resolution-mode': 'import' }
});

let gw: TestGateway;
let trap: ConnectionTrap;

beforeAll(async () => {
  trap = await ConnectionTrap.start();
  gw = await startInProcess({ LEADCHAT_WEBHOOK_TARGETS: 'public' });
});

afterAll(async () => {
  await trap?.close();
  if (!gw) return;
  await gw.stop();
  removeDir(gw.dataDir);
});

/** Restarts the gateway on the same data with another policy. */
async function restart(policy: string): Promise<void> {
  await gw.stop();
  gw = await startInProcess({ LEADCHAT_WEBHOOK_TARGETS: policy }, gw.dataDir);
}

const bot = (baseUrl: string) => ({
  provider: 'openai',
  openai: { baseUrl, model: 'm', apiKey: 'sk-test-0123456789' },
});

describe("under public, a URL that reaches the gateway's own host or network is refused when saved", () => {
  test.each([
    ["the bot's base URL", 'settings/bot', 'PUT', (url: string) => bot(url), 'openai.baseUrl'],
    [
      'the Custom Channel Webhook',
      'settings',
      'PUT',
      (url: string) => ({ customChannelWebhookUrl: url }),
      'customChannelWebhookUrl',
    ],
    ['a webhook subscription', 'webhooks', 'POST', (url: string) => ({ url, events: ['reply'] }), 'url'],
  ])('%s', async (_name, path, method, body, field) => {
    const account = await createAccount(gw);
    const before = (await api(gw, account, 'GET', path)).body;
    for (const url of trap.forms()) {
      const res = await api(gw, account, method, path, { body: body(url) });
      expectApiError(res, 400, 'TARGET_REFUSED');
      expect({ url, message: res.body.error.message }).toEqual({
        url,
        message: expect.stringMatching(new RegExp(`^${field.replace('.', '\\.')}: .*only public targets are allowed`)),
      });
    }
    expect((await api(gw, account, 'GET', path)).body).toEqual(before);
    expect(trap.connections).toBe(0);
  });

  test('a public address is accepted, in any form of it', async () => {
    const account = await createAccount(gw);
    for (const url of [
      'https://8.8.8.8/v1',
      'https://[2606:4700::1111]/v1',
      'https://[64:ff9b::808:808]/v1',
      'https://api.example.invalid/v1',
    ]) {
      expect((await api(gw, account, 'PUT', 'settings/bot', { body: bot(url) })).status).toBe(200);
    }
  });
});

describe('on any policy', () => {
  test('a URL with a user name or password is refused, so no secret is shown back on a read', async () => {
    const account = await createAccount(gw);
    const url = 'https://user:secretpass@hooks.example.com/cc';
    for (const [method, path, body] of [
      ['PUT', 'settings', { customChannelWebhookUrl: url }],
      ['POST', 'webhooks', { url, events: ['reply'] }],
      ['PUT', 'settings/bot', bot('https://user:secretpass@llm.example.com/v1')],
    ] as const) {
      const res = await api(gw, account, method, path, { body });
      expectApiError(res, 400, 'TARGET_REFUSED');
      expect(res.body.error.message).toMatch(/user name or password/);
      expect(res.text).not.toContain('secretpass');
    }
    expect((await api(gw, account, 'GET', 'settings')).text).not.toContain('secretpass');
  });

  test('an address that is not http or https is refused', async () => {
    const account = await createAccount(gw);
    expectApiError(await api(gw, account, 'PUT', 'settings/bot', { body: bot('ftp://llm.example.com/v1') }), 400);
  });
});

describe('URLs saved before the operator chose public are refused when the gateway connects', () => {
  let account: TestAccount;
  let campaignId: string;
  let hook: Receiver;

  beforeAll(async () => {
    await restart('any');
    account = await createAccount(gw);
    hook = await Receiver.start();
    // localhost is judged at connect time by what it resolves to: this proves the check after DNS.
    const named = `http://localhost:${trap.port}/hook`;
    expect(
      (await api(gw, account, 'PUT', 'settings/bot', { body: bot(`http://127.0.0.1:${trap.port}/v1`) })).status,
    ).toBe(200);
    expect((await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: named } })).status).toBe(200);
    expect(
      (
        await api(gw, account, 'POST', 'webhooks', {
          body: { url: `http://[::1]:${trap.port}/hook`, events: ['message_received'] },
        })
      ).status,
    ).toBe(201);
    campaignId = (
      await api(gw, account, 'POST', 'campaigns', {
        body: { name: 'Spring', bot: { faqs: [{ question: 'When do you open?', answer: 'At 9.' }] } },
      })
    ).body.id;
    await restart('public');
  });

  afterAll(() => hook.close());

  test('the bot: the FAQ bot answers, and the reason names the policy, not a remote answer', async () => {
    const res = await api(gw, account, 'POST', `campaigns/${campaignId}/bot/test`, {
      body: { message: 'When do you open?' },
    });
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('faq');
    expect(res.body.fallbackReason).toMatch(/refused by the gateway's target policy/);
    expect(trap.connections).toBe(0);
  });

  test('the webhook test event', async () => {
    const res = await api(gw, account, 'POST', 'settings/webhook-test');
    expectApiError(res, 400, 'TARGET_REFUSED');
    expect(trap.connections).toBe(0);
  });

  test("deliveries fail at once with the policy's reason and are not retried", async () => {
    const sent = await api(gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { customChannel: 'chat', fromId: 'visitor-1', body: 'Hello' } },
    });
    expect(sent.status).toBe(200);
    const received = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
      body: { customData: { messageSid: 's1', fromId: 'visitor-2', toId: 'biz', body: 'Hi' } },
    });
    expect(received.status).toBe(200);
    const settled = await poll(
      () => api(gw, account, 'GET', `messages/${sent.body.messageId}`),
      (r) => r.body.deliveries?.[0]?.status === 'failed',
    );
    const attempts = settled.body.deliveries[0].attempts;
    expect(attempts).toEqual([
      expect.objectContaining({
        status: null,
        error: expect.stringMatching(/resolves to an address that is not public/),
        responseExcerpt: null,
      }),
    ]);
    const delivered = await poll(
      () => api(gw, account, 'GET', `messages/${received.body.messageId}`),
      (r) => r.body.deliveries?.[0]?.status === 'failed',
    );
    expect(delivered.body.deliveries[0].attempts).toEqual([
      expect.objectContaining({ error: expect.stringMatching(/::1 is not a public address/) }),
    ]);
    expect(trap.connections).toBe(0);
  });

  test("switching the bot's provider on again judges its saved base URL by the policy", async () => {
    expect((await api(gw, account, 'PUT', 'settings/bot', { body: { provider: 'faq' } })).status).toBe(200);
    expectApiError(
      await api(gw, account, 'PUT', 'settings/bot', { body: { provider: 'openai' } }),
      400,
      'TARGET_REFUSED',
    );
    expect((await api(gw, account, 'GET', 'settings/bot')).body.provider).toBe('faq');
    expect(trap.connections).toBe(0);
  });
});

describe("an error of the bot's server is told by its status, never its body", () => {
  let secretServer: ConnectionTrap;

  beforeAll(async () => {
    secretServer = await ConnectionTrap.start(
      (res) =>
        void res.writeHead(404, { 'content-type': 'text/plain' }).end('internal-admin-panel: db password hunter2'),
    );
    await restart('any');
  });

  afterAll(() => secretServer.close());

  test('a 404 with a body', async () => {
    const account = await createAccount(gw);
    expect(
      (await api(gw, account, 'PUT', 'settings/bot', { body: bot(`http://127.0.0.1:${secretServer.port}/v1`) })).status,
    ).toBe(200);
    const campaignId = (await api(gw, account, 'POST', 'campaigns', { body: { name: 'Any' } })).body.id;
    const res = await api(gw, account, 'POST', `campaigns/${campaignId}/bot/test`, { body: { message: 'Hello?' } });
    expect(res.status).toBe(200);
    expect(res.body.fallbackReason).toBe(
      `http://127.0.0.1:${secretServer.port}: answered 404: check the base URL and the model name`,
    );
    expect(res.text).not.toMatch(/hunter2|internal-admin/);
    expect(secretServer.connections).toBeGreaterThan(0);
  });
});

describe("a receiver's answer is shown back only from a public address or a host the operator allowed", () => {
  const written = 'internal-admin-panel: db password hunter2';
  let internal: Receiver;

  beforeAll(async () => {
    internal = await Receiver.start(() => ({ status: 404, body: written }));
  });

  afterAll(() => internal.close());

  /** A reply sent by an account whose Custom Channel Webhook and one subscription are `internal`, once settled. */
  async function replyTo(): Promise<{ account: TestAccount; text: string; deliveries: any[]; webhookId: string }> {
    const account = await createAccount(gw);
    expect(
      (await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: internal.url } })).status,
    ).toBe(200);
    const webhook = await api(gw, account, 'POST', 'webhooks', { body: { url: internal.url, events: ['reply'] } });
    expect(webhook.status).toBe(201);
    const sent = await api(gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { customChannel: 'chat', fromId: 'visitor-1', body: 'Hello' } },
    });
    expect(sent.status).toBe(200);
    const settled = await poll(
      () => api(gw, account, 'GET', `messages/${sent.body.messageId}`),
      (r) => r.body.deliveries?.length === 2 && r.body.deliveries.every((d: any) => d.status === 'failed'),
    );
    return { account, text: settled.text, deliveries: settled.body.deliveries, webhookId: webhook.body.id };
  }

  test('under any, from loopback: the status and latency are recorded, never what it wrote', async () => {
    await restart('any');
    const { account, text, deliveries, webhookId } = await replyTo();
    expect(deliveries.map((d) => [d.target, d.attempts]).sort()).toEqual(
      ['customChannelWebhook', webhookId].sort().map((target) => [
        target,
        [
          {
            at: expect.stringMatching(/Z$/),
            status: 404,
            latencyMs: expect.any(Number),
            error: 'Receiver answered HTTP 404',
            responseExcerpt: null,
          },
        ],
      ]),
    );
    expect(text).not.toMatch(/hunter2|internal-admin/);
    const subscription = await api(gw, account, 'GET', `webhooks/${webhookId}`);
    expect(subscription.body.lastFailure).toEqual(expect.objectContaining({ status: 404 }));
    expect(subscription.text).not.toMatch(/hunter2|internal-admin/);
    const test = await api(gw, account, 'POST', 'settings/webhook-test');
    expect(test.body).toEqual(expect.objectContaining({ status: 404, ok: false }));
    expect(test.text).not.toMatch(/hunter2|internal-admin/);
  });

  test('under an allow-list naming the host, the operator chose it: its answer is shown', async () => {
    await restart('127.0.0.1');
    const { deliveries } = await replyTo();
    expect(deliveries.map((d) => d.attempts.map((a: any) => a.responseExcerpt))).toEqual([[written], [written]]);
  });

  test('judged by the address the connection reached: public ones only, in any form, whatever the policy', async () => {
    const { mayShowAnswer } = (await gatewayModule(
      path.resolve(__dirname, '../../gateway/dist/outbound/target-policy.js'),
    )) as TargetPolicyModule;
    const shown = ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
    const hidden = [
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '10.0.0.5',
      '172.16.3.4',
      '192.168.1.10',
      '169.254.169.254',
      'fe80::1',
      'fd00::1',
      '100.64.0.1',
      '0.0.0.0',
      undefined,
    ];
    for (const kind of ['any', 'public'] as const) {
      expect(shown.filter((a) => !mayShowAnswer({ kind }, a))).toEqual([]);
      expect(hidden.filter((a) => mayShowAnswer({ kind }, a))).toEqual([]);
    }
    expect(hidden.filter((a) => !mayShowAnswer({ kind: 'allow', hosts: ['hooks.internal'] }, a))).toEqual([]);
  });
});
