import {
  api,
  createAccount,
  incoming,
  poll,
  Receiver,
  unique,
  uniquePhone,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * Sub-accounts pay for what the gateway sends for them: per SMS segment, per WhatsApp message, per bot reply. Every
 * charge is a ledger entry tied to its message; without the credits a message fails with INSUFFICIENT_CREDITS and
 * nothing is sent; crossing the threshold sends one auto-recharge event, and the grant that follows re-arms it.
 */
const ctx = useGateway({
  LEADCHAT_JOB_POLL: '100ms',
  LEADCHAT_BOT_DEBOUNCE: '200ms',
  LEADCHAT_PRICE_BOT_REPLY: '0.5',
  LEADCHAT_PRICE_WHATSAPP: '2',
});
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function subAccount(credits: number) {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  const hook = await Receiver.start();
  receivers.push(hook);
  await api(ctx.gw, agency, 'POST', 'webhooks', { body: { url: hook.url, events: ['auto_recharge'] } });
  await api(ctx.gw, sub, 'POST', 'webhooks', { body: { url: hook.url, events: ['delivery_failed'] } });
  await api(ctx.gw, sub, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } });
  if (credits)
    await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: credits } });
  return { agency, sub, hook };
}

async function smsCampaign(account: TestAccount, fields: Record<string, unknown> = {}) {
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  await api(ctx.gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Funnel',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi {{first_name}}!',
      triggerOnNewContacts: true,
      status: 'live',
      ...fields,
    },
  });
  return list;
}

async function addLead(account: TestAccount, listId: string, firstName: string) {
  const contact = (await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName } })).body;
  await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId: contact.id } });
  const [message] = await poll(
    () => messagesOf(account, contact.id),
    (m) => m.length > 0 && m[0].status !== 'pending',
  );
  return message;
}

const messagesOf = async (account: TestAccount, contactId: string) =>
  (await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages`)).body.data as any[];
const ledger = async (account: TestAccount) => (await api(ctx.gw, account, 'GET', 'credits')).body;

test('SMS costs per segment; without the credits the message fails and nothing is sent; the threshold crossing asks the agency once; the grant re-arms it', async () => {
  const { agency, sub, hook } = await subAccount(3);
  await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
    body: { email: sub.email, threshold: 2, amount: 10 },
  });
  const list = await smsCampaign(sub);

  const short = await addLead(sub, list.id, 'Ann');
  expect(short).toMatchObject({ status: 'sent', body: 'Hi Ann!' });
  // 3 + 157 GSM-7 characters: two segments.
  const long = await addLead(sub, list.id, 'B'.repeat(157));
  expect(long.status).toBe('sent');
  const broke = await addLead(sub, list.id, 'Cy');
  expect(broke).toMatchObject({
    status: 'failed',
    errorCode: 'INSUFFICIENT_CREDITS',
    provider: null,
    error: expect.stringMatching(/Balance 0 is below/),
  });
  const [failed] = await poll(
    async () => hook.requests.filter((r) => r.body?.type === 'delivery_failed' && r.body?.messageId === broke.id),
    (e) => e.length === 1,
  );
  // What a workflow branches on: why, by code, and the built-in channel it was going to.
  expect(failed!.body).toMatchObject({ channel: 'sms', customChannel: null, errorCode: 'INSUFFICIENT_CREDITS' });

  const credits = await ledger(sub);
  expect(credits.balance).toBe(0);
  expect(credits.transactions.filter((t: any) => t.kind === 'usage').map((t: any) => [t.messageId, t.amount])).toEqual([
    [long.id, -2],
    [short.id, -1],
  ]);
  const events = await poll(
    async () => hook.requests.filter((r) => r.body?.type === 'auto_recharge'),
    (e) => e.length === 1,
  );
  expect(events[0]!.body).toMatchObject({ sub_account_id: sub.id, balance: 0, threshold: 2, amount: 10 });

  // The agency's handler may run twice for one event: one grant; the rule is armed again.
  const grant = () =>
    api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
      headers: { 'idempotency-key': events[0]!.body.idempotency_key },
      body: { email: sub.email, amount: 10 },
    });
  expect((await grant()).body.new_balance).toBe(10);
  expect((await grant()).body.new_balance).toBe(10);
  expect(await ledger(sub)).toMatchObject({ balance: 10, autoRecharge: { pending: false } });
  expect((await addLead(sub, list.id, 'Di')).status).toBe('sent');
  expect((await ledger(sub)).balance).toBe(9);
  expect(hook.requests.filter((r) => r.body?.type === 'auto_recharge')).toHaveLength(1);
});

test('a bot reply costs the bot price on a custom channel; one the account cannot pay for is not given: the team takes the conversation', async () => {
  const { sub, hook } = await subAccount(1);
  const campaign = (
    await api(ctx.gw, sub, 'POST', 'campaigns', {
      body: {
        name: 'Chat',
        channel: 'custom',
        customChannel: 'chat',
        bot: { faqs: [{ question: 'When are you open?', answer: 'Every day from 9 to 5.' }] },
      },
    })
  ).body;
  const fromId = unique('visitor');
  const ask = () =>
    api(ctx.gw, sub, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId, body: 'When are you open?', channel: 'chat', campaignId: campaign.id }),
    });
  const first = await ask();
  const contactId = (await api(ctx.gw, sub, 'GET', `messages/${first.body.messageId}`)).body.contactId;
  const [, reply] = await poll(
    () => messagesOf(sub, contactId),
    (m) => m.length === 2 && m[1].status === 'sent',
  );
  expect(reply).toMatchObject({ author: 'bot', body: 'Every day from 9 to 5.' });
  expect((await ledger(sub)).transactions[0]).toMatchObject({
    kind: 'usage',
    amount: -0.5,
    messageId: reply.id,
    balance: 0.5,
  });

  await ask();
  // 0.5 left: the next reply is paid; the one after is not given, and the free notice goes instead.
  await poll(
    () => messagesOf(sub, contactId),
    (m) => m.filter((x) => x.author === 'bot').length === 2,
  );
  await ask();
  const all = await poll(
    () => messagesOf(sub, contactId),
    (m) => m.some((x) => x.author === 'system'),
  );
  expect(all.filter((x) => x.author === 'bot')).toHaveLength(2);
  expect(all.filter((x) => x.status === 'failed')).toEqual([]);
  const [conversation] = (await api(ctx.gw, sub, 'GET', 'conversations')).body.data as any[];
  expect(conversation).toMatchObject({ status: 'handed_off', handoff: { reason: 'no_credits' }, needsReply: true });
  const answers = hook.requests.filter((r) => r.body?.body === 'Every day from 9 to 5.' && r.body?.toId === fromId);
  expect(answers).toHaveLength(2);
  expect((await ledger(sub)).balance).toBe(0);
});

test('a bot reply on WhatsApp costs the bot price and the WhatsApp price; accounts without an agency are not charged', async () => {
  const { sub } = await subAccount(10);
  const campaign = (
    await api(ctx.gw, sub, 'POST', 'campaigns', {
      body: {
        name: 'WA',
        channel: 'whatsapp',
        bot: { faqs: [{ question: 'When are you open?', answer: 'Every day from 9 to 5.' }] },
      },
    })
  ).body;
  await api(ctx.gw, sub, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.id } });
  const phone = uniquePhone();
  const { contactId } = (
    await api(ctx.gw, sub, 'POST', 'channels/whatsapp/incoming', { body: { phone, body: 'When are you open?' } })
  ).body;
  const [, reply] = await poll(
    () => messagesOf(sub, contactId),
    (m) => m[1]?.status === 'sent',
  );
  expect((await ledger(sub)).transactions[0]).toMatchObject({ amount: -2.5, messageId: reply.id, balance: 7.5 });

  const standard = await createAccount(ctx.gw);
  const list = await smsCampaign(standard);
  expect((await addLead(standard, list.id, 'Eve')).status).toBe('sent');
  expect(await ledger(standard)).toEqual({
    balance: 0,
    lowBalanceThreshold: null,
    lowBalance: false,
    transactions: [],
  });
});

test('a new sub-account at 0: every opening message fails; the Failed filter finds the conversations, and after a grant one retry sends them all', async () => {
  const { agency, sub } = await subAccount(0);
  const list = await smsCampaign(sub);
  const conversationIds: string[] = [];
  for (const name of ['Ann', 'Bo']) {
    const opening = await addLead(sub, list.id, name);
    expect(opening).toMatchObject({ status: 'failed', errorCode: 'INSUFFICIENT_CREDITS' });
    conversationIds.push(opening.conversationId);
  }
  const failing = (await api(ctx.gw, sub, 'GET', 'conversations', { query: { failed: 'true' } })).body.data as any[];
  expect(failing.map((c) => c.id).sort()).toEqual([...conversationIds].sort());
  expect(failing.every((c) => c.failed === 1)).toBe(true);

  // Without credits, a retry is refused with the reason, and the messages stay failed.
  const refused = (await api(ctx.gw, sub, 'POST', `conversations/${conversationIds[0]}/retry-failed`)).body;
  expect(refused).toMatchObject({ retried: [], refused: [{ code: 'INSUFFICIENT_CREDITS' }], more: false });
  expect((await api(ctx.gw, sub, 'GET', 'conversations', { query: { failed: 'true' } })).body.data).toHaveLength(2);

  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 5 } });
  const retried = (await api(ctx.gw, sub, 'POST', 'conversations/retry-failed')).body;
  expect(retried).toMatchObject({ refused: [], more: false });
  expect(retried.retried).toHaveLength(2);
  for (const id of conversationIds) {
    const conversation = (await api(ctx.gw, sub, 'GET', `conversations/${id}`)).body;
    const [opening] = await poll(
      () => messagesOf(sub, conversation.contactId),
      (m) => m[0]?.status === 'sent',
    );
    expect(opening).toMatchObject({ author: 'campaign', status: 'sent' });
    expect(conversation.failed).toBe(0);
  }
  expect((await api(ctx.gw, sub, 'GET', 'conversations', { query: { failed: 'true' } })).body.data).toEqual([]);
  expect((await ledger(sub)).balance).toBe(3);

  // Another account's conversation is not found.
  const stranger = await createAccount(ctx.gw);
  expect((await api(ctx.gw, stranger, 'POST', `conversations/${conversationIds[0]}/retry-failed`)).status).toBe(404);
});
