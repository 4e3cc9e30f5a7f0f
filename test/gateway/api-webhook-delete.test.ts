import { removeDir, tempDir } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import { forgetDone, openStoreOf } from '../helpers/stopped-store';
import {
  api,
  clinicCampaign,
  createAccount,
  HANDOFF_NOTICE,
  incoming,
  Receiver,
  unique,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * A webhook subscription deleted (an n8n workflow deactivated deletes its own), or disabled by the gateway, while its
 * receiver was down: what was waiting for it is settled at once, not when each retry comes due hours later. A bot's
 * answer that only it was to receive is failed then, and the conversation goes to the team now.
 */
const ENV = {
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_BOT_DEBOUNCE: '0s',
  LEADCHAT_TEST_CLOCK: '1',
  // Nothing is retried while the test runs: the clock never gets there.
  LEADCHAT_WEBHOOK_RETRIES: '1h,3h',
};
const ctx = useGateway(ENV);

const receivers: Receiver[] = [];
const restarted: InProcessGateway[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  for (const gw of restarted) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

async function receiver(status: number): Promise<Receiver> {
  const r = await Receiver.start(() => ({ status }));
  receivers.push(r);
  return r;
}

async function subscribe(
  account: TestAccount,
  url: string,
  events: string[],
  gw: InProcessGateway = ctx.gw,
): Promise<string> {
  const res = await api(gw, account, 'POST', 'webhooks', { body: { url, events } });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** The account's bot answers whoever writes on its web chat, from a clinic's one FAQ. */
async function clinicBotAnswersTheChat(account: TestAccount): Promise<void> {
  const campaign = await clinicCampaign(ctx.gw, account);
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
}

/**
 * The bot's answer (`answerId`) and the event of the question it answered (`askedId`), each waiting for the receiver
 * `target`, failed at once, not posted, saying `why`: the answer's one attempt after the 503 that put it off.
 */
async function expectEndedUnposted(
  account: TestAccount,
  answerId: string,
  askedId: string,
  target: string,
  why: string,
) {
  const failed = (await api(ctx.gw, account, 'GET', `messages/${answerId}`)).body;
  expect(failed).toMatchObject({ status: 'failed', error: why });
  expect(failed.deliveries).toEqual([
    expect.objectContaining({
      target,
      status: 'failed',
      nextAttemptAt: null,
      attempts: [expect.objectContaining({ status: 503 }), expect.objectContaining({ status: null, error: why })],
    }),
  ]);
  const event = (await api(ctx.gw, account, 'GET', `messages/${askedId}`)).body.deliveries;
  expect(event).toEqual([expect.objectContaining({ target, status: 'failed', nextAttemptAt: null })]);
}

test("deleting a subscription fails its waiting deliveries at once: a bot's answer only it took goes to the team now", async () => {
  const account = await createAccount(ctx.gw);
  // The team's workflow hears of hand-offs and failures; the chat widget's workflow takes the replies, and is down.
  const team = await receiver(200);
  await subscribe(account, team.url, ['handoff', 'delivery_failed']);
  const widget = await receiver(503);
  const widgetSub = await subscribe(account, widget.url, ['reply', 'message_received']);
  await clinicBotAnswersTheChat(account);

  const fromId = unique('visitor');
  const asked = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, channel: 'web-chat', body: 'What are your opening hours?' }),
  });
  expect(asked.status).toBe(200);
  await untilIdle(ctx.gw);
  const { contactId } = (await api(ctx.gw, account, 'GET', `messages/${asked.body.messageId}`)).body;
  const answerOf = async () =>
    (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data.find(
      (m: any) => m.author === 'bot',
    );
  const answer = await answerOf();
  // Refused once each, the answer and the message's event wait for their retries, an hour away.
  expect(widget.requests.map((r) => r.body?.body)).toEqual(
    expect.arrayContaining(['We are open 9 to 5, Monday to Friday.', 'What are your opening hours?']),
  );
  const waiting = (await api(ctx.gw, account, 'GET', `messages/${answer.id}`)).body;
  expect(waiting).toMatchObject({ status: 'pending', deliveries: [{ target: widgetSub, status: 'pending' }] });
  const posted = widget.requests.length;

  expect((await api(ctx.gw, account, 'DELETE', `webhooks/${widgetSub}`)).status).toBe(204);
  await untilIdle(ctx.gw);

  // Failed now, saying why, and nothing more posted to the receiver deleted.
  await expectEndedUnposted(
    account,
    answer.id,
    asked.body.messageId,
    widgetSub,
    'The webhook subscription was deleted',
  );
  expect(widget.requests).toHaveLength(posted);
  // The team is told as of any failed answer, and has the conversation: the contact is told a person will answer.
  const told = team.requests.map((r) => r.body.type);
  expect(told).toContain('delivery_failed');
  expect(team.requests.filter((r) => r.body.type === 'handoff').map((r) => r.body.reason)).toEqual(['reply_failed']);
  const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId } })).body.data;
  expect(conversation).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    handoff: { reason: 'reply_failed', message: 'What are your opening hours?' },
  });
  expect((await answerOf()).status).toBe('failed');
  const notice = (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data.at(-1);
  expect(notice).toMatchObject({ author: 'system', body: HANDOFF_NOTICE });
});

test("a subscription disabled by a 410 fails its other waiting deliveries at once: a bot's answer only it took goes to the team now", async () => {
  const account = await createAccount(ctx.gw);
  const team = await receiver(200);
  await subscribe(account, team.url, ['handoff', 'delivery_failed']);
  // The chat widget's workflow is down, then answers 410 Gone: it asks for nothing more.
  let gone = false;
  const widget = await Receiver.start(() => ({ status: gone ? 410 : 503 }));
  receivers.push(widget);
  const widgetSub = await subscribe(account, widget.url, ['reply', 'message_received']);
  await clinicBotAnswersTheChat(account);

  const asked = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: unique('visitor'), channel: 'web-chat', body: 'What are your opening hours?' }),
  });
  expect(asked.status).toBe(200);
  await untilIdle(ctx.gw);
  const { contactId } = (await api(ctx.gw, account, 'GET', `messages/${asked.body.messageId}`)).body;
  const messagesOf = async () => (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data;
  const answer = (await messagesOf()).find((m: any) => m.author === 'bot');
  // Refused once, the answer waits for its retry, an hour away.
  const waiting = (await api(ctx.gw, account, 'GET', `messages/${answer.id}`)).body;
  expect(waiting).toMatchObject({ status: 'pending', deliveries: [{ target: widgetSub, status: 'pending' }] });

  // Another visitor writes: the widget answers that event 410 Gone, and its subscription is disabled.
  gone = true;
  await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: unique('visitor'), channel: 'web-chat', body: 'Hello?' }),
  });
  await untilIdle(ctx.gw);
  expect((await api(ctx.gw, account, 'GET', `webhooks/${widgetSub}`)).body).toMatchObject({
    status: 'disabled',
    disabledReason: 'gone',
  });
  const posted = widget.requests.length;

  // The first visitor's answer failed now, its retry not awaited, saying why.
  await expectEndedUnposted(
    account,
    answer.id,
    asked.body.messageId,
    widgetSub,
    'The webhook subscription is disabled',
  );
  // The team is told, and has the conversation: the contact is told a person will answer.
  const toldOf = team.requests.filter((r) => r.body.contactId === contactId).map((r) => r.body.type);
  expect(toldOf).toContain('delivery_failed');
  const handoffs = team.requests.filter((r) => r.body.type === 'handoff' && r.body.contactId === contactId);
  expect(handoffs.map((r) => r.body.reason)).toEqual(['reply_failed']);
  const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId } })).body.data;
  expect(conversation).toMatchObject({ status: 'handed_off', handoff: { reason: 'reply_failed' } });
  expect((await messagesOf()).at(-1)).toMatchObject({ author: 'system', body: HANDOFF_NOTICE });
  // Nothing more is posted to the receiver that asked for none.
  expect(widget.requests).toHaveLength(posted);
});

test('a delivery an earlier release left waiting, its receiver named nowhere but its target, is settled as its subscription goes', async () => {
  const dataDir = tempDir();
  let gw = await startInProcess(ENV, dataDir);
  const account = await createAccount(gw);
  const down = await receiver(503);
  const sub = await subscribe(account, down.url, ['message_received'], gw);
  const said = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: unique('visitor'), channel: 'web-chat', body: 'Hello?' }),
  });
  await untilIdle(gw);
  const [delivery] = (await api(gw, account, 'GET', `messages/${said.body.messageId}`)).body.deliveries;
  expect(delivery).toMatchObject({ target: sub, status: 'pending' });
  expect(await gw.stop()).toBe(0);

  // As the earlier release left it: the delivery names no receiver while pending, and no start named it since.
  const store = await openStoreOf(gw.env);
  await store.transact(async (tx) => {
    await tx.update<{ id: string; pendingTarget?: string | null }>('deliveries', delivery.id, { pendingTarget: null });
  });
  await store.close();
  await forgetDone(gw.env, ['pending-deliveries-named-1']);

  gw = await startInProcess(ENV, dataDir);
  restarted.push(gw);
  await untilIdle(gw);
  expect((await api(gw, account, 'DELETE', `webhooks/${sub}`)).status).toBe(204);
  await untilIdle(gw);
  expect((await api(gw, account, 'GET', `messages/${said.body.messageId}`)).body.deliveries).toEqual([
    expect.objectContaining({ id: delivery.id, status: 'failed', nextAttemptAt: null }),
  ]);
}, 60_000);
