import { api, createAccount, uniquePhone, untilIdle, useGateway, type TestAccount } from './api-support';

/**
 * Sending windows as a marketer in a zone with daylight-saving time meets them (docs/api.md, "Sending window"): the
 * paced queue, follow-ups and the conversation's `next.at` around the days the clocks change, over HTTPS, with the
 * gateway's clock moved to just before those days.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '200ms' });

const BERLIN_DAY = { start: '08:00', end: '20:00', timezone: 'Europe/Berlin' };

/** Moves the gateway's clock to `iso` once what is due before it ran. */
async function clockTo(iso: string) {
  await untilIdle(ctx.gw, { horizonMs: 0 });
  await ctx.gw.advance(Date.parse(iso) - ctx.gw.now());
}

async function listAndCampaign(account: TestAccount, campaign: Record<string, unknown>) {
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Spring',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name|there}}!',
      triggerOnNewContacts: true,
      status: 'live',
      ...campaign,
    },
  });
  expect(created.status).toBe(201);
  return { list, campaign: created.body };
}

async function addContacts(account: TestAccount, listId: string, n: number, delay?: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body;
    expect(
      (await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId: contact.id, delay } }))
        .status,
    ).toBe(201);
    ids.push(contact.id);
  }
  return ids;
}

const conversationOf = async (account: TestAccount, contactId: string) =>
  ((await api(ctx.gw, account, 'GET', `conversations?contactId=${contactId}`)).body.data as any[])[0];

const sentAt = async (account: TestAccount, contactId: string) =>
  ((await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[])
    .filter((m) => m.direction === 'outgoing')
    .map((m) => m.createdAt as string);

test("openings paced past the window's end go at its next opening, in the order they joined, and next.at says so from the start", async () => {
  const account = await createAccount(ctx.gw);
  // Saturday 18:30 in Berlin (CET); the clocks go forward that night, so the window opens at 08:00 CEST (06:00Z).
  await clockTo('2027-03-27T17:30:00Z');
  const { list } = await listAndCampaign(account, { sendRate: '1/h', sendingWindow: BERLIN_DAY });
  const leads = await addContacts(account, list.id, 6);
  const expected = [
    '2027-03-27T17:30:00.000Z',
    '2027-03-27T17:30:00.000Z',
    '2027-03-27T17:30:00.000Z',
    '2027-03-27T18:30:00.000Z', // 19:30 CET, inside
    '2027-03-28T06:00:00.000Z', // 20:30 CET was past the end: 08:00 CEST
    '2027-03-28T07:00:00.000Z', // one interval later
  ];
  const waiting = await Promise.all(leads.slice(3).map(async (id) => (await conversationOf(account, id)).next.at));
  expect(waiting).toEqual(expected.slice(3));

  await untilIdle(ctx.gw, { horizonMs: 16 * 3_600_000 });
  expect(await Promise.all(leads.map((id) => sentAt(account, id)))).toEqual(expected.map((at) => [at]));
});

test("follow-ups an edit made past due, paced past the window's end, wait for its next opening, and next.at says so", async () => {
  const account = await createAccount(ctx.gw);
  await clockTo('2027-10-30T08:00:00Z'); // Saturday 10:00 CEST; the clocks go back that night
  const { list, campaign } = await listAndCampaign(account, {
    sendRate: '1/h',
    sendingWindow: BERLIN_DAY,
    followUps: { enabled: true, steps: [{ after: '1d', body: 'Still there?' }] },
  });
  const leads = await addContacts(account, list.id, 4);
  await untilIdle(ctx.gw, { horizonMs: 3_600_000 });
  // 19:00 CEST: a day is made an hour, and all four are past due; at one an hour the fourth falls at 20:00, shut.
  await clockTo('2027-10-30T17:00:00Z');
  const edit = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, {
    body: { followUps: { steps: [{ after: '1h', body: 'Still there?' }] } },
  });
  expect(edit.status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const waiting = (await Promise.all(leads.map((id) => conversationOf(account, id)))).filter(
    (c) => c.next?.kind === 'follow_up',
  );
  expect(waiting.map((c) => c.next.at)).toEqual(['2027-10-31T07:00:00.000Z']); // 08:00 CET, the clocks gone back
  await untilIdle(ctx.gw, { horizonMs: 16 * 3_600_000 });
  const followUps = await Promise.all(leads.map(async (id) => (await sentAt(account, id)).slice(1)));
  expect(followUps.flat().sort()).toEqual([
    '2027-10-30T17:00:00.000Z',
    '2027-10-30T17:00:00.000Z',
    '2027-10-30T17:00:00.000Z',
    '2027-10-31T07:00:00.000Z',
  ]);
});

test('a delayed opening waiting for the window keeps to the window the campaign has: moved to another zone, then taken away', async () => {
  const account = await createAccount(ctx.gw);
  // Sunday 21:00 in New York (EST): its window opens at 08:00 EST (13:00Z); in Berlin, at 08:00 CET (07:00Z).
  await clockTo('2027-12-06T02:00:00Z');
  const { list, campaign } = await listAndCampaign(account, {
    sendingWindow: { start: '08:00', end: '20:00', timezone: 'America/New_York' },
  });
  const [lead] = await addContacts(account, list.id, 1, '15m');
  expect((await conversationOf(account, lead!)).next.at).toBe('2027-12-06T13:00:00.000Z');
  const edit = (sendingWindow: unknown) =>
    api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { sendingWindow } });

  expect((await edit({ ...BERLIN_DAY })).status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await conversationOf(account, lead!)).next.at).toBe('2027-12-06T07:00:00.000Z');

  // Taken away: it goes when its delay ends.
  expect((await edit(null)).status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await conversationOf(account, lead!)).next.at).toBe('2027-12-06T02:15:00.000Z');
  await untilIdle(ctx.gw, { horizonMs: 3_600_000 });
  expect(await sentAt(account, lead!)).toEqual(['2027-12-06T02:15:00.000Z']);
});

/** A new account's campaign of a window from 08:00 to 20:00 in `timezone`: the answer to its creation. */
async function campaignInZone(timezone: string) {
  const account = await createAccount(ctx.gw);
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  return api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Spring',
      channel: 'sms',
      listId: list.id,
      sendingWindow: { start: '08:00', end: '20:00', timezone },
    },
  });
}

test.each([
  ['Etc/GMT-1', /fixed offset/],
  ['Etc/GMT+5', /fixed offset/],
  ['+01:00', /fixed offset/],
  ['GMT+1', /fixed offset/],
  ['EST', /America\/New_York/],
  ['mst', /America\/Denver/],
])(
  'a window in %s, clocks that keep no daylight-saving time, is refused naming its time zone',
  async (timezone, message) => {
    const res = await campaignInZone(timezone);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_SENDING_WINDOW');
    expect(res.body.error.fields).toEqual([
      { field: 'sendingWindow.timezone', code: 'INVALID_SENDING_WINDOW', message: expect.stringMatching(message) },
    ]);
  },
);

test.each([
  ['UTC', 'UTC'],
  ['CET', 'Europe/Brussels'],
  ['US/Eastern', 'America/New_York'],
])('a window in %s is kept as %s', async (timezone, kept) => {
  const res = await campaignInZone(timezone);
  expect(res.status).toBe(201);
  expect(res.body.sendingWindow.timezone).toBe(kept);
});

test('a campaign saved with a window in Etc/GMT-1 before such zones were refused still pauses, and keeps its window', async () => {
  const account = await createAccount(ctx.gw);
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const { id } = (await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Spring', listId: list.id } })).body;
  const saved = { start: '08:00', end: '20:00', timezone: 'Etc/GMT-1' };
  await ctx.gw.engine.store.transact((tx) => tx.update<any>('campaigns', id, { sendingWindow: saved }));
  const paused = await api(ctx.gw, account, 'PATCH', `campaigns/${id}`, {
    body: { status: 'paused', sendingWindow: saved },
  });
  expect(paused.status).toBe(200);
  expect(paused.body.sendingWindow).toEqual({ ...saved, days: null });
});

const WEEKDAYS_NY = {
  start: '08:00',
  end: '21:00',
  timezone: 'America/New_York',
  days: ['fri', 'mon', 'thu', 'tue', 'wed'],
};

test("an opening added on a Saturday, with a window open Monday to Friday, goes on Monday at the window's start, and next.at says so", async () => {
  const account = await createAccount(ctx.gw);
  await clockTo('2028-03-11T17:00:00Z'); // Saturday 12:00 EST; the clocks spring forward on Sunday
  const { list, campaign } = await listAndCampaign(account, { sendingWindow: WEEKDAYS_NY });
  expect(campaign.sendingWindow.days).toEqual(['mon', 'tue', 'wed', 'thu', 'fri']);
  const read = await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}`);
  expect(read.body.sendingWindow).toEqual({ ...WEEKDAYS_NY, days: ['mon', 'tue', 'wed', 'thu', 'fri'] });

  const [lead] = await addContacts(account, list.id, 1);
  expect((await conversationOf(account, lead!)).next).toMatchObject({ at: '2028-03-13T12:00:00.000Z' }); // Mon 08:00 EDT
  await untilIdle(ctx.gw, { horizonMs: 3 * 24 * 3_600_000 });
  expect(await sentAt(account, lead!)).toEqual(['2028-03-13T12:00:00.000Z']);
});

test('a follow-up a day after a Friday opening waits for Monday, and days changed by a PATCH hold for one waiting', async () => {
  const account = await createAccount(ctx.gw);
  await clockTo('2028-06-09T14:00:00Z'); // Friday 10:00 EDT
  const { list, campaign } = await listAndCampaign(account, {
    sendingWindow: WEEKDAYS_NY,
    followUps: { enabled: true, steps: [{ after: '1d', body: 'Still there?' }] },
  });
  const [lead] = await addContacts(account, list.id, 1);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  // A day after Friday 10:00 is Saturday 10:00, a day the window stays shut: it waits for Monday 08:00.
  expect((await conversationOf(account, lead!)).next).toMatchObject({
    kind: 'follow_up',
    at: '2028-06-12T12:00:00.000Z',
  });

  const edit = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, {
    body: { sendingWindow: { ...WEEKDAYS_NY, days: ['sat'] } },
  });
  expect(edit.status).toBe(200);
  expect(edit.body.sendingWindow.days).toEqual(['sat']);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await conversationOf(account, lead!)).next).toMatchObject({
    kind: 'follow_up',
    at: '2028-06-10T14:00:00.000Z',
  });
  await untilIdle(ctx.gw, { horizonMs: 2 * 24 * 3_600_000 });
  expect(await sentAt(account, lead!)).toEqual(['2028-06-09T14:00:00.000Z', '2028-06-10T14:00:00.000Z']);
});

test('a window left without days opens every day, and a campaign saved before windows had days reads as every day', async () => {
  const account = await createAccount(ctx.gw);
  const { campaign } = await listAndCampaign(account, { sendingWindow: BERLIN_DAY });
  expect(campaign.sendingWindow).toEqual({ ...BERLIN_DAY, days: null });
  await ctx.gw.engine.store.transact((tx) => tx.update<any>('campaigns', campaign.id, { sendingWindow: BERLIN_DAY }));
  expect((await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}`)).body.sendingWindow).toEqual({
    ...BERLIN_DAY,
    days: null,
  });
});

test.each([
  [[], 'INVALID_SENDING_WINDOW', /at least one day/],
  [['Mon', 'tue'], 'INVALID_SENDING_WINDOW', /"Mon" is none of them/],
  [['sat', 'sun', 'sat'], 'INVALID_SENDING_WINDOW', /"sat" is there twice/],
  // Not a list at all is refused as a start that is no text is: by the request's schema.
  ['mon', 'VALIDATION_ERROR', /list/],
])('a window open on %j is refused, naming sendingWindow.days', async (days, code, message) => {
  const account = await createAccount(ctx.gw);
  const res = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Spring', sendingWindow: { ...BERLIN_DAY, days } },
  });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.fields).toEqual([
    {
      field: 'sendingWindow.days',
      code: code === 'VALIDATION_ERROR' ? 'INVALID' : code,
      message: expect.stringMatching(message),
    },
  ]);
});
