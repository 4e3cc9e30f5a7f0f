import { createHmac } from 'node:crypto';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  poll,
  Receiver,
  request,
  unique,
  untilIdle,
  useGateway,
  type Answer,
  type Received,
  type TestAccount,
} from './api-support';
import { clockOf } from '../helpers/gateway';
import { processed } from '../helpers/inbound';
import { hex, instagram, messenger } from '../helpers/provider-accounts';

/**
 * Messenger and Instagram over HTTPS, with Meta's Graph API stood in by a local server: credentials, the webhook
 * handshake and signatures, a Messenger lead answered by the FAQ bot and handed off, an Instagram lead opting out,
 * Meta's windows (24 hours; a person's reply tagged HUMAN_AGENT for 7 days), receipts, Meta's errors, and the rule
 * that a business never writes first there.
 */
jest.setTimeout(60_000);

const PUBLIC_URL = 'https://chat.example.test';

/** What the Send API answers next, by recipient: a Graph error to give, else the message is taken. */
const refusals = new Map<string, { status: number; code: number; message: string }>();
let sent = 0;

function graph(_n: number, req: Received): Answer {
  const profile = /^\/v23\.0\/(\d+)\?fields=/.exec(req.path);
  if (req.method === 'GET' && profile) {
    if (req.path.includes('first_name'))
      return { status: 200, body: JSON.stringify({ first_name: 'Marta', last_name: 'Ruiz', id: profile[1] }) };
    return { status: 200, body: JSON.stringify({ name: 'Iris Bloom', username: 'iris.b', id: profile[1] }) };
  }
  if (req.method === 'POST' && /^\/v23\.0\/\d+\/messages$/.test(req.path)) {
    const refusal = refusals.get(req.body?.recipient?.id);
    if (refusal) {
      refusals.delete(req.body.recipient.id);
      return {
        status: refusal.status,
        body: JSON.stringify({ error: { message: refusal.message, type: 'OAuthException', code: refusal.code } }),
      };
    }
    return { status: 200, body: JSON.stringify({ recipient_id: req.body?.recipient?.id, message_id: `m_${++sent}` }) };
  }
  return { status: 404, body: JSON.stringify({ error: { message: 'Unsupported request', code: 100 } }) };
}

const env: Record<string, string> = {
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_BOT_DEBOUNCE: '0s',
  LEADCHAT_PUBLIC_URL: PUBLIC_URL,
  LEADCHAT_TEST_CLOCK: '1',
  LEADCHAT_WEBHOOK_RETRIES: '100ms,100ms',
};
let provider: Receiver;
beforeAll(async () => {
  provider = await Receiver.start(graph);
  const base = provider.url.replace(/\/hook$/, '');
  env.LEADCHAT_MESSENGER_API_URL = `${base}/v23.0`;
  env.LEADCHAT_INSTAGRAM_API_URL = `${base}/v23.0`;
});
const ctx = useGateway(env);
const hooks: Receiver[] = [];
afterAll(async () => {
  await Promise.all([provider, ...hooks].map((r) => r?.close()));
});

type Meta = 'messenger' | 'instagram';
const secretOf = (channel: Meta) => (channel === 'messenger' ? messenger.appSecret : instagram.appSecret);

/** An account with the channel connected, a Live campaign on it with an FAQ, and a receiver of its events. */
async function connected(channel: Meta, campaign: Record<string, unknown> = {}) {
  const account = await createAccount(ctx.gw);
  expect(
    (
      await api(ctx.gw, account, 'PUT', `channels/${channel}`, {
        body: channel === 'messenger' ? messenger : instagram,
      })
    ).status,
  ).toBe(200);
  const hook = await Receiver.start();
  hooks.push(hook);
  await api(ctx.gw, account, 'POST', 'webhooks', {
    body: { url: hook.url, events: ['handoff', 'opt_out', 'message_received'] },
  });
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Page chat',
      channel,
      status: 'live',
      bot: { faqs: [{ question: 'What are your opening hours?', answer: 'We open 9 to 6, Monday to Saturday.' }] },
      ...campaign,
    },
  });
  expect(created.status).toBe(201);
  return { account, hook, campaignId: created.body.id as string };
}

/** Posts a webhook as Meta signs it, with the app secret over the raw body. */
/** Meta's POST, and the gateway's processing of what it took (see processed). */
function postWebhook(account: TestAccount, channel: Meta, payload: object, secret = secretOf(channel)) {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return processed(
    ctx.gw,
    request(ctx.gw, 'POST', `/v1/channels/${channel}/${account.id}/webhook`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    }),
  );
}

const pageOf = (channel: Meta) => (channel === 'messenger' ? messenger.pageId : instagram.instagramAccountId);
/** One messaging event of a contact, as Meta wraps it. */
const event = (channel: Meta, sender: string, fields: object, at = Date.now()) => ({
  object: channel === 'messenger' ? 'page' : 'instagram',
  entry: [
    {
      id: pageOf(channel),
      time: at,
      messaging: [{ sender: { id: sender }, recipient: { id: pageOf(channel) }, timestamp: at, ...fields }],
    },
  ],
});
const text = (channel: Meta, sender: string, body: string, mid = unique('mid')) =>
  event(channel, sender, { message: { mid, text: body } });
const psid = () => String(7_000_000_000_000_000 + Math.floor(Math.random() * 1e15));

const sends = (to: string) => provider.requests.filter((r) => r.method === 'POST' && r.body?.recipient?.id === to);
const messagesOf = async (account: TestAccount, contactId: string) =>
  (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages?limit=200`)).body.data as any[];
const contactOf = async (account: TestAccount, id: string) =>
  (await api(ctx.gw, account, 'GET', 'conversations')).body.data.find(
    (c: any) => c.contact.externalIds?.messenger === id || c.contact.externalIds?.instagram === id,
  );

describe('credentials', () => {
  test('both channels are validated, stored, shown masked with their webhook address, and removed', async () => {
    const account = await createAccount(ctx.gw);
    expect((await api(ctx.gw, account, 'GET', 'channels')).body).toMatchObject({ messenger: null, instagram: null });
    const m = await api(ctx.gw, account, 'PUT', 'channels/messenger', { body: messenger });
    expect(m.body.messenger).toEqual({
      pageId: messenger.pageId,
      pageAccessToken: '••••6789',
      appSecret: '••••3333',
      verifyToken: messenger.verifyToken,
      webhooks: { webhook: `${PUBLIC_URL}/v1/channels/messenger/${account.id}/webhook` },
    });
    const i = await api(ctx.gw, account, 'PUT', 'channels/instagram', { body: instagram });
    expect(i.body.instagram).toEqual({
      instagramAccountId: instagram.instagramAccountId,
      accessToken: '••••6789',
      appSecret: '••••4444',
      verifyToken: instagram.verifyToken,
      webhooks: { webhook: `${PUBLIC_URL}/v1/channels/instagram/${account.id}/webhook` },
    });
    const shown = await api(ctx.gw, account, 'GET', 'channels');
    for (const secret of [messenger.pageAccessToken, messenger.appSecret, instagram.accessToken, instagram.appSecret])
      expect(shown.text).not.toContain(secret);

    const bad = await api(ctx.gw, account, 'PUT', 'channels/messenger', {
      body: { pageId: 'my page', pageAccessToken: 'a b', appSecret: 'x', verifyToken: 'short' },
    });
    expectApiError(bad, 400);
    expect(bad.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'appSecret',
      'pageAccessToken',
      'pageId',
      'verifyToken',
    ]);
    expect((await api(ctx.gw, account, 'DELETE', 'channels/instagram')).body.instagram).toBeNull();
    expectApiError(await api(ctx.gw, account, 'DELETE', 'channels/instagram'), 404);
    const removed = await api(ctx.gw, account, 'DELETE', 'channels/messenger');
    expect(removed.body).toMatchObject({ messenger: null, instagram: null });
    expectApiError(await api(ctx.gw, account, 'DELETE', 'channels/messenger'), 404, 'CHANNEL_NOT_FOUND');
  });

  test("the handshake answers Meta's challenge only for the channel's verify token", async () => {
    const { account } = await connected('messenger');
    const path = `/v1/channels/messenger/${account.id}/webhook`;
    const ok = await request(ctx.gw, 'GET', path, {
      query: { 'hub.mode': 'subscribe', 'hub.verify_token': messenger.verifyToken, 'hub.challenge': '1158201444' },
    });
    expect({ status: ok.status, text: ok.text }).toEqual({ status: 200, text: '1158201444' });
    const wrong = await request(ctx.gw, 'GET', path, {
      query: { 'hub.mode': 'subscribe', 'hub.verify_token': instagram.verifyToken, 'hub.challenge': '1' },
    });
    expectApiError(wrong, 403, 'INVALID_VERIFY_TOKEN');
    // The right token with another mode, or no challenge, is told what the handshake takes, not that the token is wrong.
    const unsubscribe = await request(ctx.gw, 'GET', path, {
      query: { 'hub.mode': 'unsubscribe', 'hub.verify_token': messenger.verifyToken, 'hub.challenge': '1' },
    });
    expectApiError(unsubscribe, 403, 'INVALID_VERIFY_TOKEN');
    expect(unsubscribe.body.error.message).toMatch(/takes hub\.mode=subscribe, a hub\.challenge/);
    expectApiError(
      await request(ctx.gw, 'GET', `/v1/channels/instagram/${account.id}/webhook`, {
        query: { 'hub.mode': 'subscribe' },
      }),
      404,
    );
  });
});

describe('a Messenger lead', () => {
  test('writes; the FAQ bot answers through the Send API as RESPONSE; the profile names the contact; receipts move the answer on', async () => {
    const { account, campaignId } = await connected('messenger');
    const lead = psid();
    const mid = unique('mid');
    expect(
      (await postWebhook(account, 'messenger', text('messenger', lead, 'What are your opening hours?', mid))).status,
    ).toBe(200);
    await untilIdle(ctx.gw);
    const conversation = await contactOf(account, lead);
    expect(conversation).toMatchObject({
      channel: 'messenger',
      campaignId,
      contact: { firstName: 'Marta', lastName: 'Ruiz', externalIds: { messenger: lead } },
    });

    const [answer] = sends(lead);
    expect(answer!.path).toBe(`/v23.0/${messenger.pageId}/messages`);
    expect(answer!.headers.authorization).toBe(`Bearer ${messenger.pageAccessToken}`);
    expect(answer!.body).toEqual({
      recipient: { id: lead },
      messaging_type: 'RESPONSE',
      message: { text: 'We open 9 to 6, Monday to Saturday.' },
    });
    const stored = (await messagesOf(account, conversation.contact.id)).find((m) => m.direction === 'outgoing');
    expect(stored).toMatchObject({
      author: 'bot',
      status: 'sent',
      channel: 'messenger',
      provider: 'messenger',
      providerMessageId: expect.stringMatching(/^m_/),
    });

    // The same message delivered twice is stored once.
    expect(
      (await postWebhook(account, 'messenger', text('messenger', lead, 'What are your opening hours?', mid))).status,
    ).toBe(200);
    expect((await messagesOf(account, conversation.contact.id)).filter((m) => m.direction === 'incoming')).toHaveLength(
      1,
    );

    const later = Date.now() + 60_000;
    await postWebhook(
      account,
      'messenger',
      event('messenger', lead, { delivery: { mids: [stored.providerMessageId], watermark: later } }),
    );
    expect((await api(ctx.gw, account, 'GET', `messages/${stored.id}`)).body.status).toBe('delivered');
    await postWebhook(account, 'messenger', event('messenger', lead, { read: { watermark: later } }));
    expect((await api(ctx.gw, account, 'GET', `messages/${stored.id}`)).body.status).toBe('read');
    await postWebhook(
      account,
      'messenger',
      event('messenger', lead, { delivery: { mids: [stored.providerMessageId], watermark: later } }),
    );
    expect((await api(ctx.gw, account, 'GET', `messages/${stored.id}`)).body.status).toBe('read');
  });

  test('"talk to a human" hands off: the contact is told, the handoff event names the channel', async () => {
    const { account, hook } = await connected('messenger');
    const lead = psid();
    await postWebhook(account, 'messenger', text('messenger', lead, 'I want to talk to a human'));
    const [handoff] = await poll(
      async () => hook.requests.filter((r) => r.body?.type === 'handoff'),
      (rs) => rs.length === 1,
    );
    expect(handoff!.body).toMatchObject({
      channel: 'messenger',
      reason: 'contact_asked',
      body: 'I want to talk to a human',
    });
    await untilIdle(ctx.gw);
    expect(sends(lead)).toHaveLength(1);
    expect((await contactOf(account, lead)).status).toBe('handed_off');
  });

  test('a reaction, a postback and an attachment are stored as the contact sent them; a forged signature stores nothing', async () => {
    const { account } = await connected('messenger', { bot: { active: false } });
    const lead = psid();
    await postWebhook(account, 'messenger', text('messenger', lead, 'Hello'));
    const image = { type: 'image', payload: { url: 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1' } };
    await postWebhook(
      account,
      'messenger',
      event('messenger', lead, { message: { mid: unique('mid'), attachments: [image] } }),
    );
    await postWebhook(
      account,
      'messenger',
      event('messenger', lead, { postback: { mid: unique('mid'), title: 'Book a visit', payload: 'BOOK' } }),
    );
    await postWebhook(
      account,
      'messenger',
      event('messenger', lead, { reaction: { mid: unique('mid'), action: 'react', reaction: 'love', emoji: '❤️' } }),
    );
    const forged = await postWebhook(account, 'messenger', text('messenger', lead, 'forged'), hex('9'));
    expectApiError(forged, 403, 'INVALID_SIGNATURE');
    const conversation = await contactOf(account, lead);
    const incoming = (await messagesOf(account, conversation.contact.id)).filter((m) => m.direction === 'incoming');
    expect(incoming.map((m) => [m.messageType, m.body])).toEqual([
      ['text', 'Hello'],
      ['text', ''],
      ['text', 'Book a visit'],
      ['reaction', '❤️'],
    ]);
    expect(incoming[1].media).toEqual({
      url: image.payload.url,
      contentType: expect.stringMatching(/^image\//),
      mediaId: null,
    });
  });
});

test('a message with several photos keeps each: the text with the first, each other one a message of its own after it; sent again, none is stored twice', async () => {
  const { account } = await connected('messenger', { bot: { active: false } });
  const lead = psid();
  const photo = (n: number) => ({
    type: 'image',
    payload: { url: `https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=${n}` },
  });
  const album = event('messenger', lead, {
    message: { mid: unique('mid'), text: 'The three rooms', attachments: [photo(1), photo(2), photo(3)] },
  });
  await postWebhook(account, 'messenger', album);
  await postWebhook(account, 'messenger', album);
  await untilIdle(ctx.gw);
  const conversation = await contactOf(account, lead);
  const incoming = (await messagesOf(account, conversation.contact.id)).filter((m) => m.direction === 'incoming');
  expect(incoming.map((m) => [m.body, m.media?.url])).toEqual([
    ['The three rooms', photo(1).payload.url],
    ['', photo(2).payload.url],
    ['', photo(3).payload.url],
  ]);
});

test("an entry of another Page served by the same Meta app is not the account's: nothing of it is stored", async () => {
  const { account } = await connected('messenger', { bot: { active: false } });
  const lead = psid();
  const payload = text('messenger', lead, 'Hello from another Page');
  payload.entry[0]!.id = '999888777666555';
  expect((await postWebhook(account, 'messenger', payload)).status).toBe(200);
  expect(await contactOf(account, lead)).toBeUndefined();
});

describe("a team member's reply", () => {
  test('longer than the platform takes is refused at once, naming the body: nothing is stored or sent', async () => {
    for (const [channel, tooLong, fits] of [
      ['messenger', 'a'.repeat(2001), 'a'.repeat(2000)],
      // Instagram counts bytes of UTF-8: 501 "é" are 1002 bytes.
      ['instagram', 'é'.repeat(501), 'é'.repeat(500)],
    ] as const) {
      const { account } = await connected(channel, { bot: { active: false } });
      const lead = psid();
      await postWebhook(account, channel, text(channel, lead, 'Hello'));
      await untilIdle(ctx.gw);
      const { contact, id: conversationId } = await contactOf(account, lead);
      const before = await messagesOf(account, contact.id);

      const refused = await api(ctx.gw, account, 'POST', `contacts/${contact.id}/messages`, {
        body: { body: tooLong, conversationId },
      });
      expectApiError(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body.error.fields).toEqual([
        expect.objectContaining({ field: 'body', message: expect.stringMatching(/takes at most/) }),
      ]);
      expect(await messagesOf(account, contact.id)).toEqual(before);

      const taken = await api(ctx.gw, account, 'POST', `contacts/${contact.id}/messages`, {
        body: { body: fits, conversationId },
      });
      expect(taken.status).toBe(201);
      await untilIdle(ctx.gw);
      expect(sends(lead).map((r) => r.body.message.text)).toEqual([fits]);
    }
  });
});

describe("Meta's errors", () => {
  test('an expired token fails the message with code 190; a rate limit is tried again and goes', async () => {
    const { account } = await connected('messenger');
    const expired = psid();
    refusals.set(expired, { status: 400, code: 190, message: 'Error validating access token: Session has expired' });
    await postWebhook(account, 'messenger', text('messenger', expired, 'What are your opening hours?'));
    await untilIdle(ctx.gw);
    const failed = (await messagesOf(account, (await contactOf(account, expired)).contact.id)).find(
      (m) => m.direction === 'outgoing',
    );
    expect(failed).toMatchObject({ status: 'failed', errorCode: '190' });
    expect(failed.error).not.toContain(messenger.pageAccessToken);

    const limited = psid();
    refusals.set(limited, { status: 400, code: 613, message: 'Calls to this api have exceeded the rate limit.' });
    await postWebhook(account, 'messenger', text('messenger', limited, 'What are your opening hours?'));
    await untilIdle(ctx.gw);
    const retried = (await messagesOf(account, (await contactOf(account, limited)).contact.id)).find(
      (m) => m.direction === 'outgoing',
    );
    expect(retried.status).toBe('sent');
    expect(sends(limited)).toHaveLength(2);
  });
});

describe('an Instagram lead', () => {
  test('writes STOP and is opted out, told so on Instagram; the profile name fills the contact', async () => {
    const { account, hook } = await connected('instagram');
    const lead = psid();
    await postWebhook(account, 'instagram', text('instagram', lead, 'STOP'));
    const [optOut] = await poll(
      async () => hook.requests.filter((r) => r.body?.type === 'opt_out'),
      (rs) => rs.length === 1,
    );
    expect(optOut!.body).toMatchObject({ channel: 'instagram' });
    await untilIdle(ctx.gw);
    const conversation = await contactOf(account, lead);
    expect(conversation.contact).toMatchObject({
      optOut: { channel: 'instagram', keyword: 'stop' },
      firstName: 'Iris',
      lastName: 'Bloom',
      externalIds: { instagram: lead },
    });
    expect(sends(lead)).toHaveLength(1);
    expect(sends(lead)[0]!.path).toBe(`/v23.0/${instagram.instagramAccountId}/messages`);
  });
});

describe('campaigns', () => {
  test('an opening message is refused at save; going Live needs the channel connected; a list contact counts unreachable', async () => {
    const account = await createAccount(ctx.gw);
    const opening = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: { name: 'Cold', channel: 'instagram', openingMessage: 'Hi!' },
    });
    expectApiError(opening, 400, 'NO_FIRST_MESSAGE');
    expect(opening.body.error.message).toMatch(/^openingMessage: Instagram does not let a business write first/);
    const notConnected = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: { name: 'Page', channel: 'messenger', status: 'live' },
    });
    expectApiError(notConnected, 400, 'CAMPAIGN_CANNOT_SEND');
    expect(notConnected.body.error.message).toContain('PUT /v1/channels/messenger');

    await api(ctx.gw, account, 'PUT', 'channels/messenger', { body: messenger });
    const list = await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } });
    const live = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: { name: 'Page', channel: 'messenger', status: 'live', listId: list.body.id },
    });
    expect(live.status).toBe(201);
    const contact = await api(ctx.gw, account, 'POST', 'contacts', {
      body: { firstName: 'Ola', phone: '+14155550177' },
    });
    await api(ctx.gw, account, 'POST', `lists/${list.body.id}/contacts`, { body: { contactId: contact.body.id } });
    const { unreachable } = (await api(ctx.gw, account, 'GET', `campaigns/${live.body.id}`)).body;
    expect(unreachable).toMatchObject({ total: 1, byReason: { no_first_message: 1 } });
  });

  test('a lead who wrote in is still followed up after the campaign moved to another list: no list brought them', async () => {
    const { account, campaignId } = await connected('messenger', {
      followUps: { enabled: true, steps: [{ after: '10m', body: 'Still there?' }] },
    });
    const moveTo = async (name: string) => {
      const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name } })).body;
      const moved = await api(ctx.gw, account, 'PATCH', `campaigns/${campaignId}`, { body: { listId: list.id } });
      expect(moved.status).toBe(200);
    };
    await moveTo('Leads');
    const lead = psid();
    await postWebhook(account, 'messenger', text('messenger', lead, 'What are your opening hours?'));
    await untilIdle(ctx.gw);
    const { contact } = await contactOf(account, lead);
    await moveTo('Other leads');
    await advanceClock(ctx.gw, '10m');
    await untilIdle(ctx.gw);
    expect((await messagesOf(account, contact.id)).find((m) => m.author === 'follow_up')).toMatchObject({
      body: 'Still there?',
      status: 'sent',
    });
  });
});

// Last: it moves the gateway's clock a week on, past the timestamps the tests above give Meta's events.
describe("Meta's windows", () => {
  test('a follow-up on day 2 is skipped; a team reply on day 3 goes tagged HUMAN_AGENT; on day 8 it is skipped', async () => {
    const { account, campaignId } = await connected('messenger', {
      followUps: { enabled: true, steps: [{ after: '30h', body: 'Still there?' }] },
    });
    const lead = psid();
    await postWebhook(account, 'messenger', text('messenger', lead, 'What are your opening hours?'));
    await untilIdle(ctx.gw);
    const { contact, id: conversationId } = await contactOf(account, lead);

    await advanceClock(ctx.gw, '31h');
    await untilIdle(ctx.gw);
    const followUp = (await messagesOf(account, contact.id)).find((m) => m.author === 'follow_up');
    expect(followUp).toMatchObject({
      status: 'skipped',
      errorCode: 'OUTSIDE_24H_WINDOW',
      error: expect.stringContaining('7 days'),
    });
    expect(sends(lead)).toHaveLength(1);
    expect(
      (await api(ctx.gw, account, 'GET', `campaigns/${campaignId}`)).body.unreachable.byReason.outside_meta_window,
    ).toBe(1);

    await advanceClock(ctx.gw, '2d');
    const reply = await api(ctx.gw, account, 'POST', `contacts/${contact.id}/messages`, {
      body: { body: 'Sorry for the wait: we open at 9.', conversationId },
    });
    expect(reply.body).toMatchObject({ status: 'pending', messageTag: 'HUMAN_AGENT' });
    await untilIdle(ctx.gw);
    expect(sends(lead).at(-1)!.body).toEqual({
      recipient: { id: lead },
      messaging_type: 'MESSAGE_TAG',
      tag: 'HUMAN_AGENT',
      message: { text: 'Sorry for the wait: we open at 9.' },
    });

    await advanceClock(ctx.gw, '5d');
    const late = await api(ctx.gw, account, 'POST', `contacts/${contact.id}/messages`, {
      body: { body: 'Anyone?', conversationId },
    });
    expect(late.body).toMatchObject({ status: 'skipped', errorCode: 'OUTSIDE_24H_WINDOW' });
  });
});

describe("the Page's own messages (echoes)", () => {
  /** A message the Page sent the contact, as Meta echoes it: from the Page, to the contact. */
  const echo = (channel: Meta, lead: string, mid: string, body: string) => ({
    object: channel === 'messenger' ? 'page' : 'instagram',
    entry: [
      {
        id: pageOf(channel),
        time: clockOf(ctx.gw),
        messaging: [
          {
            sender: { id: pageOf(channel) },
            recipient: { id: lead },
            timestamp: clockOf(ctx.gw),
            message: { mid, is_echo: true, text: body },
          },
        ],
      },
    ],
  });

  /** The contact's message, written now by the gateway's clock (earlier tests move it days ahead). */
  const said = (channel: Meta, lead: string, body: string) =>
    event(channel, lead, { message: { mid: unique('mid'), text: body } }, clockOf(ctx.gw));

  test("the bot's own answer echoed is stored once; an admin's answer typed in Meta's inbox is the team's, and the bot steps back", async () => {
    const { account, hook } = await connected('messenger');
    const lead = psid();
    await postWebhook(account, 'messenger', said('messenger', lead, 'What are your opening hours?'));
    await untilIdle(ctx.gw);
    const { contact, id: conversationId } = await contactOf(account, lead);
    const [answer] = (await messagesOf(account, contact.id)).filter((m) => m.direction === 'outgoing');
    expect(answer).toMatchObject({ author: 'bot', status: 'sent' });

    await postWebhook(account, 'messenger', echo('messenger', lead, answer.providerMessageId, answer.body));
    await untilIdle(ctx.gw);
    expect(await messagesOf(account, contact.id)).toHaveLength(2);

    const typed = echo('messenger', lead, unique('mid'), 'Hi Marta, Ana from the shop here: come by at 10?');
    await postWebhook(account, 'messenger', typed);
    await postWebhook(account, 'messenger', typed);
    await untilIdle(ctx.gw);
    const messages = await messagesOf(account, contact.id);
    expect(messages).toHaveLength(3);
    expect(messages.find((m) => m.body === 'Hi Marta, Ana from the shop here: come by at 10?')).toMatchObject({
      direction: 'outgoing',
      author: 'team',
      status: 'sent',
      channel: 'messenger',
      providerMessageId: typed.entry[0]!.messaging[0]!.message.mid,
    });
    const conversation = (await api(ctx.gw, account, 'GET', `conversations/${conversationId}`)).body;
    expect(conversation).toMatchObject({ status: 'handed_off', bot: { active: false }, handoff: { reason: 'team' } });
    expect(conversation.lastMessage).toMatchObject({ direction: 'outgoing', author: 'team' });
    expect(hook.requests.filter((r) => r.body?.type === 'handoff')).toHaveLength(1);

    // The lead answers the admin: the bot, which a person has taken over from, does not.
    await postWebhook(account, 'messenger', said('messenger', lead, 'What are your opening hours?'));
    await untilIdle(ctx.gw);
    expect(sends(lead)).toHaveLength(1);
  });

  test('an echo of an answer the gateway is still sending is not taken for a person writing', async () => {
    const { account } = await connected('instagram');
    const lead = psid();
    refusals.set(lead, { status: 400, code: 613, message: 'Calls to this api have exceeded the rate limit.' });
    await postWebhook(account, 'instagram', said('instagram', lead, 'What are your opening hours?'));
    const { contact, id: conversationId } = await contactOf(account, lead);
    const [pending] = (await messagesOf(account, contact.id)).filter((m) => m.direction === 'outgoing');
    expect(pending).toMatchObject({ author: 'bot', status: 'pending' });

    // Meta took it after all, and echoes it before its answer is read.
    await postWebhook(account, 'instagram', echo('instagram', lead, unique('mid'), pending.body));
    await untilIdle(ctx.gw);
    const messages = await messagesOf(account, contact.id);
    expect(messages.filter((m) => m.direction === 'outgoing')).toEqual([
      expect.objectContaining({ author: 'bot', status: 'sent' }),
    ]);
    expect((await api(ctx.gw, account, 'GET', `conversations/${conversationId}`)).body.bot.active).toBe(true);
  });
});

test("a sticker (Messenger's like button among them) is kept as the lead's reaction: neither the bot nor a hand-off notice answers it", async () => {
  const { account, hook } = await connected('messenger');
  const lead = psid();
  const at = () => clockOf(ctx.gw);
  await postWebhook(
    account,
    'messenger',
    event('messenger', lead, { message: { mid: unique('mid'), text: 'Hi' } }, at()),
  );
  await untilIdle(ctx.gw);
  const sticker = (id: number) =>
    event(
      'messenger',
      lead,
      {
        message: {
          mid: unique('mid'),
          sticker_id: id,
          attachments: [{ type: 'image', payload: { url: `https://scontent.xx.fbcdn.net/${id}.png`, sticker_id: id } }],
        },
      },
      at(),
    );
  await postWebhook(account, 'messenger', sticker(369239263222822));
  await postWebhook(account, 'messenger', sticker(126361874215276));
  await untilIdle(ctx.gw);
  const conversation = await contactOf(account, lead);
  const messages = await messagesOf(account, conversation.contact.id);
  expect(messages.map((m) => [m.direction, m.messageType, m.body, m.media?.url ?? null])).toEqual([
    ['incoming', 'text', 'Hi', null],
    ['outgoing', 'text', expect.any(String), null],
    ['incoming', 'reaction', '👍', null],
    ['incoming', 'reaction', '', 'https://scontent.xx.fbcdn.net/126361874215276.png'],
  ]);
  expect(conversation).toMatchObject({ status: 'active', bot: { active: true } });
  expect(sends(lead)).toHaveLength(1);
  expect(hook.requests.filter((r) => r.body?.type === 'handoff')).toHaveLength(0);
});

test("Instagram's heart sticker is the lead's reaction ❤️: neither the bot nor a hand-off notice answers it", async () => {
  const { account, hook } = await connected('instagram');
  const lead = psid();
  const at = () => clockOf(ctx.gw);
  await postWebhook(
    account,
    'instagram',
    event('instagram', lead, { message: { mid: unique('mid'), text: 'Hi' } }, at()),
  );
  await untilIdle(ctx.gw);
  const heart = event(
    'instagram',
    lead,
    { message: { mid: unique('mid'), attachments: [{ type: 'like_heart' }] } },
    at(),
  );
  await postWebhook(account, 'instagram', heart);
  await untilIdle(ctx.gw);
  const conversation = await contactOf(account, lead);
  const messages = await messagesOf(account, conversation.contact.id);
  expect(messages.map((m) => [m.direction, m.messageType, m.body, m.media])).toEqual([
    ['incoming', 'text', 'Hi', null],
    ['outgoing', 'text', expect.any(String), null],
    ['incoming', 'reaction', '❤️', null],
  ]);
  expect(conversation).toMatchObject({ status: 'active', bot: { active: true } });
  expect(sends(lead)).toHaveLength(1);
  expect(hook.requests.filter((r) => r.body?.type === 'handoff')).toHaveLength(0);
});

test('a message the lead deleted (unsent) loses its text: the conversation (which the bot reads) and its last message no longer hold it', async () => {
  const { account } = await connected('instagram', { bot: { active: false } });
  const lead = psid();
  const at = () => clockOf(ctx.gw);
  const said = (mid: string, body: string) => event('instagram', lead, { message: { mid, text: body } }, at());
  await postWebhook(account, 'instagram', said(unique('mid'), 'Hi'));
  const mid = unique('mid');
  await postWebhook(account, 'instagram', said(mid, 'My card is 4111 1111 1111 1111'));
  await untilIdle(ctx.gw);
  const unsent = event('instagram', lead, { message: { mid, is_deleted: true } }, at());
  await postWebhook(account, 'instagram', unsent);
  await postWebhook(account, 'instagram', unsent);
  await untilIdle(ctx.gw);
  const conversation = await contactOf(account, lead);
  const messages = await messagesOf(account, conversation.contact.id);
  expect(messages.map((m) => [m.body, m.status, m.media])).toEqual([
    ['Hi', 'received', null],
    ['', 'deleted', null],
  ]);
  expect(conversation.lastMessage).toMatchObject({ body: '', status: 'deleted' });
  expect(JSON.stringify(await api(ctx.gw, account, 'GET', `conversations/${conversation.id}`))).not.toContain('4111');
});

test("a link the lead shares with no text is the lead's message, its title and address as text: the inbox shows it, the bot answers it", async () => {
  const { account, hook } = await connected('messenger');
  const lead = psid();
  const url = 'https://www.idealista.com/inmueble/12345/';
  const shared = event(
    'messenger',
    lead,
    {
      message: {
        mid: unique('mid'),
        attachments: [{ type: 'fallback', payload: { url, title: 'Flat in Lavapiés: opening hours of the visit' } }],
      },
    },
    clockOf(ctx.gw),
  );
  await postWebhook(account, 'messenger', shared);
  await untilIdle(ctx.gw);
  const conversation = await contactOf(account, lead);
  const messages = await messagesOf(account, conversation.contact.id);
  expect(messages.map((m) => [m.direction, m.messageType, m.body, m.media])).toEqual([
    ['incoming', 'text', `Flat in Lavapiés: opening hours of the visit\n${url}`, null],
    ['outgoing', 'text', expect.any(String), null],
  ]);
  expect(sends(lead)).toHaveLength(1);
  const received = await poll(
    async () => hook.requests.filter((r) => r.body?.type === 'message_received'),
    (r) => r.length > 0,
  );
  expect(received.map((r) => r.body.body)).toEqual([`Flat in Lavapiés: opening hours of the visit\n${url}`]);
});
