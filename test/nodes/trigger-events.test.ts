import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { INodePropertyOptions } from 'n8n-workflow';

import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { CREDENTIAL, LEADCHAT_TRIGGER, createHost, signed, triggerNode } from './helpers/n8n';
import { WebhookHost } from './helpers/webhookHost';
import { gatewayModule } from '../helpers/gateway-modules';

type EventsModule = typeof import('../../gateway/src/domain/events.js', { with: { 'resolution-mode': 'import' } });

/** The trigger's events are the gateway's events, and each delivery is told apart by its header or its type. */
describe('LeadChat Trigger events', () => {
  let gatewayEvents: readonly string[];
  let triggerEvents: INodePropertyOptions[];

  beforeAll(async () => {
    const events = (await gatewayModule(
      path.resolve(__dirname, '../../gateway/dist/domain/events.js'),
    )) as EventsModule;
    gatewayEvents = events.EVENTS;
    const host = await createHost({});
    const type = host.nodeTypes.getByNameAndVersion(LEADCHAT_TRIGGER, 1);
    const property = type.description.properties.find((p) => p.name === 'events')!;
    triggerEvents = property.options as INodePropertyOptions[];
  });

  test('the trigger offers exactly the events the gateway delivers', () => {
    expect(triggerEvents.map((o) => o.value).sort()).toEqual([...gatewayEvents].sort());
  });

  test("the trigger's events are the API document's webhooks, but the test of the Custom Channel Webhook URL", () => {
    const document = JSON.parse(readFileSync(path.resolve(__dirname, '../../gateway/dist/openapi.json'), 'utf8')) as {
      webhooks: Record<string, unknown>;
    };
    expect(triggerEvents.map((o) => o.value).sort()).toEqual(
      Object.keys(document.webhooks)
        .filter((name) => name !== 'test')
        .sort(),
    );
  });

  test("the guide names every reason a Hand-Off carries in the API document, for a workflow's Switch on it", () => {
    const document = JSON.parse(readFileSync(path.resolve(__dirname, '../../gateway/dist/openapi.json'), 'utf8')) as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    };
    const reasons = document.components.schemas.HandoffEvent!.properties.reason!.enum!;
    const guide = readFileSync(path.resolve(__dirname, '../../docs/n8n.md'), 'utf8');
    const handoff = guide.split('\n- ').find((bullet) => bullet.startsWith('Hand-Off: '))!;
    expect(reasons.filter((reason) => !handoff.includes(`\`${reason}\``))).toEqual([]);
  });

  test('each event has a name and a description, listed alphabetically as n8n shows options', () => {
    const names = triggerEvents.map((o) => o.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(names).toEqual([
      'Auto-Recharge',
      'Conversation Labeled',
      'Delivery Failed',
      'Goal Reached',
      'Hand-Off',
      'Hand-Off Waiting',
      'Message Received',
      'Opt-Out',
      'Reply',
      'Snooze Ended',
    ]);
    for (const option of triggerEvents) expect(option.description).toMatch(/\S/);
  });

  describe('deliveries', () => {
    let gw: TestGateway;
    let account: TestAccount;
    let host: WebhookHost;
    let secret: string;
    let sequence = 0;

    const deliver = async (payload: Record<string, unknown>, event?: string) => {
      const body = JSON.stringify(payload);
      sequence += 1;
      const headers = {
        'content-type': 'application/json',
        ...signed(secret, body, undefined, `msg_events_${sequence}`),
        ...(event ? { 'webhook-event': event } : {}),
      };
      const res = await fetch(host.url, { method: 'POST', body, headers });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    beforeAll(async () => {
      gw = await startGateway();
      account = await createAccount(gw);
      host = await WebhookHost.start(
        { [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } },
        {
          nodes: [
            triggerNode({
              events: ['message_received', 'handoff', 'opt_out', 'delivery_failed'],
              registration: 'automatic',
            }),
          ],
        },
        'LeadChat Trigger',
      );
      await host.activate();
      secret = host.staticData.webhookSecret as string;
    });
    afterAll(async () => {
      await host.deactivate();
      await host.close();
      await gw.stop();
    });

    test('activation subscribes the gateway to the selected new events', async () => {
      const listed = await request(gw, 'GET', '/v1/webhooks', { apiKey: account.apiKey });
      expect(listed.body.data).toEqual([
        expect.objectContaining({
          url: host.url,
          events: expect.arrayContaining(['message_received', 'handoff', 'opt_out', 'delivery_failed']),
        }),
      ]);
      expect(listed.body.data[0].events).toHaveLength(4);
    });

    test("the gateway's own events: a contact asking for a person starts a Message Received and a Hand-off execution", async () => {
      const before = host.executions.length;
      const sent = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
        apiKey: account.apiKey,
        body: {
          customData: {
            messageSid: 'ask-human-1',
            fromId: 'visitor-h',
            toId: 'acme',
            body: 'Can I talk to a human, please?',
            channel: 'webchat',
          },
        },
      });
      expect(sent.status).toBe(200);
      // The contact is told a person will answer; with no Custom Channel Webhook URL set, that notice fails too.
      await host.waitFor(() => host.executions.length >= before + 3, 'the three executions');
      const events = host.executions.slice(before).map((run) => run.output('LeadChat Trigger')[0]!.json);
      expect(events.map((e) => e.event).sort()).toEqual(['delivery_failed', 'handoff', 'message_received']);
      const received = events.find((e) => e.event === 'message_received')!;
      const handoff = events.find((e) => e.event === 'handoff')!;
      expect(received).toMatchObject({
        type: 'message_received',
        deliveryId: expect.any(String),
        messageId: sent.body.messageId,
        body: 'Can I talk to a human, please?',
        fromId: 'visitor-h',
      });
      expect(handoff).toMatchObject({
        type: 'handoff',
        contactId: received.contactId,
        conversationId: received.conversationId,
        reason: 'contact_asked',
      });
    });

    test.each([
      [
        'message_received',
        { contactId: 'ct_1', conversationId: 'cnv_1', messageId: 'msg_1', channel: 'custom', body: 'Hi' },
      ],
      ['handoff', { contactId: 'ct_1', conversationId: 'cnv_1', reason: 'contact_asked', body: 'a human please' }],
      ['opt_out', { contactId: 'ct_1', channel: 'sms', source: 'contact', body: 'STOP' }],
      [
        'delivery_failed',
        { contactId: 'ct_1', conversationId: 'cnv_1', messageId: 'msg_2', channel: 'custom', error: 'HTTP 500' },
      ],
    ])('%s named by the webhook-event header starts an execution carrying it', async (event, payload) => {
      const before = host.executions.length;
      const res = await deliver({ type: event, occurredAt: new Date().toISOString(), ...payload }, event);
      expect(res.status).toBe(200);
      await host.waitFor(() => host.executions.length === before + 1, `the ${event} execution`);
      expect(host.executions.at(-1)!.output('LeadChat Trigger')[0]!.json).toEqual({
        event,
        deliveryId: expect.stringMatching(/^msg_events_/),
        type: event,
        occurredAt: expect.any(String),
        ...payload,
      });
    });

    test("without the header, the payload's type names the event", async () => {
      const before = host.executions.length;
      const res = await deliver({ type: 'opt_out', contactId: 'ct_9', channel: 'whatsapp', body: 'STOP' });
      expect(res.status).toBe(200);
      await host.waitFor(() => host.executions.length === before + 1, 'the opt-out execution');
      expect(host.executions.at(-1)!.output('LeadChat Trigger')[0]!.json).toMatchObject({
        event: 'opt_out',
        contactId: 'ct_9',
      });
    });

    test('the signed type wins over the unsigned header', async () => {
      const before = host.executions.length;
      await deliver({ type: 'handoff', contactId: 'ct_10' }, 'reply');
      await host.waitFor(() => host.executions.length === before + 1, 'the hand-off execution');
      expect(host.executions.at(-1)!.output('LeadChat Trigger')[0]!.json).toMatchObject({
        event: 'handoff',
        contactId: 'ct_10',
      });
      const relabelled = await deliver({ type: 'reply', contactId: 'ct_10' }, 'handoff');
      expect(relabelled.body).toEqual({ received: true, ignored: 'reply' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(host.executions.length).toBe(before + 1);
    });

    test.each([
      ['an event not selected', { type: 'reply', body: 'Hi' }, 'reply'],
      ['an event with no name, taken as a reply (the hosted service sends no type)', { body: 'Hi' }, undefined],
      ['an event the trigger does not know', { type: 'campaign_finished' }, 'campaign_finished'],
    ])('%s is acknowledged and starts nothing', async (_case, payload, event) => {
      const before = host.executions.length;
      const res = await deliver(payload, event);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, ignored: event ?? 'reply' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(host.executions.length).toBe(before);
    });
  });
});
