import {
  api,
  createAccount,
  expectApiError,
  poll,
  Receiver,
  settledMessage,
  uniquePhone,
  untilIdle,
  useGateway,
  type Received,
  type TestAccount,
} from './api-support';

/**
 * GET /v1/campaigns/{id}/funnel over HTTPS: contacts of a Live SMS campaign (on the offline log provider) go through
 * the steps (opening sent, a reply that reaches the goal with an OpenAI-compatible bot stood in by a local server,
 * STOP, a request for a person, a failed opening for lack of credits, and one sent later by a retry), and the funnel
 * counts each contact once per step, in total and per day of the time zone asked for; its query is validated.
 */
function respond(_n: number, req: Received) {
  if (req.path !== '/v1/chat/completions') return { status: 404 };
  const last = String(req.body?.messages?.at(-1)?.content ?? '');
  const content = /book/i.test(last) ? 'You are booked for Tuesday at 10. [GOAL_REACHED]' : 'Happy to help!';
  const completion = {
    id: 'c1',
    object: 'chat.completion',
    model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
  };
  return { status: 200, body: JSON.stringify(completion), headers: { 'content-type': 'application/json' } };
}

const ctx = useGateway({
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_BOT_DEBOUNCE: '200ms',
  LEADCHAT_WEBHOOK_RETRIES: '100ms,100ms',
});
let llm: Receiver;
beforeAll(async () => {
  llm = await Receiver.start(respond);
});
afterAll(() => llm?.close());

const STEPS = ['added', 'openingSent', 'replied', 'handedOff', 'optedOut', 'goalReached', 'failed'];
const zero = Object.fromEntries(STEPS.map((s) => [s, 0]));

async function liveCampaign(account: TestAccount) {
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Cleaning offer',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name}}, a cleaning this month?',
      triggerOnNewContacts: true,
      status: 'live',
    },
  });
  expect(created.status).toBe(201);
  return { list, campaign: created.body };
}

const newContact = async (account: TestAccount, firstName: string) =>
  (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName } })).body;
const add = (account: TestAccount, listId: string, contactId: string) =>
  api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId } });
async function write(account: TestAccount, phone: string, body: string): Promise<void> {
  const res = await api(ctx.gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body } });
  expect({ body, status: res.status }).toEqual({ body, status: 200 });
}
const messages = async (account: TestAccount, contactId: string) =>
  (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[];
const funnel = (account: TestAccount, campaignId: string, query = '') =>
  api(ctx.gw, account, 'GET', `campaigns/${campaignId}/funnel${query}`);
const localDate = (timeZone: string, at = new Date()) => at.toLocaleDateString('en-CA', { timeZone });

describe('a campaign whose contacts went through the steps', () => {
  let account: TestAccount;
  let campaignId: string;
  let started: Date;

  beforeAll(async () => {
    started = new Date();
    account = await createAccount(ctx.gw);
    const base = llm.url.replace(/\/hook$/, '');
    expect(
      (
        await api(ctx.gw, account, 'PUT', 'settings/bot', {
          body: { provider: 'openai', openai: { baseUrl: `${base}/v1`, model: 'm', apiKey: 'sk-test-key' } },
        })
      ).status,
    ).toBe(200);
    const { list, campaign } = await liveCampaign(account);
    campaignId = campaign.id;

    // Opted out before joining the list: the campaign cannot send to them, so they were never "added".
    const gone = await newContact(account, 'Gus');
    await write(account, gone.phone, 'STOP');
    const [ann, bob, cat, dan] = [
      await newContact(account, 'Ann'),
      await newContact(account, 'Bob'),
      await newContact(account, 'Cat'),
      await newContact(account, 'Dan'),
    ];
    for (const c of [gone, ann, bob, cat, dan]) expect((await add(account, list.id, c.id)).status).toBe(201);
    for (const c of [ann, bob, cat, dan])
      await poll(
        () => messages(account, c.id),
        (m) => m.some((x) => x.author === 'campaign' && x.status === 'sent'),
      );

    await write(account, ann.phone, 'Can I book a cleaning on Tuesday?');
    await poll(
      () => messages(account, ann.id),
      (m) => m.some((x) => x.author === 'bot'),
    );
    await write(account, ann.phone, 'Thanks!');
    expect(
      (
        await poll(
          () => messages(account, ann.id),
          (m) => m.filter((x) => x.author === 'bot').length === 2,
        )
      ).filter((x) => x.author === 'bot'),
    ).toHaveLength(2);
    await write(account, bob.phone, 'STOP');
    await write(account, cat.phone, 'I would like to talk to a person please');
  }, 30_000);

  test('each step counts each contact once: totals and the day they happened', async () => {
    const res = await funnel(account, campaignId);
    expect(res.status).toBe(200);
    const today = localDate('UTC');
    const expected = { added: 4, openingSent: 4, replied: 2, handedOff: 1, optedOut: 1, goalReached: 1, failed: 0 };
    expect(res.body).toEqual({
      campaignId,
      from: today,
      to: today,
      timezone: 'UTC',
      totals: expected,
      days: [{ date: today, ...expected }],
    });
  });

  test("the days of another time zone: the counts move to that zone's date, the totals stay", async () => {
    for (const zone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kathmandu']) {
      const dates = [localDate(zone, started), localDate(zone)];
      const from = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
      const to = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
      const res = await funnel(account, campaignId, `?from=${from}&to=${to}&timezone=${encodeURIComponent(zone)}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ from, to, timezone: zone, totals: { added: 4, replied: 2, goalReached: 1 } });
      expect(res.body.days).toHaveLength(7);
      expect(res.body.days.map((d: any) => d.date)).toEqual(
        [...Array(7)].map((_, i) =>
          new Date(Date.parse(`${from}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10),
        ),
      );
      const busy = res.body.days.filter((d: any) => STEPS.some((s) => d[s] > 0)).map((d: any) => d.date);
      expect(busy.length).toBeGreaterThan(0);
      for (const date of busy) expect(dates).toContain(date);
    }
  });

  test('a range without those days counts nothing, every day of it listed', async () => {
    const res = await funnel(account, campaignId, '?from=2024-01-01&to=2024-01-31&timezone=Europe%2FParis');
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe('Europe/Paris');
    expect(res.body.totals).toEqual(zero);
    expect(res.body.days).toHaveLength(31);
    expect(res.body.days[0]).toEqual({ date: '2024-01-01', ...zero });
  });

  test('the answer names the zone its days are of, as the sending window keeps it: its canonical, current name', async () => {
    for (const [asked, counted] of [
      ['asia/calcutta', 'Asia/Kolkata'],
      ['US/Eastern', 'America/New_York'],
      ['EST', 'America/Panama'],
      ['utc', 'UTC'],
    ]) {
      const res = await funnel(
        account,
        campaignId,
        `?from=2024-01-01&to=2024-01-02&timezone=${encodeURIComponent(asked!)}`,
      );
      expect({ asked, status: res.status, timezone: res.body.timezone }).toEqual({
        asked,
        status: 200,
        timezone: counted,
      });
    }
  });

  test('the query is checked: bad dates, a range over 366 days, from after to, an unknown zone → 400 naming the one parameter', async () => {
    const bad = [
      '?from=2024-02-30',
      '?to=yesterday',
      '?from=2024-1-01',
      '?from=2024-03-02&to=2024-03-01',
      '?from=2023-01-01&to=2024-01-02',
      '?timezone=Mars%2FOlympus',
      '?timezone=',
    ];
    for (const query of bad) {
      const res = await funnel(account, campaignId, query);
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect({ query, message: res.body.error.message }).toEqual({
        query,
        message: expect.stringMatching(/^(from|to|timezone): /),
      });
      // One problem, in error.fields as every refused parameter is: a date not written YYYY-MM-DD is not also a day
      // off the calendar.
      const field = res.body.error.message.split(':')[0];
      expect({ query, fields: res.body.error.fields }).toEqual({
        query,
        fields: [{ field, code: expect.any(String), message: res.body.error.message.slice(field.length + 2) }],
      });
    }
    // 366 days, leap day included, is the longest range.
    const longest = await funnel(account, campaignId, '?from=2024-01-01&to=2024-12-31');
    expect(longest.status).toBe(200);
    expect(longest.body.days).toHaveLength(366);
  });

  test("another account's campaign and an unknown one → 404, nothing told", async () => {
    const stranger = await createAccount(ctx.gw);
    expectApiError(await funnel(stranger, campaignId), 404, 'CAMPAIGN_NOT_FOUND');
    expectApiError(await funnel(account, 'cmp_nope'), 404, 'CAMPAIGN_NOT_FOUND');
    expectApiError(await api(ctx.gw, undefined, 'GET', `campaigns/${campaignId}/funnel`), 401);
  });
});

test('an opening message that fails (a sub-account without credits) counts as added and failed, not as sent', async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency' });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email });
  const { list, campaign } = await liveCampaign(sub);
  const lead = await newContact(sub, 'Fay');
  await add(sub, list.id, lead.id);
  const [failed] = await poll(
    () => messages(sub, lead.id),
    (m) => m.some((x) => x.status === 'failed'),
  );
  expect(failed).toMatchObject({ author: 'campaign', errorCode: 'INSUFFICIENT_CREDITS' });
  const res = await funnel(sub, campaign.id);
  expect(res.body.totals).toEqual({ ...zero, added: 1, failed: 1 });
});

test('an opening message that failed reads failed on its conversation, until a retry sends it; a message from that lead is no reply to the campaign', async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency' });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email });
  const { list, campaign } = await liveCampaign(sub);
  const lead = await newContact(sub, 'Gus');
  await add(sub, list.id, lead.id);
  await untilIdle(ctx.gw);
  const [opening] = await messages(sub, lead.id);
  expect(opening).toMatchObject({ author: 'campaign', status: 'failed', errorCode: 'INSUFFICIENT_CREDITS' });
  const conversation = async () => (await api(ctx.gw, sub, 'GET', `conversations/${opening.conversationId}`)).body;
  expect((await conversation()).opening).toMatchObject({ campaignId: campaign.id, status: 'failed' });
  // The lead never got the opening: what it writes is no reply to the campaign.
  await write(sub, lead.phone, 'Who is this?');
  await untilIdle(ctx.gw);
  expect((await funnel(sub, campaign.id)).body.totals).toMatchObject({ openingSent: 0, replied: 0 });

  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 5 } });
  expect((await api(ctx.gw, sub, 'POST', `messages/${opening.id}/retry`)).status).toBe(200);
  await untilIdle(ctx.gw);
  expect((await conversation()).opening).toMatchObject({ campaignId: campaign.id, status: 'sent' });
});

test('an opening message its channel fails after it went (every receiver gave up) reads failed on its conversation', async () => {
  const hook = await Receiver.start(() => ({ status: 500, body: 'down' }));
  try {
    const account = await createAccount(ctx.gw);
    await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
    const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Chat leads' } })).body;
    const created = await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Chat offer',
        channel: 'custom',
        customChannel: 'livechat',
        listId: list.id,
        openingMessage: 'Hi {{first_name}}!',
        triggerOnNewContacts: true,
        status: 'live',
      },
    });
    expect(created.status).toBe(201);
    const lead = (
      await api(ctx.gw, account, 'POST', 'contacts', {
        body: { firstName: 'Lou', externalIds: { livechat: `visitor-${uniquePhone()}` } },
      })
    ).body;
    expect((await add(account, list.id, lead.id)).status).toBe(201);
    await untilIdle(ctx.gw);
    const [queued] = await messages(account, lead.id);
    // Its receiver's last retry decides it: read once that has been recorded.
    const opening = await settledMessage(ctx.gw, account, queued.id);
    expect(opening).toMatchObject({ author: 'campaign', status: 'failed' });
    const conversation = (await api(ctx.gw, account, 'GET', `conversations/${opening.conversationId}`)).body;
    expect(conversation.opening).toMatchObject({ campaignId: created.body.id, status: 'failed' });
  } finally {
    await hook.close();
  }
});

describe('an opening message that failed and went out on a retry', () => {
  const grant = (agency: TestAccount, sub: TestAccount, amount: number) =>
    api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount } });
  const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

  test('counts as sent on the day it went, whichever retry sent it (the message, its conversation, the campaign), and stays counted as failed', async () => {
    const agency = await createAccount(ctx.gw, { type: 'agency' });
    const sub = await createAccount(ctx.gw, { parentEmail: agency.email });
    const { list, campaign } = await liveCampaign(sub);
    const leads = [await newContact(sub, 'Hal'), await newContact(sub, 'Ida'), await newContact(sub, 'Jo')];
    for (const lead of leads) expect((await add(sub, list.id, lead.id)).status).toBe(201);
    await untilIdle(ctx.gw);
    const openings = [];
    for (const lead of leads) openings.push((await messages(sub, lead.id))[0]);
    for (const opening of openings)
      expect(opening).toMatchObject({ author: 'campaign', status: 'failed', errorCode: 'INSUFFICIENT_CREDITS' });
    const failedOn = dayOf(ctx.gw.now());
    expect((await funnel(sub, campaign.id)).body.totals).toEqual({ ...zero, added: 3, failed: 3 });

    // The next day the agency grants credits, and each opening goes again by another way.
    await ctx.gw.advance('1d');
    const sentOn = dayOf(ctx.gw.now());
    expect((await grant(agency, sub, 3)).status).toBe(200);
    const [hal, ida, jo] = openings;
    expect((await api(ctx.gw, sub, 'POST', `messages/${hal.id}/retry`)).body.status).toBe('pending');
    expect((await api(ctx.gw, sub, 'POST', `conversations/${ida.conversationId}/retry-failed`)).body).toEqual({
      retried: [ida.id],
      queued: [],
      refused: [],
      more: false,
    });
    expect((await api(ctx.gw, sub, 'POST', `campaigns/${campaign.id}/openings/retry-failed`)).body).toEqual({
      retried: [jo.id],
      queued: [jo.id],
      refused: [],
      more: false,
    });
    await untilIdle(ctx.gw);
    for (const opening of openings) {
      expect((await api(ctx.gw, sub, 'GET', `messages/${opening.id}`)).body.status).toBe('sent');
      const conversation = (await api(ctx.gw, sub, 'GET', `conversations/${opening.conversationId}`)).body;
      expect(conversation.opening.status).toBe('sent');
    }

    const expected = { ...zero, added: 3, openingSent: 3, failed: 3 };
    const res = await funnel(sub, campaign.id);
    expect(res.body).toMatchObject({ from: failedOn, to: sentOn, totals: expected });
    expect(res.body.days).toEqual([
      { date: failedOn, ...zero, added: 3, failed: 3 },
      { date: sentOn, ...zero, openingSent: 3 },
    ]);

    // Nothing is left to retry: a retry again sends nothing and counts nothing.
    expect((await api(ctx.gw, sub, 'POST', `campaigns/${campaign.id}/openings/retry-failed`)).body).toEqual({
      retried: [],
      queued: [],
      refused: [],
      more: false,
    });
    expectApiError(await api(ctx.gw, sub, 'POST', `messages/${hal.id}/retry`), 409, 'MESSAGE_NOT_FAILED');
    await untilIdle(ctx.gw);
    expect((await funnel(sub, campaign.id)).body.totals).toEqual(expected);
  });

  test('retried twice (the receiver failed the first retry too), it counts as sent once', async () => {
    let healthy = false;
    const hook = await Receiver.start(() => (healthy ? { status: 200 } : { status: 500, body: 'down' }));
    try {
      const account = await createAccount(ctx.gw);
      const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Chat leads' } })).body;
      const campaign = (
        await api(ctx.gw, account, 'POST', 'campaigns', {
          body: {
            name: 'Chat offer',
            channel: 'custom',
            customChannel: 'livechat',
            listId: list.id,
            openingMessage: 'Hi {{first_name}}!',
            triggerOnNewContacts: true,
            status: 'live',
          },
        })
      ).body;
      const lead = (
        await api(ctx.gw, account, 'POST', 'contacts', {
          body: { firstName: 'Kim', externalIds: { livechat: `visitor-${uniquePhone()}` } },
        })
      ).body;
      expect((await add(account, list.id, lead.id)).status).toBe(201);
      await untilIdle(ctx.gw);
      // No Custom Channel Webhook URL yet: the opening failed at once.
      const [opening] = await messages(account, lead.id);
      expect(opening).toMatchObject({ author: 'campaign', status: 'failed', errorCode: 'NO_RECEIVER' });
      expect((await funnel(account, campaign.id)).body.totals).toEqual({ ...zero, added: 1, failed: 1 });

      const settings = await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
      expect(settings.status).toBe(200);
      expect((await api(ctx.gw, account, 'POST', `messages/${opening.id}/retry`)).body.status).toBe('pending');
      await untilIdle(ctx.gw);
      // It went to the receiver, which failed it: sent to the channel, and failed (once).
      expect((await api(ctx.gw, account, 'GET', `messages/${opening.id}`)).body.status).toBe('failed');
      const expected = { ...zero, added: 1, openingSent: 1, failed: 1 };
      expect((await funnel(account, campaign.id)).body.totals).toEqual(expected);

      healthy = true;
      expect((await api(ctx.gw, account, 'POST', 'conversations/retry-failed')).body).toEqual({
        retried: [opening.id],
        queued: [opening.id],
        refused: [],
        more: false,
      });
      await untilIdle(ctx.gw);
      expect((await api(ctx.gw, account, 'GET', `messages/${opening.id}`)).body.status).toBe('sent');
      expect((await funnel(account, campaign.id)).body.totals).toEqual(expected);
    } finally {
      await hook.close();
    }
  });
});
