import { teamMember } from '../console/support';
import { api, createAccount, incoming, Receiver, unique, untilIdle, useGateway, type TestAccount } from './api-support';

/**
 * Never silence: a contact's message that no campaign's bot answers goes to the team (a `no_campaign` hand-off), and
 * `needsReply` says when a person must act: not once the bot answered, never for a contact who opted out.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '0s' });

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function withHandoffHook(account: TestAccount): Promise<Receiver> {
  const hook = await Receiver.start();
  receivers.push(hook);
  expect((await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['handoff'] } })).status).toBe(201);
  return hook;
}

const write = (account: TestAccount, fromId: string, body: string, extra: Record<string, unknown> = {}) =>
  api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: incoming({ fromId, channel: 'web-chat', body, ...extra }) });

async function conversationOf(account: TestAccount, fromId: string) {
  const all = (await api(ctx.gw, account, 'GET', 'conversations?limit=200')).body.data as any[];
  return all.find((c) => c.contact?.fromId === fromId);
}

async function campaignWithFaq(account: TestAccount) {
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Clinic', channel: 'custom', customChannel: 'web-chat', bot: { faqs: [{ question: 'What are your opening hours?', answer: 'We are open 9 to 5, Monday to Friday.' }] } },
  });
  expect(created.status).toBe(201);
  return created.body;
}

test('a contact no campaign answers is handed to the team: a no_campaign hand-off, round robin, needing a reply', async () => {
  const account = await createAccount(ctx.gw);
  const hook = await withHandoffHook(account);
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { handoffAssignment: 'round_robin' } })).status).toBe(200);
  const agent = await teamMember(ctx.gw, account, 'agent');
  const fromId = unique('visitor');
  expect((await write(account, fromId, 'Do you take new patients?')).status).toBe(200);
  const [event] = await hook.waitFor(1);
  expect(event!.body).toMatchObject({ type: 'handoff', reason: 'no_campaign', body: 'Do you take new patients?', assignee: { id: agent.id } });
  const conversation = await conversationOf(account, fromId);
  expect(conversation).toMatchObject({ status: 'handed_off', needsReply: true, assigneeId: agent.id, handoff: { reason: 'no_campaign', message: 'Do you take new patients?' } });
  // Nothing was sent to the contact: the team answers.
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${conversation.contactId}/messages`)).body.data as any[];
  expect(messages.map((m) => m.direction)).toEqual(['incoming']);
  // Written again: no second hand-off, still waiting for the team.
  await write(account, fromId, 'Hello?');
  await untilIdle(ctx.gw);
  expect(hook.requests).toHaveLength(1);
  expect(await conversationOf(account, fromId)).toMatchObject({ needsReply: true, lastMessage: { direction: 'incoming', body: 'Hello?' } });
  // A team reply answers it.
  await api(ctx.gw, account, 'POST', `contacts/${conversation.contactId}/messages`, { body: { body: 'Yes, we do! When would suit you?' } });
  expect(await conversationOf(account, fromId)).toMatchObject({ needsReply: false, lastMessage: { author: 'team' } });
});

test('with a default campaign its bot answers: no hand-off, and a conversation the bot answered needs no reply', async () => {
  const account = await createAccount(ctx.gw);
  const hook = await withHandoffHook(account);
  const campaign = await campaignWithFaq(account);
  expect((await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } })).status).toBe(200);
  const fromId = unique('visitor');
  await write(account, fromId, 'What are your opening hours?');
  await untilIdle(ctx.gw);
  const conversation = await conversationOf(account, fromId);
  expect(conversation).toMatchObject({ status: 'active', needsReply: false, unread: 1, lastMessage: { direction: 'outgoing', author: 'bot', body: 'We are open 9 to 5, Monday to Friday.' } });
  expect(hook.requests).toHaveLength(0);
  const waiting = ((await api(ctx.gw, account, 'GET', 'conversations?needsReply=true')).body.data as any[]).map((c) => c.id);
  expect(waiting).not.toContain(conversation.id);
});

test('a hand-off notice is no answer: the conversation needs a reply until a person writes; an opted-out contact never does', async () => {
  const account = await createAccount(ctx.gw);
  const campaign = await campaignWithFaq(account);
  await api(ctx.gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
  const asker = unique('asker');
  await write(account, asker, 'I would like to talk to a person please');
  await untilIdle(ctx.gw);
  expect(await conversationOf(account, asker)).toMatchObject({ status: 'handed_off', needsReply: true, lastMessage: { direction: 'outgoing', author: 'system' } });

  const leaver = unique('leaver');
  await write(account, leaver, 'What are your opening hours?');
  await write(account, leaver, 'STOP');
  await untilIdle(ctx.gw);
  const gone = await conversationOf(account, leaver);
  expect(gone).toMatchObject({ status: 'opted_out', needsReply: false });
  await write(account, leaver, 'one more thing');
  await untilIdle(ctx.gw);
  expect(await conversationOf(account, leaver)).toMatchObject({ status: 'opted_out', needsReply: false });
  const waiting = ((await api(ctx.gw, account, 'GET', 'conversations?needsReply=true')).body.data as any[]).map((c) => c.contact.fromId);
  expect(waiting).toEqual([asker]);
});

test('a conversation handed off for want of a campaign goes back to the bot when a campaign answers, unless a person wrote', async () => {
  const account = await createAccount(ctx.gw);
  const campaign = await campaignWithFaq(account);
  const waiting = unique('waiting');
  await write(account, waiting, 'Hello there');
  expect(await conversationOf(account, waiting)).toMatchObject({ status: 'handed_off', handoff: { reason: 'no_campaign' } });
  await write(account, waiting, 'What are your opening hours?', { campaignId: campaign.id });
  await untilIdle(ctx.gw);
  expect(await conversationOf(account, waiting)).toMatchObject({ status: 'active', bot: { active: true }, needsReply: false, lastMessage: { author: 'bot', body: 'We are open 9 to 5, Monday to Friday.' } });

  const answered = unique('answered');
  await write(account, answered, 'Hello there');
  const conversation = await conversationOf(account, answered);
  await api(ctx.gw, account, 'POST', `contacts/${conversation.contactId}/messages`, { body: { body: 'Hi! How can we help?' } });
  expect(await conversationOf(account, answered)).toMatchObject({ status: 'handed_off', handoff: { reason: 'team' } });
  await write(account, answered, 'What are your opening hours?', { campaignId: campaign.id });
  await untilIdle(ctx.gw);
  expect(await conversationOf(account, answered)).toMatchObject({ status: 'handed_off', needsReply: true, lastMessage: { direction: 'incoming' } });
});
