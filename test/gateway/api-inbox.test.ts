import { createHmac } from 'node:crypto';
import {
  api,
  createAccount,
  expectApiError,
  incoming,
  poll,
  Receiver,
  request,
  settledMessage,
  unique,
  untilIdle,
  uniquePhone,
  useGateway,
  verifyStandardWebhook,
  type Received,
  type TestAccount,
} from './api-support';
import { processed } from '../helpers/inbound';
import { twilio, whatsapp } from '../helpers/provider-accounts';

/**
 * What the console's inbox needs from the API, over HTTPS: a failed outgoing message sent again (custom channel,
 * SMS, WhatsApp) with what cannot be retried refused, charged once; and unread counts with "mark read".
 */
const PUBLIC_URL = 'https://chat.example.test';
/** Recipients the channel providers' stand-in refuses until a test lets them through. */
const refused = new Set<string>();
let sent = 0;

function providerAnswer(_n: number, req: Received) {
  if (req.path.startsWith('/2010-04-01/Accounts/')) {
    if (refused.has(new URLSearchParams(req.raw).get('To') ?? '')) {
      return {
        status: 400,
        body: JSON.stringify({
          code: 21408,
          message: 'Permission to send an SMS has not been enabled for the region',
          status: 400,
        }),
      };
    }
    return { status: 201, body: JSON.stringify({ sid: `SM${String(++sent).padStart(32, '0')}`, status: 'queued' }) };
  }
  if (req.path.endsWith('/messages')) {
    if (refused.has(`+${req.body?.to}`))
      return { status: 400, body: JSON.stringify({ error: { message: 'Message undeliverable', code: 131026 } }) };
    return {
      status: 200,
      body: JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.${++sent}` }] }),
    };
  }
  return { status: 404 };
}

const env: Record<string, string> = {
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_WEBHOOK_RETRIES: '100ms,100ms',
  LEADCHAT_PUBLIC_URL: PUBLIC_URL,
};
let provider: Receiver;
beforeAll(async () => {
  provider = await Receiver.start(providerAnswer);
  const base = provider.url.replace(/\/hook$/, '');
  env.LEADCHAT_TWILIO_API_URL = base;
  env.LEADCHAT_WHATSAPP_API_URL = `${base}/v23.0`;
});
const ctx = useGateway(env);
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all([provider, ...receivers].map((r) => r.close()));
});

async function receiver(respond?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> {
  const r = await Receiver.start(respond);
  receivers.push(r);
  return r;
}

const retry = (account: TestAccount, messageId: string) => api(ctx.gw, account, 'POST', `messages/${messageId}/retry`);
const send = (account: TestAccount, fromId: string, body = 'Your order shipped') =>
  api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
    body: { customData: { fromId, customChannel: 'web-chat', body } },
  });
const messagesOf = async (account: TestAccount, contactId: string) =>
  (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[];
const conversationOf = async (account: TestAccount, id: string) =>
  (await api(ctx.gw, account, 'GET', `conversations/${id}`)).body;
const ledger = async (account: TestAccount) => (await api(ctx.gw, account, 'GET', 'credits')).body;
const usageOf = async (account: TestAccount, messageId: string) =>
  (await ledger(account)).transactions.filter((t: any) => t.kind === 'usage' && t.messageId === messageId);
const toProvider = (phone: string) =>
  provider.requests.filter((r) => new URLSearchParams(r.raw).get('To') === phone || r.body?.to === phone.slice(1));

async function withWebhook(url?: string): Promise<TestAccount & { secret: string }> {
  const account = await createAccount(ctx.gw);
  if (url)
    expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: url } })).status).toBe(
      200,
    );
  return { ...account, secret: (await api(ctx.gw, account, 'GET', 'settings')).body.webhookSecret };
}

describe('POST /v1/messages/{id}/retry on a custom channel', () => {
  test('a delivery the receiver failed goes again on a whole new retry schedule, with the same webhook-id, signed, until it is sent', async () => {
    let healthy = false;
    const hook = await receiver(() => (healthy ? { status: 200 } : { status: 500, body: 'down for maintenance' }));
    const account = await withWebhook(hook.url);
    const res = await send(account, unique('visitor'));
    const failed = await settledMessage(ctx.gw, account, res.body.messageId);
    expect(failed).toMatchObject({ status: 'failed', error: 'Receiver answered HTTP 500', errorCode: null });
    expect(failed.deliveries).toHaveLength(1);
    expect(failed.deliveries[0].attempts.map((a: any) => a.status)).toEqual([500, 500, 500]);
    const conversationId = failed.conversationId;
    expect((await conversationOf(account, conversationId)).lastMessage).toMatchObject({
      id: failed.id,
      status: 'failed',
    });

    // Still down: the retry gets all its retries (three attempts more), then fails again.
    const first = await retry(account, failed.id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: failed.id,
      status: 'pending',
      error: null,
      deliveries: [{ id: failed.deliveries[0].id, status: 'pending' }],
    });
    const again = await settledMessage(ctx.gw, account, failed.id);
    expect(again.status).toBe('failed');
    expect(again.deliveries[0].attempts).toHaveLength(6);

    healthy = true;
    expect((await retry(account, failed.id)).body.status).toBe('pending');
    const done = await settledMessage(ctx.gw, account, failed.id);
    expect(done).toMatchObject({ status: 'sent', error: null });
    expect(done.deliveries).toEqual([
      expect.objectContaining({ id: failed.deliveries[0].id, status: 'sent', target: 'customChannelWebhook' }),
    ]);
    expect(done.deliveries[0].attempts.map((a: any) => a.status)).toEqual([500, 500, 500, 500, 500, 500, 200]);
    expect(hook.requests).toHaveLength(7);
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([failed.deliveries[0].id]));
    expect(hook.requests.every((r) => verifyStandardWebhook(account.secret, r))).toBe(true);
    expect(hook.requests.at(-1)!.raw).toBe(hook.requests[0]!.raw);
    expect((await conversationOf(account, conversationId)).lastMessage).toMatchObject({
      id: failed.id,
      status: 'sent',
    });

    expectApiError(await retry(account, failed.id), 409, 'MESSAGE_NOT_FAILED');
    expectApiError(await retry(await createAccount(ctx.gw), failed.id), 404, 'MESSAGE_NOT_FOUND');
    expectApiError(await retry(account, 'msg_doesnotexist'), 404, 'MESSAGE_NOT_FOUND');
  });

  test('failed for want of a receiver: 409 NO_RECEIVER until a URL is set, then delivered there; a receiver added since gets it too', async () => {
    const account = await withWebhook();
    const fromId = unique('visitor');
    const failed = (await api(ctx.gw, account, 'GET', `messages/${(await send(account, fromId)).body.messageId}`)).body;
    expect(failed).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/No Custom Channel Webhook URL/),
      deliveries: [],
    });
    const refusal = await retry(account, failed.id);
    expectApiError(refusal, 409, 'NO_RECEIVER');
    expect((await api(ctx.gw, account, 'GET', `messages/${failed.id}`)).body.status).toBe('failed');

    const hook = await receiver();
    const subscriber = await receiver();
    await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
    await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: subscriber.url, events: ['reply'] } });
    expect((await retry(account, failed.id)).status).toBe(200);
    // The message is sent once one receiver took it; the other's delivery may still be on its way.
    const done = await poll(
      () => api(ctx.gw, account, 'GET', `messages/${failed.id}`),
      (r) => r.body.deliveries.every((d: any) => d.status !== 'pending'),
    );
    expect(done.body.status).toBe('sent');
    expect(done.body.deliveries.map((d: any) => d.status)).toEqual(['sent', 'sent']);
    const [posted] = await hook.waitFor(1);
    expect(posted!.body).toEqual({
      contactId: failed.contactId,
      messageId: failed.id,
      userId: account.id,
      body: 'Your order shipped',
      toId: fromId,
      channel: 'web-chat',
    });
    expect(verifyStandardWebhook(account.secret, posted!)).toBe(true);
    expect((await subscriber.waitFor(1))[0]!.body).toEqual(posted!.body);
  });

  test('refused: a message from the contact, and a message to a contact who opted out since', async () => {
    const hook = await receiver(() => ({ status: 500 }));
    const account = await withWebhook(hook.url);
    const fromId = unique('visitor');
    const received = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId, channel: 'web-chat' }),
    });
    expectApiError(await retry(account, received.body.messageId), 409, 'MESSAGE_INCOMING');

    const failed = await settledMessage(ctx.gw, account, (await send(account, fromId)).body.messageId);
    expect(failed.status).toBe('failed');
    await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId, channel: 'web-chat', body: 'STOP' }),
    });
    expectApiError(await retry(account, failed.id), 409, 'CONTACT_OPTED_OUT');
    // A new message to a contact who opted out is refused too, and nothing of it is stored.
    const before = (await api(ctx.gw, account, 'GET', `messages/${failed.id}`)).body.contactId;
    const count = async () =>
      (await api(ctx.gw, account, 'GET', `contacts/${before}/messages?limit=200`)).body.data.length;
    const stored = await count();
    expectApiError(await send(account, fromId), 409, 'CONTACT_OPTED_OUT');
    expect(await count()).toBe(stored);
  });
});

describe('POST /v1/messages/{id}/retry on SMS and WhatsApp', () => {
  async function subAccount(credits: number, channels: { twilio?: object; whatsapp?: object }) {
    const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
    const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
    if (credits)
      await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: credits } });
    for (const [name, body] of Object.entries(channels))
      expect((await api(ctx.gw, sub, 'PUT', `channels/${name}`, { body })).status).toBe(200);
    return { agency, sub };
  }

  /** A lead added to a Live SMS campaign's list: its opening message, once it settled. */
  async function smsOpening(account: TestAccount, phone: string) {
    const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Funnel',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hi {{first_name}}!',
        triggerOnNewContacts: true,
        status: 'live',
      },
    });
    const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone, firstName: 'Ann' } })).body;
    await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } });
    const [message] = await poll(
      () => messagesOf(account, contact.id),
      (m) => m.length > 0 && m[0].status !== 'pending',
    );
    return message;
  }

  test('an SMS the provider refused goes to the provider again and is sent; it was charged once, when first sent', async () => {
    const { sub } = await subAccount(5, { twilio });
    const phone = uniquePhone();
    refused.add(phone);
    const failed = await smsOpening(sub, phone);
    expect(failed).toMatchObject({
      status: 'failed',
      provider: 'twilio',
      errorCode: '21408',
      error: expect.stringMatching(/^Twilio 21408: Permission/),
    });
    expect(await usageOf(sub, failed.id)).toHaveLength(1);

    refused.delete(phone);
    const res = await retry(sub, failed.id);
    expect(res.body).toMatchObject({ status: 'pending', error: null, errorCode: null });
    const done = await settledMessage(ctx.gw, sub, failed.id);
    expect(done).toMatchObject({
      status: 'sent',
      providerMessageId: expect.stringMatching(/^SM/),
      error: null,
      errorCode: null,
    });
    expect(toProvider(phone)).toHaveLength(2);
    expect(await usageOf(sub, failed.id)).toHaveLength(1);
    expect((await ledger(sub)).balance).toBe(4);
  });

  test('INSUFFICIENT_CREDITS: 409 while the balance is still short, nothing sent; after a grant, sent and charged then, once', async () => {
    const { agency, sub } = await subAccount(0, { twilio });
    const phone = uniquePhone();
    const failed = await smsOpening(sub, phone);
    expect(failed).toMatchObject({ status: 'failed', errorCode: 'INSUFFICIENT_CREDITS', provider: null });

    expectApiError(await retry(sub, failed.id), 409, 'INSUFFICIENT_CREDITS');
    expect((await api(ctx.gw, sub, 'GET', `messages/${failed.id}`)).body).toMatchObject({
      status: 'failed',
      errorCode: 'INSUFFICIENT_CREDITS',
    });
    expect(toProvider(phone)).toHaveLength(0);

    await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 2 } });
    expect((await retry(sub, failed.id)).status).toBe(200);
    expect(await settledMessage(ctx.gw, sub, failed.id)).toMatchObject({ status: 'sent', provider: 'twilio' });
    expect(toProvider(phone)).toHaveLength(1);
    expect((await usageOf(sub, failed.id)).map((t: any) => t.amount)).toEqual([-1]);
    expect((await ledger(sub)).balance).toBe(1);
    expectApiError(await retry(sub, failed.id), 409, 'MESSAGE_NOT_FAILED');
  });

  test('WhatsApp: a failed message whose 24-hour window closed since, and a skipped one, are refused with OUTSIDE_24H_WINDOW', async () => {
    const { sub } = await subAccount(10, { whatsapp });
    const phone = uniquePhone();
    refused.add(phone);
    // The contact wrote 24 hours less 4 seconds ago (on the gateway's clock): the team's answer is still inside the
    // window, its retry not.
    const wroteAt = ctx.gw.now() - 24 * 3_600_000 + 4_000;
    const payload = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { phone_number_id: whatsapp.phoneNumberId },
                contacts: [{ wa_id: phone.slice(1), profile: { name: 'Lucía' } }],
                messages: [
                  {
                    from: phone.slice(1),
                    id: unique('wamid'),
                    timestamp: String(Math.floor(wroteAt / 1000)),
                    type: 'text',
                    text: { body: 'Hola' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const signature = `sha256=${createHmac('sha256', whatsapp.appSecret).update(payload).digest('hex')}`;
    const hook = await processed(
      ctx.gw,
      request(ctx.gw, 'POST', `/v1/channels/whatsapp/${sub.id}/webhook`, {
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body: payload,
      }),
    );
    expect(hook.status).toBe(200);
    const contact = (await api(ctx.gw, sub, 'GET', 'contacts', { query: { phoneNumber: phone } })).body;
    const reply = await api(ctx.gw, sub, 'POST', `contacts/${contact.id}/messages`, { body: { body: 'Hola Lucía' } });
    expect(reply.status).toBe(201);
    const failed = await settledMessage(ctx.gw, sub, reply.body.id);
    expect(failed).toMatchObject({ status: 'failed', errorCode: '131026' });

    refused.delete(phone);
    await ctx.gw.advance(Math.max(0, wroteAt + 24 * 3_600_000 - ctx.gw.now()) + 1_000);
    expectApiError(await retry(sub, failed.id), 409, 'OUTSIDE_24H_WINDOW');
    const skipped = (
      await api(ctx.gw, sub, 'POST', `contacts/${contact.id}/messages`, { body: { body: 'Hola otra vez' } })
    ).body;
    expect(skipped).toMatchObject({ status: 'skipped', errorCode: 'OUTSIDE_24H_WINDOW' });
    expectApiError(await retry(sub, skipped.id), 409, 'OUTSIDE_24H_WINDOW');
    // The team's answer went once, refused; neither its retry nor the skipped one went (the hand-off notice aside).
    expect(toProvider(phone).filter((r) => r.body?.text?.body?.startsWith('Hola'))).toHaveLength(1);
    expect(await usageOf(sub, failed.id)).toHaveLength(1);
  });
});

describe('unread conversations', () => {
  test("unread counts the contact's messages since the conversation was last read; POST /read sets it back to 0", async () => {
    const account = await withWebhook((await receiver()).url);
    const fromId = unique('visitor');
    const write = (extra: Record<string, unknown> = {}, body = 'Hello?') =>
      api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
        body: incoming({ fromId, channel: 'web-chat', body }, extra),
      });
    const first = await write();
    await write({}, 'Anyone there?');
    const conversationId = (await api(ctx.gw, account, 'GET', `messages/${first.body.messageId}`)).body.conversationId;
    const listed = (await api(ctx.gw, account, 'GET', 'conversations')).body.data;
    expect(listed.find((c: any) => c.id === conversationId)).toMatchObject({ unread: 2, lastReadAt: null });

    // A reaction and the account's own messages are nothing to read.
    await write({ messageType: 'reaction' }, '👍');
    await send(account, fromId, 'Yes, how can we help?');
    expect(await conversationOf(account, conversationId)).toMatchObject({
      unread: 2,
      lastMessage: { direction: 'outgoing' },
    });

    const read = await api(ctx.gw, account, 'POST', `conversations/${conversationId}/read`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: conversationId,
      unread: 0,
      lastReadAt: expect.stringMatching(/Z$/),
      contact: { fromId },
    });
    expect(await conversationOf(account, conversationId)).toMatchObject({
      unread: 0,
      lastReadAt: read.body.lastReadAt,
    });

    await write({}, 'One more question');
    expect((await conversationOf(account, conversationId)).unread).toBe(1);
    expectApiError(
      await api(ctx.gw, await createAccount(ctx.gw), 'POST', `conversations/${conversationId}/read`),
      404,
      'CONVERSATION_NOT_FOUND',
    );
    expect((await conversationOf(account, conversationId)).unread).toBe(1);
  });
});

describe('conversations that need a reply', () => {
  test('needsReply while the contact wrote last, read or not; ?needsReply=true lists those, =false the others', async () => {
    const account = await withWebhook((await receiver()).url);
    const write = (fromId: string, body: string) =>
      api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
        body: incoming({ fromId, channel: 'web-chat', body }),
      });
    const conversationIdOf = async (reply: { body: { messageId: string } }) =>
      (await api(ctx.gw, account, 'GET', `messages/${reply.body.messageId}`)).body.conversationId as string;
    const ids = async (query: string) =>
      ((await api(ctx.gw, account, 'GET', `conversations?${query}`)).body.data as any[]).map((c) => c.id);

    const alice = await conversationIdOf(await write('alice', 'Hi, how much is it?'));
    const bob = await conversationIdOf(await write('bob', 'Hello'));
    // Answered and read: Bob needs nothing now, though his conversation has the newest activity.
    await send(account, 'bob', 'Hi Bob, how can we help?');
    await api(ctx.gw, account, 'POST', `conversations/${bob}/read`);
    expect(await conversationOf(account, bob)).toMatchObject({ needsReply: false, unread: 0 });
    expect(await conversationOf(account, alice)).toMatchObject({ needsReply: true, unread: 1 });
    expect(await ids('needsReply=true')).toEqual([alice]);
    expect(await ids('needsReply=false')).toEqual([bob]);

    // Read but not answered: still needs a reply. Answered: no longer.
    await api(ctx.gw, account, 'POST', `conversations/${alice}/read`);
    expect(await conversationOf(account, alice)).toMatchObject({ needsReply: true, unread: 0 });
    expect(await ids('needsReply=true')).toEqual([alice]);
    await send(account, 'alice', 'It is $90.');
    expect(await conversationOf(account, alice)).toMatchObject({ needsReply: false });
    expect(await ids('needsReply=true')).toEqual([]);

    // The contact writes again: needed again, and filters combine.
    await write('bob', 'Are you open on Sunday?');
    expect(await ids('needsReply=true&channel=custom')).toEqual([bob]);
    // No campaign answers them: their conversations went to the team.
    expect(await ids('needsReply=true&status=handed_off')).toEqual([bob]);
    expect(await ids('needsReply=true&status=active')).toEqual([]);
    expectApiError(await api(ctx.gw, account, 'GET', 'conversations?needsReply=yes'), 400, 'VALIDATION_ERROR');
  });
});

describe('conversations holding a failed message', () => {
  test('?failed=true lists the conversations holding a failed outgoing message, =false the others', async () => {
    const account = await withWebhook();
    const ids = async (query: string) =>
      ((await api(ctx.gw, account, 'GET', `conversations?${query}`)).body.data as any[]).map((c) => c.id);
    const conversationIdOf = async (messageId: string) =>
      (await api(ctx.gw, account, 'GET', `messages/${messageId}`)).body.conversationId as string;
    // No receiver is set: the message to Ann fails at once. Bob wrote once there was one, and nothing to him failed.
    const ann = await conversationIdOf((await send(account, 'ann')).body.messageId);
    await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: (await receiver()).url } });
    const bob = await conversationIdOf(
      (
        await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
          body: incoming({ fromId: 'bob', channel: 'web-chat' }),
        })
      ).body.messageId,
    );
    expect((await conversationOf(account, ann)).failed).toBe(1);
    await untilIdle(ctx.gw);
    expect((await conversationOf(account, bob)).failed).toBe(0);
    expect(await ids('failed=true')).toEqual([ann]);
    expect(await ids('failed=false')).toEqual([bob]);
    expect(await ids('failed=false&needsReply=true')).toEqual([bob]);
  });
});
