import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {
  Change,
  ChangeListener,
  Store,
} from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import {
  consoleAccount,
  signIn,
  teamMember,
  withSession,
  type ConsoleAccount,
  type SignedIn,
} from '../console/support';
import { openStream, type EventStream, type StreamEvent } from '../helpers/event-stream';
import { BACKEND, removeDir } from '../helpers/gateway';
import { startInProcess } from '../helpers/in-process';
import { createTestDatabase } from '../helpers/postgres';
import { api, expectApiError, incoming, poll, Receiver, request, untilIdle, useGateway } from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * GET /console/api/stream: a signed-in console session hears every change to its account's conversations as
 * Server-Sent Events, with ids it can resume from; nothing of another account, nothing once the session ended.
 */
const ctx = useGateway({ LEADCHAT_CONSOLE_RATE_LIMIT_PER_MINUTE: '30' });

const STREAM = '/console/api/stream';
const opened: EventStream[] = [];
const receivers: Receiver[] = [];

afterAll(async () => {
  for (const stream of opened) stream.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function open(session: Pick<SignedIn, 'cookie'>, headers: Record<string, string> = {}): Promise<EventStream> {
  const stream = await openStream(ctx.gw, STREAM, { cookie: session.cookie, ...headers });
  opened.push(stream);
  return stream;
}

async function signedIn(account?: ConsoleAccount): Promise<{ account: ConsoleAccount; session: SignedIn }> {
  const owner = account ?? (await consoleAccount(ctx.gw));
  const session = await signIn(ctx.gw, owner.email, owner.password);
  expect(session.reply.status).toBe(200);
  return { account: owner, session };
}

/** A message from a contact, through /v1 as a custom channel posts it: its id and its conversation's. */
async function contactWrites(
  account: ConsoleAccount,
  customData: Record<string, unknown> = {},
): Promise<{ messageId: string; conversationId: string }> {
  const res = await api(ctx.gw, account, 'POST', 'incoming_custom_channel_message', { body: incoming(customData) });
  expect(res.status).toBe(200);
  const message = await api(ctx.gw, account, 'GET', `messages/${res.body.messageId}`);
  return { messageId: res.body.messageId, conversationId: message.body.conversationId };
}

const named = (events: StreamEvent[], event: string) => events.filter((e) => e.event === event);
const ofConversation = (events: StreamEvent[], conversationId: string) =>
  events.filter((e) => e.data?.conversationId === conversationId);

test('without a session the stream is refused with 401 in the usual shape, before any stream starts', async () => {
  const none = await openStream(ctx.gw, STREAM);
  expectApiError({ status: none.status, headers: none.headers, body: none.body, text: JSON.stringify(none.body) }, 401);
  expect(none.headers['content-type']).toMatch(/^application\/json/);
  const unknown = await openStream(ctx.gw, STREAM, { cookie: 'leadchat_session=not-a-session' });
  expect(unknown.status).toBe(401);
});

test('a message posted through /v1 reaches the open stream as message.created, then conversation.updated; another account hears nothing', async () => {
  const { account, session } = await signedIn();
  const other = await signedIn();
  const stream = await open(session);
  const elsewhere = await open(other.session);
  expect(stream.status).toBe(200);
  expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
  expect(stream.headers['cache-control']).toBe('no-store');
  expect(stream.headers['content-encoding']).toBeUndefined();
  expect(stream.headers['content-length']).toBeUndefined();

  const body = 'My secret question about pricing';
  const { messageId, conversationId } = await contactWrites(account, { body });
  const events = await stream.until((e) => named(e, 'conversation.updated').length > 0);
  // The contact's message, then the hand-off notice the gateway sent them (no campaign answers here).
  expect(events.map((e) => e.event)).toEqual(['message.created', 'message.created', 'conversation.updated']);
  expect(events[0]!.data).toEqual({ conversationId, messageId, direction: 'incoming', author: null });
  expect(events[1]!.data).toEqual({
    conversationId,
    messageId: expect.any(String),
    direction: 'outgoing',
    author: 'system',
  });
  const conversation = (await api(ctx.gw, account, 'GET', `conversations/${conversationId}`)).body;
  expect(events[2]!.data).toEqual({
    conversationId,
    status: conversation.status,
    needsReply: conversation.needsReply,
    unread: 1,
    botActive: conversation.bot.active,
    failed: conversation.failed,
  });
  // Ids only: the text and the contact are read through /v1.
  const told = JSON.stringify(stream.events);
  expect(told).not.toContain(body);
  expect(told).not.toContain(conversation.contact.id);
  expect(new Set(events.map((e) => e.id)).size).toBe(3);
  expect(stream.retry).toBeGreaterThan(0);

  await untilIdle(ctx.gw);
  expect(elsewhere.events).toEqual([]);
  // The other account's stream is alive: it hears its own account's message, and only that.
  const theirs = await contactWrites(other.account);
  const heard = await elsewhere.until((e) => named(e, 'conversation.updated').length > 0);
  expect(new Set(heard.map((e) => e.data.conversationId))).toEqual(new Set([theirs.conversationId]));
  expect(ofConversation(stream.events, theirs.conversationId)).toEqual([]);
});

test('an assignment is conversation.assigned, a read conversation.updated, a team reply message.created and its delivery message.updated', async () => {
  const { account, session } = await signedIn();
  const hook = await Receiver.start();
  receivers.push(hook);
  expect((await api(ctx.gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: hook.url } })).status).toBe(
    200,
  );
  const { conversationId } = await contactWrites(account);
  await untilIdle(ctx.gw);
  const stream = await open(session);
  const ownerId = (await withSession(ctx.gw, session, 'GET', '/console/api/session')).body.member.id;

  expect(
    (await api(ctx.gw, account, 'POST', `conversations/${conversationId}/assign`, { body: { memberId: 'me' } })).status,
  ).toBe(200);
  await stream.until((e) => named(e, 'conversation.assigned').length > 0);
  expect(named(stream.events, 'conversation.assigned').map((e) => e.data)).toEqual([
    { conversationId, assigneeId: ownerId },
  ]);

  expect((await api(ctx.gw, account, 'POST', `conversations/${conversationId}/read`)).status).toBe(200);
  const read = await stream.until((e) => named(e, 'conversation.updated').length > 0);
  expect(named(read, 'conversation.updated').at(-1)!.data).toMatchObject({ conversationId, unread: 0 });

  // The reply is created pending; its receiver takes it, and it is sent.
  const contactId = (await api(ctx.gw, account, 'GET', `conversations/${conversationId}`)).body.contact.id;
  const reply = await withSession(ctx.gw, session, 'POST', `/v1/contacts/${contactId}/messages`, {
    body: { body: 'On it', conversationId },
  });
  expect({ status: reply.status, message: reply.body.status }).toEqual({ status: 201, message: 'pending' });
  await stream.until((e) => named(e, 'message.updated').length > 0);
  // In order, and no reset between (changes gone unheard would be one).
  expect(
    stream.events.filter((e) => e.event.startsWith('message.') || e.event === 'reset').map((e) => [e.event, e.data]),
  ).toEqual([
    ['message.created', { conversationId, messageId: reply.body.id, direction: 'outgoing', author: 'team' }],
    ['message.updated', { conversationId, messageId: reply.body.id, status: 'sent' }],
  ]);
  expect(JSON.stringify(stream.events)).not.toContain('On it');
});

test('a conversation gone with its contact (erased, or folded into another by a merge) is conversation.removed', async () => {
  const { account, session } = await signedIn();
  const erased = await contactWrites(account);
  const kept = await contactWrites(account);
  const duplicate = await contactWrites(account);
  await untilIdle(ctx.gw);
  const contactOf = async (conversationId: string) =>
    (await api(ctx.gw, account, 'GET', `conversations/${conversationId}`)).body.contact.id as string;
  const [erasedId, keptId, duplicateId] = await Promise.all(
    [erased, kept, duplicate].map((c) => contactOf(c.conversationId)),
  );
  const stream = await open(session);

  expect((await api(ctx.gw, account, 'DELETE', `contacts/${erasedId}`)).status).toBe(204);
  await stream.until((e) => named(e, 'conversation.removed').length > 0);
  expect(stream.events).toEqual([
    { id: expect.any(String), event: 'conversation.removed', data: { conversationId: erased.conversationId } },
  ]);

  const merge = await api(ctx.gw, account, 'POST', `contacts/${keptId}/merge`, { body: { contactId: duplicateId } });
  expect(merge.status).toBe(200);
  await stream.until((e) => named(e, 'conversation.removed').length > 1);
  expect(named(stream.events, 'conversation.removed').map((e) => e.data)).toEqual([
    { conversationId: erased.conversationId },
    { conversationId: duplicate.conversationId },
  ]);
  // What the folded conversation held (its unread message) is the kept one's now.
  await stream.until((e) => ofConversation(e, kept.conversationId).length > 0);
  expect(ofConversation(stream.events, kept.conversationId).map((e) => [e.event, e.data.unread])).toEqual([
    ['conversation.updated', 2],
  ]);
});

test("a conversation a merge moves to the kept contact is conversation.updated: the inbox shows that contact's name now", async () => {
  const { account, session } = await signedIn();
  const kept = await api(ctx.gw, account, 'POST', 'contacts', { body: { firstName: 'Kept', phone: '+14155550123' } });
  expect(kept.status).toBe(201);
  const duplicate = await contactWrites(account);
  await untilIdle(ctx.gw);
  const duplicateId = (await api(ctx.gw, account, 'GET', `conversations/${duplicate.conversationId}`)).body.contact.id;
  const stream = await open(session);

  const merge = await api(ctx.gw, account, 'POST', `contacts/${kept.body.id}/merge`, {
    body: { contactId: duplicateId },
  });
  expect(merge.status).toBe(200);
  expect((await api(ctx.gw, account, 'GET', `conversations/${duplicate.conversationId}`)).body.contact.id).toBe(
    kept.body.id,
  );
  await stream.until((e) => ofConversation(e, duplicate.conversationId).length > 0);
  expect(ofConversation(stream.events, duplicate.conversationId).map((e) => e.event)).toEqual(['conversation.updated']);
});

test("a contact's name corrected is conversation.updated for each of its conversations: the inbox shows the new name", async () => {
  const { account, session } = await signedIn();
  const wrote = await contactWrites(account);
  await untilIdle(ctx.gw);
  const contactId = (await api(ctx.gw, account, 'GET', `conversations/${wrote.conversationId}`)).body.contact.id;
  const stream = await open(session);

  const renamed = await api(ctx.gw, account, 'PATCH', `contacts/${contactId}`, { body: { firstName: 'Renée' } });
  expect(renamed.status).toBe(200);
  await stream.until((e) => ofConversation(e, wrote.conversationId).length > 0);
  expect(ofConversation(stream.events, wrote.conversationId).map((e) => e.event)).toEqual(['conversation.updated']);
  // A correction the inbox does not show (a custom field) tells nothing: by the time another conversation's news
  // comes, which follows it, only the next name's has come.
  const quiet = await api(ctx.gw, account, 'PATCH', `contacts/${contactId}`, {
    body: { customFields: { plan: 'gold' } },
  });
  expect(quiet.status).toBe(200);
  await api(ctx.gw, account, 'PATCH', `contacts/${contactId}`, { body: { lastName: 'Dupont' } });
  const later = await contactWrites(account);
  await stream.until((e) => ofConversation(e, later.conversationId).length > 0);
  expect(ofConversation(stream.events, wrote.conversationId).map((e) => e.event)).toEqual([
    'conversation.updated',
    'conversation.updated',
  ]);
});

test('a campaign whose bot answers no longer, or again, is campaign.updated: which conversations wait for a person changed', async () => {
  const { account, session } = await signedIn();
  const created = await api(ctx.gw, account, 'POST', 'campaigns', {
    body: { name: 'Chat', channel: 'custom', customChannel: 'chat' },
  });
  expect(created.status).toBe(201);
  const campaignId = created.body.id as string;
  const stream = await open(session);
  const patch = async (body: Record<string, unknown>) =>
    expect((await api(ctx.gw, account, 'PATCH', `campaigns/${campaignId}`, { body })).status).toBe(200);
  const told = () => named(stream.events, 'campaign.updated').map((e) => e.data);

  await patch({ bot: { active: false } });
  await stream.until(() => told().length === 1);
  // A change that leaves its bot answering as it did tells nothing: by the time the next one's news comes, which
  // follows it, only that one's has come.
  await patch({ name: 'Chat, renamed' });
  await patch({ bot: { active: true } });
  await stream.until(() => told().length === 2);
  expect(told()).toEqual([{ campaignId }, { campaignId }]);
});

test("a reconnect with Last-Event-ID gets exactly the events it missed; an unknown id gets reset, and the reset's id resumes", async () => {
  const { account, session } = await signedIn();
  const witness = await open(session);
  const first = await open(session);
  await contactWrites(account);
  await first.until((e) => named(e, 'conversation.updated').length > 0);
  const lastId = first.lastEventId;
  first.close();

  const missed = await contactWrites(account, { body: 'while away' });
  const again = await contactWrites(account);
  await untilIdle(ctx.gw);
  await witness.until((e) => named(e, 'message.created').some((m) => m.data.messageId === again.messageId));
  const since = witness.events.slice(witness.events.findIndex((e) => e.id === lastId) + 1);
  // The contacts' messages it missed (each answered by the gateway's hand-off notice: no campaign answers here).
  const written = since.filter((e) => e.event === 'message.created' && e.data.direction === 'incoming');
  expect(written.map((e) => e.data.messageId)).toEqual([missed.messageId, again.messageId]);

  const resumed = await open(session, { 'last-event-id': lastId });
  await resumed.until((e) => e.length >= since.length);
  await untilIdle(ctx.gw);
  expect(resumed.events).toEqual(since);

  const unknown = await open(session, { 'last-event-id': 'feedbeef.12' });
  await unknown.until((e) => e.length > 0);
  expect(unknown.events).toEqual([{ id: expect.any(String), event: 'reset', data: {} }]);
  const fromReset = await open(session, { 'last-event-id': unknown.lastEventId });
  await contactWrites(account);
  const afterReset = await fromReset.until((e) => named(e, 'conversation.updated').length > 0);
  expect(afterReset.map((e) => e.event)).toEqual(['message.created', 'message.created', 'conversation.updated']);
});

test("event ids count the account's own events: another account's activity moves none of them", async () => {
  const a = await signedIn();
  const b = await signedIn();
  const streamA = await open(a.session);
  const streamB = await open(b.session);
  // Nothing happened to A yet: its id says so, whatever the gateway did for others before.
  const [tagA, startA] = streamA.lastEventId.split('.');
  expect(streamA.lastEventId).toMatch(/^[0-9a-f]{12}\.0$/);

  for (let i = 0; i < 3; i++) await contactWrites(b.account, { body: `busy elsewhere ${i}` });
  await untilIdle(ctx.gw);
  await streamB.until((e) => named(e, 'conversation.updated').length >= 3);
  expect(streamB.lastEventId.split('.')[0]).not.toBe(tagA);

  await contactWrites(a.account);
  await untilIdle(ctx.gw);
  const events = await streamA.until((e) => named(e, 'conversation.updated').length > 0);
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => `${tagA}.${Number(startA) + i + 1}`));
});

test('a session holds 10 streams at once: the 11th is 429, and one closed makes room', async () => {
  const { account, session } = await signedIn();
  const streams: EventStream[] = [];
  for (let i = 0; i < 10; i++) streams.push(await open(session));
  expect(streams.map((s) => s.status)).toEqual(Array(10).fill(200));
  const eleventh = await open(session);
  expectApiError(
    { status: eleventh.status, headers: eleventh.headers, body: eleventh.body, text: JSON.stringify(eleventh.body) },
    429,
    'TOO_MANY_STREAMS',
  );
  // Another session of the same account is not held back by this one's.
  expect((await open((await signedIn(account)).session)).status).toBe(200);
  streams[0]!.close();
  // The closed one is let go once its connection's end is seen.
  expect(
    (
      await poll(
        () => open(session),
        (s) => s.status === 200,
      )
    ).status,
  ).toBe(200);
});

test("opening a stream spends one request of the session's per-minute budget; its events spend none", async () => {
  const { account, session } = await signedIn();
  const stream = await open(session);
  for (let i = 0; i < 10; i++) await contactWrites(account);
  // Each write is told three times: the contact's message, the answer to it, and their conversation.
  await stream.until((e) => named(e, 'message.created').length >= 20 && named(e, 'conversation.updated').length >= 10);
  // A budget of 30 a minute: the opening and this request.
  const read = await withSession(ctx.gw, session, 'GET', '/v1/conversations');
  expect(read.status).toBe(200);
  expect(read.headers.ratelimit).toMatch(/^"per-session"; r=28; t=\d+$/);
});

test("signing out ends the session's streams; a removed member's end too; an agent's stream carries the account's every conversation", async () => {
  const { account, session } = await signedIn();
  const stream = await open(session);
  const signOut = await request(ctx.gw, 'DELETE', '/console/api/session', {
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken, origin: ctx.gw.url },
  });
  expect(signOut.status).toBe(204);
  await stream.end();
  expect((await open(session)).status).toBe(401);

  const agent = await teamMember(ctx.gw, account, 'agent');
  const agentStream = await open(agent);
  const { conversationId } = await contactWrites(account);
  await agentStream.until((e) => named(e, 'conversation.updated').length > 0);
  // The team's own news (the agent's joining, told on PostgreSQL once its notification comes) is not the inbox's.
  const inbox = agentStream.events.filter((e) => e.event !== 'member.updated');
  expect(inbox.map((e) => [e.event, e.data.conversationId])).toEqual([
    ['message.created', conversationId],
    ['message.created', conversationId],
    ['conversation.updated', conversationId],
  ]);
  expect((await api(ctx.gw, account, 'DELETE', `members/${agent.id}`)).status).toBe(204);
  await agentStream.end();
});

test('a stopping gateway ends its streams at once, well before its grace for requests in flight (10 s) runs out', async () => {
  const gw = await startInProcess();
  try {
    const owner = await consoleAccount(gw);
    const session = await signIn(gw, owner.email, owner.password);
    const stream = await openStream(gw, STREAM, { cookie: session.cookie });
    expect(stream.status).toBe(200);
    const stopped = gw.stop();
    await stream.end(5_000);
    expect(await stopped).toBe(0);
  } finally {
    removeDir(gw.dataDir);
  }
});

type LowdbModule = typeof import('../../gateway/src/store/lowdb/lowdb-store.js', {
  with: { 'resolution-mode': 'import' }
});
type PostgresModule = typeof import('../../gateway/src/store/postgres/postgres-store.js', {
  with: { 'resolution-mode': 'import' }
});
type CollectionsModule = typeof import('../../gateway/src/domain/collections.js', {
  with: { 'resolution-mode': 'import' }
});
type NotificationsModule = typeof import('../../gateway/src/store/postgres/changes.js', {
  with: { 'resolution-mode': 'import' }
});
type PublishedModule = typeof import('../../gateway/src/store/published.js', { with: { 'resolution-mode': 'import' } });

describe(`under the stream: the store's committed changes (${BACKEND})`, () => {
  const DIST = path.resolve(__dirname, '../../gateway/dist');
  let store: Store;
  let release = () => undefined as void;
  const heard: Array<{ accountId: string; changes: readonly Change[] } | { missed: string | undefined }> = [];
  const waiters = new Set<() => void>();

  beforeAll(async () => {
    const { collections } = (await gatewayModule(path.join(DIST, 'domain/collections.js'))) as CollectionsModule;
    if (BACKEND === 'postgres') {
      const { openPostgresStore } = (await gatewayModule(
        path.join(DIST, 'store/postgres/postgres-store.js'),
      )) as PostgresModule;
      store = await openPostgresStore({ url: await createTestDatabase(), collections });
    } else {
      const { openLowdbStore } = (await gatewayModule(path.join(DIST, 'store/lowdb/lowdb-store.js'))) as LowdbModule;
      const dir = mkdtempSync(path.join(os.tmpdir(), 'leadchat-changes-'));
      store = await openLowdbStore({ dir, collections });
      release = () => rmSync(dir, { recursive: true, force: true });
    }
    const told = (news: (typeof heard)[number]) => {
      heard.push(news);
      for (const waiter of [...waiters]) waiter();
    };
    const listener: ChangeListener = {
      changed: (accountId, changes) => told({ accountId, changes }),
      missed: (accountId) => told({ missed: accountId }),
    };
    store.changes.subscribe(listener);
  });

  afterAll(async () => {
    await store?.close();
    release();
  });

  /** Waits (bounded) until what was heard holds a committed change marked `mark`: everything committed before it was told by then. */
  const untilHeard = (mark: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!heard.some((h) => 'changes' in h && h.changes.some((c) => c.mark === mark))) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => reject(new Error(`${mark} was not told: ${JSON.stringify(heard)}`)), 10_000);
      waiters.add(check);
      check();
    });

  test('told once committed, by account, in order; a key told once as it ends up; a rolled-back transaction tells nothing', async () => {
    heard.length = 0;
    await expect(
      store.transact(async (tx) => {
        tx.publish('acc_a', { mark: 'rolled back' });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await store.transact(async (tx) => {
      tx.publish('acc_a', { mark: 'first', n: 1 }, 'k');
      tx.publish('acc_b', { mark: 'other account' });
      tx.publish('acc_a', { mark: 'second' });
      tx.publish('acc_a', { mark: 'first', n: 2 }, 'k');
    });
    await store.transact(async (tx) => tx.publish('acc_a', { mark: 'next commit' }));
    await untilHeard('next commit');
    expect(heard).toEqual([
      { accountId: 'acc_a', changes: [{ mark: 'first', n: 2 }, { mark: 'second' }] },
      { accountId: 'acc_b', changes: [{ mark: 'other account' }] },
      { accountId: 'acc_a', changes: [{ mark: 'next commit' }] },
    ]);
  });

  test('a transaction of many changes tells them all (over several notifications on PostgreSQL); one too big to tell is told as missed', async () => {
    heard.length = 0;
    await store.transact(async (tx) => {
      for (let i = 0; i < 400; i++)
        tx.publish('acc_many', { mark: `change ${i}`, conversationId: `cnv_${'x'.repeat(40)}${i}` });
      tx.publish('acc_big', { mark: 'too big', text: 'y'.repeat(9000) });
    });
    await untilHeard('change 399');
    const told = heard.flatMap((h) =>
      'changes' in h && h.accountId === 'acc_many' ? h.changes.map((c) => c.mark) : [],
    );
    expect(told).toEqual(Array.from({ length: 400 }, (_, i) => `change ${i}`));
    if (BACKEND === 'postgres') expect(heard).toContainEqual({ missed: 'acc_big' });
    else expect(heard).toContainEqual({ accountId: 'acc_big', changes: [{ mark: 'too big', text: 'y'.repeat(9000) }] });
  });
});

test("PostgreSQL's notifications: a change that could not be sent (no connection) is told as missed to every process once the connection is back", async () => {
  const DIST = path.resolve(__dirname, '../../gateway/dist');
  const { ChangeNotifications, CHANGES_CHANNEL } = (await gatewayModule(
    path.join(DIST, 'store/postgres/changes.js'),
  )) as NotificationsModule;
  const { Published } = (await gatewayModule(path.join(DIST, 'store/published.js'))) as PublishedModule;
  /** A connection that keeps what it is asked to send and answers at once. */
  const connection = () => {
    const sent: string[][] = [];
    let told: () => void = () => undefined;
    const client = {
      sent,
      query: async (text: string, values?: unknown[]) => {
        if (text.includes(CHANGES_CHANNEL)) {
          sent.push(values![0] as string[]);
          told();
        }
        return { rows: [] };
      },
      /** Resolves once `n` statements were sent (bounded). */
      until: (n: number) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`sent: ${JSON.stringify(sent)}`)), 5_000);
          told = () => {
            if (sent.length < n) return;
            clearTimeout(timer);
            resolve();
          };
          told();
        }),
    };
    return client;
  };
  const committed = (accountId: string, change: Change) => {
    const published = new Published();
    published.add(accountId, change);
    return published;
  };
  const notifications = new ChangeNotifications();
  const first = connection();
  notifications.listening(first as never);
  notifications.committed(committed('acc_a', { kind: 'conversation', conversationId: 'cnv_1' }));
  notifications.committed(committed('acc_b', { kind: 'conversation', conversationId: 'cnv_2' }));
  await first.until(1);
  expect(first.sent.flat().map((p) => JSON.parse(p))).toEqual([
    [
      ['acc_a', { kind: 'conversation', conversationId: 'cnv_1' }],
      ['acc_b', { kind: 'conversation', conversationId: 'cnv_2' }],
    ],
  ]);

  // The statement on its way is answered (a turn), then the connection is lost.
  await new Promise((resolve) => setImmediate(resolve));
  notifications.lost();
  notifications.committed(committed('acc_c', { kind: 'conversation', conversationId: 'cnv_3' }));
  const second = connection();
  notifications.listening(second as never);
  notifications.committed(committed('acc_a', { kind: 'conversation', conversationId: 'cnv_4' }));
  await second.until(1);
  expect(second.sent.flat().map((p) => JSON.parse(p))).toEqual([
    [['acc_c'], ['acc_a', { kind: 'conversation', conversationId: 'cnv_4' }]],
  ]);

  // Heard back: the marker is news of changes missed, the rest is told as it came.
  const heard: unknown[] = [];
  notifications.feed.subscribe({
    changed: (accountId, changes) => void heard.push({ accountId, changes }),
    missed: (accountId) => void heard.push({ missed: accountId }),
  });
  for (const payload of second.sent.flat()) notifications.heard(payload);
  notifications.heard('not json');
  expect(heard).toEqual([
    { missed: 'acc_c' },
    { accountId: 'acc_a', changes: [{ kind: 'conversation', conversationId: 'cnv_4' }] },
    { missed: undefined },
  ]);
  notifications.close();
});
