import {
  advanceClock,
  api,
  createAccount,
  incoming,
  Receiver,
  unique,
  untilIdle,
  useGateway,
  type Received,
  type TestAccount,
} from './api-support';

/**
 * A visitor who says STOP in a chat widget hears nothing more: also not a reply that was on its way to them when they
 * said it, the widget's receiver down and the reply waiting for its retry. The gateway's own answer to the STOP goes,
 * and the events about the contact still reach the account's workflows.
 */
const ctx = useGateway({
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_BOT_DEBOUNCE: '0s',
  LEADCHAT_TEST_CLOCK: '1',
  // Long enough that nothing is retried before the test moves the clock.
  LEADCHAT_WEBHOOK_RETRIES: '1h',
});

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

/** A receiver that refuses (503) the first request `refused` picks, and takes every other one. */
async function receiver(refused: (req: Received) => boolean): Promise<Receiver> {
  let refusedOnce = false;
  const r = await Receiver.start((_n, req) => {
    if (refusedOnce || !refused(req)) return { status: 200 };
    refusedOnce = true;
    return { status: 503 };
  });
  receivers.push(r);
  return r;
}

const write = (account: TestAccount, fromId: string, body: string) =>
  api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, channel: 'web-chat', body }),
  });

/**
 * A visitor writes, and the team's reply `text` to them is refused once by the widget's receiver: it waits for its
 * retry, an hour away. The visitor's id, their contact's and the reply.
 */
async function replyWaitingForRetry(account: TestAccount, widget: Receiver, text: string) {
  const fromId = unique('visitor');
  expect((await write(account, fromId, 'Is the offer still on?')).status).toBe(200);
  await untilIdle(ctx.gw);
  const conversations = (await api(ctx.gw, account, 'GET', 'conversations?limit=200')).body.data as any[];
  const contactId: string = conversations.find((c) => c.contact?.fromId === fromId).contactId;
  const reply = await api(ctx.gw, account, 'POST', `contacts/${contactId}/messages`, { body: { body: text } });
  expect(reply.status).toBe(201);
  await untilIdle(ctx.gw);
  expect(widget.requests.filter((r) => r.body?.body === text)).toHaveLength(1);
  expect((await api(ctx.gw, account, 'GET', `messages/${reply.body.id}`)).body.status).toBe('pending');
  return { fromId, contactId, reply };
}

test("a team reply waiting for the widget's retry is not posted once the visitor said STOP; the STOP's answer and the events are", async () => {
  const account: TestAccount = await createAccount(ctx.gw);
  const text = 'Hi Ann, are you free on Tuesday?';
  const widget = await receiver((req) => req.body?.body === text);
  expect(
    (await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: widget.url } })).status,
  ).toBe(200);
  // The account's workflow hears of every message and opt-out, its receiver down at first too.
  const events = await receiver(() => true);
  const subscribed = await api(ctx.gw, account, 'POST', 'webhooks', {
    body: { url: events.url, events: ['message_received', 'opt_out', 'delivery_failed'] },
  });
  expect(subscribed.status).toBe(201);

  // Refused once: the reply waits for its retry, an hour away.
  const { fromId, reply } = await replyWaitingForRetry(account, widget, text);

  expect((await write(account, fromId, 'STOP')).status).toBe(200);
  await advanceClock(ctx.gw, '2h');
  await untilIdle(ctx.gw);

  // The reply was not posted again; the STOP's confirmation was, after it.
  const posted = widget.requests.map((r) => r.body?.body);
  expect(posted.filter((b) => b === text)).toHaveLength(1);
  expect(posted.at(-1)).toMatch(/unsubscribed|opted out|STOP/i);
  expect((await api(ctx.gw, account, 'GET', `messages/${reply.body.id}`)).body).toMatchObject({
    status: 'skipped',
    errorCode: 'CONTACT_OPTED_OUT',
  });
  // The events about the contact went on: the first message's, retried, the STOP's and the opt-out.
  const told = events.requests.map((r) => [r.body?.type, r.body?.body]);
  expect(told.slice(1)).toEqual(
    expect.arrayContaining([
      ['message_received', 'Is the offer still on?'],
      ['message_received', 'STOP'],
      ['opt_out', 'STOP'],
    ]),
  );
  // Skipped, not failed: nobody is told of a failure, and the conversation is not handed to the team for it.
  expect(told.map(([type]) => type)).not.toContain('delivery_failed');
});

test("the STOP's answer goes at once: the reply waiting for the widget's retry is skipped then, not when its retry comes due", async () => {
  const account: TestAccount = await createAccount(ctx.gw);
  const text = 'Hi Ann, shall I book you in for Tuesday?';
  const widget = await receiver((req) => req.body?.body === text);
  expect(
    (await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: widget.url } })).status,
  ).toBe(200);

  // Refused once: the reply waits for its retry, an hour away.
  const { fromId, contactId, reply } = await replyWaitingForRetry(account, widget, text);

  // The clock does not move: the STOP's confirmation is posted now, the reply skipped now.
  expect((await write(account, fromId, 'STOP')).status).toBe(200);
  await untilIdle(ctx.gw);
  const posted = widget.requests.map((r) => r.body?.body);
  expect(posted.filter((b) => b === text)).toHaveLength(1);
  expect(posted.at(-1)).toMatch(/unsubscribed|opted out|STOP/i);
  const skipped = (await api(ctx.gw, account, 'GET', `messages/${reply.body.id}`)).body;
  expect(skipped).toMatchObject({ status: 'skipped', errorCode: 'CONTACT_OPTED_OUT' });
  expect(skipped.deliveries).toEqual([
    expect.objectContaining({
      status: 'failed',
      nextAttemptAt: null,
      attempts: [expect.objectContaining({ status: 503 }), expect.objectContaining({ status: null })],
    }),
  ]);
  const confirmation = (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data.at(-1);
  expect(confirmation).toMatchObject({ author: 'system', status: 'sent' });

  // Its retry, come due, posts nothing more.
  await advanceClock(ctx.gw, '2h');
  await untilIdle(ctx.gw);
  expect(widget.requests.map((r) => r.body?.body)).toEqual(posted);
});

/**
 * A widget whose receiver refuses the team's reply `text` once, set as the account's Custom Channel Webhook URL, and
 * a visitor whose reply waits for its retry, an hour away; and a second visitor who said STOP.
 */
async function replyWaitingAndAVisitorOptedOut(account: TestAccount, text: string) {
  const widget = await receiver((req) => req.body?.body === text);
  expect(
    (await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: widget.url } })).status,
  ).toBe(200);
  const waiting = await replyWaitingForRetry(account, widget, text);
  const optedOutFromId = unique('visitor');
  expect((await write(account, optedOutFromId, 'STOP')).status).toBe(200);
  await untilIdle(ctx.gw);
  const conversations = (await api(ctx.gw, account, 'GET', 'conversations?limit=200')).body.data as any[];
  const optedOutId: string = conversations.find((c) => c.contact?.fromId === optedOutFromId).contactId;
  return { widget, ...waiting, optedOutId, posted: widget.requests.map((r) => r.body?.body) };
}

/** The reply is skipped now, its retry never posting it; nothing is posted to the contact, who did not say STOP. */
async function expectSettledAtOnce(account: TestAccount, widget: Receiver, posted: unknown[], replyId: string) {
  await untilIdle(ctx.gw);
  const skipped = (await api(ctx.gw, account, 'GET', `messages/${replyId}`)).body;
  expect(skipped).toMatchObject({ status: 'skipped', errorCode: 'CONTACT_OPTED_OUT' });
  expect(skipped.deliveries).toEqual([expect.objectContaining({ status: 'failed', nextAttemptAt: null })]);
  expect(widget.requests.map((r) => r.body?.body)).toEqual(posted);
  await advanceClock(ctx.gw, '2h');
  await untilIdle(ctx.gw);
  expect(widget.requests.map((r) => r.body?.body)).toEqual(posted);
}

test("a merge with a contact who said STOP skips at once the reply waiting for the widget's retry, and sends no confirmation", async () => {
  const account: TestAccount = await createAccount(ctx.gw);
  const text = 'Hi Ann, may I send you the brochure?';
  const { widget, contactId, reply, optedOutId, posted } = await replyWaitingAndAVisitorOptedOut(account, text);

  const merged = await api(ctx.gw, account, 'POST', `contacts/${contactId}/merge`, {
    body: { contactId: optedOutId },
  });
  expect(merged.status).toBe(200);
  expect(merged.body.optOut).toBeTruthy();
  await expectSettledAtOnce(account, widget, posted, reply.body.id);
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[];
  // The one confirmation is the one the other contact's STOP got, its conversation now this contact's.
  expect(messages.filter((m) => /unsubscribed/i.test(m.body))).toHaveLength(1);
});

test("a correction giving a contact a phone that stays opted out skips at once the reply waiting for the widget's retry", async () => {
  const account: TestAccount = await createAccount(ctx.gw);
  const text = 'Hi Ann, the Tuesday slot is yours if you want it';
  const { widget, contactId, reply, optedOutId, posted } = await replyWaitingAndAVisitorOptedOut(account, text);
  // The phone is corrected away from the contact who said STOP: it stays opted out.
  const phone = '+14155550187';
  expect((await api(ctx.gw, account, 'PATCH', `contacts/${optedOutId}`, { body: { phone } })).status).toBe(200);
  expect((await api(ctx.gw, account, 'PATCH', `contacts/${optedOutId}`, { body: { phone: null } })).status).toBe(200);

  const corrected = await api(ctx.gw, account, 'PATCH', `contacts/${contactId}`, { body: { phone } });
  expect(corrected.status).toBe(200);
  expect(corrected.body.optOut).toBeTruthy();
  await expectSettledAtOnce(account, widget, posted, reply.body.id);
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[];
  expect(messages.filter((m) => /unsubscribed/i.test(m.body))).toHaveLength(0);
});
