import { checkDelivery } from '../helpers/contract';
import {
  api,
  createAccount,
  expectApiError,
  incoming,
  Receiver,
  unique,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * Labels ("Hot lead", "pricing", "demo booked"): the team and its workflows put them on conversations and find the
 * conversations by them. One label case aside, kept as first spelled on the conversation, at most 20 on one.
 */
const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '0s' });

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

/** An account whose `conversation_labeled` events go to `hook`. */
async function accountWithHook(): Promise<{ account: TestAccount; hook: Receiver }> {
  const account = await createAccount(ctx.gw);
  const hook = await Receiver.start();
  receivers.push(hook);
  expect(
    (await api(ctx.gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['conversation_labeled'] } }))
      .status,
  ).toBe(201);
  return { account, hook };
}

/** A contact writes on the web chat: their conversation. */
async function write(account: TestAccount, fromId = unique('lead')) {
  const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, channel: 'web-chat', body: 'How much is the premium plan?' }),
  });
  expect(res.status).toBe(200);
  return (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body as {
    conversationId: string;
    contactId: string;
  };
}

const label = (account: TestAccount, id: string, labels: unknown) =>
  api(ctx.gw, account, 'POST', `conversations/${id}/labels`, { body: { labels } });
const unlabel = (account: TestAccount, id: string, name: string) =>
  api(ctx.gw, account, 'DELETE', `conversations/${id}/labels/${encodeURIComponent(name)}`);
const labelsOn = async (account: TestAccount, id: string) =>
  (await api(ctx.gw, account, 'GET', `conversations/${id}`)).body.labels as string[];
const listed = async (account: TestAccount, query: Record<string, string>) =>
  (await api(ctx.gw, account, 'GET', 'conversations', { query })).body.data.map((c: { id: string }) => c.id);
const accountLabels = async (account: TestAccount) => (await api(ctx.gw, account, 'GET', 'labels')).body;

/** The `conversation_labeled` events the receiver got, each held to the API document. */
const told = async (hook: Receiver) => {
  await untilIdle(ctx.gw);
  return hook.requests.map((r) => {
    expect(checkDelivery(r)).toBe('conversation_labeled');
    const { added, removed, labels, conversationId } = r.body;
    return { added, removed, labels, conversationId };
  });
};

test('a conversation never labelled answers []; labels are added trimmed, once case aside, as first spelled', async () => {
  const { account, hook } = await accountWithHook();
  const { conversationId, contactId } = await write(account);
  expect(await labelsOn(account, conversationId)).toEqual([]);
  expect((await api(ctx.gw, account, 'GET', 'conversations')).body.data[0].labels).toEqual([]);

  const res = await label(account, conversationId, ['  Hot lead ', 'pricing', 'HOT LEAD']);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id: conversationId, contactId, labels: ['Hot lead', 'pricing'] });
  // Already there, in any case: nothing changes, no error, nothing told.
  expect((await label(account, conversationId, ['hot lead', 'Pricing'])).body.labels).toEqual(['Hot lead', 'pricing']);
  expect((await label(account, conversationId, ['Demo booked', 'hot LEAD'])).body.labels).toEqual([
    'Hot lead',
    'pricing',
    'Demo booked',
  ]);
  expect(await told(hook)).toEqual([
    { conversationId, added: ['Hot lead', 'pricing'], removed: [], labels: ['Hot lead', 'pricing'] },
    { conversationId, added: ['Demo booked'], removed: [], labels: ['Hot lead', 'pricing', 'Demo booked'] },
  ]);
});

test('a label removed by its URL-encoded name, case aside; one it does not carry changes nothing', async () => {
  const { account, hook } = await accountWithHook();
  const { conversationId } = await write(account);
  await label(account, conversationId, ['Hot lead', 'Tarif / 50%']);
  const res = await unlabel(account, conversationId, 'hot LEAD');
  expect(res.status).toBe(200);
  expect(res.body.labels).toEqual(['Tarif / 50%']);
  expect((await unlabel(account, conversationId, 'Hot lead')).body.labels).toEqual(['Tarif / 50%']);
  expect((await unlabel(account, conversationId, 'tarif / 50%')).body.labels).toEqual([]);
  expect((await told(hook)).slice(1)).toEqual([
    { conversationId, added: [], removed: ['Hot lead'], labels: ['Tarif / 50%'] },
    { conversationId, added: [], removed: ['Tarif / 50%'], labels: [] },
  ]);
});

test('bad labels are refused naming the field, and nothing changes', async () => {
  const { account, hook } = await accountWithHook();
  const { conversationId } = await write(account);
  await label(account, conversationId, ['Hot lead']);
  for (const [labels, field] of [
    [[], 'labels'],
    ['Hot lead', 'labels'],
    [[''], 'labels.0'],
    [['pricing', '   '], 'labels.1'],
    [['\u200b'], 'labels.0'],
    [['x'.repeat(41)], 'labels.0'],
    [['line\nbreak'], 'labels.0'],
    [['tab\there'], 'labels.0'],
    [[7], 'labels.0'],
    [Array.from({ length: 21 }, (_, i) => `tag ${i}`), 'labels'],
  ] as const) {
    const res = await label(account, conversationId, labels);
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields).toEqual([expect.objectContaining({ field })]);
  }
  expectApiError(await api(ctx.gw, account, 'POST', `conversations/${conversationId}/labels`, { body: {} }), 400);
  const tooLong = await unlabel(account, conversationId, 'x'.repeat(41));
  expectApiError(tooLong, 400, 'VALIDATION_ERROR');
  expect(tooLong.body.error.fields).toEqual([expect.objectContaining({ field: 'label' })]);
  expectApiError(await unlabel(account, conversationId, ' '), 400, 'VALIDATION_ERROR');
  // Forty characters once trimmed is as long as one goes.
  expect((await label(account, conversationId, [` ${'y'.repeat(40)} `])).status).toBe(200);
  expect(await labelsOn(account, conversationId)).toEqual(['Hot lead', 'y'.repeat(40)]);
  expect(await told(hook)).toHaveLength(2);
});

test('"." and "..", which a URL cannot name (a client resolves them as its path\'s dot segments), are refused; "..." is a label', async () => {
  const { account } = await accountWithHook();
  const { conversationId } = await write(account);
  for (const labels of [['.'], ['pricing', ' .. ']]) {
    const res = await label(account, conversationId, labels);
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields).toEqual([
      expect.objectContaining({ field: `labels.${labels.length - 1}`, message: expect.stringContaining('"."') }),
    ]);
  }
  expect(await labelsOn(account, conversationId)).toEqual([]);
  expectApiError(await api(ctx.gw, account, 'GET', 'conversations', { query: { label: '..' } }), 400);
  // One that is more than a dot segment is removed by its URL as any other.
  expect((await label(account, conversationId, ['...', '.NET'])).status).toBe(200);
  expect((await unlabel(account, conversationId, '...')).body.labels).toEqual(['.NET']);
  expect((await unlabel(account, conversationId, '.net')).body.labels).toEqual([]);
});

test('a conversation carries at most 20 labels: more is 409 TOO_MANY_LABELS and none is added', async () => {
  const { account } = await accountWithHook();
  const { conversationId } = await write(account);
  const eighteen = Array.from({ length: 18 }, (_, i) => `Tag ${i + 1}`);
  expect((await label(account, conversationId, eighteen)).status).toBe(200);
  expectApiError(await label(account, conversationId, ['a', 'b', 'c']), 409, 'TOO_MANY_LABELS');
  expect(await labelsOn(account, conversationId)).toEqual(eighteen);
  // Those it carries already do not count again.
  expect((await label(account, conversationId, ['tag 1', 'a', 'b'])).body.labels).toHaveLength(20);
  expectApiError(await label(account, conversationId, ['c']), 409, 'TOO_MANY_LABELS');
  expect((await label(account, conversationId, ['TAG 2'])).status).toBe(200);
});

test("another account's conversation is not found, and its labels are not listed nor found", async () => {
  const { account } = await accountWithHook();
  const { conversationId } = await write(account);
  await label(account, conversationId, ['Hot lead']);
  const other = await createAccount(ctx.gw);
  expectApiError(await label(other, conversationId, ['Mine now']), 404, 'CONVERSATION_NOT_FOUND');
  expectApiError(await unlabel(other, conversationId, 'Hot lead'), 404, 'CONVERSATION_NOT_FOUND');
  expectApiError(await label(other, 'cnv_missing', ['x']), 404, 'CONVERSATION_NOT_FOUND');
  expect(await labelsOn(account, conversationId)).toEqual(['Hot lead']);
  expect(await accountLabels(other)).toEqual({ data: [] });
  expect(await listed(other, { label: 'Hot lead' })).toEqual([]);
});

test('?label= lists the conversations carrying it, case aside, with the other filters and paged', async () => {
  const { account } = await accountWithHook();
  const [a, b, c, d] = [await write(account), await write(account), await write(account), await write(account)];
  await label(account, a.conversationId, ['Hot lead']);
  await label(account, b.conversationId, ['hot LEAD', 'pricing']);
  await label(account, c.conversationId, ['pricing']);
  const me = (
    await api(ctx.gw, account, 'POST', `conversations/${b.conversationId}/assign`, { body: { memberId: 'me' } })
  ).body.assigneeId as string;
  expect(await listed(account, { label: 'Hot lead' })).toEqual([b.conversationId, a.conversationId]);
  expect(await listed(account, { label: ' HOT lead ' })).toEqual([b.conversationId, a.conversationId]);
  expect(await listed(account, { label: 'hot lead', assigneeId: me })).toEqual([b.conversationId]);
  expect(await listed(account, { label: 'pricing', assigneeId: 'none' })).toEqual([c.conversationId]);
  expect(await listed(account, { label: 'demo booked' })).toEqual([]);
  expect(await listed(account, {})).toContain(d.conversationId);
  const first = await api(ctx.gw, account, 'GET', 'conversations', { query: { label: 'hot lead', limit: '1' } });
  expect(first.body.data.map((x: { id: string }) => x.id)).toEqual([b.conversationId]);
  const second = await api(ctx.gw, account, 'GET', 'conversations', {
    query: { label: 'hot lead', limit: '1', cursor: first.body.nextCursor },
  });
  expect(second.body.data.map((x: { id: string }) => x.id)).toEqual([a.conversationId]);
  expectApiError(
    await api(ctx.gw, account, 'GET', 'conversations', { query: { label: 'x'.repeat(41) } }),
    400,
    'VALIDATION_ERROR',
  );
});

test("GET /labels: the account's labels in use, how many conversations carry each, by name", async () => {
  const { account } = await accountWithHook();
  expect(await accountLabels(account)).toEqual({ data: [] });
  const [a, b, c] = [await write(account), await write(account), await write(account)];
  await label(account, a.conversationId, ['pricing', 'Hot lead']);
  await label(account, b.conversationId, ['hot lead', 'Demo booked']);
  await label(account, c.conversationId, ['Hot lead']);
  expect(await accountLabels(account)).toEqual({
    data: [
      { name: 'Demo booked', conversations: 1 },
      { name: 'Hot lead', conversations: 3 },
      { name: 'pricing', conversations: 1 },
    ],
  });
  await unlabel(account, b.conversationId, 'demo booked');
  expect((await accountLabels(account)).data.map((l: { name: string }) => l.name)).toEqual(['Hot lead', 'pricing']);
});

test("a merge folds the conversations' labels, its own first, up to 20; an erasure takes them", async () => {
  const { account, hook } = await accountWithHook();
  const fromId = unique('lead');
  const kept = await write(account, fromId);
  const duplicate = await write(account);
  await label(account, kept.conversationId, ['Hot lead', ...Array.from({ length: 17 }, (_, i) => `k${i}`)]);
  await label(account, duplicate.conversationId, ['HOT LEAD', 'pricing', 'Demo booked', 'Spanish']);
  const before = (await told(hook)).length;
  const merged = await api(ctx.gw, account, 'POST', `contacts/${kept.contactId}/merge`, {
    body: { contactId: duplicate.contactId },
  });
  expect(merged.status).toBe(200);
  const labels = await labelsOn(account, kept.conversationId);
  expect(labels).toHaveLength(20);
  expect(labels.slice(0, 1)).toEqual(['Hot lead']);
  expect(labels.slice(18)).toEqual(['pricing', 'Demo booked']);
  expectApiError(
    await api(ctx.gw, account, 'GET', `conversations/${duplicate.conversationId}`),
    404,
    'CONVERSATION_NOT_FOUND',
  );
  expect((await accountLabels(account)).data).toContainEqual({ name: 'Hot lead', conversations: 1 });
  // A merge tells no workflow: nobody labelled anything.
  expect(await told(hook)).toHaveLength(before);

  expect((await api(ctx.gw, account, 'DELETE', `contacts/${kept.contactId}`)).status).toBe(204);
  await untilIdle(ctx.gw);
  expect(await accountLabels(account)).toEqual({ data: [] });
});
