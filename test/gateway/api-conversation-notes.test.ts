import { consoleAccount, signIn, teamMember, withSession, type SignedIn } from '../console/support';
import { openStream, type EventStream } from '../helpers/event-stream';
import {
  api,
  createAccount,
  expectApiError,
  incoming,
  unique,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * The team's private notes on a conversation (POST, GET /v1/conversations/{id}/notes, DELETE …/notes/{noteId}):
 * signed by their author, never a message, changing nothing of the conversation; erased, exported and merged with
 * their contact; told live to the console.
 */
jest.setTimeout(60_000);

const ctx = useGateway();
const streams: EventStream[] = [];
afterAll(() => streams.forEach((s) => s.close()));

/** A contact writes on the web chat: its conversation, handed to the team (no campaign answers it). */
async function conversationOf(owner: TestAccount, fromId = unique('visitor'), body = 'Can I get a quote?') {
  const said = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId, body, channel: 'webchat' }),
  });
  expect(said.status).toBe(200);
  const message = (await api(ctx.gw, owner, 'GET', `messages/${said.body.messageId}`)).body;
  return (await api(ctx.gw, owner, 'GET', `conversations/${message.conversationId}`)).body;
}

const addNote = (owner: TestAccount, conversationId: string, text: unknown, headers: Record<string, string> = {}) =>
  api(ctx.gw, owner, 'POST', `conversations/${conversationId}/notes`, { body: { text }, headers });
const notesOf = async (owner: TestAccount, conversationId: string) =>
  (await api(ctx.gw, owner, 'GET', `conversations/${conversationId}/notes`)).body.data as any[];
const asMember = (session: SignedIn, method: string, path: string, body?: unknown) =>
  withSession(ctx.gw, session, method, `/v1/${path}`, {
    headers: { origin: ctx.gw.url },
    ...(body === undefined ? {} : { body }),
  });
/** The notes the store holds, whatever the API shows of them. */
const storedNotes = (contactId: string) => ctx.gw.engine.store.find<any>('notes', 'contact', [contactId]);

describe('POST and GET /v1/conversations/{id}/notes', () => {
  test('201 with the note, trimmed, signed by nobody for the API key; GET answers them oldest first, paged', async () => {
    const owner = await createAccount(ctx.gw);
    const c = await conversationOf(owner);
    const first = await addNote(owner, c.id, '  Wants a quote by Friday  ');
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^nte_[0-9A-Za-z]{20}$/),
      conversationId: c.id,
      contactId: c.contactId,
      text: 'Wants a quote by Friday',
      authorId: null,
      authorName: null,
      createdAt: expect.any(String),
    });
    const second = (await addNote(owner, c.id, 'Called twice')).body;
    const third = (await addNote(owner, c.id, 'Prefers email')).body;
    expect(await notesOf(owner, c.id)).toEqual([first.body, second, third]);
    const page1 = await api(ctx.gw, owner, 'GET', `conversations/${c.id}/notes`, { query: { limit: '2' } });
    expect(page1.body.data).toEqual([first.body, second]);
    const page2 = await api(ctx.gw, owner, 'GET', `conversations/${c.id}/notes`, {
      query: { limit: '2', cursor: page1.body.nextCursor },
    });
    expect(page2.body).toEqual({ data: [third], nextCursor: null });
  });

  test("a member's note is signed with their id and name, kept after a rename", async () => {
    const owner = await consoleAccount(ctx.gw);
    const agent = await teamMember(ctx.gw, owner, 'agent', 'Pat');
    const c = await conversationOf(owner);
    const res = await asMember(agent, 'POST', `conversations/${c.id}/notes`, { text: 'I call her back at 3' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ authorId: agent.id, authorName: 'Pat', text: 'I call her back at 3' });
    await api(ctx.gw, owner, 'PATCH', `members/${agent.id}`, { body: { name: 'Patricia' } });
    expect((await notesOf(owner, c.id))[0].authorName).toBe('Pat');
  });

  test('bad text → 400 with the error shape, and nothing is kept; malformed JSON → 400 INVALID_JSON', async () => {
    const owner = await createAccount(ctx.gw);
    const c = await conversationOf(owner);
    for (const text of [undefined, '', '   ', '\u200b\n', 42, null, 'x'.repeat(4097)])
      expectApiError(await addNote(owner, c.id, text), 400, 'VALIDATION_ERROR');
    expectApiError(await addNote(owner, c.id, 'a NUL \u0000 here'), 400);
    expectApiError(await addNote(owner, c.id, 'half \ud800 a pair'), 400);
    for (const body of ['{"text": ', 'not json'])
      expectApiError(await api(ctx.gw, owner, 'POST', `conversations/${c.id}/notes`, { body }), 400, 'INVALID_JSON');
    expect((await addNote(owner, c.id, 'x'.repeat(4096))).status).toBe(201);
    expect(await notesOf(owner, c.id)).toHaveLength(1);
  });

  test("an unknown conversation, or another account's → 404 CONVERSATION_NOT_FOUND, and theirs gets no note", async () => {
    const owner = await createAccount(ctx.gw);
    const other = await createAccount(ctx.gw);
    const theirs = await conversationOf(other);
    await addNote(other, theirs.id, 'Their own note');
    for (const id of ['cnv_unknown', theirs.id]) {
      expectApiError(await addNote(owner, id, 'Mine now'), 404, 'CONVERSATION_NOT_FOUND');
      expectApiError(await api(ctx.gw, owner, 'GET', `conversations/${id}/notes`), 404, 'CONVERSATION_NOT_FOUND');
    }
    expect((await notesOf(other, theirs.id)).map((n) => n.text)).toEqual(['Their own note']);
  });

  test('the same Idempotency-Key and body answer the first note again and add none', async () => {
    const owner = await createAccount(ctx.gw);
    const c = await conversationOf(owner);
    const key = { 'Idempotency-Key': unique('note') };
    const first = await addNote(owner, c.id, 'Once', key);
    const again = await addNote(owner, c.id, 'Once', key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expectApiError(await addNote(owner, c.id, 'Another text', key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await notesOf(owner, c.id)).toHaveLength(1);
  });

  test('a note changes nothing of the conversation: status, assignee, unread, needsReply, bot, last message, messages', async () => {
    const owner = await consoleAccount(ctx.gw);
    const agent = await teamMember(ctx.gw, owner, 'agent');
    const c = await conversationOf(owner);
    await api(ctx.gw, owner, 'POST', `conversations/${c.id}/assign`, { body: { memberId: agent.id } });
    await untilIdle(ctx.gw, { horizonMs: 0 });
    const before = (await api(ctx.gw, owner, 'GET', `conversations/${c.id}`)).body;
    const messages = async () =>
      (await api(ctx.gw, owner, 'GET', `contacts/${c.contactId}/messages`, { query: { conversationId: c.id } })).body;
    const messagesBefore = await messages();
    expect(before).toMatchObject({ status: 'handed_off', needsReply: true, unread: 1, assigneeId: agent.id });
    expect((await asMember(agent, 'POST', `conversations/${c.id}/notes`, { text: 'Quote by Friday' })).status).toBe(
      201,
    );
    const note = (await addNote(owner, c.id, 'From the workflow')).body;
    await untilIdle(ctx.gw, { horizonMs: 0 });
    expect((await api(ctx.gw, owner, 'GET', `conversations/${c.id}`)).body).toEqual(before);
    expect(await messages()).toEqual(messagesBefore);
    expect((await api(ctx.gw, owner, 'DELETE', `conversations/${c.id}/notes/${note.id}`)).status).toBe(204);
    expect((await api(ctx.gw, owner, 'GET', `conversations/${c.id}`)).body).toEqual(before);
  });
});

describe('DELETE /v1/conversations/{id}/notes/{noteId}', () => {
  test("its author deletes it; another agent's is 403 FORBIDDEN and stays; an admin and the API key delete any", async () => {
    const owner = await consoleAccount(ctx.gw);
    const pat = await teamMember(ctx.gw, owner, 'agent', 'Pat');
    const sam = await teamMember(ctx.gw, owner, 'agent', 'Sam');
    const admin = await teamMember(ctx.gw, owner, 'admin');
    const c = await conversationOf(owner);
    const write = async (text: string) =>
      (await asMember(pat, 'POST', `conversations/${c.id}/notes`, { text })).body as { id: string };
    const [mine, forAdmin, forKey] = [await write('one'), await write('two'), await write('three')];
    const fromKey = (await addNote(owner, c.id, 'from a workflow')).body;
    const path = (n: { id: string }) => `conversations/${c.id}/notes/${n.id}`;
    expectApiError(await asMember(sam, 'DELETE', path(mine)), 403, 'FORBIDDEN');
    expectApiError(await asMember(sam, 'DELETE', path(fromKey)), 403, 'FORBIDDEN');
    expect((await notesOf(owner, c.id)).map((n) => n.id)).toEqual([mine.id, forAdmin.id, forKey.id, fromKey.id]);
    expect((await asMember(pat, 'DELETE', path(mine))).status).toBe(204);
    expect((await asMember(admin, 'DELETE', path(forAdmin))).status).toBe(204);
    expect((await api(ctx.gw, owner, 'DELETE', path(forKey))).status).toBe(204);
    expect((await notesOf(owner, c.id)).map((n) => n.id)).toEqual([fromKey.id]);
    expectApiError(await asMember(pat, 'DELETE', path(mine)), 404, 'NOTE_NOT_FOUND');
  });

  test("an unknown note, one of another conversation, or another account's → 404, and the note stays", async () => {
    const owner = await createAccount(ctx.gw);
    const other = await createAccount(ctx.gw);
    const [c, elsewhere] = [await conversationOf(owner), await conversationOf(owner)];
    const theirs = await conversationOf(other);
    const onElsewhere = (await addNote(owner, elsewhere.id, 'Kept')).body;
    const theirNote = (await addNote(other, theirs.id, 'Theirs')).body;
    for (const id of ['nte_unknown', onElsewhere.id])
      expectApiError(await api(ctx.gw, owner, 'DELETE', `conversations/${c.id}/notes/${id}`), 404, 'NOTE_NOT_FOUND');
    expectApiError(
      await api(ctx.gw, owner, 'DELETE', `conversations/${theirs.id}/notes/${theirNote.id}`),
      404,
      'CONVERSATION_NOT_FOUND',
    );
    expect(await notesOf(owner, elsewhere.id)).toEqual([onElsewhere]);
    expect(await notesOf(other, theirs.id)).toEqual([theirNote]);
  });
});

describe('notes go with their contact', () => {
  test("erasing the contact erases its notes; another contact's stay", async () => {
    const owner = await createAccount(ctx.gw);
    const [c, kept] = [await conversationOf(owner), await conversationOf(owner)];
    await addNote(owner, c.id, 'Wants a quote');
    const keptNote = (await addNote(owner, kept.id, 'Someone else')).body;
    expect(await storedNotes(c.contactId)).toHaveLength(1);
    expect((await api(ctx.gw, owner, 'DELETE', `contacts/${c.contactId}`)).status).toBe(204);
    expect(await storedNotes(c.contactId)).toEqual([]);
    expect(await notesOf(owner, kept.id)).toEqual([keptNote]);
  });

  test("the contact's export holds its notes, oldest first", async () => {
    const owner = await createAccount(ctx.gw);
    const c = await conversationOf(owner);
    const notes = [(await addNote(owner, c.id, 'First')).body, (await addNote(owner, c.id, 'Second')).body];
    const exported = await api(ctx.gw, owner, 'GET', `contacts/${c.contactId}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.notes).toEqual(notes);
  });

  test("a merge moves the duplicate's notes to the kept contact, on the conversation its own folded into", async () => {
    const owner = await createAccount(ctx.gw);
    const kept = await conversationOf(owner, unique('kim'));
    const duplicate = await conversationOf(owner, unique('kim-again'));
    expect(duplicate.contactId).not.toBe(kept.contactId);
    const a = (await addNote(owner, kept.id, 'On the kept one')).body;
    const b = (await addNote(owner, duplicate.id, 'On the duplicate')).body;
    const merged = await api(ctx.gw, owner, 'POST', `contacts/${kept.contactId}/merge`, {
      body: { contactId: duplicate.contactId },
    });
    expect(merged.status).toBe(200);
    expect(await notesOf(owner, kept.id)).toEqual([a, { ...b, conversationId: kept.id, contactId: kept.contactId }]);
    expect(await storedNotes(duplicate.contactId)).toEqual([]);
    expect((await api(ctx.gw, owner, 'GET', `contacts/${kept.contactId}/export`)).body.notes).toHaveLength(2);
  });

  test("a merge moves a note on the duplicate's conversation on another channel with that conversation", async () => {
    const owner = await createAccount(ctx.gw);
    const kept = await conversationOf(owner, unique('kim'));
    const said = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
      body: incoming({ fromId: unique('kim-portal'), channel: 'portal' }),
    });
    const moved = (await api(ctx.gw, owner, 'GET', `messages/${said.body.messageId}`)).body;
    const note = (await addNote(owner, moved.conversationId, 'From the portal')).body;
    await api(ctx.gw, owner, 'POST', `contacts/${kept.contactId}/merge`, { body: { contactId: moved.contactId } });
    expect(await notesOf(owner, moved.conversationId)).toEqual([{ ...note, contactId: kept.contactId }]);
  });
});

test('adding and deleting a note tells the console stream note.created and note.deleted, nothing of the conversation', async () => {
  const owner = await consoleAccount(ctx.gw);
  const session = await signIn(ctx.gw, owner.email, owner.password);
  const c = await conversationOf(owner);
  await untilIdle(ctx.gw, { horizonMs: 0 });
  const stream = await openStream(ctx.gw, '/console/api/stream', { cookie: session.cookie });
  streams.push(stream);
  expect(stream.status).toBe(200);
  const note = (await addNote(owner, c.id, 'Live')).body;
  await api(ctx.gw, owner, 'DELETE', `conversations/${c.id}/notes/${note.id}`);
  const events = await stream.until((e) => e.some((x) => x.event === 'note.deleted'));
  expect(events.map((e) => [e.event, e.data])).toEqual([
    ['note.created', { conversationId: c.id, noteId: note.id }],
    ['note.deleted', { conversationId: c.id, noteId: note.id }],
  ]);
});
