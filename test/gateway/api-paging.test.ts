import {
  api,
  createAccount,
  expectApiError,
  incoming,
  poll,
  Receiver,
  request,
  unique,
  uniquePhone,
  useGateway,
  type Reply,
  type TestAccount,
} from './api-support';

/**
 * Every list endpoint pages the same way: `?limit=` (1..200, default 50) and an opaque `cursor`, answered as
 * `{data, nextCursor}` with nextCursor null on the last page. Each endpoint is filled past the default limit and
 * walked two items at a time.
 */
// Failed deliveries wait an hour before their retry: the admin job list then holds pending jobs that stay put.
const ctx = useGateway({ LEADCHAT_WEBHOOK_RETRIES: '1h' });
const MORE_THAN_A_PAGE = 51;

let failing: Receiver;
afterAll(async () => {
  await failing?.close();
});

/** One list endpoint: how to fill it for an account, and how to read it. */
interface Endpoint {
  name: string;
  /** Creates `count` items for `who`; returns the path that lists them and their ids in the endpoint's order. */
  fill(who: TestAccount, count: number): Promise<{ path: string; ids: string[] }>;
  get(who: TestAccount, path: string, query?: Record<string, string>): Promise<Reply>;
  /** Whether accounts have items of their own here (the admin job list is the operator's). */
  tenant: boolean;
  /** The most an account may hold, when fewer than a page and one (webhook subscriptions: 50). */
  most?: number;
}

const post = async (who: TestAccount, path: string, body: unknown) => {
  const res = await api(ctx.gw, who, 'POST', path, { body });
  expect([200, 201]).toContain(res.status);
  return res.body;
};
const asTenant = (who: TestAccount, path: string, query: Record<string, string> = {}) =>
  api(ctx.gw, who, 'GET', path, { query });
// Sequential on purpose: each endpoint lists in insertion order, which the expected ids follow.
async function times<T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const made: T[] = [];
  for (let i = 0; i < count; i++) made.push(await make(i));
  return made;
}

const endpoints: Endpoint[] = [
  {
    name: 'GET /v1/lists',
    tenant: true,
    get: asTenant,
    fill: async (who, count) => ({
      path: 'lists',
      ids: (await times(count, (i) => post(who, 'lists', { name: `List ${i}` }))).map((l) => l.id),
    }),
  },
  {
    name: 'GET /v1/lists/{id}/contacts',
    tenant: true,
    get: asTenant,
    fill: async (who, count) => {
      const list = await post(who, 'lists', { name: 'Members' });
      const ids = await times(count, async (i) => {
        const contact = await post(who, 'contacts', { phone: uniquePhone(), firstName: `Member ${i}` });
        await post(who, `lists/${list.id}/contacts`, { contactId: contact.id });
        return contact.id as string;
      });
      return { path: `lists/${list.id}/contacts`, ids };
    },
  },
  {
    name: 'GET /v1/campaigns',
    tenant: true,
    get: asTenant,
    fill: async (who, count) => ({
      path: 'campaigns',
      ids: (await times(count, (i) => post(who, 'campaigns', { name: `Campaign ${i}` }))).map((c) => c.id),
    }),
  },
  {
    name: 'GET /v1/saved-replies',
    tenant: true,
    get: asTenant,
    // Sorted by name, numbers as numbers: saved in this order, they come in it.
    fill: async (who, count) => ({
      path: 'saved-replies',
      ids: (await times(count, (i) => post(who, 'saved-replies', { name: `Reply ${i}`, text: `Text ${i}` }))).map(
        (r) => r.id,
      ),
    }),
  },
  {
    name: 'GET /v1/audit-log',
    tenant: true,
    get: asTenant,
    // Newest first: the entries of changes made in turn come in the reverse order.
    fill: async (who, count) => {
      await times(count, (i) => api(ctx.gw, who, 'PUT', 'settings', { body: { helpText: `Help ${i}` } }));
      const log = await asTenant(who, 'audit-log', { limit: '200' });
      expect(log.body.data).toHaveLength(count);
      return { path: 'audit-log', ids: log.body.data.map((e: { id: string }) => e.id) };
    },
  },
  {
    name: 'GET /v1/webhooks',
    tenant: true,
    most: 50,
    get: asTenant,
    fill: async (who, count) => ({
      path: 'webhooks',
      ids: (
        await times(count, (i) => post(who, 'webhooks', { url: `http://127.0.0.1:9/hook/${i}`, events: ['reply'] }))
      ).map((w) => w.id),
    }),
  },
  {
    name: 'GET /v1/contacts/{id}/messages',
    tenant: true,
    get: asTenant,
    fill: async (who, count) => {
      // Messages sent to one visitor: none of them calls for an answer of the gateway's own.
      const fromId = unique('visitor');
      const sent = await times(count, (i) =>
        post(who, 'send_custom_channel_message', {
          customData: { fromId, customChannel: 'web-chat', body: `Message ${i}` },
        }),
      );
      return { path: `contacts/${sent[0].contactId}/messages`, ids: sent.map((r) => r.messageId) };
    },
  },
  {
    name: 'GET /admin/v1/jobs',
    tenant: false,
    get: (_who, path, query = {}) =>
      request(ctx.gw, 'GET', path, { headers: { authorization: `Bearer ${ctx.gw.adminToken}` }, query }),
    fill: async (who, count) => {
      // Each reply's delivery fails once and waits (pending) for its retry an hour later.
      failing = await Receiver.start(() => ({ status: 500 }));
      expect(
        (await api(ctx.gw, who, 'PUT', 'settings', { body: { customChannelWebhookUrl: failing.url } })).status,
      ).toBe(200);
      // Each to a visitor of its own: a conversation's replies go one after the other, each once the one before is.
      await times(count, (i) =>
        post(who, 'send_custom_channel_message', {
          customData: { fromId: unique('visitor'), customChannel: 'web-chat', body: `Reply ${i}` },
        }),
      );
      const path = '/admin/v1/jobs';
      const mine = (res: Reply) =>
        (res.body.data as Array<{ id: string; accountId: string; attempts: number }>).filter(
          (j) => j.accountId === who.id,
        );
      const settled = await poll(
        () =>
          request(ctx.gw, 'GET', path, {
            headers: { authorization: `Bearer ${ctx.gw.adminToken}` },
            query: { status: 'pending', limit: '200' },
          }),
        (res) => res.status === 200 && mine(res).length === count && mine(res).every((j) => j.attempts === 1),
        20_000,
      );
      expect(mine(settled)).toHaveLength(count);
      return { path, ids: mine(settled).map((j) => j.id) };
    },
  },
];

describe.each(endpoints)('$name', (endpoint) => {
  let owner: TestAccount;
  let path: string;
  let ids: string[];
  // The admin job list is not per account; `status=pending` is where the test's jobs wait.
  const q = (query: Record<string, string> = {}) => (endpoint.tenant ? query : { status: 'pending', ...query });
  const read = (query?: Record<string, string>) => endpoint.get(owner, path, q(query));
  /** Follows nextCursor from the first page to the last; returns every page. */
  async function walk(limit: string): Promise<Reply[]> {
    const pages: Reply[] = [];
    let cursor: string | null = null;
    do {
      const res = await read({ limit, ...(cursor === null ? {} : { cursor }) });
      expect(res.status).toBe(200);
      pages.push(res);
      cursor = res.body.nextCursor;
    } while (cursor !== null && pages.length < 1000);
    return pages;
  }
  const idsOf = (res: Reply): string[] => res.body.data.map((item: { id: string }) => item.id);
  // Other pending jobs (the hourly housekeeping) share the admin list: only the test's own are compared.
  const ours = (seen: string[]) => seen.filter((id) => ids.includes(id));

  beforeAll(async () => {
    owner = await createAccount(ctx.gw);
    ({ path, ids } = await endpoint.fill(owner, Math.min(MORE_THAN_A_PAGE, endpoint.most ?? Infinity)));
  }, 120_000);

  test('answers {data, nextCursor}: 50 items by default, then a cursor to the rest', async () => {
    const res = await read();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'nextCursor']);
    expect(res.body.data).toHaveLength(50);
    if (endpoint.tenant) expect(idsOf(res)).toEqual(ids.slice(0, 50));
    // An account holding at most a page: its one page is the last.
    if (ids.length === 50) return expect(res.body.nextCursor).toBeNull();
    expect(res.body.nextCursor).toEqual(expect.any(String));
    const rest = await read({ cursor: res.body.nextCursor });
    expect(rest.status).toBe(200);
    if (endpoint.tenant) {
      expect(idsOf(rest)).toEqual(ids.slice(50));
      expect(rest.body.nextCursor).toBeNull();
    }
  });

  test('limit=2 walks every item once, in order, and nextCursor is null on the last page', async () => {
    const pages = await walk('2');
    const seen = pages.flatMap(idsOf);
    expect(pages.every((p) => p.body.data.length <= 2)).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    expect(ours(seen)).toEqual(ids);
    if (endpoint.tenant) {
      expect(seen).toEqual(ids);
      expect(pages).toHaveLength(Math.ceil(ids.length / 2));
    }
    expect(pages.at(-1)!.body.nextCursor).toBeNull();
    expect(pages.slice(0, -1).every((p) => typeof p.body.nextCursor === 'string')).toBe(true);
  });

  test('a page that ends exactly at the last item says nextCursor null, not an empty page after it', async () => {
    const all = await read({ limit: '200' });
    expect(all.status).toBe(200);
    expect(all.body.nextCursor).toBeNull();
    expect(ours(idsOf(all))).toEqual(ids);
    const exact = await read({ limit: String(all.body.data.length) });
    expect(idsOf(exact)).toEqual(idsOf(all));
    expect(exact.body.nextCursor).toBeNull();
  });

  test('the cursor is opaque: not an item id', async () => {
    const first = await read({ limit: '1' });
    expect(first.body.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.body.nextCursor).not.toBe(first.body.data[0].id);
  });

  test('a cursor that is not from a previous page → 400 INVALID_CURSOR', async () => {
    const real = (await read({ limit: '1' })).body.nextCursor as string;
    const bad = [
      'not a cursor',
      '!!!!',
      ids[0]!, // an id as it is, not a cursor
      Buffer.from('hello world').toString('base64url'),
      `${real}=`,
      `${real}.`,
      'x'.repeat(500),
    ];
    for (const cursor of bad) {
      const res = await read({ cursor });
      expectApiError(res, 400, 'INVALID_CURSOR');
      expect(res.body.error.message).toMatch(/cursor/);
    }
    // Well formed but signed for another place, or malformed: either way error.fields names the parameter.
    const edited = [...real].map((c, i) => (i === 3 ? (c === 'A' ? 'B' : 'A') : c)).join('');
    for (const cursor of [edited, 'x'.repeat(500)]) {
      expect({ cursor, fields: (await read({ cursor })).body.error.fields }).toEqual({
        cursor,
        fields: [{ field: 'cursor', code: 'INVALID_CURSOR', message: expect.stringMatching(/nextCursor/) }],
      });
    }
  });

  test('limit outside 1..200 or not a whole number → 400', async () => {
    for (const limit of ['0', '201', 'abc', '-1', '2.5', '']) {
      const res = await read({ limit });
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/^limit: /);
    }
    expect((await read({ limit: '200' })).status).toBe(200);
    expect((await read({ limit: '1' })).status).toBe(200);
    // Out of range is that one problem, whatever the size: not also a bound of JavaScript's numbers.
    for (const [limit, message] of [
      ['99999999999999999999', 'limit: must be at most 200'],
      ['-99999999999999999999', 'limit: must be at least 1'],
    ]) {
      expect({ limit, message: (await read({ limit: limit! })).body.error.message }).toEqual({ limit, message });
    }
  });

  test('the cursor is short and URL-safe; a cursor edited, or in the earlier form (the id encoded), → 400 INVALID_CURSOR', async () => {
    const real = (await read({ limit: '1' })).body.nextCursor as string;
    expect(real).toMatch(/^[A-Za-z0-9_-]{20,80}$/);
    expect((await read({ cursor: real, limit: '1' })).status).toBe(200);
    const edited = [...real].map((c, i) => (i === 3 ? (c === 'A' ? 'B' : 'A') : c)).join('');
    const earlierForm = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
    // The last id of the first page, as the gateway used to encode it, and an id that names nothing.
    for (const cursor of [edited, earlierForm(ids[0]!), earlierForm(`${ids[0]!.split('_')[0]}_nothingHere0000`)]) {
      const res = await read({ cursor });
      expectApiError(res, 400, 'INVALID_CURSOR');
    }
  });

  if (!endpoint.tenant) {
    test('a cursor is bound to the filters it was made with; the page size may change', async () => {
      const cursor = (await read({ limit: '1' })).body.nextCursor as string;
      expect((await read({ cursor, limit: '3' })).status).toBe(200);
      expectApiError(await endpoint.get(owner, path, { status: 'dead', cursor }), 400, 'INVALID_CURSOR');
    });
    return;
  }
  test("a cursor from another account's page → 400 INVALID_CURSOR, both ways", async () => {
    const other = await createAccount(ctx.gw);
    const theirs = await endpoint.fill(other, 3);
    const cursor = (await read({ limit: '1' })).body.nextCursor as string;
    expectApiError(await endpoint.get(other, theirs.path, { cursor, limit: '200' }), 400, 'INVALID_CURSOR');
    // And the other way round: the owner's listing takes no cursor of the other account.
    const back = (await endpoint.get(other, theirs.path, { limit: '1' })).body.nextCursor as string;
    expectApiError(await read({ cursor: back, limit: '200' }), 400, 'INVALID_CURSOR');
  });
});

describe('a cursor is good only on the endpoint that made it', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(ctx.gw);
  });

  test("list A's members cursor on list B's members → 400 INVALID_CURSOR; on list A it pages on", async () => {
    const [a, b] = await Promise.all([post(owner, 'lists', { name: 'A' }), post(owner, 'lists', { name: 'B' })]);
    for (let i = 0; i < 2; i++) {
      const contact = await post(owner, 'contacts', { phone: uniquePhone() });
      await post(owner, `lists/${a.id}/contacts`, { contactId: contact.id });
      await post(owner, `lists/${b.id}/contacts`, { contactId: contact.id });
    }
    const cursor = (await asTenant(owner, `lists/${a.id}/contacts`, { limit: '1' })).body.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    expect((await asTenant(owner, `lists/${a.id}/contacts`, { cursor })).status).toBe(200);
    expectApiError(await asTenant(owner, `lists/${b.id}/contacts`, { cursor }), 400, 'INVALID_CURSOR');
    expectApiError(await asTenant(owner, `lists/${b.id}/imports`, { cursor }), 400, 'INVALID_CURSOR');
  });

  test('a cursor of GET /v1/lists on GET /v1/campaigns → 400 INVALID_CURSOR', async () => {
    for (let i = 0; i < 2; i++) await post(owner, 'lists', { name: `L${i}` });
    const cursor = (await asTenant(owner, 'lists', { limit: '1' })).body.nextCursor as string;
    expectApiError(await asTenant(owner, 'campaigns', { cursor }), 400, 'INVALID_CURSOR');
    expectApiError(await asTenant(owner, 'webhooks', { cursor }), 400, 'INVALID_CURSOR');
  });

  test("a conversation cursor is bound to the inbox's filters", async () => {
    // No campaign answers these visitors: their conversations are the team's (handed_off).
    for (let i = 0; i < 3; i++)
      await post(owner, 'incoming_custom_channel_message', incoming({ fromId: unique('visitor') }));
    const first = await poll(
      () => asTenant(owner, 'conversations', { limit: '1', status: 'handed_off' }),
      (r) => r.status === 200 && typeof r.body.nextCursor === 'string',
    );
    const cursor = first.body.nextCursor as string;
    expect((await asTenant(owner, 'conversations', { limit: '1', status: 'handed_off', cursor })).status).toBe(200);
    expectApiError(
      await asTenant(owner, 'conversations', { limit: '1', status: 'closed', cursor }),
      400,
      'INVALID_CURSOR',
    );
    expectApiError(await asTenant(owner, 'conversations', { limit: '1', cursor }), 400, 'INVALID_CURSOR');
  });
});

describe('the item a page ended on is gone before the next page is read: the walk goes on after it', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(ctx.gw);
  });

  /** Reads two items, has `remove` take the second away, then reads on: every other item comes, once. */
  async function walkAcross(path: string, ids: string[], remove: (id: string) => Promise<Reply>, query = {}) {
    const first = await asTenant(owner, path, { ...query, limit: '2' });
    expect(first.body.data.map((item: { id: string }) => item.id)).toEqual(ids.slice(0, 2));
    expect((await remove(ids[1]!)).status).toBe(204);
    const rest = await asTenant(owner, path, { ...query, limit: '2', cursor: first.body.nextCursor });
    expect({ status: rest.status, body: rest.body }).toEqual({
      status: 200,
      body: { data: ids.slice(2).map((id) => expect.objectContaining({ id })), nextCursor: null },
    });
  }

  test("a list's contacts: the contact the page ended on taken off the list", async () => {
    const list = await post(owner, 'lists', { name: 'Walked' });
    const ids = await times(4, async () => {
      const contact = await post(owner, 'contacts', { phone: uniquePhone() });
      await post(owner, `lists/${list.id}/contacts`, { contactId: contact.id });
      return contact.id as string;
    });
    await walkAcross(`lists/${list.id}/contacts`, ids, (id) =>
      api(ctx.gw, owner, 'DELETE', `lists/${list.id}/contacts/${id}`),
    );
  });

  test('webhooks: the subscription the page ended on deleted', async () => {
    const ids = await times(4, async (i) => {
      const hook = await post(owner, 'webhooks', { url: `http://127.0.0.1:9/walked/${i}`, events: ['reply'] });
      return hook.id as string;
    });
    await walkAcross('webhooks', ids, (id) => api(ctx.gw, owner, 'DELETE', `webhooks/${id}`));
  });

  test('the team: the member the page ended on removed', async () => {
    const team = await asTenant(owner, 'members');
    const invited = await times(3, async (i) => {
      const member = await post(owner, 'members', {
        email: `walked${i}@example.com`,
        name: `Walked ${i}`,
        role: 'agent',
      });
      return member.id as string;
    });
    // The owner comes first, then the members in the order they were invited.
    await walkAcross('members', [team.body.data[0].id, ...invited], (id) =>
      api(ctx.gw, owner, 'DELETE', `members/${id}`),
    );
  });

  test('a search of contacts: the contact the page ended on erased', async () => {
    // Newest first.
    const ids = (await times(4, (i) => post(owner, 'contacts', { phone: uniquePhone(), firstName: `Walkedname${i}` })))
      .map((c) => c.id as string)
      .reverse();
    await walkAcross('contacts', ids, (id) => api(ctx.gw, owner, 'DELETE', `contacts/${id}`), { q: 'walkedname' });
  });
});

test('the OpenAPI document shows limit, cursor and the page answer on every /v1 list endpoint', async () => {
  const doc = (await request(ctx.gw, 'GET', '/v1/openapi.json')).body;
  const items: Record<string, string> = {
    '/lists': 'List',
    '/lists/{listId}/contacts': 'ListContact',
    '/campaigns': 'Campaign',
    '/webhooks': 'Webhook',
    '/contacts/{id}/messages': 'Message',
  };
  for (const [path, item] of Object.entries(items)) {
    const op = doc.paths[path].get;
    const query = Object.fromEntries(
      op.parameters
        .filter((p: { in: string }) => p.in === 'query')
        .map((p: { name: string; schema: object }) => [p.name, p.schema]),
    );
    expect({ path, query }).toEqual({
      path,
      query: {
        limit: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 200, default: 50 }),
        cursor: expect.objectContaining({ type: 'string' }),
        // Lists and campaigns are searched by name too.
        ...(path === '/lists' || path === '/campaigns' ? { q: expect.objectContaining({ type: 'string' }) } : {}),
        // Campaigns by status too: the archived ones only when asked for.
        ...(path === '/campaigns'
          ? { status: expect.objectContaining({ enum: ['draft', 'live', 'paused', 'archived'] }) }
          : {}),
        // A contact's messages are read newest first too, and one conversation's alone.
        ...(path === '/contacts/{id}/messages'
          ? {
              order: expect.objectContaining({ enum: ['asc', 'desc'], default: 'asc' }),
              conversationId: expect.objectContaining({ type: 'string' }),
            }
          : {}),
      },
    });
    const page = op.responses['200'].content['application/json'].schema;
    expect({ path, page }).toEqual({
      path,
      page: expect.objectContaining({
        required: ['data', 'nextCursor'],
        properties: {
          data: { type: 'array', items: { $ref: `#/components/schemas/${item}` } },
          nextCursor: expect.objectContaining({ type: ['string', 'null'] }),
        },
      }),
    });
  }
});
