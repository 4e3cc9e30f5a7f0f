import { api, createAccount, expectApiError, useGateway, type Reply, type TestAccount } from './api-support';

/**
 * A creation whose answer never arrived (the connection dropped, the gateway restarted, 503 COMMIT_OUTCOME_UNKNOWN),
 * sent again with its Idempotency-Key, makes one thing, not two: the repetition gets the first answer again.
 */
const ctx = useGateway();
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

interface Creation {
  path: string;
  body: unknown;
  /** The same key with this body is another request. */
  other: unknown;
  status: number;
  /** How many the account holds of what the request makes. */
  count: () => Promise<number>;
}

/** Sends `c` twice with one key, then with another body: one made, the first answer replayed, then 422. */
async function sentTwice(c: Creation): Promise<Reply> {
  const key = `create-${c.path}-${Date.now()}`;
  const send = (body: unknown) => api(ctx.gw, account, 'POST', c.path, { body, headers: { 'Idempotency-Key': key } });
  const before = await c.count();
  const first = await send(c.body);
  expect(first.status).toBe(c.status);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  const again = await send(c.body);
  expect(again.status).toBe(c.status);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.body).toEqual(first.body);
  expectApiError(await send(c.other), 422, 'IDEMPOTENCY_KEY_REUSED');
  expect(await c.count()).toBe(before + 1);
  return again;
}

const counted = (path: string) => async () => (await api(ctx.gw, account, 'GET', path)).body.data.length as number;

test('a webhook subscription made again with its Idempotency-Key is made once, its secret answered again', async () => {
  const url = 'https://n8n.example.com/webhook/once';
  const again = await sentTwice({
    path: 'webhooks',
    body: { url, events: ['reply'] },
    other: { url, events: ['reply', 'handoff'] },
    status: 201,
    count: counted('webhooks'),
  });
  expect(again.body.secret).toMatch(/^whsec_/);
  expect(again.headers['cache-control']).toBe('no-store');
});

test('a list made again with its Idempotency-Key is made once', async () => {
  await sentTwice({
    path: 'lists',
    body: { name: 'Made once' },
    other: { name: 'Made twice' },
    status: 201,
    count: counted('lists'),
  });
});

test('an import sent again with its Idempotency-Key runs once, the same import answered, Location and all', async () => {
  const listId = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Imported once' } })).body.id;
  const again = await sentTwice({
    path: `lists/${listId}/imports`,
    body: { contacts: [{ phone: '+14155550181', firstName: 'Ana' }] },
    other: { contacts: [{ phone: '+14155550182', firstName: 'Ben' }] },
    status: 202,
    count: counted(`lists/${listId}/imports`),
  });
  expect(again.headers.location).toBe(`/v1/imports/${again.body.id}`);
});

test('a custom-channel message sent again with its Idempotency-Key reaches the contact once', async () => {
  const customData = { fromId: 'visitor-once', customChannel: 'chat', body: 'Your table is booked for 8' };
  const messages = async () => {
    const [contact] = (await api(ctx.gw, account, 'GET', 'contacts', { query: { q: customData.fromId } })).body.data;
    return contact ? (await api(ctx.gw, account, 'GET', `contacts/${contact.id}/messages`)).body.data : [];
  };
  const again = await sentTwice({
    path: 'send_custom_channel_message',
    body: { customData },
    other: { customData: { ...customData, body: 'Your table is booked for 9' } },
    status: 200,
    count: async () => (await messages()).length,
  });
  expect((await messages()).map((m: { id: string }) => m.id)).toEqual([again.body.messageId]);
});

test('a creation sent again with its keys in another order is the same request: made once, answered again', async () => {
  const key = `reordered-${Date.now()}`;
  const send = (body: string) =>
    api(ctx.gw, account, 'POST', 'send_custom_channel_message', { body, headers: { 'Idempotency-Key': key } });
  const before = (await api(ctx.gw, account, 'GET', 'contacts', { query: { q: 'visitor-reordered' } })).body.data;
  expect(before).toEqual([]);
  // A client library that builds its JSON from a map writes its keys in whatever order the map gives, each time.
  const first = await send(
    '{"customData":{"fromId":"visitor-reordered","customChannel":"chat","body":"See you at 8","firstName":"Ana"}}',
  );
  expect(first.status).toBe(200);
  const again = await send(
    '{ "customData": { "firstName": "Ana", "body": "See you at 8", "customChannel": "chat", "fromId": "visitor-reordered" } }',
  );
  expect({ status: again.status, replayed: again.headers['idempotent-replayed'], body: again.body }).toEqual({
    status: 200,
    replayed: 'true',
    body: first.body,
  });
  const [contact] = (await api(ctx.gw, account, 'GET', 'contacts', { query: { q: 'visitor-reordered' } })).body.data;
  const messages = (await api(ctx.gw, account, 'GET', `contacts/${contact.id}/messages`)).body.data;
  expect(messages.map((m: { id: string }) => m.id)).toEqual([first.body.messageId]);
});
