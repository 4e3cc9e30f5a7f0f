import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  poll,
  unique,
  uniquePhone,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * The campaign trigger (spec §3.2) over HTTPS: a Live campaign sends its opening message to each contact added to
 * its list, paced, delayed, within its sending window, held by a pause; on the offline `log` channel provider.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '200ms' });

async function listAndCampaign(account: TestAccount, campaign: Record<string, unknown> = {}) {
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Funnel',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name|there}}, thanks for your interest!',
      triggerOnNewContacts: true,
      status: 'live',
      ...campaign,
    },
  });
  expect(created.status).toBe(201);
  return { list, campaign: created.body };
}

async function contact(account: TestAccount, fields: Record<string, unknown> = {}) {
  return (
    await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: 'Ann', ...fields } })
  ).body;
}

const add = (account: TestAccount, listId: string, contactId: string, extra: Record<string, unknown> = {}) =>
  api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId, ...extra } });

const outgoing = async (account: TestAccount, contactId: string) =>
  ((await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[]).filter(
    (m) => m.direction === 'outgoing',
  );

const conversationOf = async (account: TestAccount, contactId: string) => {
  const all = (await api(ctx.gw, account, 'GET', 'conversations?limit=200')).body.data as any[];
  return all.find((c) => c.contactId === contactId);
};

test('a contact added to the list of a Live campaign gets its opening message, personalized, on the log provider', async () => {
  const account = await createAccount(ctx.gw);
  const { list, campaign } = await listAndCampaign(account);
  const ann = await contact(account, { firstName: 'Ann' });
  const nameless = await contact(account, { firstName: undefined });
  expect((await add(account, list.id, ann.id)).status).toBe(201);
  await add(account, list.id, nameless.id);

  const [sent] = await poll(
    () => outgoing(account, ann.id),
    (m) => m.length > 0 && m[0].status === 'sent',
  );
  expect(sent).toMatchObject({
    body: 'Hi Ann, thanks for your interest!',
    channel: 'sms',
    campaignId: campaign.id,
    author: 'campaign',
    provider: 'log',
    toId: ann.phone,
  });
  const [other] = await poll(
    () => outgoing(account, nameless.id),
    (m) => m.length > 0,
  );
  expect(other.body).toBe('Hi there, thanks for your interest!');

  const conversation = await conversationOf(account, ann.id);
  expect(conversation).toMatchObject({
    channel: 'sms',
    campaignId: campaign.id,
    status: 'active',
    bot: { active: true },
    opening: { status: 'sent', reason: null },
  });
  expect(conversation.lastMessage).toMatchObject({ id: sent.id, status: 'sent' });
  expect((await api(ctx.gw, account, 'GET', `conversations/${conversation.id}`)).body.contact.id).toBe(ann.id);

  // Added again: nothing more.
  expect((await add(account, list.id, ann.id)).status).toBe(200);
  await untilIdle(ctx.gw);
  expect(await outgoing(account, ann.id)).toHaveLength(1);
});

test('preview renders the opening message for a contact', async () => {
  const account = await createAccount(ctx.gw);
  const { campaign } = await listAndCampaign(account, {
    openingMessage: 'Hello {{first_name}} {{custom.city|friend}}',
  });
  const bob = await contact(account, { firstName: 'Bob', customFields: { city: 'Lyon' } });
  const preview = await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/preview?contactId=${bob.id}`);
  expect(preview.status).toBe(200);
  expect(preview.body).toMatchObject({ body: 'Hello Bob Lyon', channel: 'sms', to: bob.phone });
  expectApiError(await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/preview`), 400);
  expectApiError(await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/preview?contactId=ct_nope`), 404);
});

test('a campaign that cannot send cannot go Live: 400 with the reason', async () => {
  const account = await createAccount(ctx.gw);
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'L' } })).body;
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ channel: 'whatsapp', listId: list.id, openingMessage: 'Hi' }, /approved template/],
    [{ channel: 'sms', openingMessage: 'Hi' }, /list/],
    [{ channel: 'sms', listId: list.id }, /openingMessage/],
    [{ channel: 'custom', listId: list.id, openingMessage: 'Hi' }, /customChannel/],
  ];
  for (const [fields, reason] of cases) {
    const res = await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'C', status: 'live', ...fields } });
    expectApiError(res, 400, 'CAMPAIGN_CANNOT_SEND');
    expect(res.body.error.message).toMatch(reason);
  }
  const draft = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: { name: 'C', channel: 'whatsapp', listId: list.id, openingMessage: 'Hi' },
    })
  ).body;
  expectApiError(
    await api(ctx.gw, account, 'PATCH', `campaigns/${draft.id}`, { body: { status: 'live' } }),
    400,
    'CAMPAIGN_CANNOT_SEND',
  );
  const live = await api(ctx.gw, account, 'PATCH', `campaigns/${draft.id}`, {
    body: { status: 'live', openingTemplate: 'welcome_v1' },
  });
  expect(live.status).toBe(200);
  expect(live.body.status).toBe('live');
  expectApiError(
    await api(ctx.gw, account, 'PATCH', `campaigns/${draft.id}`, { body: { sendRate: 'fast' } }),
    400,
    'INVALID_RATE',
  );
  expectApiError(
    await api(ctx.gw, account, 'PATCH', `campaigns/${draft.id}`, { body: { openingMessage: 'Hi {{frist_name}}' } }),
    400,
    'UNKNOWN_TEMPLATE_FIELD',
  );
  expectApiError(
    await api(ctx.gw, account, 'PATCH', `campaigns/${draft.id}`, {
      body: { sendingWindow: { start: '25:00', end: '21:00', timezone: 'UTC' } },
    }),
    400,
    'INVALID_SENDING_WINDOW',
  );
  expectApiError(
    await api(ctx.gw, account, 'PATCH', `campaigns/${draft.id}`, {
      body: { followUps: { enabled: true, steps: [{ after: 'soon', body: 'x' }] } },
    }),
    400,
  );
});

test('10 additions at once: 3 go at once, the rest at the campaign rate, none twice', async () => {
  const account = await createAccount(ctx.gw);
  const { list } = await listAndCampaign(account, { sendRate: '120/m' }); // one every 500 ms
  const contacts = await Promise.all(Array.from({ length: 10 }, () => contact(account)));
  const started = ctx.gw.now();
  await Promise.all(contacts.map((c) => add(account, list.id, c.id)));
  const sent = await poll(
    async () => (await Promise.all(contacts.map((c) => outgoing(account, c.id)))).flat(),
    (all) => all.length === 10 && all.every((m) => m.status === 'sent'),
    20_000,
  );
  const times = sent.map((m) => Date.parse(m.createdAt) - started).sort((a, b) => a - b);
  expect(times.slice(0, 3).every((t) => t < 1500)).toBe(true);
  // The other 7 at one slot (500 ms) each, counted from the additions (the first sends may start a little after
  // them, the paced ones keep their slots): the k-th of them no sooner than k slots after the additions began. A
  // send is never early; on a busy machine one may go late, and the next one on time.
  const early = times
    .slice(3)
    .map((t, k) => ({ k: k + 1, aheadMs: (k + 1) * 500 - 100 - t }))
    .filter((e) => e.aheadMs > 0);
  expect(early).toEqual([]);
  expect(new Set(sent.map((m) => m.contactId)).size).toBe(10);
});

test('a new send rate paces the openings already waiting: a faster one brings them forward, a slower one holds them back', async () => {
  const account = await createAccount(ctx.gw);
  const sentCount = async (ids: string[]) =>
    (await Promise.all(ids.map((id) => outgoing(account, id)))).filter((m) => m.length > 0).length;
  async function queueOf(sendRate: string) {
    const { list, campaign } = await listAndCampaign(account, { sendRate });
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const c = await contact(account);
      await add(account, list.id, c.id);
      ids.push(c.id);
    }
    await untilIdle(ctx.gw, { horizonMs: 0 });
    expect(await sentCount(ids)).toBe(3);
    return { campaign, ids };
  }
  const rate = (id: string, sendRate: string) =>
    api(ctx.gw, account, 'PATCH', `campaigns/${id}`, { body: { sendRate } }).then((r) => r.status);

  // 7 wait a minute apart; at 60/m they go a second apart.
  const faster = await queueOf('1/m');
  // 7 wait a second apart; at 1/m, a minute apart from the last send.
  const slower = await queueOf('60/m');
  expect(await rate(faster.campaign.id, '60/m')).toBe(200);
  expect(await rate(slower.campaign.id, '1/m')).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });

  // The clock moves to each send in turn.
  await untilIdle(ctx.gw, { horizonMs: 10_000 });
  expect(await sentCount(faster.ids)).toBe(10);
  expect(await sentCount(slower.ids)).toBe(3);
  await untilIdle(ctx.gw, { horizonMs: 60_000 });
  expect(await sentCount(slower.ids)).toBe(4);
  await untilIdle(ctx.gw, { horizonMs: 60_000 });
  expect(await sentCount(slower.ids)).toBe(5);
  const times = (await Promise.all(faster.ids.map((id) => outgoing(account, id))))
    .map(([m]) => Date.parse(m.createdAt))
    .sort((a, b) => a - b);
  for (let i = 4; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);
});

test('a send rate changed during a pause holds for the openings that waited, once the campaign is Live again', async () => {
  const account = await createAccount(ctx.gw);
  const { list, campaign } = await listAndCampaign(account, { sendRate: '1/h' });
  const ids: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    const c = await contact(account);
    await add(account, list.id, c.id);
    ids.push(c.id);
  }
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const patch = (body: Record<string, unknown>) =>
    api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body }).then((r) => r.status);
  expect(await patch({ status: 'paused' })).toBe(200);
  expect(await patch({ sendRate: '60/m' })).toBe(200);
  expect(await patch({ status: 'live' })).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 10_000 });
  const sent = await Promise.all(ids.map((id) => outgoing(account, id)));
  expect(sent.map((m) => m.length)).toEqual([1, 1, 1, 1, 1]);
});

/**
 * Going Live after a pause that changed the send rate, with the contacts already on the list reached at once: the
 * openings that waited through the pause take the new rate, and those queued after it keep their burst (3 at once),
 * whichever job runs first.
 */
async function pausedRateThenReach(resumeFirst: boolean) {
  const account = await createAccount(ctx.gw);
  const { list, campaign } = await listAndCampaign(account, { sendRate: '1/h' });
  const waited: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    const c = await contact(account);
    await add(account, list.id, c.id);
    waited.push(c.id);
  }
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const patch = (body: Record<string, unknown>) =>
    api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body }).then((r) => r.status);
  expect(await patch({ status: 'paused' })).toBe(200);
  expect(await patch({ sendRate: '60/m' })).toBe(200);
  // Added during the pause: the trigger sends nothing to them, reaching the list does.
  const later: string[] = [];
  for (let i = 0; i < 4; i += 1) {
    const c = await contact(account);
    await add(account, list.id, c.id);
    later.push(c.id);
  }
  await ctx.gw.advance('1m');
  const liveAt = ctx.gw.now();
  expect(await patch({ status: 'live' })).toBe(200);
  if (resumeFirst) await ctx.gw.drain();
  const reached = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`);
  expect(reached.body).toMatchObject({ queued: 4 });
  await untilIdle(ctx.gw, { horizonMs: 10_000 });
  const sentAt = async (ids: string[]) =>
    (await Promise.all(ids.map((id) => outgoing(account, id)))).map((m) => {
      expect(m).toHaveLength(1);
      return Date.parse(m[0].createdAt) - liveAt;
    });
  const reachedAt = await sentAt(later);
  const resumedAt = (await sentAt(waited)).filter((t) => t >= 0);
  // The 2 that waited went at the new rate, not an hour apart; the 4 reached: 3 at once, as additions go.
  expect(resumedAt).toHaveLength(2);
  expect(reachedAt.filter((t) => t === 0)).toHaveLength(3);
  const all = [...resumedAt, ...reachedAt].sort((a, b) => a - b);
  expect(all.slice(0, 3)).toEqual([0, 0, 0]);
  for (let i = 3; i < all.length; i += 1) expect(all[i]! - all[i - 1]!).toBeGreaterThanOrEqual(1000);
  expect(all.at(-1)).toBeLessThanOrEqual(10_000);
}

test('going Live after a send rate changed in a pause, with the list reached at once: the waiting openings take the new rate, the reached ones keep their burst', async () => {
  await pausedRateThenReach(false);
});

test('the same when the paused queue was taken up before the list was reached', async () => {
  await pausedRateThenReach(true);
});

test('a campaign moved to another list sends its waiting openings only to the contacts on its new list', async () => {
  const account = await createAccount(ctx.gw);
  const { list, campaign } = await listAndCampaign(account, { sendRate: '1/m' });
  const other = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Other leads' } })).body;
  const contacts = [];
  for (let i = 0; i < 5; i += 1) {
    const c = await contact(account);
    expect((await add(account, list.id, c.id)).status).toBe(201);
    contacts.push(c);
  }
  await untilIdle(ctx.gw, { horizonMs: 0 });
  // The first 3 went at once; the other 2 wait for their slots, a minute apart. One of those is on both lists.
  const [stays, leaves] = contacts.slice(3);
  for (const c of contacts.slice(0, 3)) expect(await outgoing(account, c.id)).toHaveLength(1);
  for (const c of [stays!, leaves!]) expect((await conversationOf(account, c.id)).opening.status).toBe('queued');
  await add(account, other.id, stays!.id);

  expect((await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { listId: other.id } })).status).toBe(
    200,
  );
  await advanceClock(ctx.gw, '10m');
  await untilIdle(ctx.gw);
  expect(await outgoing(account, leaves!.id)).toEqual([]);
  expect(await conversationOf(account, leaves!.id)).toMatchObject({
    opening: { campaignId: campaign.id, status: 'cancelled', reason: 'left_list' },
    next: null,
  });
  expect(await outgoing(account, stays!.id)).toHaveLength(1);
  expect((await conversationOf(account, stays!.id)).opening).toMatchObject({ status: 'sent' });
});

test('a contact taken off the list before its opening went gets it when added again, once', async () => {
  const account = await createAccount(ctx.gw);
  const { list, campaign } = await listAndCampaign(account);
  const lead = await contact(account, { firstName: 'Bea' });
  await add(account, list.id, lead.id, { delay: '1h' });
  expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}/contacts/${lead.id}`)).status).toBe(204);
  expect((await conversationOf(account, lead.id)).opening).toMatchObject({ status: 'cancelled', reason: 'left_list' });

  expect((await add(account, list.id, lead.id)).status).toBe(201);
  await untilIdle(ctx.gw);
  expect((await outgoing(account, lead.id)).map((m) => m.body)).toEqual(['Hi Bea, thanks for your interest!']);
  expect(await conversationOf(account, lead.id)).toMatchObject({
    campaignId: campaign.id,
    opening: { status: 'sent', reason: null },
  });
  const funnel = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/funnel`)).body;
  expect(funnel.totals).toMatchObject({ added: 1, openingSent: 1 });

  // Taken off and added again once it went: nothing more.
  await api(ctx.gw, account, 'DELETE', `lists/${list.id}/contacts/${lead.id}`);
  expect((await add(account, list.id, lead.id)).status).toBe(201);
  await advanceClock(ctx.gw, '2h');
  await untilIdle(ctx.gw);
  expect(await outgoing(account, lead.id)).toHaveLength(1);
});

test('a contact taken off the list after its opening failed for credits is not sent it by the retry after the top-up', async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const account = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  const { list, campaign } = await listAndCampaign(account);
  const [kept, removed] = [await contact(account, { firstName: 'Cy' }), await contact(account, { firstName: 'Di' })];
  for (const lead of [kept, removed]) expect((await add(account, list.id, lead.id)).status).toBe(201);
  await untilIdle(ctx.gw);
  const [failed] = await outgoing(account, removed.id);
  expect(failed).toMatchObject({ status: 'failed', errorCode: 'INSUFFICIENT_CREDITS' });
  // The list is cleaned while the campaign runs; then the agency tops the balance up and the openings are retried.
  expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}/contacts/${removed.id}`)).status).toBe(204);
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: account.email, amount: 10 } });
  const report = (await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/openings/retry-failed`)).body;
  expect(report.refused).toEqual([{ messageId: failed.id, code: 'CONTACT_LEFT_LIST', message: expect.any(String) }]);
  expect(report.retried).toHaveLength(1);
  expectApiError(await api(ctx.gw, account, 'POST', `messages/${failed.id}/retry`), 409, 'CONTACT_LEFT_LIST');
  await untilIdle(ctx.gw);
  expect((await outgoing(account, kept.id)).map((m) => m.status)).toEqual(['sent']);
  expect((await outgoing(account, removed.id)).map((m) => m.status)).toEqual(['failed']);
  expect((await api(ctx.gw, account, 'GET', `credits`)).body.balance).toBe(9);
});

/** Moves the gateway's clock to `iso` once what is due before it ran. */
async function clockTo(iso: string) {
  await untilIdle(ctx.gw, { horizonMs: 0 });
  await ctx.gw.advance(Date.parse(iso) - ctx.gw.now());
  await untilIdle(ctx.gw, { horizonMs: 0 });
}

/** A sub-account without credits, its agency, and `n` contacts whose openings failed for want of them. */
async function openingsFailedForCredits(n: number, campaignFields: Record<string, unknown>) {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const account = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  const { list, campaign } = await listAndCampaign(account, campaignFields);
  const leads: any[] = [];
  for (let i = 0; i < n; i += 1) {
    const lead = await contact(account);
    expect((await add(account, list.id, lead.id)).status).toBe(201);
    leads.push(lead);
  }
  await untilIdle(ctx.gw, { horizonMs: 3_600_000 });
  const failed: any[] = [];
  for (const lead of leads) {
    const [opening] = await outgoing(account, lead.id);
    expect(opening).toMatchObject({ status: 'failed', errorCode: 'INSUFFICIENT_CREDITS' });
    failed.push(opening);
  }
  const topUp = (amount: number) =>
    api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: account.email, amount } });
  // Openings that failed at one instant (a burst) are retried in no particular order among themselves.
  const leadOf = (messageId: string) => leads[failed.findIndex((m) => m.id === messageId)]!;
  return { account, list, campaign, leads, failed, topUp, leadOf };
}

test("failed openings retried after a top-up at night go back to the campaign's queue: none before its window opens, then one a minute", async () => {
  await clockTo('2027-05-04T15:00:00Z');
  const { account, campaign, leads, failed, topUp, leadOf } = await openingsFailedForCredits(6, {
    sendRate: '1/m',
    sendingWindow: { start: '08:00', end: '20:00', timezone: 'UTC' },
  });

  // The agency tops up at midnight; the marketer retries at once.
  await clockTo('2027-05-05T00:00:00Z');
  expect((await topUp(10)).status).toBe(200);
  const report = (await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/openings/retry-failed`)).body;
  expect(report).toEqual({ retried: expect.any(Array), queued: report.retried, refused: [], more: false });
  expect([...report.retried].sort()).toEqual(failed.map((m) => m.id).sort());
  const inTurn = (report.retried as string[]).map(leadOf);
  const statuses = async () =>
    Promise.all(inTurn.map(async (lead) => (await outgoing(account, lead.id)).map((m) => m.status)));
  // Queued again: no longer failed, each conversation says when its opening goes.
  expect(await statuses()).toEqual(leads.map(() => ['pending']));
  const openings = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/openings`)).body;
  expect(openings.failed).toEqual({ count: 0, more: false, byCode: {} });
  const expected = [0, 1, 2, 3, 4, 5].map((i) => new Date(Date.parse('2027-05-05T08:00:00Z') + i * 60_000));
  for (const [i, lead] of inTurn.entries())
    expect(await conversationOf(account, lead.id)).toMatchObject({
      failed: 0,
      opening: { campaignId: campaign.id, status: 'queued' },
      next: { kind: 'opening', at: expected[i]!.toISOString() },
    });
  let funnel = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/funnel`)).body;
  expect(funnel.totals).toMatchObject({ added: 6, openingSent: 0, failed: 6 });

  await clockTo('2027-05-05T07:59:59Z');
  expect(await statuses()).toEqual(leads.map(() => ['pending']));
  for (let sent = 1; sent <= 6; sent += 1) {
    await clockTo(expected[sent - 1]!.toISOString());
    expect(await statuses()).toEqual(inTurn.map((_, i) => [i < sent ? 'sent' : 'pending']));
  }
  for (const lead of leads) expect((await conversationOf(account, lead.id)).opening).toMatchObject({ status: 'sent' });
  funnel = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/funnel`)).body;
  expect(funnel.totals).toMatchObject({ added: 6, openingSent: 6, failed: 6 });
  expect((await api(ctx.gw, account, 'GET', 'credits')).body.balance).toBe(4);
});

test('a retried opening waiting in the queue is not sent to a contact taken off the list meanwhile, nor once credits are spent: it fails again, saying why', async () => {
  const { account, list, campaign, topUp, leadOf } = await openingsFailedForCredits(4, { sendRate: '1/m' });
  expect((await topUp(2)).status).toBe(200);
  const report = (await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/openings/retry-failed`)).body;
  // Two are paid for: those are queued (one a minute), the others stay failed.
  expect(report.retried).toHaveLength(2);
  expect(report.refused.map((r: any) => r.code)).toEqual(['INSUFFICIENT_CREDITS', 'INSUFFICIENT_CREDITS']);
  const [first, second] = (report.retried as string[]).map(leadOf);
  expect((await outgoing(account, second!.id)).map((m) => m.status)).toEqual(['pending']);
  expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}/contacts/${second!.id}`)).status).toBe(204);
  await untilIdle(ctx.gw, { horizonMs: 600_000 });
  expect((await outgoing(account, first!.id)).map((m) => m.status)).toEqual(['sent']);
  expect(await outgoing(account, second!.id)).toEqual([
    expect.objectContaining({ status: 'failed', errorCode: 'CONTACT_LEFT_LIST' }),
  ]);
  expect(await conversationOf(account, second!.id)).toMatchObject({
    failed: 1,
    next: null,
    opening: { status: 'cancelled', reason: 'left_list' },
  });
  expect((await api(ctx.gw, account, 'GET', 'credits')).body.balance).toBe(1);

  // Queued while the balance pays, then spent by a send of another: the opening fails again in its turn.
  const queued = (await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/openings/retry-failed`)).body;
  expect(queued.retried).toHaveLength(1);
  expect(queued.refused.map((r: any) => r.code).sort()).toEqual(['CONTACT_LEFT_LIST', 'INSUFFICIENT_CREDITS']);
  const third = leadOf(queued.retried[0]);
  const fourth = leadOf(queued.refused.find((r: any) => r.code === 'INSUFFICIENT_CREDITS').messageId);
  expect(
    (await api(ctx.gw, account, 'POST', `contacts/${fourth.id}/messages`, { body: { body: 'A person here.' } })).status,
  ).toBe(201);
  await untilIdle(ctx.gw, { horizonMs: 600_000 });
  expect(await outgoing(account, third.id)).toEqual([
    expect.objectContaining({ status: 'failed', errorCode: 'INSUFFICIENT_CREDITS' }),
  ]);
  const openings = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/openings`)).body;
  expect(openings.failed.byCode).toEqual({ CONTACT_LEFT_LIST: 1, INSUFFICIENT_CREDITS: 2 });
});

test("retried across the account, failed openings go back to their campaign's queue too; one conversation's retry sends its own at once", async () => {
  await clockTo('2027-05-06T15:00:00Z');
  const { account, leads, failed, topUp } = await openingsFailedForCredits(3, {
    sendRate: '1/m',
    sendingWindow: { start: '08:00', end: '20:00', timezone: 'UTC' },
  });
  await clockTo('2027-05-07T00:00:00Z');
  expect((await topUp(10)).status).toBe(200);
  // A person looking at one lead retries it: it goes now.
  const one = await api(ctx.gw, account, 'POST', `conversations/${failed[0]!.conversationId}/retry-failed`);
  expect(one.body).toEqual({ retried: [failed[0]!.id], queued: [], refused: [], more: false });
  const all = (await api(ctx.gw, account, 'POST', 'conversations/retry-failed')).body;
  expect([...all.retried].sort()).toEqual([failed[1]!.id, failed[2]!.id].sort());
  expect([...all.queued].sort()).toEqual([failed[1]!.id, failed[2]!.id].sort());
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const statuses = async () =>
    Promise.all(leads.map(async (lead) => (await outgoing(account, lead.id)).map((m) => m.status)));
  expect(await statuses()).toEqual([['sent'], ['pending'], ['pending']]);
  for (const lead of leads.slice(1))
    expect((await conversationOf(account, lead.id)).next).toMatchObject({ kind: 'opening' });
  await clockTo('2027-05-07T07:59:59Z');
  expect(await statuses()).toEqual([['sent'], ['pending'], ['pending']]);
  await clockTo('2027-05-07T08:01:00Z');
  expect(await statuses()).toEqual([['sent'], ['sent'], ['sent']]);
});

test('a retried opening waits while its campaign is paused and goes once it is Live again; one whose contact wrote meanwhile fails, saying why', async () => {
  await clockTo('2027-05-08T15:00:00Z');
  const { account, campaign, leads, failed, topUp } = await openingsFailedForCredits(2, {
    sendRate: '1/m',
    sendingWindow: { start: '08:00', end: '20:00', timezone: 'UTC' },
  });
  await clockTo('2027-05-09T00:00:00Z');
  expect((await topUp(10)).status).toBe(200);
  const report = (await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/openings/retry-failed`)).body;
  expect([...report.retried].sort()).toEqual(failed.map((m) => m.id).sort());
  const [waits, writes] = leads;
  const reply = await api(ctx.gw, account, 'POST', 'channels/sms/incoming', {
    body: { phone: writes!.phone, body: 'Hi, I have a question' },
  });
  expect(reply.status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await outgoing(account, writes!.id)).filter((m) => m.author === 'campaign')).toEqual([
    expect.objectContaining({ id: failed[1]!.id, status: 'failed', errorCode: 'CONTACT_WROTE_SINCE' }),
  ]);
  expect((await conversationOf(account, writes!.id)).opening).toMatchObject({
    status: 'cancelled',
    reason: 'wrote_first',
  });

  await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { status: 'paused' } });
  await clockTo('2027-05-09T09:00:00Z');
  expect((await outgoing(account, waits!.id)).map((m) => m.status)).toEqual(['pending']);
  expect((await conversationOf(account, waits!.id)).opening.status).toBe('held');
  await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { status: 'live' } });
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await outgoing(account, waits!.id)).map((m) => m.status)).toEqual(['sent']);
  expect((await conversationOf(account, waits!.id)).opening.status).toBe('sent');
  const funnel = (await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}/funnel`)).body;
  expect(funnel.totals).toMatchObject({ added: 2, openingSent: 1, failed: 2 });
});

test('a contact a person wrote to while it was off the list gets no opening when added again', async () => {
  const account = await createAccount(ctx.gw);
  const { list } = await listAndCampaign(account);
  const lead = await contact(account);
  await add(account, list.id, lead.id, { delay: '1h' });
  await api(ctx.gw, account, 'DELETE', `lists/${list.id}/contacts/${lead.id}`);
  expect(
    (await api(ctx.gw, account, 'POST', `contacts/${lead.id}/messages`, { body: { body: 'A person here.' } })).status,
  ).toBe(201);
  await add(account, list.id, lead.id);
  await advanceClock(ctx.gw, '2h');
  await untilIdle(ctx.gw);
  expect((await outgoing(account, lead.id)).map((m) => m.author)).toEqual(['team']);
});

test('a campaign moved to another channel sends its waiting openings on the new one', async () => {
  const account = await createAccount(ctx.gw);
  const { list, campaign } = await listAndCampaign(account, { sendRate: '1/m' });
  const contacts = [];
  for (let i = 0; i < 4; i += 1) {
    const c = await contact(account);
    await add(account, list.id, c.id);
    contacts.push(c);
  }
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const waiting = contacts[3]!;
  expect((await conversationOf(account, waiting.id)).opening.status).toBe('queued');

  const moved = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, {
    body: { channel: 'whatsapp', openingTemplate: 'welcome' },
  });
  expect(moved.status).toBe(200);
  await advanceClock(ctx.gw, '10m');
  await untilIdle(ctx.gw);
  const [sent] = await outgoing(account, waiting.id);
  expect(sent).toMatchObject({ channel: 'whatsapp', author: 'campaign', campaignId: campaign.id });
  expect(sent.template).toMatchObject({ name: 'welcome' });
  const conversations = (await api(ctx.gw, account, 'GET', 'conversations?limit=200')).body.data as any[];
  expect(conversations.filter((c) => c.contactId === waiting.id).map((c) => [c.channel, c.opening?.status])).toEqual([
    ['whatsapp', 'sent'],
  ]);
});

test("two campaigns of one list on one channel: the conversation follows up as the later opening's campaign says, when it says", async () => {
  const account = await createAccount(ctx.gw);
  const { list, campaign: quick } = await listAndCampaign(account, {
    name: 'Quick',
    followUps: { enabled: true, steps: [{ after: '20m', body: 'Quick nudge' }] },
  });
  const { campaign: slow } = await listAndCampaign(account, {
    name: 'Slow',
    listId: list.id,
    followUps: { enabled: true, steps: [{ after: '2h', body: 'Slow nudge' }] },
  });
  const lead = await contact(account);
  await add(account, list.id, lead.id);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  // Both openings go in the same instant; on several runners either may go last. The conversation names that one,
  // and follows up as it says, when it says.
  const opened = await conversationOf(account, lead.id);
  expect([slow.id, quick.id]).toContain(opened.campaignId);
  expect(opened.next).toMatchObject({ kind: 'follow_up', step: 0 });
  const lastOne =
    opened.campaignId === slow.id
      ? { body: 'Slow nudge', after: 2 * 3_600_000 }
      : { body: 'Quick nudge', after: 20 * 60_000 };
  const [opening] = await outgoing(account, lead.id);
  expect(Date.parse(opened.next.at) - Date.parse(opening.createdAt)).toBe(lastOne.after);

  await untilIdle(ctx.gw, { horizonMs: 3 * 3_600_000 });
  const [, , nudge, more] = await outgoing(account, lead.id);
  expect(nudge).toMatchObject({ body: lastOne.body, author: 'follow_up', campaignId: opened.campaignId });
  expect(nudge.createdAt).toBe(opened.next.at);
  expect(more).toBeUndefined();
});

test('two campaigns of one list: the one whose opening goes last, though queued first, names the conversation and follows up by its own steps', async () => {
  const account = await createAccount(ctx.gw);
  const { list, campaign: quick } = await listAndCampaign(account, {
    name: 'Quick',
    sendRate: '1/h',
    followUps: { enabled: true, steps: [{ after: '20m', body: 'Quick nudge' }] },
  });
  await listAndCampaign(account, {
    name: 'Slow',
    listId: list.id,
    sendRate: '60/m',
    followUps: { enabled: true, steps: [{ after: '2h', body: 'Slow nudge' }] },
  });
  // Three contacts take both campaigns' bursts: the lead's Slow opening goes a second later, its Quick one an hour.
  for (let i = 0; i < 3; i += 1) await add(account, list.id, (await contact(account)).id);
  const lead = await contact(account);
  await add(account, list.id, lead.id);
  await untilIdle(ctx.gw, { horizonMs: 3_600_000 });
  const [, quickOpening] = await outgoing(account, lead.id);
  expect(quickOpening).toMatchObject({ author: 'campaign', campaignId: quick.id });
  const opened = await conversationOf(account, lead.id);
  expect(opened).toMatchObject({
    campaignId: quick.id,
    next: { kind: 'follow_up', at: new Date(Date.parse(quickOpening.createdAt) + 20 * 60_000).toISOString() },
  });
  await untilIdle(ctx.gw, { horizonMs: 3_600_000 });
  const [, , nudge] = await outgoing(account, lead.id);
  expect(nudge).toMatchObject({ body: 'Quick nudge', campaignId: quick.id, createdAt: opened.next.at });
});

test("a campaign of another list queued on a conversation another campaign follows up: that one's follow-ups go on until the new opening goes, which opens it again", async () => {
  const account = await createAccount(ctx.gw);
  const { list: first, campaign: welcome } = await listAndCampaign(account, {
    name: 'Welcome',
    followUps: { enabled: true, steps: [{ after: '1h', body: 'Welcome nudge' }] },
  });
  const { list: second, campaign: offer } = await listAndCampaign(account, {
    name: 'Offer',
    openingMessage: 'Our offer',
    followUps: { enabled: true, steps: [{ after: '1h', body: 'Offer nudge' }] },
  });
  const lead = await contact(account);
  await add(account, first.id, lead.id);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const followed = await conversationOf(account, lead.id);
  expect(followed).toMatchObject({ campaignId: welcome.id, next: { kind: 'follow_up', step: 0 } });

  // The other list's opening waits three hours: until it goes, the conversation is Welcome's, and so is its nudge.
  await add(account, second.id, lead.id, { delay: '3h' });
  const queued = await conversationOf(account, lead.id);
  expect(queued).toMatchObject({
    campaignId: welcome.id,
    next: followed.next,
    opening: { campaignId: offer.id, status: 'queued' },
  });
  await untilIdle(ctx.gw, { horizonMs: 3_600_000 });
  const [, nudge] = await outgoing(account, lead.id);
  expect(nudge).toMatchObject({ body: 'Welcome nudge', campaignId: welcome.id, createdAt: followed.next.at });

  // Welcome closes the conversation, its nudge unanswered; then the offer goes, opens it again, names it, and follows
  // up by its own steps.
  await untilIdle(ctx.gw, { horizonMs: 3_600_000 });
  expect(await conversationOf(account, lead.id)).toMatchObject({ campaignId: welcome.id, status: 'closed' });
  await untilIdle(ctx.gw, { horizonMs: 2 * 3_600_000 });
  const [, , opening, offerNudge] = await outgoing(account, lead.id);
  expect(opening).toMatchObject({ body: 'Our offer', campaignId: offer.id });
  expect(offerNudge).toMatchObject({ body: 'Offer nudge', campaignId: offer.id });
  expect(await conversationOf(account, lead.id)).toMatchObject({ campaignId: offer.id, status: 'active' });
});

test('no phone: not sent, and the conversation says why', async () => {
  const account = await createAccount(ctx.gw);
  const { list } = await listAndCampaign(account);
  const emailOnly = (await api(ctx.gw, account, 'POST', 'contacts', { body: { email: `a${Date.now()}@example.com` } }))
    .body;
  await add(account, list.id, emailOnly.id);
  const conversation = await conversationOf(account, emailOnly.id);
  expect(conversation.opening).toMatchObject({ status: 'skipped', reason: 'no_phone' });
  expect(await outgoing(account, emailOnly.id)).toHaveLength(0);
});

test('a delayed opening message waits, and a message from the lead meanwhile cancels it', async () => {
  const account = await createAccount(ctx.gw);
  const { list } = await listAndCampaign(account);
  const [waits, writes] = [await contact(account), await contact(account)];
  expectApiError(await add(account, list.id, waits.id, { delay: 'soon' }), 400, 'INVALID_DURATION');
  const added = ctx.gw.now();
  await add(account, list.id, waits.id, { delay: '2s' });
  await add(account, list.id, writes.id, { delay: '2s' });
  expect((await conversationOf(account, waits.id)).next).toMatchObject({ kind: 'opening' });

  const reply = await api(ctx.gw, account, 'POST', 'channels/sms/incoming', {
    body: { phone: writes.phone, body: 'Hi, I have a question' },
  });
  expect(reply.status).toBe(200);
  const [sent] = await poll(
    () => outgoing(account, waits.id),
    (m) => m.length > 0,
    10_000,
  );
  expect(Date.parse(sent.createdAt) - added).toBeGreaterThanOrEqual(1900);
  // No opening message: only the bot's word that a person will answer (the campaign has no FAQs to answer from).
  const answered = await poll(
    () => outgoing(account, writes.id),
    (m) => m.length > 0,
    10_000,
  );
  expect(answered.map((m) => m.author)).toEqual(['bot']);
  expect((await conversationOf(account, writes.id)).opening).toMatchObject({
    status: 'cancelled',
    reason: 'wrote_first',
  });
});

test('a delayed opening message holds back none of the additions after it: it takes its slot when its delay ends', async () => {
  const account = await createAccount(ctx.gw);
  const { list } = await listAndCampaign(account); // 30/m: after the first 3, one every 2 s
  const waits = await contact(account);
  await add(account, list.id, waits.id, { delay: '1h' });
  const added = ctx.gw.now();
  const others = [];
  for (let i = 0; i < 5; i += 1) {
    const c = await contact(account);
    await add(account, list.id, c.id);
    others.push(c);
  }
  await untilIdle(ctx.gw, { horizonMs: 10_000 });
  const sent = (await Promise.all(others.map((c) => outgoing(account, c.id)))).flat();
  expect(sent).toHaveLength(5);
  expect(sent.map((m) => Date.parse(m.createdAt) - added).sort((a, b) => a - b)).toEqual([0, 0, 0, 2000, 4000]);
  expect(await outgoing(account, waits.id)).toEqual([]);
  expect((await conversationOf(account, waits.id)).next).toEqual({
    kind: 'opening',
    at: new Date(added + 3_600_000).toISOString(),
  });

  // Its hour ends with the queue drained: it goes at once.
  await ctx.gw.advance(added + 3_600_000 - ctx.gw.now());
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const [opening] = await outgoing(account, waits.id);
  expect(Date.parse(opening.createdAt)).toBe(added + 3_600_000);
  expect((await conversationOf(account, waits.id)).opening.status).toBe('sent');
});

test('delayed openings that come due together are paced like additions at once', async () => {
  const account = await createAccount(ctx.gw);
  const { list } = await listAndCampaign(account);
  const leads = [];
  for (let i = 0; i < 5; i += 1) {
    const c = await contact(account);
    await add(account, list.id, c.id, { delay: '15m' });
    leads.push(c);
  }
  const added = ctx.gw.now();
  await advanceClock(ctx.gw, '15m');
  await untilIdle(ctx.gw, { horizonMs: 10_000 });
  const sent = (await Promise.all(leads.map((c) => outgoing(account, c.id)))).flat();
  const due = added + 15 * 60_000;
  expect(sent.map((m) => Date.parse(m.createdAt) - due).sort((a, b) => a - b)).toEqual([0, 0, 0, 2000, 4000]);
});

test('outside the sending window the opening message waits for its next opening', async () => {
  const account = await createAccount(ctx.gw);
  // A window that closed a minute ago and opens again in about a day.
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  const { list } = await listAndCampaign(account, {
    sendingWindow: { start: hhmm(ctx.gw.now() + 3 * 60_000), end: hhmm(ctx.gw.now() - 60_000), timezone: 'UTC' },
  });
  const lead = await contact(account);
  await add(account, list.id, lead.id);
  const conversation = await conversationOf(account, lead.id);
  expect(conversation.opening.status).toBe('queued');
  const at = Date.parse(conversation.next.at);
  expect(at).toBeGreaterThan(ctx.gw.now() + 60_000);
  expect(at).toBeLessThan(ctx.gw.now() + 4 * 60_000);
  await untilIdle(ctx.gw);
  expect(await outgoing(account, lead.id)).toHaveLength(0);
});

test('a sending window changed while openings wait for it holds for them: taken away, they go now', async () => {
  const account = await createAccount(ctx.gw);
  // A window that closed a minute ago and opens again in about a day.
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  const { list, campaign } = await listAndCampaign(account, {
    sendingWindow: { start: hhmm(ctx.gw.now() - 2 * 60 * 60_000), end: hhmm(ctx.gw.now() - 60_000), timezone: 'UTC' },
  });
  const lead = await contact(account);
  await add(account, list.id, lead.id);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect(Date.parse((await conversationOf(account, lead.id)).next.at)).toBeGreaterThan(ctx.gw.now() + 60 * 60_000);

  const changed = await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { sendingWindow: null } });
  expect(changed.status).toBe(200);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  expect((await outgoing(account, lead.id)).map((m) => m.author)).toEqual(['campaign']);
  expect(await conversationOf(account, lead.id)).toMatchObject({ opening: { status: 'sent' } });
});

test('a pause holds queued opening messages until the campaign is Live again', async () => {
  const account = await createAccount(ctx.gw);
  const { list, campaign } = await listAndCampaign(account);
  const lead = await contact(account);
  await add(account, list.id, lead.id, { delay: '1s' });
  await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { status: 'paused' } });
  await poll(
    () => conversationOf(account, lead.id),
    (c) => c.opening.status === 'held',
    10_000,
  );
  expect(await outgoing(account, lead.id)).toHaveLength(0);

  await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { status: 'live' } });
  await poll(
    () => outgoing(account, lead.id),
    (m) => m.length === 1,
    10_000,
  );
  expect((await conversationOf(account, lead.id)).opening.status).toBe('sent');
});

test('a campaign no longer Live sends nothing; the reason is kept', async () => {
  const account = await createAccount(ctx.gw);
  const { list, campaign } = await listAndCampaign(account);
  const lead = await contact(account);
  await add(account, list.id, lead.id, { delay: '1s' });
  await api(ctx.gw, account, 'PATCH', `campaigns/${campaign.id}`, { body: { status: 'draft' } });
  await poll(
    () => conversationOf(account, lead.id),
    (c) => c.opening.status === 'skipped',
    10_000,
  );
  expect((await conversationOf(account, lead.id)).opening.reason).toBe('not_live');
});
