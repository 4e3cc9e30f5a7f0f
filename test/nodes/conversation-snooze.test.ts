import { getGlobalState } from 'n8n-workflow';

import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { Receiver } from '../gateway/api-support';
import { CREDENTIAL, createHost, runLeadChat, type Host } from './helpers/n8n';

const DAY = 24 * 60 * 60_000;

/** Conversation › Snooze: until a time (picked in the workflow's time zone, or mapped with its offset), or wake now. */
describe('LeadChat node: Conversation › Snooze', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  let replies: Receiver;
  let conversationId: string;

  const conversation = async (id: string) =>
    (await request(gw, 'GET', `/v1/conversations/${id}`, { apiKey: account.apiKey })).body;
  const snooze = (parameters: Record<string, unknown>, input = [{ json: {} }], continueOnFail = false) =>
    runLeadChat(host, { resource: 'conversation', operation: 'snooze', ...parameters }, input, { continueOnFail });

  beforeAll(async () => {
    gw = await startGateway();
    replies = await Receiver.start();
    account = await createAccount(gw, { name: 'Acme Snooze' });
    await request(gw, 'PUT', '/v1/settings', {
      apiKey: account.apiKey,
      body: { customChannelWebhookUrl: replies.url },
    });
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
    const sent = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
      apiKey: account.apiKey,
      body: {
        customData: {
          messageSid: `snz-${Date.now()}`,
          fromId: 'visitor-snz',
          toId: 'acme',
          body: 'Next month',
          channel: 'webchat',
        },
      },
    });
    const message = await request(gw, 'GET', `/v1/messages/${sent.body.messageId}`, { apiKey: account.apiKey });
    conversationId = message.body.conversationId;
    // Answered: nobody must act, so it may be snoozed.
    const reply = await request(gw, 'POST', `/v1/contacts/${message.body.contactId}/messages`, {
      apiKey: account.apiKey,
      body: { body: 'Talk then!' },
    });
    expect(reply.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await replies.close();
    await gw.stop();
  });

  test('a time mapped with its offset snoozes the conversation until then; the node outputs it', async () => {
    // As Berlin writes it in summer, two hours ahead of UTC: answered in UTC.
    const until = new Date(Date.now() + 30 * DAY).toISOString().replace(/\.\d{3}Z$/, '+02:00');
    const utc = new Date(until).toISOString();
    const run = await snooze({ conversationId: '={{ $json.conversationId }}', until }, [{ json: { conversationId } }]);
    expect(run.error).toBeUndefined();
    const [out] = run.output('LeadChat');
    expect(out).toMatchObject({ json: { id: conversationId, snoozedUntil: utc }, pairedItem: { item: 0 } });
    expect((await conversation(conversationId)).snoozedUntil).toBe(utc);
  });

  test("a date and time picked without an offset is read in the workflow's time zone", async () => {
    const zone = getGlobalState().defaultTimezone;
    const day = new Date(Date.now() + 10 * DAY).toISOString().slice(0, 10);
    const run = await snooze({ conversationId, until: `${day}T09:00:00` });
    expect(run.error).toBeUndefined();
    const snoozedUntil = (await conversation(conversationId)).snoozedUntil as string;
    const wall = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium' }).format(
      new Date(snoozedUntil),
    );
    expect(wall).toBe(`${day} 09:00:00`);
  });

  test('Get Many keeps the snoozed conversations with Snoozed on, and only the others with it off', async () => {
    const getMany = async (snoozed: boolean) => {
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'getAll',
        returnAll: true,
        filters: { snoozed },
      });
      expect(run.error).toBeUndefined();
      return run.output('LeadChat').map((i) => i.json.id);
    };
    expect(await getMany(true)).toEqual([conversationId]);
    expect(await getMany(false)).toEqual([]);
  });

  test('Wake Now brings it back; a time past, or none, fails the item, the others go on', async () => {
    const woken = await snooze({ conversationId, snoozeAction: 'wake' });
    expect(woken.output('LeadChat')[0]!.json).toMatchObject({ id: conversationId, snoozedUntil: null });
    expect((await conversation(conversationId)).snoozedUntil).toBeNull();

    expect((await snooze({ conversationId, until: ' ' })).error?.message).toBe('Until is empty');
    const run = await snooze(
      { conversationId: '={{ $json.conversationId }}', until: '={{ $json.until }}' },
      [
        { json: { conversationId, until: '2020-01-01T09:00:00Z' } },
        { json: { conversationId: 'cnv_missing', until: new Date(Date.now() + DAY).toISOString() } },
      ],
      true,
    );
    const [past, missing] = run.output('LeadChat');
    expect(past!.json).toMatchObject({ httpCode: '400', errorCode: 'VALIDATION_ERROR' });
    expect(missing!.json).toMatchObject({ httpCode: '404', errorCode: 'CONVERSATION_NOT_FOUND' });
    expect((await conversation(conversationId)).snoozedUntil).toBeNull();
  });
});
