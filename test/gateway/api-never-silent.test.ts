import { teamMember } from '../console/support';
import {
  advanceClock,
  api,
  clinicCampaign,
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
 * Never silence: a contact's message that no campaign's bot answers goes to the team (a `no_campaign` hand-off), every
 * hand-off tells the contact once (a request for a person again after 10 minutes), a sub-account without the credits
 * for the bot's words with the gateway's free notice, and `needsReply` says when a person must act: not once the bot
 * answered, never for a contact who opted out.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '0s', LEADCHAT_TEST_CLOCK: '1' });

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function withHandoffHook(account: TestAccount): Promise<Receiver> {
  const hook = await Receiver.start();
  receivers.push(hook);
  expect(
    (await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['handoff'] } })).status,
  ).toBe(201);
  return hook;
}

/** The web chat's replies reach a receiver that takes them (`replies`, or one of its own). */
async function withReplies(account: TestAccount, replies?: Receiver): Promise<Receiver> {
  const to = replies ?? (await Receiver.start());
  if (!replies) receivers.push(to);
  const set = await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: to.url } });
  expect(set.status).toBe(200);
  return to;
}

const write = (account: TestAccount, fromId: string, body: string, extra: Record<string, unknown> = {}) =>
  api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, channel: 'web-chat', body, ...extra }),
  });

async function conversationOf(account: TestAccount, fromId: string) {
  const all = (await api(ctx.gw, account, 'GET', 'conversations?limit=200')).body.data as any[];
  return all.find((c) => c.contact?.fromId === fromId);
}

/** What the contact wrote and was sent, oldest first: [author or 'incoming', body]. */
async function said(account: TestAccount, contactId: string): Promise<Array<[string, string]>> {
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages?limit=200`)).body.data as any[];
  return messages.map((m) => [m.direction === 'incoming' ? 'incoming' : m.author, m.body]);
}

test('a contact no campaign answers is handed to the team: a no_campaign hand-off, round robin, needing a reply', async () => {
  const account = await createAccount(ctx.gw);
  const hook = await withHandoffHook(account);
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffAssignment: 'round_robin' } })).status).toBe(
    200,
  );
  const agent = await teamMember(ctx.gw, account, 'agent');
  // The web chat takes the team's replies: one reaches the contact.
  const replies = await Receiver.start();
  receivers.push(replies);
  expect(
    (await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: replies.url } })).status,
  ).toBe(200);
  const fromId = unique('visitor');
  expect((await write(account, fromId, 'Do you take new patients?')).status).toBe(200);
  const [event] = await hook.waitFor(1);
  expect(event!.body).toMatchObject({
    type: 'handoff',
    reason: 'no_campaign',
    body: 'Do you take new patients?',
    assignee: { id: agent.id },
  });
  const conversation = await conversationOf(account, fromId);
  expect(conversation).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    assigneeId: agent.id,
    handoff: { reason: 'no_campaign', message: 'Do you take new patients?' },
  });
  // The contact is told a person will answer, once.
  expect(await said(account, conversation.contactId)).toEqual([
    ['incoming', 'Do you take new patients?'],
    ['system', HANDOFF_NOTICE],
  ]);
  // Written again: no second hand-off and no second notice, still waiting for the team.
  await write(account, conversation.contact.fromId, 'Hello?');
  await untilIdle(ctx.gw);
  expect(hook.requests).toHaveLength(1);
  expect(await conversationOf(account, fromId)).toMatchObject({
    needsReply: true,
    lastMessage: { direction: 'incoming', body: 'Hello?' },
  });
  expect(await said(account, conversation.contactId)).toHaveLength(3);
  // A team reply answers it.
  await api(ctx.gw, account, 'POST', `contacts/${conversation.contactId}/messages`, {
    body: { body: 'Yes, we do! When would suit you?' },
  });
  expect(await conversationOf(account, fromId)).toMatchObject({ needsReply: false, lastMessage: { author: 'team' } });
});

test('with a default campaign its bot answers: no hand-off, and a conversation the bot answered needs no reply', async () => {
  const account = await createAccount(ctx.gw);
  const hook = await withHandoffHook(account);
  await withReplies(account);
  const campaign = await clinicCampaign(ctx.gw, account);
  expect((await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } })).status).toBe(
    200,
  );
  const fromId = unique('visitor');
  await write(account, fromId, 'What are your opening hours?');
  await untilIdle(ctx.gw);
  const conversation = await conversationOf(account, fromId);
  expect(conversation).toMatchObject({
    status: 'active',
    needsReply: false,
    unread: 1,
    lastMessage: { direction: 'outgoing', author: 'bot', body: 'We are open 9 to 5, Monday to Friday.' },
  });
  expect(hook.requests).toHaveLength(0);
  const waiting = ((await api(ctx.gw, account, 'GET', 'conversations?needsReply=true')).body.data as any[]).map(
    (c) => c.id,
  );
  expect(waiting).not.toContain(conversation.id);
});

test('a hand-off notice is no answer: the conversation needs a reply until a person writes; an opted-out contact never does', async () => {
  const account = await createAccount(ctx.gw);
  const campaign = await clinicCampaign(ctx.gw, account);
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
  const asker = unique('asker');
  await write(account, asker, 'I would like to talk to a person please');
  await untilIdle(ctx.gw);
  expect(await conversationOf(account, asker)).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    lastMessage: { direction: 'outgoing', author: 'system' },
  });

  const leaver = unique('leaver');
  await write(account, leaver, 'What are your opening hours?');
  await write(account, leaver, 'STOP');
  await untilIdle(ctx.gw);
  const gone = await conversationOf(account, leaver);
  expect(gone).toMatchObject({ status: 'opted_out', needsReply: false });
  await write(account, leaver, 'one more thing');
  await untilIdle(ctx.gw);
  expect(await conversationOf(account, leaver)).toMatchObject({ status: 'opted_out', needsReply: false });
  const waiting = ((await api(ctx.gw, account, 'GET', 'conversations?needsReply=true')).body.data as any[]).map(
    (c) => c.contact.fromId,
  );
  expect(waiting).toEqual([asker]);
});

test('a conversation handed off for want of a campaign goes back to the bot when a campaign answers, unless a person wrote', async () => {
  const account = await createAccount(ctx.gw);
  await withReplies(account);
  const campaign = await clinicCampaign(ctx.gw, account);
  const waiting = unique('waiting');
  await write(account, waiting, 'Hello there');
  expect(await conversationOf(account, waiting)).toMatchObject({
    status: 'handed_off',
    handoff: { reason: 'no_campaign' },
  });
  await write(account, waiting, 'What are your opening hours?', { campaignId: campaign.id });
  await untilIdle(ctx.gw);
  expect(await conversationOf(account, waiting)).toMatchObject({
    status: 'active',
    bot: { active: true },
    needsReply: false,
    lastMessage: { author: 'bot', body: 'We are open 9 to 5, Monday to Friday.' },
  });

  const answered = unique('answered');
  await write(account, answered, 'Hello there');
  const conversation = await conversationOf(account, answered);
  await api(ctx.gw, account, 'POST', `contacts/${conversation.contactId}/messages`, {
    body: { body: 'Hi! How can we help?' },
  });
  expect(await conversationOf(account, answered)).toMatchObject({ status: 'handed_off', handoff: { reason: 'team' } });
  await write(account, answered, 'What are your opening hours?', { campaignId: campaign.id });
  await untilIdle(ctx.gw);
  expect(await conversationOf(account, answered)).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    lastMessage: { direction: 'incoming' },
  });
});

test('"hi", then "I want to talk to a human": told once at the hand-off, again only for a request after 10 minutes', async () => {
  const account = await createAccount(ctx.gw);
  const hook = await withHandoffHook(account);
  const fromId = unique('hi');
  await write(account, fromId, 'hi');
  const { contactId } = await conversationOf(account, fromId);
  await write(account, fromId, 'I want to talk to a human');
  await untilIdle(ctx.gw);
  // The request comes seconds after the notice: it was answered already, and the team has the conversation.
  expect(await said(account, contactId)).toEqual([
    ['incoming', 'hi'],
    ['system', HANDOFF_NOTICE],
    ['incoming', 'I want to talk to a human'],
  ]);
  expect(hook.requests).toHaveLength(1);

  await advanceClock(ctx.gw, '11m');
  await write(account, fromId, 'is anyone there?');
  expect(await said(account, contactId)).toHaveLength(4);
  await write(account, fromId, 'can I speak to a person please');
  await write(account, fromId, 'a real person!');
  await untilIdle(ctx.gw);
  const told = (await said(account, contactId)).filter(([author]) => author === 'system');
  expect(told).toEqual([
    ['system', HANDOFF_NOTICE],
    ['system', HANDOFF_NOTICE],
  ]);
  expect(hook.requests).toHaveLength(1);
  expect(await conversationOf(account, fromId)).toMatchObject({ status: 'handed_off', needsReply: true });
});

test("the notice: the campaign's own, else the account's handoffMessage, else the built-in text in the account's language", async () => {
  const account = await createAccount(ctx.gw);
  const settings = await api(ctx.gw, account, 'GET', 'settings');
  expect(settings.body).toMatchObject({ handoffMessage: null, defaultHandoffMessage: HANDOFF_NOTICE, language: 'en' });

  const spanish = await api(ctx.gw, account, 'PUT', 'settings', { body: { language: 'es-mx' } });
  expect(spanish.body).toMatchObject({
    handoffMessage: null,
    language: 'es-MX',
    defaultHandoffMessage: expect.stringContaining('equipo'),
  });
  const hola = unique('hola');
  await write(account, hola, 'hola');
  expect(await said(account, (await conversationOf(account, hola)).contactId)).toEqual([
    ['incoming', 'hola'],
    ['system', spanish.body.defaultHandoffMessage],
  ]);

  const own = 'Thanks! A dentist will call you back within the hour.';
  expect(
    (await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffMessage: `  ${own}  ` } })).body,
  ).toMatchObject({ handoffMessage: own });
  const tooth = unique('tooth');
  await write(account, tooth, 'I chipped a tooth, can someone see me today?');
  expect(await said(account, (await conversationOf(account, tooth)).contactId)).toEqual([
    ['incoming', 'I chipped a tooth, can someone see me today?'],
    ['system', own],
  ]);

  const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Implants',
      channel: 'custom',
      customChannel: 'web-chat',
      bot: {
        handoffMessage: 'Our implant team will write to you today.',
        faqs: [{ question: 'Do you do implants?', answer: 'Yes.' }],
      },
    },
  });
  const asker = unique('asker');
  await write(account, asker, 'I want to talk to a human', { campaignId: campaign.body.id });
  await untilIdle(ctx.gw);
  expect((await said(account, (await conversationOf(account, asker)).contactId)).at(-1)).toEqual([
    'system',
    'Our implant team will write to you today.',
  ]);

  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffMessage: null } })).body).toMatchObject({
    handoffMessage: null,
  });
  const back = unique('back');
  await write(account, back, 'hola otra vez');
  expect((await said(account, (await conversationOf(account, back)).contactId)).at(-1)).toEqual([
    'system',
    spanish.body.defaultHandoffMessage,
  ]);
});

test('settings refuse a hand-off message too long, a blank one and a language that is no BCP 47 tag, and keep what was set', async () => {
  const account = await createAccount(ctx.gw);
  await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffMessage: 'We will call you.' } });
  for (const body of [
    { handoffMessage: 'x'.repeat(1001) },
    { handoffMessage: 42 },
    { language: 'not a language!' },
    { language: '' },
  ]) {
    expectApiError(await api(ctx.gw, account, 'PUT', 'settings', { body }), 400, 'VALIDATION_ERROR');
  }
  expect((await api(ctx.gw, account, 'GET', 'settings')).body).toMatchObject({
    handoffMessage: 'We will call you.',
    language: 'en',
  });
});

test('a contact who opted out is told nothing, whatever they write', async () => {
  const account = await createAccount(ctx.gw);
  const fromId = unique('stop');
  await write(account, fromId, 'STOP');
  const { contactId } = await conversationOf(account, fromId);
  const before = await said(account, contactId);
  await write(account, fromId, 'I want to talk to a human');
  await write(account, fromId, 'hello?');
  await untilIdle(ctx.gw);
  expect(await said(account, contactId)).toEqual([
    ...before,
    ['incoming', 'I want to talk to a human'],
    ['incoming', 'hello?'],
  ]);
  expect(before.filter(([author]) => author === 'system')).toHaveLength(1); // the opt-out's confirmation only
});

/** A sub-account (a new one starts at 0 credits; its agency grants `credits`) whose replies and hand-offs reach `hook`. */
async function subAccount(credits = 0) {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const account = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  const hook = await withHandoffHook(account);
  await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
  if (credits)
    await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: account.email, amount: credits } });
  const campaign = await clinicCampaign(ctx.gw, account);
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
  /** A new visitor asks the FAQ bot: their conversation once the bot has done with it. */
  const ask = async (question: string) => {
    const fromId = unique('visitor');
    await write(account, fromId, question);
    await untilIdle(ctx.gw);
    return conversationOf(account, fromId);
  };
  return { account, hook, ask };
}

/** What went out to the contact, oldest first: [author, body, status, errorCode]. */
async function sentTo(account: TestAccount, contactId: string) {
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages?limit=200`)).body.data as any[];
  return messages.filter((m) => m.direction === 'outgoing').map((m) => [m.author, m.body, m.status, m.errorCode]);
}

const usage = async (account: TestAccount) =>
  ((await api(ctx.gw, account, 'GET', 'credits/history')).body.data as any[])
    .filter((e) => e.kind === 'usage')
    .map((e) => [e.messageKind, e.amount]);

test("a sub-account that cannot pay for the bot's hand-off still tells the contact, with the gateway's free notice", async () => {
  const { account, hook, ask } = await subAccount();

  // The FAQ bot is not confident: the hand-off's notice goes, free, as the gateway's own.
  const conversation = await ask('Can you fix my car transmission?');
  expect(await sentTo(account, conversation.contactId)).toEqual([['system', HANDOFF_NOTICE, 'sent', null]]);
  expect(conversation).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    failed: 0,
    handoff: { reason: 'bot_not_confident', message: 'Can you fix my car transmission?' },
    lastMessage: { author: 'system', body: HANDOFF_NOTICE },
  });
  expect(hook.requests.filter((r) => r.body?.type === 'handoff').map((r) => r.body.reason)).toEqual([
    'bot_not_confident',
  ]);
  // Told once: writing again while the team has it brings nothing more.
  await write(account, conversation.contact.fromId, 'Hello?');
  await untilIdle(ctx.gw);
  expect(await sentTo(account, conversation.contactId)).toHaveLength(1);

  // A campaign without FAQs hands off on SMS (bot_no_knowledge): its own hand-off text, free there too.
  const sms = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Texts', channel: 'sms', bot: { handoffMessage: 'Ana from the front desk will text you back.' } },
  });
  expect(sms.status).toBe(201);
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: sms.body.id } });
  const texted = await api(ctx.gw, account, 'POST', 'channels/sms/incoming', {
    body: { phone: uniquePhone(), body: 'Do you open on Sundays?' },
  });
  expect(texted.status).toBe(200);
  await untilIdle(ctx.gw);
  expect(await sentTo(account, texted.body.contactId)).toEqual([
    ['system', 'Ana from the front desk will text you back.', 'sent', null],
  ]);
  const [byText] = ((await api(ctx.gw, account, 'GET', 'conversations?channel=sms')).body.data as any[]).filter(
    (c) => c.contactId === texted.body.contactId,
  );
  expect(byText).toMatchObject({ status: 'handed_off', needsReply: true, handoff: { reason: 'bot_no_knowledge' } });

  // Nothing was charged, and no bot reply waits failed to be sent again after a grant.
  expect(await usage(account)).toEqual([]);
  expect((await api(ctx.gw, account, 'POST', 'conversations/retry-failed')).body).toMatchObject({
    retried: [],
    refused: [],
  });
});

test('answers beside a hand-off are not given unpaid: the contact is told a person will answer, free', async () => {
  const { account, hook, ask } = await subAccount();
  const conversation = await ask('What are your opening hours? Can you fix my car transmission?');
  expect(await sentTo(account, conversation.contactId)).toEqual([['system', HANDOFF_NOTICE, 'sent', null]]);
  expect(conversation).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    handoff: { reason: 'bot_not_confident', message: 'Can you fix my car transmission?' },
  });
  expect(hook.requests.filter((r) => r.body?.type === 'handoff')).toHaveLength(1);
  expect(await usage(account)).toEqual([]);
});

test("a bot's hand-off the sub-account pays for stays the bot's, charged; once the credits run out, the free notice goes", async () => {
  const { account, ask } = await subAccount(1);
  const question = 'What are your opening hours? Can you fix my car transmission?';
  const answered = await ask(question);
  const botWords =
    'We are open 9 to 5, Monday to Friday.\n\nAbout "Can you fix my car transmission?": a member of our team will get back to you shortly.';
  expect(await sentTo(account, answered.contactId)).toEqual([['bot', botWords, 'sent', null]]);
  expect(answered).toMatchObject({ status: 'handed_off', needsReply: true, handoff: { reason: 'bot_not_confident' } });
  expect(await usage(account)).toEqual([['bot', -1]]);

  expect(await sentTo(account, (await ask(question)).contactId)).toEqual([['system', HANDOFF_NOTICE, 'sent', null]]);
  expect(await usage(account)).toEqual([['bot', -1]]);
});

test("a sub-account that cannot pay for the bot's answer hands the conversation to the team, and the contact is told, free", async () => {
  const { account, hook, ask } = await subAccount();
  const conversation = await ask('What are your opening hours?');
  expect(await sentTo(account, conversation.contactId)).toEqual([['system', HANDOFF_NOTICE, 'sent', null]]);
  expect(conversation).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    failed: 0,
    handoff: { reason: 'no_credits', message: 'What are your opening hours?' },
    lastMessage: { author: 'system', body: HANDOFF_NOTICE },
  });
  const [handoff] = hook.requests.filter((r) => r.body?.type === 'handoff');
  expect(handoff!.body).toMatchObject({ reason: 'no_credits', body: 'What are your opening hours?' });
  // No bot answer waits failed to go after a grant, perhaps after a person answered.
  expect(await usage(account)).toEqual([]);
  expect((await api(ctx.gw, account, 'POST', 'conversations/retry-failed')).body).toMatchObject({ retried: [] });
  // The team has it: the contact writing again is not told again within 10 minutes, and the bot stays silent.
  await write(account, conversation.contact.fromId, 'Hello?');
  await untilIdle(ctx.gw);
  expect(await sentTo(account, conversation.contactId)).toHaveLength(1);
});

test('a bot answer longer than the channel takes in a message goes to the team, and the contact is told a person will answer', async () => {
  const account = await createAccount(ctx.gw);
  const hook = await withHandoffHook(account);
  // SMS takes 1,600 characters (Twilio's most in one message): an FAQ answer may hold 5,000.
  const fits = 'Our prices. '.repeat(133).trim();
  const campaign = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Texts',
      channel: 'sms',
      bot: {
        faqs: [
          { question: 'What do you charge?', answer: fits },
          { question: 'Where are your clinics?', answer: 'Our clinics. '.repeat(150).trim() },
        ],
      },
    },
  });
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.body.id } });
  const text = async (body: string) => {
    const texted = await api(ctx.gw, account, 'POST', 'channels/sms/incoming', {
      body: { phone: uniquePhone(), body },
    });
    expect(texted.status).toBe(200);
    await untilIdle(ctx.gw);
    return texted.body.contactId as string;
  };

  const answered = await text('What do you charge?');
  expect(fits.length).toBeLessThanOrEqual(1600);
  expect(await sentTo(account, answered)).toEqual([['bot', fits, 'sent', null]]);

  const asked = await text('Where are your clinics?');
  expect(await sentTo(account, asked)).toEqual([['bot', HANDOFF_NOTICE, 'sent', null]]);
  const [conversation] = (await api(ctx.gw, account, 'GET', 'conversations', { query: { contactId: asked } })).body
    .data as any[];
  expect(conversation).toMatchObject({
    status: 'handed_off',
    needsReply: true,
    failed: 0,
    handoff: { reason: 'answer_too_long', message: 'Where are your clinics?' },
  });
  expect(hook.requests.filter((r) => r.body?.type === 'handoff').map((r) => r.body)).toEqual([
    expect.objectContaining({ contactId: asked, reason: 'answer_too_long', body: 'Where are your clinics?' }),
  ]);
});

describe("a bot's answer that never reaches the contact goes to the team", () => {
  /** An account whose default campaign's FAQ bot answers the web chat, and whose hand-offs reach a hook. */
  async function answeredBy(replies: Receiver | undefined) {
    const account = await createAccount(ctx.gw);
    const hook = await withHandoffHook(account);
    if (replies) await withReplies(account, replies);
    const campaign = await clinicCampaign(ctx.gw, account);
    await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
    const fromId = unique('visitor');
    await write(account, fromId, 'What are your opening hours?');
    await untilIdle(ctx.gw);
    return { account, hook, conversation: await conversationOf(account, fromId) };
  }
  const handoffs = (hook: Receiver) =>
    hook.requests.filter((r) => r.body?.type === 'handoff').map((r) => [r.body.reason, r.body.body]);

  test('refused by its receiver after the answer was stored: a reply_failed hand-off, the team and the contact told', async () => {
    // The web chat's receiver refuses the bot's answer for good, and takes what follows.
    const replies = await Receiver.start((n) => (n === 1 ? { status: 410, body: 'no such chat' } : { status: 200 }));
    receivers.push(replies);
    const { account, hook, conversation } = await answeredBy(replies);
    expect(await sentTo(account, conversation.contactId)).toEqual([
      ['bot', 'We are open 9 to 5, Monday to Friday.', 'failed', null],
      ['system', HANDOFF_NOTICE, 'sent', null],
    ]);
    expect(conversation).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      failed: 1,
      bot: { active: false },
      handoff: { reason: 'reply_failed', message: 'What are your opening hours?' },
      lastMessage: { author: 'system', body: HANDOFF_NOTICE },
    });
    expect(handoffs(hook)).toEqual([['reply_failed', 'What are your opening hours?']]);
    // A retry sends the answer: the team still has the conversation, and its contact still waits for a person.
    const [answer] = (
      await api(ctx.gw, account, 'GET', `contacts/${conversation.contactId}/messages`)
    ).body.data.filter((m: any) => m.author === 'bot');
    expect((await api(ctx.gw, account, 'POST', `messages/${answer.id}/retry`)).status).toBe(200);
    await untilIdle(ctx.gw);
    expect(await conversationOf(account, conversation.contact.fromId)).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      failed: 0,
    });
    expect(handoffs(hook)).toHaveLength(1);
  });

  test('with no receiver of the replies at all: handed off at once, the notice failing as the answer did', async () => {
    const { account, hook, conversation } = await answeredBy(undefined);
    expect(await sentTo(account, conversation.contactId)).toEqual([
      ['bot', 'We are open 9 to 5, Monday to Friday.', 'failed', 'NO_RECEIVER'],
      ['system', HANDOFF_NOTICE, 'failed', 'NO_RECEIVER'],
    ]);
    expect(conversation).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      failed: 2,
      handoff: { reason: 'reply_failed', message: 'What are your opening hours?' },
    });
    expect(handoffs(hook)).toEqual([['reply_failed', 'What are your opening hours?']]);
    // The contact writing again is the team's to answer: the bot stays silent, and nobody is handed it twice.
    await write(account, conversation.contact.fromId, 'Hello?');
    await untilIdle(ctx.gw);
    expect(await sentTo(account, conversation.contactId)).toHaveLength(2);
    expect(handoffs(hook)).toHaveLength(1);
  });

  test('refused after the contact lost their ID on the channel: handed off all the same, untold', async () => {
    // The receiver holds the bot's answer while the contact's web chat ID is corrected away.
    const replies = await Receiver.start((n) => (n === 1 ? undefined : { status: 200 }));
    receivers.push(replies);
    const account = await createAccount(ctx.gw);
    const hook = await withHandoffHook(account);
    await withReplies(account, replies);
    const campaign = await clinicCampaign(ctx.gw, account);
    await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
    const fromId = unique('visitor');
    await write(account, fromId, 'What are your opening hours?');
    await replies.waitFor(1);
    const { id, contactId } = await conversationOf(account, fromId);
    const corrected = await api(ctx.gw, account, 'PATCH', `contacts/${contactId}`, {
      body: { email: `${fromId}@example.com`, externalIds: { 'web-chat': null } },
    });
    expect(corrected.status).toBe(200);
    replies.release(410);
    // Its delivery was under way when the receiver answered: the hand-off's event says it is done.
    await hook.waitFor(1);
    await untilIdle(ctx.gw);
    expect(await sentTo(account, contactId)).toEqual([
      ['bot', 'We are open 9 to 5, Monday to Friday.', 'failed', null],
    ]);
    expect((await api(ctx.gw, account, 'GET', `conversations/${id}`)).body).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      handoff: { reason: 'reply_failed', message: 'What are your opening hours?' },
    });
    expect(handoffs(hook)).toEqual([['reply_failed', 'What are your opening hours?']]);
  });

  test('a failed message the bot did not answer with hands nothing off: its own hand-off words, a workflow’s message', async () => {
    const account = await createAccount(ctx.gw);
    const hook = await withHandoffHook(account);
    const campaign = await clinicCampaign(ctx.gw, account);
    await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
    const asker = unique('asker');
    await write(account, asker, 'I would like to talk to a person please');
    const sent = await api(ctx.gw, account, 'POST', 'send_custom_channel_message', {
      body: { customData: { fromId: unique('lead'), customChannel: 'web-chat', body: 'Your order has shipped' } },
    });
    expect(sent.status).toBe(200);
    await untilIdle(ctx.gw);
    expect(handoffs(hook)).toEqual([['contact_asked', 'I would like to talk to a person please']]);
    const shipped = (await api(ctx.gw, account, 'GET', `messages/${sent.body.messageId}`)).body;
    expect(shipped).toMatchObject({ author: 'api', status: 'failed' });
    expect((await api(ctx.gw, account, 'GET', `conversations/${shipped.conversationId}`)).body).toMatchObject({
      status: 'active',
      needsReply: false,
    });
  });
});
