import { teamMember } from '../console/support';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  HANDOFF_NOTICE,
  incoming,
  Receiver,
  unique,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * Never silence: a contact's message that no campaign's bot answers goes to the team (a `no_campaign` hand-off), every
 * hand-off tells the contact once (a request for a person again after 10 minutes), and `needsReply` says when a
 * person must act: not once the bot answered, never for a contact who opted out.
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

async function campaignWithFaq(account: TestAccount) {
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Clinic',
      channel: 'custom',
      customChannel: 'web-chat',
      bot: { faqs: [{ question: 'What are your opening hours?', answer: 'We are open 9 to 5, Monday to Friday.' }] },
    },
  });
  expect(created.status).toBe(201);
  return created.body;
}

test('a contact no campaign answers is handed to the team: a no_campaign hand-off, round robin, needing a reply', async () => {
  const account = await createAccount(ctx.gw);
  const hook = await withHandoffHook(account);
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffAssignment: 'round_robin' } })).status).toBe(
    200,
  );
  const agent = await teamMember(ctx.gw, account, 'agent');
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
  await write(account, fromId, 'Hello?');
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
  const campaign = await campaignWithFaq(account);
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
  const campaign = await campaignWithFaq(account);
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
  const campaign = await campaignWithFaq(account);
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
