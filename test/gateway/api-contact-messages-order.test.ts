import { api, createAccount, expectApiError, incoming, useGateway, type TestAccount } from './api-support';

/**
 * GET /v1/contacts/{id}/messages reads a long thread as a chat shows it: `?order=desc` newest first, each next page
 * the messages before, and `?conversationId` one conversation of the contact's only, a page holding as many of its
 * messages as asked however many of another conversation's lie between them.
 */
const ctx = useGateway();

let account: TestAccount;
let contactId: string;
/** The contact's conversations on two custom channels, and the ids of each one's messages, oldest first. */
let chat: string;
let mail: string;
const ids: Record<string, string[]> = {};

const get = (query: Record<string, string>, who: TestAccount = account, contact = contactId) =>
  api(ctx.gw, who, 'GET', `contacts/${contact}/messages`, { query });
const write = async (channel: string, body: string) => {
  const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: 'ana@example.com', channel, body }),
  });
  expect(res.status).toBe(200);
  return (await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`)).body as {
    id: string;
    contactId: string;
    conversationId: string;
  };
};
/** Every message of a walk through the pages, `limit` at a time. */
async function walk(query: Record<string, string>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await get({ ...query, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    seen.push(...(res.body.data as Array<{ id: string }>).map((m) => m.id));
    cursor = res.body.nextCursor;
  } while (cursor);
  return seen;
}

beforeAll(async () => {
  account = await createAccount(ctx.gw);
  const first = await write('web-chat', 'Chat 1');
  ({ contactId, conversationId: chat } = first);
  const second = await write('email', 'Mail 1');
  mail = second.conversationId;
  expect(second.contactId).toBe(contactId);
  expect(mail).not.toBe(chat);
  // More of the mail thread than a read of the store takes at a time lie between the chat's messages.
  for (let i = 2; i <= 3; i++) await write('web-chat', `Chat ${i}`);
  await ctx.gw.engine.store.transact(async (tx) => {
    const [model] = await tx.find<{
      id: string;
      conversationId: string;
      messageSid: string | null;
      providerMessageId: string | null;
    }>('messages', 'contact', [contactId]);
    for (let i = 2; i <= 450; i++)
      await tx.insert('messages', {
        ...model!,
        id: `msg_mail${i}`,
        messageSid: null,
        providerMessageId: null,
        conversationId: mail,
        body: `Mail ${i}`,
      });
  });
  for (let i = 4; i <= 5; i++) await write('web-chat', `Chat ${i}`);
  const all = await walk({ limit: '200' });
  for (const conversation of [chat, mail])
    ids[conversation] = await walk({ limit: '200', conversationId: conversation });
  expect(ids[chat]!.length + ids[mail]!.length).toBe(all.length);
});

test('?order=desc: newest first, each next page the messages before, until the first', async () => {
  const oldestFirst = await walk({ limit: '7' });
  const newestFirst = await walk({ limit: '7', order: 'desc' });
  expect(newestFirst).toEqual([...oldestFirst].reverse());
  expect(await walk({ limit: '7', order: 'asc' })).toEqual(oldestFirst);
  const latest = await get({ limit: '1', order: 'desc' });
  expect(latest.body.data[0].body).toBe('Chat 5');
});

test("?conversationId: that conversation's messages only, in either order, a page full however far apart they lie", async () => {
  const chatIds = ids[chat]!;
  const bodies = async (query: Record<string, string>) =>
    (await get(query)).body.data.map((m: { body: string; conversationId: string }) => [m.body, m.conversationId]);
  expect((await bodies({ conversationId: chat })).filter(([b]: string[]) => b!.startsWith('Chat'))).toEqual(
    ['Chat 1', 'Chat 2', 'Chat 3', 'Chat 4', 'Chat 5'].map((b) => [b, chat]),
  );
  expect(await bodies({ conversationId: chat, order: 'desc', limit: '3' })).toEqual(
    ['Chat 5', 'Chat 4', 'Chat 3'].map((b) => [b, chat]),
  );
  // The page after Chat 3 reaches past the 449 mail messages for those before it.
  const first = await get({ conversationId: chat, order: 'desc', limit: '3' });
  const next = await get({ conversationId: chat, order: 'desc', limit: '3', cursor: first.body.nextCursor });
  expect(next.body.data.map((m: { id: string }) => m.id)).toEqual([...chatIds].reverse().slice(3, 6));
  expect(next.body.data.map((m: { body: string }) => m.body)).toContain('Chat 2');
  expect(await walk({ conversationId: chat, order: 'desc', limit: '2' })).toEqual([...chatIds].reverse());
  expect(await walk({ conversationId: mail, order: 'desc', limit: '50' })).toEqual([...ids[mail]!].reverse());
  expect(await walk({ conversationId: chat, limit: '2' })).toEqual(chatIds);
});

test('a conversation of another contact is 400, one of no contact of the account 404; an order that is none, 400', async () => {
  const other = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: 'someone-else', channel: 'web-chat', body: 'Hi' }),
  });
  const theirs = (await api(ctx.gw, account, 'GET', `messages/${other.body.messageId}`)).body;
  expectApiError(await get({ conversationId: theirs.conversationId }), 400, 'VALIDATION_ERROR');
  expect((await get({ conversationId: theirs.conversationId })).body.error.fields).toEqual([
    { field: 'conversationId', code: 'VALIDATION_ERROR', message: 'the conversation is not one of this contact' },
  ]);
  expectApiError(await get({ conversationId: 'cnv_none' }), 404, 'CONVERSATION_NOT_FOUND');
  const stranger = await createAccount(ctx.gw);
  expectApiError(await get({ conversationId: chat }, stranger), 404, 'CONTACT_NOT_FOUND');
  expectApiError(await get({ order: 'sideways' }), 400, 'VALIDATION_ERROR');
});

test('a cursor is good for the order and conversation it was given for only', async () => {
  const asc = await get({ limit: '2', conversationId: chat });
  expectApiError(
    await get({ limit: '2', conversationId: chat, order: 'desc', cursor: asc.body.nextCursor }),
    400,
    'INVALID_CURSOR',
  );
  expectApiError(await get({ limit: '2', conversationId: mail, cursor: asc.body.nextCursor }), 400, 'INVALID_CURSOR');
  expectApiError(await get({ limit: '2', cursor: asc.body.nextCursor }), 400, 'INVALID_CURSOR');
});
