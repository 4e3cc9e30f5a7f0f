import { consoleAccount, teamMember, withSession, type SignedIn } from '../console/support';
import { api, createAccount, expectApiError, incoming, unique, useGateway, type TestAccount } from './api-support';

/**
 * The team's saved replies (POST, GET /v1/saved-replies, GET, PATCH, DELETE /v1/saved-replies/{id}): shared by the
 * whole account, sorted by name, one name per account, filled in for a conversation's contact before the team sends
 * them.
 */
jest.setTimeout(60_000);

const ctx = useGateway();

const save = (owner: TestAccount, body: unknown, headers: Record<string, string> = {}) =>
  api(ctx.gw, owner, 'POST', 'saved-replies', { body, headers });
const savedOf = async (owner: TestAccount, query: Record<string, string> = {}) =>
  (await api(ctx.gw, owner, 'GET', 'saved-replies', { query: { limit: '200', ...query } })).body.data as any[];
const asMember = (session: SignedIn, method: string, path: string, body?: unknown) =>
  withSession(ctx.gw, session, method, `/v1/${path}`, {
    headers: { origin: ctx.gw.url },
    ...(body === undefined ? {} : { body }),
  });

/** A contact writes on the web chat: its conversation, the contact named as given. */
async function conversationOf(owner: TestAccount, contact: Record<string, unknown> = {}) {
  const said = await api(ctx.gw, owner, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ fromId: unique('visitor'), body: 'How much is it?', channel: 'webchat' }),
  });
  expect(said.status).toBe(200);
  const message = (await api(ctx.gw, owner, 'GET', `messages/${said.body.messageId}`)).body;
  if (Object.keys(contact).length > 0)
    expect((await api(ctx.gw, owner, 'PATCH', `contacts/${message.contactId}`, { body: contact })).status).toBe(200);
  return (await api(ctx.gw, owner, 'GET', `conversations/${message.conversationId}`)).body;
}

describe('POST and GET /v1/saved-replies', () => {
  test('201 with the saved reply, trimmed, signed by nobody for the API key; GET /{id} answers it', async () => {
    const owner = await createAccount(ctx.gw);
    const res = await save(owner, { name: '  Prices  ', text: '  Our prices are on example.com/prices  ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^svr_[0-9A-Za-z]{20}$/),
      name: 'Prices',
      text: 'Our prices are on example.com/prices',
      authorId: null,
      authorName: null,
      createdAt: expect.any(String),
      updatedAt: res.body.createdAt,
    });
    expect((await api(ctx.gw, owner, 'GET', `saved-replies/${res.body.id}`)).body).toEqual(res.body);
  });

  test('GET sorts them by name, case aside and numbers as numbers, paged', async () => {
    const owner = await createAccount(ctx.gw);
    for (const name of ['step 10', 'Book a call', 'Step 2', 'address', 'Zoom link'])
      expect((await save(owner, { name, text: `Text of ${name}` })).status).toBe(201);
    const names = ['address', 'Book a call', 'Step 2', 'step 10', 'Zoom link'];
    expect((await savedOf(owner)).map((s) => s.name)).toEqual(names);
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api(ctx.gw, owner, 'GET', 'saved-replies', {
        query: { limit: '2', ...(cursor ? { cursor } : {}) },
      });
      expect(page.status).toBe(200);
      walked.push(...page.body.data.map((s: any) => s.name));
      cursor = page.body.nextCursor ?? undefined;
    } while (cursor);
    expect(walked).toEqual(names);
  });

  test('a walk through the pages goes on after the last one shown, renamed meanwhile or not', async () => {
    const owner = await createAccount(ctx.gw);
    for (const name of ['A', 'B', 'C', 'D']) await save(owner, { name, text: name });
    const first = await api(ctx.gw, owner, 'GET', 'saved-replies', { query: { limit: '2' } });
    expect(first.body.data.map((s: any) => s.name)).toEqual(['A', 'B']);
    await api(ctx.gw, owner, 'PATCH', `saved-replies/${first.body.data[0].id}`, { body: { name: 'E' } });
    const next = await api(ctx.gw, owner, 'GET', 'saved-replies', {
      query: { limit: '2', cursor: first.body.nextCursor },
    });
    expect(next.body.data.map((s: any) => s.name)).toEqual(['C', 'D']);
  });

  test('?q= finds them by name or by text, case and accents aside', async () => {
    const owner = await createAccount(ctx.gw);
    await save(owner, { name: 'Prices', text: 'Our prices are on example.com/prices' });
    await save(owner, { name: 'Book a call', text: 'Here is the link to book a call: cal.example.com' });
    await save(owner, { name: 'Café hours', text: 'We open at 9' });
    expect((await savedOf(owner, { q: 'PRICE' })).map((s) => s.name)).toEqual(['Prices']);
    expect((await savedOf(owner, { q: 'cal.example' })).map((s) => s.name)).toEqual(['Book a call']);
    expect((await savedOf(owner, { q: 'cafe' })).map((s) => s.name)).toEqual(['Café hours']);
    expect(await savedOf(owner, { q: 'nothing like it' })).toEqual([]);
    expectApiError(await api(ctx.gw, owner, 'GET', 'saved-replies', { query: { q: ' ' } }), 400, 'VALIDATION_ERROR');
  });

  test('bad fields → 400 with the error shape, and nothing is kept; 80 and 4096 characters are taken', async () => {
    const owner = await createAccount(ctx.gw);
    const bad = [
      { text: 'No name' },
      { name: 'No text' },
      { name: '', text: 'x' },
      { name: '   ', text: 'x' },
      { name: 'x'.repeat(81), text: 'x' },
      { name: 'x', text: 'x'.repeat(4097) },
      { name: 42, text: 'x' },
      { name: 'x', text: null },
    ];
    for (const body of bad) expectApiError(await save(owner, body), 400, 'VALIDATION_ERROR');
    expectApiError(await save(owner, { name: 'NUL', text: 'a NUL \u0000 here' }), 400);
    expectApiError(await api(ctx.gw, owner, 'POST', 'saved-replies', { body: '{"name": ' }), 400, 'INVALID_JSON');
    expect(await savedOf(owner)).toEqual([]);
    expect((await save(owner, { name: 'n'.repeat(80), text: 't'.repeat(4096) })).status).toBe(201);
  });

  test('a name the account has already, case and spaces aside → 409 SAVED_REPLY_NAME_TAKEN; another account may', async () => {
    const owner = await createAccount(ctx.gw);
    const other = await createAccount(ctx.gw);
    await save(owner, { name: 'Book a call', text: 'First' });
    for (const name of ['Book a call', 'BOOK A CALL', 'book  a call'])
      expectApiError(await save(owner, { name, text: 'Second' }), 409, 'SAVED_REPLY_NAME_TAKEN');
    expect((await save(other, { name: 'Book a call', text: 'Theirs' })).status).toBe(201);
    expect((await savedOf(owner)).map((s) => s.text)).toEqual(['First']);
  });

  test('an unknown placeholder → 400 UNKNOWN_TEMPLATE_FIELD naming text, as a campaign message is refused', async () => {
    const owner = await createAccount(ctx.gw);
    const res = await save(owner, { name: 'Hello', text: 'Hi {{frist_name}}!' });
    expectApiError(res, 400, 'UNKNOWN_TEMPLATE_FIELD');
    expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'text', code: 'UNKNOWN_TEMPLATE_FIELD' })]);
    expect(await savedOf(owner)).toEqual([]);
    const known = 'Hi {{first_name|there}}, {{ lastName }} {{custom.plan}}';
    expect((await save(owner, { name: 'Hello', text: known })).status).toBe(201);
  });

  test('the same Idempotency-Key and body answer the first saved reply again and save none, with no 409', async () => {
    const owner = await createAccount(ctx.gw);
    const key = { 'Idempotency-Key': unique('saved') };
    const first = await save(owner, { name: 'Once', text: 'Once' }, key);
    const again = await save(owner, { name: 'Once', text: 'Once' }, key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expectApiError(await save(owner, { name: 'Twice', text: 'Once' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await savedOf(owner)).toHaveLength(1);
  });

  test('an account keeps at most 1000: the next is 409 TOO_MANY_SAVED_REPLIES until one is deleted', async () => {
    const owner = await createAccount(ctx.gw);
    await ctx.gw.engine.store.transact(async (tx) => {
      for (let i = 0; i < 999; i++)
        await tx.insert('saved_replies', {
          id: `svr_filled${i}`,
          accountId: owner.id,
          name: `Reply ${i}`,
          nameKey: `reply ${i}`,
          text: 'x',
          authorId: null,
          authorName: null,
          createdAt: new Date().toISOString(),
          updatedAt: new Date().toISOString(),
        });
    });
    const last = await save(owner, { name: 'The thousandth', text: 'x' });
    expect(last.status).toBe(201);
    expectApiError(await save(owner, { name: 'One more', text: 'x' }), 409, 'TOO_MANY_SAVED_REPLIES');
    expect((await api(ctx.gw, owner, 'DELETE', `saved-replies/${last.body.id}`)).status).toBe(204);
    expect((await save(owner, { name: 'One more', text: 'x' })).status).toBe(201);
  });
});

describe('PATCH and DELETE /v1/saved-replies/{id}', () => {
  test('PATCH changes the name, the text or both, each held to the rules of a new one', async () => {
    const owner = await createAccount(ctx.gw);
    const made = (await save(owner, { name: 'Prices', text: 'Old text' })).body;
    await save(owner, { name: 'Book a call', text: 'Link' });
    const renamed = await api(ctx.gw, owner, 'PATCH', `saved-replies/${made.id}`, { body: { name: ' Pricing ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: made.id, name: 'Pricing', text: 'Old text' });
    const retexted = await api(ctx.gw, owner, 'PATCH', `saved-replies/${made.id}`, { body: { text: 'New text' } });
    expect(retexted.body).toMatchObject({ name: 'Pricing', text: 'New text', createdAt: made.createdAt });
    // Its own name in another case is no conflict.
    const recased = await api(ctx.gw, owner, 'PATCH', `saved-replies/${made.id}`, { body: { name: 'PRICING' } });
    expect(recased.body.name).toBe('PRICING');
    const patch = (body: unknown) => api(ctx.gw, owner, 'PATCH', `saved-replies/${made.id}`, { body });
    expectApiError(await patch({ name: 'book a call' }), 409, 'SAVED_REPLY_NAME_TAKEN');
    expectApiError(await patch({}), 400, 'VALIDATION_ERROR');
    expectApiError(await patch({ name: '' }), 400, 'VALIDATION_ERROR');
    expectApiError(await patch({ text: 'x'.repeat(4097) }), 400, 'VALIDATION_ERROR');
    expectApiError(await patch({ text: 'Hi {{nope}}' }), 400, 'UNKNOWN_TEMPLATE_FIELD');
    expect((await api(ctx.gw, owner, 'GET', `saved-replies/${made.id}`)).body).toMatchObject({
      name: 'PRICING',
      text: 'New text',
    });
  });

  test('every member saves and uses them; its author, admins and the owner change and delete one, another agent 403', async () => {
    const owner = await consoleAccount(ctx.gw);
    const pat = await teamMember(ctx.gw, owner, 'agent', 'Pat');
    const sam = await teamMember(ctx.gw, owner, 'agent', 'Sam');
    const ada = await teamMember(ctx.gw, owner, 'admin', 'Ada');
    const made = await asMember(pat, 'POST', 'saved-replies', { name: 'Pat’s', text: 'Hello' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ authorId: pat.id, authorName: 'Pat' });
    const id = made.body.id;
    expect((await asMember(sam, 'GET', 'saved-replies')).body.data.map((s: any) => s.id)).toEqual([id]);
    expect((await asMember(sam, 'GET', `saved-replies/${id}`)).status).toBe(200);
    expectApiError(await asMember(sam, 'PATCH', `saved-replies/${id}`, { text: 'Mine' }), 403, 'FORBIDDEN');
    expectApiError(await asMember(sam, 'DELETE', `saved-replies/${id}`), 403, 'FORBIDDEN');
    expect((await asMember(pat, 'PATCH', `saved-replies/${id}`, { text: 'By Pat' })).status).toBe(200);
    expect((await asMember(ada, 'PATCH', `saved-replies/${id}`, { text: 'By Ada' })).status).toBe(200);
    expect((await api(ctx.gw, owner, 'PATCH', `saved-replies/${id}`, { body: { text: 'By key' } })).status).toBe(200);
    expect((await api(ctx.gw, owner, 'GET', `saved-replies/${id}`)).body).toMatchObject({
      text: 'By key',
      authorName: 'Pat',
    });
    expect((await asMember(ada, 'DELETE', `saved-replies/${id}`)).status).toBe(204);
    expectApiError(await api(ctx.gw, owner, 'GET', `saved-replies/${id}`), 404, 'SAVED_REPLY_NOT_FOUND');
  });

  test("an unknown saved reply, or another account's → 404 SAVED_REPLY_NOT_FOUND, and theirs stays", async () => {
    const owner = await createAccount(ctx.gw);
    const other = await createAccount(ctx.gw);
    const theirs = (await save(other, { name: 'Theirs', text: 'Their text' })).body;
    for (const id of ['svr_unknown', theirs.id]) {
      expectApiError(await api(ctx.gw, owner, 'GET', `saved-replies/${id}`), 404, 'SAVED_REPLY_NOT_FOUND');
      expectApiError(
        await api(ctx.gw, owner, 'PATCH', `saved-replies/${id}`, { body: { text: 'Mine' } }),
        404,
        'SAVED_REPLY_NOT_FOUND',
      );
      expectApiError(await api(ctx.gw, owner, 'DELETE', `saved-replies/${id}`), 404, 'SAVED_REPLY_NOT_FOUND');
    }
    expect(await savedOf(owner)).toEqual([]);
    expect((await savedOf(other)).map((s) => s.text)).toEqual(['Their text']);
  });
});

describe('GET /v1/saved-replies/{id}?conversationId=', () => {
  test("renderedText fills its placeholders in for the conversation's contact, as a campaign message is", async () => {
    const owner = await createAccount(ctx.gw);
    const text = 'Hi {{first_name|there}}, your {{custom.plan|plan}} renews soon. {{lastName}}';
    const made = (await save(owner, { name: 'Renewal', text })).body;
    const ruth = await conversationOf(owner, { firstName: 'Ruth', customFields: { plan: 'Pro' } });
    const res = await api(ctx.gw, owner, 'GET', `saved-replies/${made.id}`, { query: { conversationId: ruth.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...made, conversationId: ruth.id, renderedText: 'Hi Ruth, your Pro renews soon.' });
    const nameless = await conversationOf(owner);
    const plain = await api(ctx.gw, owner, 'GET', `saved-replies/${made.id}`, {
      query: { conversationId: nameless.id },
    });
    expect(plain.body.renderedText).toBe('Hi there, your plan renews soon.');
    // The saved reply itself is unchanged.
    expect((await api(ctx.gw, owner, 'GET', `saved-replies/${made.id}`)).body.text).toBe(text);
  });

  test("an unknown conversation, or another account's → 404 CONVERSATION_NOT_FOUND", async () => {
    const owner = await createAccount(ctx.gw);
    const other = await createAccount(ctx.gw);
    const made = (await save(owner, { name: 'Hi', text: 'Hi {{first_name}}' })).body;
    const theirs = await conversationOf(other, { firstName: 'Secret' });
    for (const conversationId of ['cnv_unknown', theirs.id])
      expectApiError(
        await api(ctx.gw, owner, 'GET', `saved-replies/${made.id}`, { query: { conversationId } }),
        404,
        'CONVERSATION_NOT_FOUND',
      );
  });
});
