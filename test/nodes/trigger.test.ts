import type { INode } from 'n8n-workflow';

import {
  advanceClock,
  createAccount,
  request,
  startGateway,
  untilIdle,
  type TestAccount,
  type TestGateway,
} from '../helpers/gateway';
import { CREDENTIAL, leadChatNode, signed, triggerNode } from './helpers/n8n';
import { WebhookHost } from './helpers/webhookHost';

async function post(url: string, body: string, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, body: await res.text() };
}

describe('LeadChat Trigger', () => {
  let gw: TestGateway;
  const hosts: WebhookHost[] = [];

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.close()));
    await gw.stop();
  });

  async function hostFor(
    account: TestAccount,
    parameters: INode['parameters'],
    extraNodes: INode[] = [],
    credentialExtra = {},
    on = gw,
  ) {
    const trigger = triggerNode(parameters);
    const connections = extraNodes.length
      ? { [trigger.name]: { main: [[{ node: extraNodes[0]!.name, type: 'main' as const, index: 0 }]] } }
      : {};
    const host = await WebhookHost.start(
      { [CREDENTIAL]: { baseUrl: on.apiBase, apiKey: account.apiKey, ignoreSslIssues: true, ...credentialExtra } },
      { nodes: [trigger, ...extraNodes], connections },
      trigger.name,
    );
    hosts.push(host);
    return host;
  }

  describe('automatic registration', () => {
    test('activation subscribes the production URL, checkExists confirms it, deactivation removes it', async () => {
      const account = await createAccount(gw);
      const host = await hostFor(account, { events: ['reply', 'auto_recharge'], registration: 'automatic' });

      expect(await host.checkExists()).toBe(false);
      await host.activate();
      const id = host.staticData.webhookId as string;
      expect(id).toMatch(/\S/);
      expect(host.staticData.webhookSecret).toMatch(/^whsec_/);

      const listed = await request(gw, 'GET', '/v1/webhooks', { apiKey: account.apiKey });
      expect(listed.body.data).toEqual([
        expect.objectContaining({ id, url: host.url, events: expect.arrayContaining(['reply', 'auto_recharge']) }),
      ]);
      expect(await host.checkExists()).toBe(true);

      await host.deactivate();
      expect(host.staticData.webhookId).toBeUndefined();
      expect((await request(gw, 'GET', `/v1/webhooks/${id}`, { apiKey: account.apiKey })).status).toBe(404);
    });

    test('a subscription deleted on the server, or registered for other events, is replaced on activation', async () => {
      const account = await createAccount(gw);
      const host = await hostFor(account, { events: ['reply'], registration: 'automatic' });
      await host.activate();
      const first = host.staticData.webhookId as string;
      await request(gw, 'DELETE', `/v1/webhooks/${first}`, { apiKey: account.apiKey });
      expect(await host.checkExists()).toBe(false);
      await host.activate();
      const second = host.staticData.webhookId as string;
      expect(second).not.toBe(first);

      host.trigger.parameters.events = ['reply', 'auto_recharge'];
      await host.activate();
      const third = host.staticData.webhookId as string;
      expect(third).not.toBe(second);
      expect((await request(gw, 'GET', `/v1/webhooks/${second}`, { apiKey: account.apiKey })).status).toBe(404);
      const listed = await request(gw, 'GET', '/v1/webhooks', { apiKey: account.apiKey });
      expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([third]);
      await host.deactivate();
    });

    test("checkExists finds the subscriptions for its URL: those its static data lost are removed, another URL's stay", async () => {
      const account = await createAccount(gw);
      const host = await hostFor(account, { events: ['reply'], registration: 'automatic' });
      const other = await request(gw, 'POST', '/v1/webhooks', {
        apiKey: account.apiKey,
        body: { url: 'https://127.0.0.1:9/elsewhere', events: ['reply'] },
      });
      expect(other.status).toBe(201);
      await host.activate();
      const first = host.staticData.webhookId as string;
      // The workflow's static data is lost (imported again, a failed deactivation): the subscription stays behind.
      delete host.staticData.webhookId;
      delete host.staticData.webhookSecret;
      const orphan = await request(gw, 'POST', '/v1/webhooks', {
        apiKey: account.apiKey,
        body: { url: host.url, events: ['reply'] },
      });
      expect(orphan.status).toBe(201);

      expect(await host.checkExists()).toBe(false);
      const left = await request(gw, 'GET', '/v1/webhooks', { apiKey: account.apiKey });
      expect(left.body.data.map((s: { id: string }) => s.id)).toEqual([other.body.id]);

      await host.activate();
      const fresh = String(host.staticData.webhookId);
      expect([first, orphan.body.id]).not.toContain(fresh);
      // A stray copy for the same URL next to the stored one goes too; the stored one stays.
      const stray = await request(gw, 'POST', '/v1/webhooks', {
        apiKey: account.apiKey,
        body: { url: host.url, events: ['reply'] },
      });
      expect(await host.checkExists()).toBe(true);
      expect(host.staticData.webhookId).toBe(fresh);
      const kept = await request(gw, 'GET', '/v1/webhooks', { apiKey: account.apiKey });
      expect(kept.body.data.map((s: { id: string }) => s.id).sort()).toEqual([other.body.id, fresh].sort());
      expect((await request(gw, 'GET', `/v1/webhooks/${stray.body.id}`, { apiKey: account.apiKey })).status).toBe(404);

      await host.deactivate();
      const after = await request(gw, 'GET', '/v1/webhooks', { apiKey: account.apiKey });
      expect(after.body.data.map((s: { id: string }) => s.id)).toEqual([other.body.id]);
    });

    test('a subscription disabled on the server (its receiver answered 410 Gone) is enabled again on activation: the same one, taking events again', async () => {
      const account = await createAccount(gw);
      const host = await hostFor(account, { events: ['reply'], registration: 'automatic' });
      await host.activate();
      const id = host.staticData.webhookId as string;
      const reply = () =>
        request(gw, 'POST', '/v1/send_custom_channel_message', {
          apiKey: account.apiKey,
          body: { customData: { fromId: 'visitor-9', customChannel: 'livechat', body: 'Hello again' } },
        });
      const subscription = async () =>
        (await request(gw, 'GET', `/v1/webhooks/${id}`, { apiKey: account.apiKey })).body;

      host.answerInstead = 410;
      expect((await reply()).status).toBe(200);
      await host.waitFor(() => host.deliveries.length === 1, 'the 410');
      await untilIdle(gw);
      expect(await subscription()).toMatchObject({ status: 'disabled', disabledReason: 'gone' });

      host.answerInstead = undefined;
      expect(await host.checkExists()).toBe(true);
      expect(host.staticData.webhookId).toBe(id);
      expect(await subscription()).toMatchObject({ status: 'enabled' });
      expect((await reply()).status).toBe(200);
      await host.waitFor(() => host.executions.length === 1, 'the reply execution');
      await host.deactivate();
    });

    test('a reply sent through the gateway starts one execution with the spec payload', async () => {
      const account = await createAccount(gw);
      const host = await hostFor(account, { events: ['reply'], registration: 'automatic' });
      await host.activate();

      const sent = await request(gw, 'POST', '/v1/send_custom_channel_message', {
        apiKey: account.apiKey,
        body: { customData: { fromId: 'visitor-7', customChannel: 'livechat', body: 'Hello from the team' } },
      });
      expect(sent.status).toBe(200);

      await host.waitFor(() => host.executions.length === 1, 'the reply execution');
      const items = host.executions[0]!.output('LeadChat Trigger');
      expect(items).toHaveLength(1);
      expect(items[0]!.json).toEqual({
        event: 'reply',
        deliveryId: expect.any(String),
        contactId: sent.body.contactId,
        messageId: sent.body.messageId,
        userId: expect.any(String),
        body: 'Hello from the team',
        toId: 'visitor-7',
        channel: 'livechat',
      });
      await host.waitFor(() => host.deliveries.length === 1, 'the delivery to be answered');
      expect(host.deliveries[0]!.status).toBe(200);
      await host.deactivate();
    });

    test('auto-recharge: a sub-account spending its credits on messages starts a workflow that grants once, keyed by its idempotency_key', async () => {
      const agency = await createAccount(gw, { type: 'agency' });
      const sub = await createAccount(gw, { parentEmail: agency.email });
      const grant = leadChatNode(
        {
          resource: 'credit',
          operation: 'grant',
          email: '={{ $json.sub_account_email }}',
          amount: '={{ $json.amount }}',
          idempotencyKey: '={{ $json.idempotency_key }}',
          additionalFields: { description: 'Auto-recharge' },
        },
        { name: 'Grant Credits' },
      );
      const host = await hostFor(agency, { events: ['auto_recharge'], registration: 'automatic' }, [grant]);
      await host.activate();

      await request(gw, 'POST', '/v1/subaccounts/credits', {
        apiKey: agency.apiKey,
        body: { email: sub.email, amount: 11 },
      });
      const rule = await request(gw, 'PUT', '/v1/subaccounts/auto-recharge', {
        apiKey: agency.apiKey,
        body: { email: sub.email, threshold: 10, amount: 25 },
      });
      expect(rule.body).toMatchObject({ balance: 11, autoRecharge: { pending: false } });

      // Two opening messages by SMS, a credit each: the second takes the balance below the threshold.
      const list = (await request(gw, 'POST', '/v1/lists', { apiKey: sub.apiKey, body: { name: 'Leads' } })).body;
      await request(gw, 'POST', '/v1/campaigns', {
        apiKey: sub.apiKey,
        body: {
          name: 'Funnel',
          channel: 'sms',
          listId: list.id,
          openingMessage: 'Hi {{first_name}}!',
          triggerOnNewContacts: true,
          status: 'live',
        },
      });
      for (const phone of ['+15557010001', '+15557010002']) {
        const contact = (
          await request(gw, 'POST', '/v1/contacts', { apiKey: sub.apiKey, body: { phone, firstName: 'Lee' } })
        ).body;
        await request(gw, 'POST', `/v1/lists/${list.id}/contacts`, {
          apiKey: sub.apiKey,
          body: { contactId: contact.id },
        });
      }

      await host.waitFor(() => host.executions.length === 1, 'the auto-recharge execution');
      const execution = host.executions[0]!;
      const event = execution.output('LeadChat Trigger')[0]!.json;
      expect(event).toMatchObject({
        event: 'auto_recharge',
        type: 'auto_recharge',
        idempotency_key: expect.any(String),
        sub_account_id: sub.id,
        sub_account_email: sub.email,
        balance: 9,
        amount: 25,
        threshold: 10,
      });
      expect(execution.output('Grant Credits')[0]!.json).toMatchObject({
        success: true,
        sub_account_id: sub.id,
        credits_added: 25,
        new_balance: 34,
      });

      // The same event delivered again (a retried webhook) runs the workflow again: nothing more is granted.
      const delivery = host.deliveries.find((d) => d.status === 200)!;
      const again = await post(host.url, delivery.body, {
        ...signed(host.staticData.webhookSecret as string, delivery.body),
        'webhook-event': 'auto_recharge',
      });
      expect(again.status).toBe(200);
      await host.waitFor(() => host.executions.length === 2, 'the repeated execution');
      expect(host.executions[1]!.output('Grant Credits')[0]!.json).toMatchObject({ new_balance: 34 });
      const credits = await request(gw, 'GET', '/v1/credits', { apiKey: sub.apiKey });
      expect(credits.body.balance).toBe(34);
      expect(credits.body.transactions.filter((t: { kind: string }) => t.kind === 'usage')).toHaveLength(2);
      await host.deactivate();
    });
  });

  describe('signature verification', () => {
    let account: TestAccount;
    let host: WebhookHost;
    let secret: string;
    const reply = JSON.stringify({
      contactId: 'ct_1',
      messageId: 'msg_1',
      userId: 'usr_1',
      body: 'Hi',
      toId: 'visitor-1',
      channel: 'livechat',
    });

    beforeAll(async () => {
      account = await createAccount(gw);
      host = await hostFor(account, { events: ['reply'], registration: 'automatic' });
      await host.activate();
      secret = host.staticData.webhookSecret as string;
    });
    afterAll(async () => {
      await host.deactivate();
    });

    test('a correctly signed delivery starts an execution', async () => {
      const before = host.executions.length;
      const res = await post(host.url, reply, signed(secret, reply));
      expect(res.status).toBe(200);
      await host.waitFor(() => host.executions.length === before + 1, 'the execution');
      expect(host.executions.at(-1)!.output('LeadChat Trigger')[0]!.json).toMatchObject({ event: 'reply', body: 'Hi' });
    });

    test.each([
      ['no signature headers', () => ({})],
      [
        'a signature made with another secret',
        () => signed('whsec_' + Buffer.from('another secret').toString('base64'), reply),
      ],
      ['a signature of another body', () => signed(secret, reply.replace('Hi', 'Hello'))],
      ['a timestamp older than five minutes', () => signed(secret, reply, Math.floor(Date.now() / 1000) - 6 * 60)],
      ['a timestamp from the future', () => signed(secret, reply, Math.floor(Date.now() / 1000) + 6 * 60)],
    ])('%s gets 401 and starts nothing', async (_case, headers) => {
      const before = host.executions.length;
      const res = await post(host.url, reply, headers() as Record<string, string>);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error).toMatch(/Invalid webhook signature/);
      await new Promise((resolve) => setImmediate(resolve));
      expect(host.executions.length).toBe(before);
    });

    // Standard Webhooks: a sender rotating its secret signs with the new and the old one, space-separated.
    const other = 'whsec_' + Buffer.from('a secret of another rotation').toString('base64');
    const signedBy = (...secrets: string[]) => {
      const id = `msg_rotating_${Math.random().toString(36).slice(2)}`;
      const at = Math.floor(Date.now() / 1000);
      const each = secrets.map((s) => signed(s, reply, at, id)['webhook-signature']);
      return { ...signed(secrets[0]!, reply, at, id), 'webhook-signature': each.join(' ') };
    };

    test.each([
      ['first', () => signedBy(secret, other)],
      ['last', () => signedBy(other, other, secret)],
    ])('a header of several signatures, the matching one %s, starts an execution', async (_where, headers) => {
      const before = host.executions.length;
      const res = await post(host.url, reply, headers());
      expect(res.status).toBe(200);
      await host.waitFor(() => host.executions.length === before + 1, 'the execution');
    });

    test('a header of several signatures none of which matches gets 401 and starts nothing', async () => {
      const before = host.executions.length;
      const res = await post(host.url, reply, signedBy(other, 'whsec_' + Buffer.from('a third').toString('base64')));
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error).toBe('Invalid webhook signature: no matching v1 signature');
      await new Promise((resolve) => setImmediate(resolve));
      expect(host.executions.length).toBe(before);
    });

    test("the event is the signed body's type, never the unsigned webhook-event header", async () => {
      const before = host.executions.length;
      const relabelled = await post(host.url, reply, { ...signed(secret, reply), 'webhook-event': 'auto_recharge' });
      expect(relabelled.status).toBe(200);
      await host.waitFor(() => host.executions.length === before + 1, 'the execution');
      expect(host.executions.at(-1)!.output('LeadChat Trigger')[0]!.json).toMatchObject({ event: 'reply', body: 'Hi' });

      const optOut = JSON.stringify({ type: 'opt_out', contactId: 'ct_1', channel: 'sms', source: 'keyword' });
      const passedOff = await post(host.url, optOut, { ...signed(secret, optOut), 'webhook-event': 'reply' });
      expect(passedOff.status).toBe(200);
      expect(JSON.parse(passedOff.body)).toEqual({ received: true, ignored: 'opt_out' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(host.executions.length).toBe(before + 1);
    });

    test('the same delivery posted again is acknowledged and starts no second execution; another id does', async () => {
      const before = host.executions.length;
      const headers = signed(secret, reply);
      const first = await post(host.url, reply, headers);
      const again = await post(host.url, reply, headers);
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(JSON.parse(again.body)).toEqual({ received: true, duplicate: headers['webhook-id'] });
      const retried = await post(host.url, reply, signed(secret, reply, undefined, headers['webhook-id']));
      expect(retried.status).toBe(200);
      const other = await post(host.url, reply, signed(secret, reply));
      expect(other.status).toBe(200);
      await host.waitFor(() => host.executions.length === before + 2, 'the executions');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(host.executions.length).toBe(before + 2);
    });

    test('an event the trigger does not listen to is acknowledged and starts nothing', async () => {
      const before = host.executions.length;
      const body = JSON.stringify({ type: 'auto_recharge', idempotency_key: 'k1' });
      const res = await post(host.url, body, { ...signed(secret, body), 'webhook-event': 'auto_recharge' });
      expect(res.status).toBe(200);
      expect(host.executions.length).toBe(before);
    });
  });

  describe('manual registration', () => {
    test('verifies with the secret of the credential, the one the settings show', async () => {
      const account = await createAccount(gw);
      const settings = await request(gw, 'GET', '/v1/settings', { apiKey: account.apiKey });
      const settingsSecret = settings.body.webhookSecret as string;
      expect(settingsSecret).toMatch(/^whsec_/);
      const host = await hostFor(account, { events: ['reply'], registration: 'manual' }, [], {
        webhookSecret: settingsSecret,
      });
      await host.activate();
      expect(host.staticData.webhookId).toBeUndefined();
      expect((await request(gw, 'GET', '/v1/webhooks', { apiKey: account.apiKey })).body.data).toEqual([]);

      // The user pastes the production URL into the settings, as the notice says.
      const put = await request(gw, 'PUT', '/v1/settings', {
        apiKey: account.apiKey,
        body: { customChannelWebhookUrl: host.url },
      });
      expect(put.status).toBe(200);
      await request(gw, 'POST', '/v1/send_custom_channel_message', {
        apiKey: account.apiKey,
        body: { customData: { fromId: 'visitor-9', customChannel: 'web', body: 'Manual hello' } },
      });
      await host.waitFor(() => host.executions.length === 1, 'the reply execution');
      expect(host.executions[0]!.output('LeadChat Trigger')[0]!.json).toMatchObject({
        event: 'reply',
        body: 'Manual hello',
        toId: 'visitor-9',
      });

      const forged = await post(
        host.url,
        '{"body":"forged"}',
        signed('whsec_' + Buffer.from('guess').toString('base64'), '{"body":"forged"}'),
      );
      expect(forged.status).toBe(401);
      expect(host.executions).toHaveLength(1);
      await host.deactivate();
    });

    test('after a rotation, the credential still holding the old secret verifies replies for 24 hours, then 401', async () => {
      const clocked = await startGateway({ LEADCHAT_TEST_CLOCK: '1' });
      try {
        const account = await createAccount(clocked);
        const old = (await request(clocked, 'GET', '/v1/settings', { apiKey: account.apiKey })).body.webhookSecret;
        const host = await hostFor(
          account,
          { events: ['reply'], registration: 'manual' },
          [],
          { webhookSecret: old },
          clocked,
        );
        await host.activate();
        await request(clocked, 'PUT', '/v1/settings', {
          apiKey: account.apiKey,
          body: { customChannelWebhookUrl: host.url },
        });
        const rotated = await request(clocked, 'POST', '/v1/settings/webhook-secret', { apiKey: account.apiKey });
        expect(rotated.body.webhookSecret).not.toBe(old);
        const reply = async (body: string) => {
          const sent = await request(clocked, 'POST', '/v1/send_custom_channel_message', {
            apiKey: account.apiKey,
            body: { customData: { fromId: 'visitor-r', customChannel: 'web', body } },
          });
          await untilIdle(clocked);
          return (await request(clocked, 'GET', `/v1/messages/${sent.body.messageId}`, { apiKey: account.apiKey }))
            .body;
        };

        expect((await reply('During the grace')).status).toBe('sent');
        await host.waitFor(() => host.executions.length === 1, 'the reply execution');
        expect(host.executions.at(-1)!.output('LeadChat Trigger')[0]!.json).toMatchObject({ body: 'During the grace' });

        await advanceClock(clocked, '24h');
        const after = await reply('After it');
        expect(after).toMatchObject({ status: 'failed', error: 'Receiver answered HTTP 401' });
        expect(host.executions).toHaveLength(1);
        await host.deactivate();
      } finally {
        await clocked.stop();
      }
    });

    test('without a secret in the credential, unsigned deliveries of a service that does not sign are accepted', async () => {
      const account = await createAccount(gw);
      const host = await hostFor(account, { events: ['reply'], registration: 'manual' });
      await host.activate();
      const body = JSON.stringify({
        contactId: 'c',
        messageId: 'm',
        userId: 'u',
        body: 'Unsigned',
        toId: 't',
        channel: 'x',
      });
      const res = await post(host.url, body, {});
      expect(res.status).toBe(200);
      await host.waitFor(() => host.executions.length === 1, 'the execution');
      expect(host.executions[0]!.output('LeadChat Trigger')[0]!.json).toEqual({ event: 'reply', ...JSON.parse(body) });
    });

    test('switching an active trigger from Automatic to Manual removes its old subscription', async () => {
      const account = await createAccount(gw);
      const host = await hostFor(account, { events: ['reply'], registration: 'automatic' });
      await host.activate();
      const id = host.staticData.webhookId as string;
      host.trigger.parameters.registration = 'manual';
      await host.activate();
      expect(host.staticData.webhookId).toBeUndefined();
      expect((await request(gw, 'GET', `/v1/webhooks/${id}`, { apiKey: account.apiKey })).status).toBe(404);
    });
  });
});
