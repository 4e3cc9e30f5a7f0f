import { consoleAccount, teamMember, withSession } from '../console/support';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  unique,
  uniquePhone,
  useGateway,
  untilIdle,
  Receiver,
  type TestAccount,
} from './api-support';

/** Issue 47: POST /v1/contacts/{id}/merge {"contactId"}: a duplicate becomes this contact, and is gone. */
const ctx = useGateway();
let account: TestAccount;
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

const create = async (body: Record<string, unknown>, owner = account) => {
  const res = await api(ctx.gw, owner, 'POST', 'contacts', { body });
  expect(res.status).toBe(201);
  return res.body;
};
const join = async (listId: string, contactId: string) =>
  expect((await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId } })).status).toBe(201);
const newList = async (name: string) => (await api(ctx.gw, account, 'POST', 'lists', { body: { name } })).body;
const chat = (fromId: string, body: string, channel = 'webchat') =>
  api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: { customData: { messageSid: unique('sid'), fromId, toId: 'clinic', body, channel } },
  });
const merge = (id: string, contactId: string, owner = account) =>
  api(ctx.gw, owner, 'POST', `contacts/${id}/merge`, { body: { contactId } });

test("the duplicate's conversations, messages, lists and external IDs move here; it is gone; one contact per phone and email", async () => {
  const email = `noah.${Date.now()}@clinic.example`;
  const phone = uniquePhone();
  const noah = await create({ firstName: 'Noah', lastName: 'Lee', phone, customFields: { plan: 'gold' } });
  const twin = await create({
    firstName: 'Noah',
    lastName: 'Lee (import)',
    email,
    customFields: { plan: 'basic', clinic: 'north' },
    externalIds: { crm: unique('crm') },
  });
  const [mine, theirs, both] = [await newList('Mine'), await newList('Theirs'), await newList('Both')];
  await join(mine.id, noah.id);
  await join(theirs.id, twin.id);
  await join(both.id, noah.id);
  await join(both.id, twin.id);
  // Each writes on the same custom channel (Noah by his phone, the twin by its email): two webchat conversations.
  expect((await chat(phone, 'question from noah')).status).toBe(200);
  expect((await chat(email, 'question from the twin')).status).toBe(200);
  expect((await chat(email, 'second from the twin', 'portal')).status).toBe(200);

  const res = await merge(noah.id, twin.id);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    id: noah.id,
    firstName: 'Noah',
    lastName: 'Lee',
    phone,
    email,
    customFields: { plan: 'gold', clinic: 'north' },
    externalIds: { crm: twin.externalIds.crm, webchat: phone, portal: email },
  });
  expect((await api(ctx.gw, account, 'GET', `contacts/${noah.id}`)).body).toEqual(res.body);
  expectApiError(await api(ctx.gw, account, 'GET', `contacts/${twin.id}`), 404, 'CONTACT_NOT_FOUND');

  const messages = (await api(ctx.gw, account, 'GET', `contacts/${noah.id}/messages`)).body.data;
  // What they wrote (each conversation also holds the gateway's hand-off notice: no campaign answers here).
  const written = messages.filter((m: { direction: string }) => m.direction === 'incoming');
  expect(written.map((m: { body: string }) => m.body).sort()).toEqual([
    'question from noah',
    'question from the twin',
    'second from the twin',
  ]);
  const conversations = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: noah.id } })).body
    .data;
  expect(conversations.map((c: { customChannel: string }) => c.customChannel).sort()).toEqual(['portal', 'webchat']);
  const webchat = conversations.find((c: { customChannel: string }) => c.customChannel === 'webchat');
  expect(
    messages
      .filter((m: { channel: string; body: string }) => m.channel === 'custom' && m.body.startsWith('question'))
      .every((m: { conversationId: string }) => m.conversationId === webchat.id),
  ).toBe(true);

  for (const list of [mine, theirs, both]) {
    expect(
      (await api(ctx.gw, account, 'GET', `lists/${list.id}/contacts`)).body.data.map((c: { id: string }) => c.id),
    ).toEqual([noah.id]);
  }
  // Lookups, dedup and search find the one contact left.
  expect((await api(ctx.gw, account, 'GET', 'contacts', { query: { email } })).body.id).toBe(noah.id);
  const again = await api(ctx.gw, account, 'POST', 'contacts', { body: { email } });
  expect({ status: again.status, id: again.body.id }).toEqual({ status: 200, id: noah.id });
  const byId = await api(ctx.gw, account, 'POST', 'contacts', { body: { externalIds: { crm: twin.externalIds.crm } } });
  expect({ status: byId.status, id: byId.body.id }).toEqual({ status: 200, id: noah.id });
  expect(
    (await api(ctx.gw, account, 'GET', 'contacts', { query: { q: 'lee' } })).body.data.map((c: { id: string }) => c.id),
  ).toEqual([noah.id]);
  // A new message from the twin's address reaches the merged contact.
  const later = await chat(email, 'after the merge');
  expect(later.status).toBe(200);
  expect((await api(ctx.gw, account, 'GET', `messages/${later.body.messageId}`)).body.contactId).toBe(noah.id);
});

describe("a conversation of each on one channel: the duplicate's folds into this contact's, as one exchange", () => {
  let owner: TestAccount;
  const say = (fromId: string, body: string) =>
    api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
      body: { customData: { messageSid: unique('sid'), fromId, toId: 'clinic', body, channel: 'webchat' } },
    });
  const contactOf = async (said: { body: { messageId: string } }) =>
    (await api(ctx.gw, owner, 'GET', `messages/${said.body.messageId}`)).body.contactId as string;
  const conversationsOf = async (contactId: string) =>
    (await api(ctx.gw, owner, 'GET', 'conversations', { query: { contactId } })).body.data as any[];

  beforeEach(async () => {
    owner = await createAccount(ctx.gw);
    // The web chat takes the bot's answers: one that reached nobody would hand the conversation to the team.
    const replies = await Receiver.start();
    receivers.push(replies);
    await api(ctx.gw, owner, 'PUT', 'settings', { body: { customChannelWebhookUrl: replies.url } });
    const campaign = await api(ctx.gw, owner, 'POST', 'campaigns', {
      body: {
        name: 'Clinic',
        channel: 'custom',
        customChannel: 'webchat',
        followUps: { enabled: true, steps: [{ after: '1h', body: 'Still there?' }] },
        bot: { faqs: [{ question: 'What are your opening hours?', answer: 'We are open 9 to 5.' }] },
      },
    });
    await api(ctx.gw, owner, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.body.id } });
  });

  test('one waiting for the team stays waiting: handed off, needing a reply, its unread counted, the bot quiet', async () => {
    const kept = await contactOf(await say('kim-1', 'What are your opening hours?'));
    await untilIdle(ctx.gw, { horizonMs: 0 });
    await advanceClock(ctx.gw, '10m');
    const twin = await contactOf(await say('kim-2', 'I want to talk to a person'));
    await untilIdle(ctx.gw, { horizonMs: 0 });
    const [waiting] = await conversationsOf(twin);
    expect(waiting).toMatchObject({ status: 'handed_off', needsReply: true });

    expect((await merge(kept, twin, owner)).status).toBe(200);
    const [conversation, ...none] = await conversationsOf(kept);
    expect(none).toEqual([]);
    expect(conversation).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      unread: 2,
      bot: { active: false },
      handoff: waiting.handoff,
      lastMessage: waiting.lastMessage,
      lastIncomingAt: waiting.lastIncomingAt,
      next: null,
    });
    const inbox = (await api(ctx.gw, owner, 'GET', 'conversations', { query: { needsReply: 'true' } })).body.data;
    expect(inbox.map((c: { id: string }) => c.id)).toEqual([conversation.id]);

    // The person asked for stays asked for: the bot leaves the contact's next question to the team.
    await say('kim-1', 'What are your opening hours?');
    await untilIdle(ctx.gw, { horizonMs: 0 });
    const messages = (await api(ctx.gw, owner, 'GET', `contacts/${kept}/messages`)).body.data as any[];
    expect(messages.at(-1)).toMatchObject({ direction: 'incoming', body: 'What are your opening hours?' });
  });

  test("the member who had the duplicate's conversation has the folded one, when this contact's was nobody's", async () => {
    const kept = await contactOf(await say('ivy-1', 'What are your opening hours?'));
    await advanceClock(ctx.gw, '10m');
    const twin = await contactOf(await say('ivy-2', 'What are your opening hours?'));
    await untilIdle(ctx.gw, { horizonMs: 0 });
    const [theirs] = await conversationsOf(twin);
    const assigned = await api(ctx.gw, owner, 'POST', `conversations/${theirs.id}/assign`, {
      body: { memberId: 'me' },
    });
    expect(assigned.status).toBe(200);
    const ownerId = assigned.body.assigneeId as string;
    expect((await conversationsOf(kept))[0]).toMatchObject({ status: 'active', assigneeId: null });

    expect((await merge(kept, twin, owner)).status).toBe(200);
    const [conversation] = await conversationsOf(kept);
    expect(conversation.assigneeId).toBe(ownerId);
    const mine = (await api(ctx.gw, owner, 'GET', 'conversations', { query: { assigneeId: 'me' } })).body.data;
    expect(mine.map((c: { id: string }) => c.id)).toEqual([conversation.id]);
  });

  /** The campaign Live on a list, its opening going to each contact added, its follow-up an hour after. */
  async function openingTo(externalId: string): Promise<string> {
    const hook = await Receiver.start();
    receivers.push(hook);
    await api(ctx.gw, owner, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
    const list = (await api(ctx.gw, owner, 'POST', 'lists', { body: { name: 'Leads' } })).body;
    const [campaign] = (await api(ctx.gw, owner, 'GET', 'campaigns')).body.data;
    const live = await api(ctx.gw, owner, 'PATCH', `campaigns/${campaign.id}`, {
      body: { listId: list.id, triggerOnNewContacts: true, openingMessage: 'Hi! Still looking?', status: 'live' },
    });
    expect(live.status).toBe(200);
    const contact = (await api(ctx.gw, owner, 'POST', 'contacts', { body: { externalIds: { webchat: externalId } } }))
      .body;
    await api(ctx.gw, owner, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } });
    await untilIdle(ctx.gw, { horizonMs: 0 });
    return contact.id;
  }
  const followUpsTo = async (contactId: string) =>
    ((await api(ctx.gw, owner, 'GET', `contacts/${contactId}/messages`)).body.data as any[])
      .filter((m) => m.author === 'follow_up')
      .map((m) => m.body);

  test("the follow-up waiting for an answer to the opening stops once the duplicate's answer came after it", async () => {
    const kept = await openingTo('lea-1');
    expect((await conversationsOf(kept))[0].next).toMatchObject({ kind: 'follow_up', step: 0 });
    await advanceClock(ctx.gw, '10m');
    const twin = await contactOf(await say('lea-2', 'What are your opening hours?'));
    await untilIdle(ctx.gw, { horizonMs: 0 });

    expect((await merge(kept, twin, owner)).status).toBe(200);
    expect((await conversationsOf(kept))[0]).toMatchObject({ status: 'active', next: null });
    await advanceClock(ctx.gw, '2h');
    await untilIdle(ctx.gw, { horizonMs: 0 });
    expect(await followUpsTo(kept)).toEqual([]);
  });

  test('a duplicate that wrote before the opening leaves its follow-up to go', async () => {
    const twin = await contactOf(await say('max-2', 'What are your opening hours?'));
    await untilIdle(ctx.gw, { horizonMs: 0 });
    await advanceClock(ctx.gw, '10m');
    const kept = await openingTo('max-1');

    expect((await merge(kept, twin, owner)).status).toBe(200);
    expect((await conversationsOf(kept))[0].next).toMatchObject({ kind: 'follow_up', step: 0 });
    await advanceClock(ctx.gw, '61m');
    await untilIdle(ctx.gw, { horizonMs: 0 });
    expect(await followUpsTo(kept)).toEqual(['Still there?']);
  });
});

test('an opt-out of the duplicate holds for the merged contact', async () => {
  const phone = uniquePhone();
  const kept = await create({ firstName: 'Kept', email: `kept.${Date.now()}@example.com` });
  const stopped = await create({ firstName: 'Stopped', phone });
  expect(
    (await api(ctx.gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body: 'STOP' } })).status,
  ).toBeLessThan(300);
  const res = await merge(kept.id, stopped.id);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ phone, optOut: { channel: 'sms', keyword: 'stop' } });
  expectApiError(
    await api(ctx.gw, account, 'POST', `contacts/${kept.id}/messages`, { body: { body: 'Hello?' } }),
    409,
    'CONTACT_OPTED_OUT',
  );
});

test("an opted-out contact keeps nothing going when it takes a duplicate's conversations: each is opted out", async () => {
  const phone = uniquePhone();
  const stopped = await create({ firstName: 'Stopped', phone });
  const twin = await create({ firstName: 'Twin', externalIds: { webchat: unique('visitor') } });
  expect(
    (await api(ctx.gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body: 'STOP' } })).status,
  ).toBeLessThan(300);
  // The twin writes on the web chat: no campaign answers, so the team is to reply.
  expect((await chat(twin.externalIds.webchat, 'anyone there?')).status).toBe(200);
  const statuses = async () =>
    (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: stopped.id } })).body.data
      .map((c: { channel: string; status: string }) => `${c.channel} ${c.status}`)
      .sort();

  expect((await merge(stopped.id, twin.id)).status).toBe(200);
  expect(await statuses()).toEqual(['custom opted_out', 'sms opted_out']);
  const waiting = await api(ctx.gw, account, 'GET', 'conversations', { query: { needsReply: 'true' } });
  expect(waiting.body.data.map((c: { contactId: string }) => c.contactId)).not.toContain(stopped.id);
});

test("a campaign's opening that went to the duplicate stands: this contact's still waiting does not go, and the follow-up after the one that went does", async () => {
  const list = await newList('Spring offer');
  const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Spring offer',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name}}!',
      triggerOnNewContacts: true,
      status: 'live',
      followUps: { enabled: true, steps: [{ after: '1d', body: 'Still interested?' }] },
    },
  });
  expect(campaign.status).toBe(201);
  const keep = await create({ firstName: 'Ines', phone: uniquePhone() });
  const twin = await create({ firstName: 'Ines', phone: uniquePhone() });
  await join(list.id, twin.id);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  // The CRM adds the same person again under her other number, her opening to go in an hour.
  expect(
    (await api(ctx.gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: keep.id, delay: '1h' } }))
      .status,
  ).toBe(201);

  expect((await merge(keep.id, twin.id)).status).toBe(200);
  const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: keep.id } })).body
    .data;
  expect(conversation).toMatchObject({
    opening: { campaignId: campaign.body.id, status: 'sent' },
    next: { kind: 'follow_up', step: 0 },
  });
  await advanceClock(ctx.gw, '2h');
  await untilIdle(ctx.gw);
  const authors = async () =>
    ((await api(ctx.gw, account, 'GET', `contacts/${keep.id}/messages`)).body.data as Array<{ author: string }>).map(
      (m) => m.author,
    );
  expect(await authors()).toEqual(['campaign']);
  await advanceClock(ctx.gw, '1d');
  await untilIdle(ctx.gw);
  expect(await authors()).toEqual(['campaign', 'follow_up']);
});

test('a contact the campaign skipped for want of a phone and a duplicate it reached, merged either way, are no longer counted unreachable', async () => {
  const list = await newList('Webinar');
  const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Webinar',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi!',
      triggerOnNewContacts: true,
      status: 'live',
    },
  });
  expect(campaign.status).toBe(201);
  const keep = await create({ firstName: 'Rui', email: `rui.${Date.now()}@example.com` });
  const twin = await create({ firstName: 'Rui', phone: uniquePhone() });
  // The other way round: the contact kept was reached, its duplicate not.
  const reached = await create({ firstName: 'Sol', phone: uniquePhone() });
  const skipped = await create({ firstName: 'Sol', email: `sol.${Date.now()}@example.com` });
  for (const c of [keep, twin, reached, skipped]) await join(list.id, c.id);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const unreachable = async () => (await api(ctx.gw, account, 'GET', `campaigns/${campaign.body.id}`)).body.unreachable;
  expect(await unreachable()).toMatchObject({ total: 2, byReason: { no_phone: 2 } });

  expect((await merge(keep.id, twin.id)).status).toBe(200);
  expect((await merge(reached.id, skipped.id)).status).toBe(200);
  expect(await unreachable()).toMatchObject({ total: 0, byReason: { no_phone: 0 } });
  expect((await api(ctx.gw, account, 'GET', `campaigns/${campaign.body.id}/unreachable`)).body.data).toEqual([]);
  const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: keep.id } })).body
    .data;
  expect(conversation.opening).toMatchObject({ status: 'sent' });
});

test("an opening that failed for want of credits is not sent once a merge brought the duplicate's that went, whichever contact it was", async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const owner = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  const list = (await api(ctx.gw, owner, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const campaign = await api(ctx.gw, owner, 'POST', 'campaigns', {
    body: {
      name: 'Leads',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi!',
      triggerOnNewContacts: true,
      status: 'live',
    },
  });
  expect(campaign.status).toBe(201);
  const contact = async () =>
    (await api(ctx.gw, owner, 'POST', 'contacts', { body: { firstName: 'Olu', phone: uniquePhone() } })).body.id;
  const add = async (contactId: string) => {
    await api(ctx.gw, owner, 'POST', `lists/${list.id}/contacts`, { body: { contactId } });
    await untilIdle(ctx.gw, { horizonMs: 0 });
  };
  const openings = async (contactId: string) =>
    ((await api(ctx.gw, owner, 'GET', `contacts/${contactId}/messages`)).body.data as any[])
      .filter((m) => m.author === 'campaign')
      .map((m) => m.status);
  // Two pairs of one person each: the contact kept's opening failed (no credits yet) in one, the duplicate's in the other.
  const [keptFailed, keptSent] = [await contact(), await contact()];
  const [twinSent, twinFailed] = [await contact(), await contact()];
  await add(keptFailed);
  await add(twinFailed);
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: owner.email, amount: 10 } });
  await add(twinSent);
  await add(keptSent);
  const [failedOfKept] = ((await api(ctx.gw, owner, 'GET', `contacts/${keptFailed}/messages`)).body.data as any[]).map(
    (m) => m.id,
  );
  const [failedOfTwin] = ((await api(ctx.gw, owner, 'GET', `contacts/${twinFailed}/messages`)).body.data as any[]).map(
    (m) => m.id,
  );

  expect((await merge(keptFailed, twinSent, owner)).status).toBe(200);
  expect((await merge(keptSent, twinFailed, owner)).status).toBe(200);
  const campaignRetry = await api(ctx.gw, owner, 'POST', `campaigns/${campaign.body.id}/openings/retry-failed`);
  expect(campaignRetry.body).toMatchObject({ retried: [], refused: [] });
  for (const id of [failedOfKept, failedOfTwin])
    expectApiError(await api(ctx.gw, owner, 'POST', `messages/${id}/retry`), 409, 'OPENING_SUPERSEDED');
  const inboxRetry = await api(ctx.gw, owner, 'POST', 'conversations/retry-failed');
  expect(inboxRetry.body.retried).toEqual([]);
  expect(inboxRetry.body.refused.map((r: { code: string }) => r.code)).toEqual([
    'OPENING_SUPERSEDED',
    'OPENING_SUPERSEDED',
  ]);
  await untilIdle(ctx.gw);
  expect((await openings(keptFailed)).sort()).toEqual(['failed', 'sent']);
  expect((await openings(keptSent)).sort()).toEqual(['failed', 'sent']);
  const [conversation] = (await api(ctx.gw, owner, 'GET', 'conversations', { query: { contactId: keptFailed } })).body
    .data;
  expect(conversation.opening).toMatchObject({ campaignId: campaign.body.id, status: 'sent' });
});

test("the answer kept for an Idempotency-Key of a reply to the duplicate goes with the merged contact's erasure", async () => {
  const keep = await create({ firstName: 'Tomas', email: `tomas.${Date.now()}@example.com` });
  const phone = uniquePhone();
  const twin = await create({ firstName: 'Tomas', phone });
  expect(
    (await api(ctx.gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body: 'Are my results in?' } }))
      .status,
  ).toBeLessThan(300);
  const reply = () =>
    api(ctx.gw, account, 'POST', `contacts/${twin.id}/messages`, {
      body: { body: 'Your results are in, Tomas: all clear.' },
      headers: { 'Idempotency-Key': `results-${twin.id}` },
    });
  expect((await reply()).status).toBe(201);

  expect((await merge(keep.id, twin.id)).status).toBe(200);
  expect((await api(ctx.gw, account, 'DELETE', `contacts/${keep.id}`)).status).toBe(204);
  // The repetition is a new request about a contact that is gone, not a replay of what was said to the person.
  const again = await reply();
  expect(JSON.stringify(again.body)).not.toContain('all clear');
  expectApiError(again, 404, 'CONTACT_NOT_FOUND');
});

const sms = async (phone: string, body: string) =>
  expect((await api(ctx.gw, account, 'POST', 'channels/sms/incoming', { body: { phone, body } })).status).toBeLessThan(
    300,
  );

test('a phone of the duplicate the merged contact does not take stays opted out: a contact made with it later is, and gets no opening', async () => {
  const [kept, dropped] = [uniquePhone(), uniquePhone()];
  const keep = await create({ firstName: 'Kept', phone: kept });
  const duplicate = await create({ firstName: 'Duplicate', phone: dropped });
  await sms(dropped, 'STOP');
  expect((await merge(keep.id, duplicate.id)).body).toMatchObject({ phone: kept, optOut: { keyword: 'stop' } });

  const again = await api(ctx.gw, account, 'POST', 'contacts', { body: { firstName: 'Again', phone: dropped } });
  expect(again.status).toBe(201);
  expect(again.body).toMatchObject({ phone: dropped, optOut: { channel: 'sms', keyword: 'stop' } });
  const promo = await newList('Promo');
  const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Promo', channel: 'sms', listId: promo.id, openingMessage: 'Promo!', status: 'live' },
  });
  expect(campaign.status).toBe(201);
  await join(promo.id, again.body.id);
  await untilIdle(ctx.gw);
  const conversations = await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: again.body.id } });
  expect(conversations.body.data.map((c: { opening: unknown }) => c.opening)).toEqual([
    expect.objectContaining({ status: 'skipped', reason: 'opted_out' }),
  ]);
});

test("the person's latest word holds for the merged contact: a START of the duplicate after this contact's STOP opts it in, a STOP after a START opts it out", async () => {
  const statuses = async (contactId: string) =>
    (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId } })).body.data
      .map((c: { channel: string; status: string }) => `${c.channel} ${c.status}`)
      .sort();
  // A web chat visitor says STOP; the same person by phone said STOP before it, and START after it.
  const visitor = unique('visitor');
  const phone = uniquePhone();
  const keep = await create({ firstName: 'Keep', externalIds: { webchat: visitor } });
  const duplicate = await create({ firstName: 'Duplicate', phone });
  await sms(phone, 'STOP');
  await advanceClock(ctx.gw, '1m');
  expect((await chat(visitor, 'STOP')).status).toBe(200);
  await advanceClock(ctx.gw, '1m');
  await sms(phone, 'START');
  expect(await statuses(keep.id)).toEqual(['custom opted_out']);

  const merged = await merge(keep.id, duplicate.id);
  expect({ optOut: merged.body.optOut ?? null, optIn: merged.body.optIn?.channel }).toEqual({
    optOut: null,
    optIn: 'sms',
  });
  expect(await statuses(keep.id)).toEqual(['custom active', 'sms active']);
  const reply = await api(ctx.gw, account, 'POST', `contacts/${keep.id}/messages`, { body: { body: 'Welcome back' } });
  expect(reply.status).toBe(201);

  // The other way round: a STOP after the other's START holds, and the record says so in that order.
  const [first, second] = [uniquePhone(), uniquePhone()];
  const starts = await create({ firstName: 'Starts', phone: first });
  const stops = await create({ firstName: 'Stops', phone: second });
  await sms(first, 'STOP');
  await advanceClock(ctx.gw, '1m');
  await sms(first, 'START');
  await advanceClock(ctx.gw, '1m');
  await sms(second, 'STOP');
  const res = await merge(starts.id, stops.id);
  expect(res.body).toMatchObject({ optOut: { keyword: 'stop' }, optIn: { keyword: 'start' } });
  expect(res.body.optIn.at < res.body.optOut.at).toBe(true);
  expect(await statuses(starts.id)).toEqual(['sms opted_out']);
});

test("the duplicate's ID on a channel this contact has an ID on too finds this contact through a second merge, and goes with its erasure", async () => {
  const [first, second] = [unique('visitor'), unique('visitor')];
  const ana = await create({ firstName: 'Ana', externalIds: { webchat: first } });
  const anaAgain = await create({ firstName: 'Ana', externalIds: { webchat: second } });
  const anaSilva = await create({ firstName: 'Ana', lastName: 'Silva', phone: uniquePhone() });
  expect((await merge(anaAgain.id, ana.id)).body.externalIds).toEqual({ webchat: second });
  expect((await merge(anaSilva.id, anaAgain.id)).status).toBe(200);
  // Ana writes again from the live chat's first visitor ID: she is the contact both duplicates became.
  const written = await chat(first, 'it is me again');
  expect(written.status).toBe(200);
  expect((await api(ctx.gw, account, 'GET', `messages/${written.body.messageId}`)).body.contactId).toBe(anaSilva.id);
  // Erased, she leaves neither ID behind: each is free for whoever comes with it next.
  expect((await api(ctx.gw, account, 'DELETE', `contacts/${anaSilva.id}`)).status).toBe(204);
  for (const id of [first, second]) {
    const res = await api(ctx.gw, account, 'POST', 'contacts', { body: { externalIds: { crm: id } } });
    expect({ status: res.status, externalIds: res.body.externalIds }).toEqual({
      status: 201,
      externalIds: { crm: id },
    });
  }
});

test("the merged contact's export names every phone, email and ID that finds it, the duplicate's ID it does not show among them", async () => {
  const [mine, theirs] = [unique('visitor'), unique('visitor')];
  const phone = uniquePhone();
  const keep = await create({ phone, email: `${unique('ana')}@example.com`, externalIds: { webchat: mine } });
  const duplicate = await create({ externalIds: { webchat: theirs, crm: unique('crm') } });
  const merged = (await merge(keep.id, duplicate.id)).body;
  expect(merged.externalIds).toEqual({ webchat: mine, crm: duplicate.externalIds.crm });
  // The duplicate's live chat ID is not shown, yet it finds the contact (as the test above shows): it is the person's.
  const exported = (await api(ctx.gw, account, 'GET', `contacts/${keep.id}/export`)).body;
  expect(exported.contact.externalIds).toEqual(merged.externalIds);
  expect(exported.identifiers).toEqual([
    { kind: 'phone', value: phone, label: null },
    { kind: 'email', value: keep.email, label: null },
    { kind: 'externalId', value: duplicate.externalIds.crm, label: 'crm' },
    { kind: 'externalId', value: mine, label: 'webchat' },
    { kind: 'externalId', value: theirs, label: null },
  ]);
});

test('a merge that would leave the contact more than 50 custom fields or 20 external IDs is 409 MERGE_TOO_LARGE naming each limit, and nothing moves', async () => {
  const fields = (prefix: string, n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, `${prefix}-value-${i}`]));
  const ids = (prefix: string, n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, unique(`${prefix}${i}`)]));
  const keep = await create({ phone: uniquePhone(), customFields: fields('shared', 30), externalIds: ids('a', 15) });
  const duplicate = await create({
    phone: uniquePhone(),
    customFields: { ...fields('shared', 20), ...fields('theirs', 25) },
    externalIds: ids('b', 6),
  });

  const refused = await merge(keep.id, duplicate.id);
  expectApiError(refused, 409, 'MERGE_TOO_LARGE');
  expect(refused.body.error.fields).toEqual([
    { field: 'customFields', code: 'TOO_MANY', message: expect.stringMatching(/55 .*at most 50/), limit: 50 },
    { field: 'externalIds', code: 'TOO_MANY', message: expect.stringMatching(/21 .*at most 20/), limit: 20 },
  ]);
  expect((await api(ctx.gw, account, 'GET', `contacts/${keep.id}`)).body).toEqual(keep);
  expect((await api(ctx.gw, account, 'GET', `contacts/${duplicate.id}`)).body).toEqual(duplicate);

  // Trimmed to the limits first (keys the two share count once), the merge goes.
  const trimmed = await api(ctx.gw, account, 'PATCH', `contacts/${duplicate.id}`, {
    body: {
      customFields: Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`theirs${i}`, null])),
      externalIds: { b0: null },
    },
  });
  expect(trimmed.status).toBe(200);
  const merged = await merge(keep.id, duplicate.id);
  expect(merged.status).toBe(200);
  expect(Object.keys(merged.body.customFields)).toHaveLength(50);
  expect(Object.keys(merged.body.externalIds)).toHaveLength(20);
});

test("bad merges: itself → 400, no contactId → 400; an unknown or another account's contact → 404 and nothing moves", async () => {
  const a = await create({ phone: uniquePhone() });
  expectApiError(await merge(a.id, a.id), 400, 'SAME_CONTACT');
  expectApiError(await api(ctx.gw, account, 'POST', `contacts/${a.id}/merge`, { body: {} }), 400);
  expectApiError(await merge(a.id, 'ct_missing'), 404, 'CONTACT_NOT_FOUND');
  expectApiError(await merge('ct_missing', a.id), 404, 'CONTACT_NOT_FOUND');
  const other = await createAccount(ctx.gw);
  const theirs = await create({ phone: uniquePhone() }, other);
  expectApiError(await merge(a.id, theirs.id), 404, 'CONTACT_NOT_FOUND');
  expectApiError(await merge(theirs.id, a.id), 404, 'CONTACT_NOT_FOUND');
  expect((await api(ctx.gw, other, 'GET', `contacts/${theirs.id}`)).status).toBe(200);
  expect((await api(ctx.gw, account, 'GET', `contacts/${a.id}`)).status).toBe(200);
});

test('an agent may not merge (403 FORBIDDEN); an admin may', async () => {
  const owner = await consoleAccount(ctx.gw);
  const [a, b] = [await create({ phone: uniquePhone() }, owner), await create({ phone: uniquePhone() }, owner)];
  const agent = await teamMember(ctx.gw, owner, 'agent');
  const admin = await teamMember(ctx.gw, owner, 'admin');
  const as = (session: typeof agent) =>
    withSession(ctx.gw, session, 'POST', `/v1/contacts/${a.id}/merge`, {
      headers: { origin: ctx.gw.url },
      body: { contactId: b.id },
    });
  expectApiError(await as(agent), 403, 'FORBIDDEN');
  expect((await api(ctx.gw, owner, 'GET', `contacts/${b.id}`)).status).toBe(200);
  expect((await as(admin)).status).toBe(200);
  expectApiError(await api(ctx.gw, owner, 'GET', `contacts/${b.id}`), 404, 'CONTACT_NOT_FOUND');
});
