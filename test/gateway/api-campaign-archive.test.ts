import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  HANDOFF_NOTICE,
  incoming,
  Receiver,
  unique,
  uniquePhone,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * A campaign archived (PATCH /v1/campaigns/{id} {"status":"archived"}): it stops as a pause stops it, it leaves the
 * list of campaigns unless asked for, it no longer holds its list, and it changes only by being brought back.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '300ms' });
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const FAQS = [{ question: 'What are your opening hours?', answer: 'We are open Monday to Friday, 9am to 6pm.' }];

const newList = async (account: TestAccount, name = 'Leads') =>
  (await api(ctx.gw, account, 'POST', 'lists', { body: { name } })).body;

async function smsCampaign(account: TestAccount, fields: Record<string, unknown> = {}) {
  const list = await newList(account);
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Spring promo',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name|there}}!',
      status: 'live',
      ...fields,
    },
  });
  expect(created.status).toBe(201);
  return { list, campaign: created.body };
}

const patch = (account: TestAccount, id: string, body: Record<string, unknown>) =>
  api(ctx.gw, account, 'PATCH', `campaigns/${id}`, { body });
const newContact = async (account: TestAccount) =>
  (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: 'Ann' } })).body;
const add = (account: TestAccount, listId: string, contactId: string) =>
  api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId } });
const outgoing = async (account: TestAccount, contactId: string) =>
  ((await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[])
    .filter((m) => m.direction === 'outgoing')
    .map((m) => m.body as string);
/** The gateway's clock moved on by `duration` once what is due now ran, and what fell due meanwhile run. */
async function passes(duration: string) {
  await untilIdle(ctx.gw, { horizonMs: 0 });
  await advanceClock(ctx.gw, duration);
  await untilIdle(ctx.gw, { horizonMs: 0 });
}
const listed = async (account: TestAccount, query: Record<string, string> = {}) =>
  (await api(ctx.gw, account, 'GET', 'campaigns', { query })).body.data.map((c: { id: string }) => c.id);

/** An account whose custom channel `chat` posts its replies to a receiver, with a campaign whose bot answers there. */
async function chatCampaign() {
  const account = await createAccount(ctx.gw);
  const hook = await Receiver.start();
  receivers.push(hook);
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Smile Dental', channel: 'custom', customChannel: 'chat', bot: { faqs: FAQS } },
  });
  expect(created.status).toBe(201);
  const say = (fromId: string, body: string, extra: Record<string, unknown> = {}) =>
    api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId, body, channel: 'chat', ...extra }),
    });
  const replies = (fromId: string) =>
    hook.requests.filter((r) => r.body?.toId === fromId && r.body?.messageId).map((r) => r.body.body as string);
  const conversationOf = async (fromId: string) =>
    (await api(ctx.gw, account, 'GET', 'conversations', { query: { limit: '100' } })).body.data.find(
      (c: { contact: { fromId: string } }) => c.contact.fromId === fromId,
    );
  return { account, campaign: created.body, say, replies, conversationOf };
}

describe('PATCH /v1/campaigns/{id} {"status":"archived"}', () => {
  test('a Live campaign archived sends none of its waiting openings; brought back (paused) and Live again, they go', async () => {
    const account = await createAccount(ctx.gw);
    const { list, campaign } = await smsCampaign(account);
    const leads = [await newContact(account), await newContact(account)];
    for (const lead of leads)
      expect(
        (await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: lead.id, delay: '1h' } }))
          .status,
      ).toBe(201);
    const archived = await patch(account, campaign.id, { status: 'archived' });
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ status: 'archived', listId: list.id, version: campaign.version + 1 });
    await passes('4h');
    const sent = async () => Promise.all(leads.map((l) => outgoing(account, l.id)));
    expect(await sent()).toEqual([[], []]);

    expect((await patch(account, campaign.id, { status: 'paused' })).body.status).toBe('paused');
    await passes('1h');
    expect(await sent()).toEqual([[], []]);
    expect((await patch(account, campaign.id, { status: 'live' })).status).toBe(200);
    await passes('1m');
    expect(await sent()).toEqual([['Hi Ann!'], ['Hi Ann!']]);
  });

  test('its follow-ups wait as a pause holds them: none goes while it is archived', async () => {
    const account = await createAccount(ctx.gw);
    const { list, campaign } = await smsCampaign(account, {
      followUps: { enabled: true, steps: [{ after: '1h', body: 'Still there?' }] },
    });
    const lead = await newContact(account);
    await add(account, list.id, lead.id);
    await untilIdle(ctx.gw, { horizonMs: 0 });
    expect(await outgoing(account, lead.id)).toEqual(['Hi Ann!']);
    expect((await patch(account, campaign.id, { status: 'archived' })).status).toBe(200);
    await passes('3h');
    expect(await outgoing(account, lead.id)).toEqual(['Hi Ann!']);
    expect((await patch(account, campaign.id, { status: 'paused' })).status).toBe(200);
    expect((await patch(account, campaign.id, { status: 'live' })).status).toBe(200);
    await passes('2h');
    expect(await outgoing(account, lead.id)).toEqual(['Hi Ann!', 'Still there?']);
  });

  test('a conversation its bot was carrying waits for a person instead of meeting silence', async () => {
    const { account, campaign, say, replies, conversationOf } = await chatCampaign();
    const lead = unique('lead');
    await say(lead, 'What are your opening hours?', { campaignId: campaign.id });
    await untilIdle(ctx.gw);
    expect(replies(lead)).toEqual(['We are open Monday to Friday, 9am to 6pm.']);
    expect((await conversationOf(lead)).bot).toEqual({ active: true, answers: true });

    expect((await patch(account, campaign.id, { status: 'archived' })).status).toBe(200);
    expect((await conversationOf(lead)).bot).toEqual({ active: true, answers: false });
    await say(lead, 'What are your opening hours again?');
    await untilIdle(ctx.gw);
    expect(replies(lead)).toHaveLength(1);
    const waiting = (await api(ctx.gw, account, 'GET', 'conversations', { query: { needsReply: 'true' } })).body.data;
    expect(waiting.map((c: { contact: { fromId: string } }) => c.contact.fromId)).toContain(lead);
  });

  test('its bot test says nothing would be sent, for it is archived', async () => {
    const { account, campaign } = await chatCampaign();
    await patch(account, campaign.id, { status: 'archived' });
    const res = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/bot/test`, {
      body: { message: 'What are your opening hours?' },
    });
    expect(res.status).toBe(200);
    expect(res.body.reply).toMatchObject({ kind: 'unanswered', reason: 'campaign_archived' });
  });

  test('an archived campaign changes only by being brought back (paused or draft), not straight to Live → 409 CAMPAIGN_ARCHIVED', async () => {
    const account = await createAccount(ctx.gw);
    const { campaign } = await smsCampaign(account);
    const archived = (await patch(account, campaign.id, { status: 'archived' })).body;
    for (const body of [{ name: 'Renamed' }, { status: 'live' }, { status: 'archived', name: 'Renamed' }])
      expectApiError(await patch(account, campaign.id, body), 409, 'CAMPAIGN_ARCHIVED');
    const got = await api(ctx.gw, account, 'GET', `campaigns/${campaign.id}`);
    expect(got.body).toMatchObject({ status: 'archived', name: 'Spring promo', version: archived.version });
    expect((await patch(account, campaign.id, { status: 'archived' })).status).toBe(200);

    const back = await patch(account, campaign.id, { status: 'draft', name: 'Spring promo 2' });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: 'draft', name: 'Spring promo 2' });
    expect((await patch(account, campaign.id, { status: 'live' })).body.status).toBe('live');
  });

  test('a campaign is not made archived: POST with status archived → 400 VALIDATION_ERROR', async () => {
    const account = await createAccount(ctx.gw);
    expectApiError(
      await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Done', status: 'archived' } }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('GET /v1/campaigns', () => {
  test('leaves archived campaigns out; ?status=archived lists only them, ?status=live only the Live; GET by id answers an archived one', async () => {
    const account = await createAccount(ctx.gw);
    const { campaign: done } = await smsCampaign(account, { name: 'Winter promo' });
    const { campaign: live } = await smsCampaign(account, { name: 'Spring promo' });
    const draft = (await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Summer promo' } })).body;
    await patch(account, done.id, { status: 'archived' });

    expect(await listed(account)).toEqual([live.id, draft.id]);
    expect(await listed(account, { status: 'archived' })).toEqual([done.id]);
    expect(await listed(account, { status: 'live' })).toEqual([live.id]);
    expect(await listed(account, { status: 'archived', q: 'winter' })).toEqual([done.id]);
    expect(await listed(account, { q: 'winter' })).toEqual([]);
    const page = await api(ctx.gw, account, 'GET', 'campaigns', { query: { limit: '1' } });
    expect(page.body.data.map((c: { id: string }) => c.id)).toEqual([live.id]);
    const next = await api(ctx.gw, account, 'GET', 'campaigns', {
      query: { limit: '1', cursor: page.body.nextCursor },
    });
    expect(next.body.data.map((c: { id: string }) => c.id)).toEqual([draft.id]);

    const got = await api(ctx.gw, account, 'GET', `campaigns/${done.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: done.id, status: 'archived' });
    expectApiError(await api(ctx.gw, account, 'GET', 'campaigns', { query: { status: 'finished' } }), 400);
  });
});

describe('DELETE /v1/lists/{id} and archived campaigns', () => {
  test('an archived campaign holds its list no more: the 409 names only the others; once gone, it has no list, and goes Live again only linked to one', async () => {
    const account = await createAccount(ctx.gw);
    const { list, campaign: done } = await smsCampaign(account, { name: 'Old promo' });
    const running = (
      await api(ctx.gw, account, 'POST', 'campaigns', {
        body: { name: 'New promo', channel: 'sms', listId: list.id, openingMessage: 'Hi!', status: 'live' },
      })
    ).body;
    const archived = (await patch(account, done.id, { status: 'archived' })).body;

    const refused = await api(ctx.gw, account, 'DELETE', `lists/${list.id}`);
    expectApiError(refused, 409, 'LIST_HAS_CAMPAIGNS');
    expect(refused.body.error.message).toContain(running.id);
    expect(refused.body.error.message).not.toContain(done.id);

    expect((await patch(account, running.id, { status: 'archived' })).status).toBe(200);
    expect((await api(ctx.gw, account, 'DELETE', `lists/${list.id}`)).status).toBe(204);
    const after = (await api(ctx.gw, account, 'GET', `campaigns/${done.id}`)).body;
    expect(after).toMatchObject({ status: 'archived', listId: null, version: archived.version + 1 });

    expect((await patch(account, done.id, { status: 'paused' })).body).toMatchObject({
      status: 'paused',
      listId: null,
    });
    const live = await patch(account, done.id, { status: 'live' });
    expectApiError(live, 400, 'CAMPAIGN_CANNOT_SEND');
    const other = await newList(account, 'Other leads');
    expect((await patch(account, done.id, { status: 'live', listId: other.id })).body).toMatchObject({
      status: 'live',
      listId: other.id,
    });
  });
});

describe('what an archived campaign no longer does', () => {
  test('a contact added to a list whose only campaign is archived gets no opening', async () => {
    const account = await createAccount(ctx.gw);
    const { list, campaign } = await smsCampaign(account);
    await patch(account, campaign.id, { status: 'archived' });
    const lead = await newContact(account);
    expect((await add(account, list.id, lead.id)).status).toBe(201);
    await passes('1h');
    expect(await outgoing(account, lead.id)).toEqual([]);
  });

  test('a custom-channel message naming an archived campaign is not answered by its bot: it waits for a person, as one naming a paused campaign', async () => {
    const { account, campaign, say, replies, conversationOf } = await chatCampaign();
    await patch(account, campaign.id, { status: 'archived' });
    const lead = unique('lead');
    expect((await say(lead, 'What are your opening hours?', { campaignId: campaign.id })).status).toBe(200);
    await untilIdle(ctx.gw);
    expect(replies(lead)).toEqual([]);
    expect(await conversationOf(lead)).toMatchObject({
      campaignId: campaign.id,
      bot: { active: true, answers: false },
    });
  });

  test('the default campaign archived answers no one new: a contact no other campaign reaches is handed to the team and told so', async () => {
    const { account, campaign, say, replies, conversationOf } = await chatCampaign();
    const settings = await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
    expect(settings.status).toBe(200);
    const before = unique('lead');
    await say(before, 'What are your opening hours?');
    await untilIdle(ctx.gw);
    expect(replies(before)).toEqual([FAQS[0]!.answer]);

    await patch(account, campaign.id, { status: 'archived' });
    const after = unique('lead');
    await say(after, 'What are your opening hours?');
    await untilIdle(ctx.gw);
    expect(replies(after)).toEqual([HANDOFF_NOTICE]);
    expect(await conversationOf(after)).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      handoff: { reason: 'no_campaign' },
    });
    // Nor can an archived campaign be made the default.
    const refused = await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
    expectApiError(refused, 409, 'CAMPAIGN_ARCHIVED');
    expect(refused.body.error.message).toMatch(/^defaultCampaignId: the campaign "Smile Dental" is archived: bring/);
  });

  test('reaching the existing contacts of an archived campaign → 409 CAMPAIGN_NOT_LIVE, saying to bring it back', async () => {
    const account = await createAccount(ctx.gw);
    const { campaign } = await smsCampaign(account);
    await patch(account, campaign.id, { status: 'archived' });
    const res = await api(ctx.gw, account, 'POST', `campaigns/${campaign.id}/reach-existing`);
    expectApiError(res, 409, 'CAMPAIGN_NOT_LIVE');
    expect(res.body.error.message).toMatch(/archived: bring it back/);
  });
});
