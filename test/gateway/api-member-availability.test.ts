import { teamMember, withSession, type SignedIn } from '../console/support';
import { openStream, type EventStream } from '../helpers/event-stream';
import {
  api,
  createAccount,
  expectApiError,
  incoming,
  poll,
  Receiver,
  request,
  unique,
  useGateway,
  type TestAccount,
  type TestGateway,
} from './api-support';

/**
 * A member's availability: away, round robin passes them by, and their conversations waiting for a person are
 * handed off anew to someone who is there; nobody waits on a member who is not.
 */
jest.setTimeout(60_000);

const ctx = useGateway({ LEADCHAT_JOB_POLL: '100ms', LEADCHAT_BOT_DEBOUNCE: '0s' });
const receivers: Receiver[] = [];
const streams: EventStream[] = [];
afterAll(async () => {
  for (const stream of streams) stream.close();
  await Promise.all(receivers.map((r) => r.close()));
});

type Member = SignedIn & { id: string };

const ownerIdOf = (account: TestAccount) => `mem_${account.id.replace('_', '')}`;

const as = (gw: TestGateway, who: Member, method: string, path: string, body?: unknown) =>
  withSession(gw, who, method, `/v1/${path}`, body === undefined ? {} : { body });

const setAway = (gw: TestGateway, who: Member, id: string, availability: string) =>
  as(gw, who, 'PUT', `members/${id}/availability`, { availability });

/** A contact asks for a person: the conversation is handed off. */
const askForAPerson = (gw: TestGateway, account: TestAccount) =>
  api(gw, account, 'POST', 'incoming_custom_channel_message', {
    body: incoming({ body: 'I want to talk to a human please' }),
  });

/** Who has each conversation, oldest first. */
const assignees = async (gw: TestGateway, account: TestAccount) =>
  (await api(gw, account, 'GET', 'conversations')).body.data
    .reverse()
    .map((c: { assigneeId: string | null }) => c.assigneeId);

/** A new account whose `handoff` events reach `hook`. */
async function handoffsHeard(gw: TestGateway): Promise<{ account: TestAccount; hook: Receiver }> {
  const account = await createAccount(gw);
  const hook = await Receiver.start();
  receivers.push(hook);
  await api(gw, account, 'POST', 'webhooks', { body: { url: hook.url, events: ['handoff'] } });
  return { account, hook };
}

async function roundRobin(gw: TestGateway): Promise<{ account: TestAccount; hook: Receiver }> {
  const heard = await handoffsHeard(gw);
  await api(gw, heard.account, 'PUT', 'settings', { body: { handoffAssignment: 'round_robin' } });
  return heard;
}

const handoffEvents = async (hook: Receiver, count: number) =>
  (
    await poll(
      async () => hook.requests.filter((r) => r.body?.type === 'handoff'),
      (rs) => rs.length >= count,
    )
  ).map((r) => r.body);

describe('PUT /v1/members/{id}/availability', () => {
  test('everyone is available until they say otherwise; a member sets themselves away and back', async () => {
    const { gw } = ctx;
    const account = await createAccount(gw);
    const agent = await teamMember(gw, account, 'agent', 'Pat');
    const listed = (await api(gw, account, 'GET', 'members')).body.data;
    expect(listed.map((m: { availability: string }) => m.availability)).toEqual(['available', 'available']);
    expect(
      (await api(gw, account, 'POST', 'members', { body: { email: 'x@t.example', name: 'X', role: 'agent' } })).body,
    ).toMatchObject({ availability: 'available' });

    const away = await setAway(gw, agent, 'me', 'away');
    expect(away.status).toBe(200);
    expect(away.body).toMatchObject({ id: agent.id, name: 'Pat', availability: 'away', status: 'active' });
    expect((await api(gw, account, 'GET', `members/${agent.id}`)).body.availability).toBe('away');
    expect((await withSession(gw, agent, 'GET', '/console/api/session')).body.member.availability).toBe('away');
    // Saying it twice changes nothing.
    expect((await setAway(gw, agent, agent.id, 'away')).body.availability).toBe('away');
    expect((await setAway(gw, agent, agent.id, 'available')).body.availability).toBe('available');
    expect((await api(gw, account, 'GET', 'members')).body.data[1].availability).toBe('available');

    // The owner too, with the API key (which acts as the owner) or their session.
    const owner = await api(gw, account, 'PUT', 'members/me/availability', { body: { availability: 'away' } });
    expect(owner.body).toMatchObject({ id: ownerIdOf(account), role: 'owner', availability: 'away' });
    expect((await api(gw, account, 'GET', 'members')).body.data[0].availability).toBe('away');
  });

  test('an agent sets only their own; the owner and admins set anyone’s, and the audit log says who did', async () => {
    const { gw } = ctx;
    const account = await createAccount(gw);
    const [agent, other, admin] = [
      await teamMember(gw, account, 'agent', 'Pat'),
      await teamMember(gw, account, 'agent', 'Sam'),
      await teamMember(gw, account, 'admin', 'Ada'),
    ];
    expectApiError(await setAway(gw, agent, other.id, 'away'), 403, 'FORBIDDEN');
    expectApiError(await setAway(gw, agent, ownerIdOf(account), 'away'), 403, 'FORBIDDEN');
    expect((await api(gw, account, 'GET', `members/${other.id}`)).body.availability).toBe('available');

    expect((await setAway(gw, admin, other.id, 'away')).body.availability).toBe('away');
    expect((await setAway(gw, admin, ownerIdOf(account), 'away')).body.availability).toBe('away');
    const byKey = await api(gw, account, 'PUT', `members/${agent.id}/availability`, { body: { availability: 'away' } });
    expect(byKey.body.availability).toBe('away');
    // One's own is nobody else's business; another's set for them is.
    expect((await setAway(gw, admin, 'me', 'away')).status).toBe(200);
    // The API key is a workflow, not the owner in person: the owner's set by it (`me`) is another's set for them.
    const ownerByKey = await api(gw, account, 'PUT', 'members/me/availability', {
      body: { availability: 'available' },
    });
    expect(ownerByKey.body).toMatchObject({ id: ownerIdOf(account), availability: 'available' });
    const log = (await api(gw, account, 'GET', 'audit-log')).body.data.filter(
      (e: { action: string; details: { keys?: string[] } }) =>
        e.action === 'member.changed' && e.details.keys?.includes('availability'),
    );
    expect(log[0]).toMatchObject({ actor: { type: 'api_key', name: 'API key' }, target: { id: ownerIdOf(account) } });
    log.shift();
    expect(
      log.map((e: { actor: { name: string }; target: { name: string } }) => [e.actor.name, e.target.name]),
    ).toEqual([
      ['API key', 'Pat'],
      [expect.any(String), expect.any(String)],
      ['Ada', 'Sam'],
    ]);
    expect(log[1].actor.name).toBe('Ada');
    expect(log[1].target.id).toBe(ownerIdOf(account));
  });

  test('an availability other than available or away is 400 naming the field; an unknown member is 404', async () => {
    const { gw } = ctx;
    const account = await createAccount(gw);
    const agent = await teamMember(gw, account, 'agent');
    for (const body of [{ availability: 'busy' }, { availability: null }, {}, { availability: 'AWAY' }]) {
      const res = await as(gw, agent, 'PUT', 'members/me/availability', body);
      expectApiError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'availability' })]);
    }
    expectApiError(await setAway(gw, agent, 'mem_nope', 'away'), 404, 'MEMBER_NOT_FOUND');
    expect((await api(gw, account, 'GET', `members/${agent.id}`)).body.availability).toBe('available');
  });

  test("another account's member is not found, and one account's away members change nothing of another's", async () => {
    const { gw } = ctx;
    const [mine, theirs] = [await createAccount(gw), await createAccount(gw)];
    await api(gw, theirs, 'PUT', 'settings', { body: { handoffAssignment: 'round_robin' } });
    const [admin, theirAgent] = [await teamMember(gw, mine, 'admin'), await teamMember(gw, theirs, 'agent')];
    const path = `members/${theirAgent.id}/availability`;
    expectApiError(await api(gw, mine, 'PUT', path, { body: { availability: 'away' } }), 404, 'MEMBER_NOT_FOUND');
    expectApiError(await setAway(gw, admin, theirAgent.id, 'away'), 404, 'MEMBER_NOT_FOUND');
    expectApiError(await setAway(gw, admin, ownerIdOf(theirs), 'away'), 404, 'MEMBER_NOT_FOUND');
    expect(
      (await api(gw, theirs, 'GET', 'members')).body.data.map((m: { availability: string }) => m.availability),
    ).toEqual(['available', 'available']);
    await setAway(gw, admin, 'me', 'away');
    await askForAPerson(gw, theirs);
    expect(await assignees(gw, theirs)).toEqual([theirAgent.id]);
  });
});

describe('round robin', () => {
  test('passes away agents by, and takes them back in turn once they are available again', async () => {
    const { gw } = ctx;
    const { account, hook } = await roundRobin(gw);
    const [first, second, third] = [
      await teamMember(gw, account, 'agent', 'First'),
      await teamMember(gw, account, 'agent', 'Second'),
      await teamMember(gw, account, 'agent', 'Third'),
    ];
    await setAway(gw, second, 'me', 'away');
    for (let i = 0; i < 4; i++) await askForAPerson(gw, account);
    expect(await assignees(gw, account)).toEqual([first.id, third.id, first.id, third.id]);
    await setAway(gw, second, 'me', 'available');
    await askForAPerson(gw, account);
    await askForAPerson(gw, account);
    expect((await assignees(gw, account)).slice(4)).toEqual([first.id, second.id]);
    // The handoff event is as it was: it names whoever has the conversation.
    const events = await handoffEvents(hook, 6);
    expect(events.map((e) => e.assignee?.id).sort()).toEqual(
      [first.id, third.id, first.id, third.id, first.id, second.id].sort(),
    );
  });

  test('with every agent away the available admins take turns; with everyone away, nobody has it', async () => {
    const { gw } = ctx;
    const { account, hook } = await roundRobin(gw);
    const [agent, admin, otherAdmin] = [
      await teamMember(gw, account, 'agent'),
      await teamMember(gw, account, 'admin', 'Ada'),
      await teamMember(gw, account, 'admin', 'Bea'),
    ];
    await setAway(gw, agent, 'me', 'away');
    await setAway(gw, otherAdmin, 'me', 'away');
    await askForAPerson(gw, account);
    await askForAPerson(gw, account);
    expect(await assignees(gw, account)).toEqual([admin.id, admin.id]);

    // The admin going away hands both on: there is nobody, and they wait under Unassigned for all to see.
    await setAway(gw, admin, 'me', 'away');
    await askForAPerson(gw, account);
    expect(await assignees(gw, account)).toEqual([null, null, null]);
    const events = await handoffEvents(hook, 5);
    expect(events.slice(2).map((e) => e.assignee)).toEqual([null, null, null]);
    expect((await as(gw, agent, 'GET', 'conversations', undefined)).body.data).toHaveLength(3);
    expect((await api(gw, account, 'GET', 'conversations', { query: { assigneeId: 'none' } })).body.data).toHaveLength(
      3,
    );
  });
});

describe('going away', () => {
  test("hands off anew each of one's conversations waiting for a person, to the next available in turn", async () => {
    const { gw } = ctx;
    const { account, hook } = await roundRobin(gw);
    const [first, second, third] = [
      await teamMember(gw, account, 'agent', 'First'),
      await teamMember(gw, account, 'agent', 'Second'),
      await teamMember(gw, account, 'agent', 'Third'),
    ];
    await askForAPerson(gw, account);
    await askForAPerson(gw, account);
    const [waiting] = (await api(gw, account, 'GET', 'conversations')).body.data;
    expect(waiting.assigneeId).toBe(second.id);
    // The second also has one given back to the bot: it waits for nobody, and stays theirs.
    await askForAPerson(gw, account);
    const [botHas] = (await api(gw, account, 'GET', 'conversations')).body.data;
    await api(gw, account, 'POST', `conversations/${botHas.id}/assign`, { body: { memberId: second.id } });
    await api(gw, account, 'POST', `contacts/${botHas.contactId}/bot`, { body: { active: true } });
    await handoffEvents(hook, 3);

    expect((await setAway(gw, second, 'me', 'away')).status).toBe(200);
    // The third took the last hand-off; the second is away: the first is next.
    expect((await api(gw, account, 'GET', `conversations/${waiting.id}`)).body).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      assigneeId: first.id,
    });
    expect((await api(gw, account, 'GET', `conversations/${botHas.id}`)).body.assigneeId).toBe(second.id);
    const told = (await handoffEvents(hook, 4)).filter((e) => e.conversationId === waiting.id);
    expect(told).toHaveLength(2);
    expect(told[1]).toMatchObject({
      reason: 'contact_asked',
      body: 'I want to talk to a human please',
      assignee: { id: first.id, name: 'First', email: expect.any(String) },
    });

    // Coming back gives nothing back; the turn goes on after the first.
    await setAway(gw, second, 'me', 'available');
    expect((await api(gw, account, 'GET', `conversations/${waiting.id}`)).body.assigneeId).toBe(first.id);
    await askForAPerson(gw, account);
    expect((await api(gw, account, 'GET', 'conversations')).body.data[0].assigneeId).toBe(second.id);
    await askForAPerson(gw, account);
    expect((await api(gw, account, 'GET', 'conversations')).body.data[0].assigneeId).toBe(third.id);
  });

  test("with hand-offs to nobody, an away member's open hand-offs wait under Unassigned, and the event says so", async () => {
    const { gw } = ctx;
    const { account, hook } = await handoffsHeard(gw);
    const agent = await teamMember(gw, account, 'agent');
    await askForAPerson(gw, account);
    const [conversation] = (await api(gw, account, 'GET', 'conversations')).body.data;
    await as(gw, agent, 'POST', `conversations/${conversation.id}/assign`, { memberId: 'me' });
    await handoffEvents(hook, 1);

    await setAway(gw, agent, 'me', 'away');
    expect((await api(gw, account, 'GET', `conversations/${conversation.id}`)).body).toMatchObject({
      status: 'handed_off',
      assigneeId: null,
    });
    expect((await handoffEvents(hook, 2))[1]).toMatchObject({ conversationId: conversation.id, assignee: null });
  });

  test('a person may still assign a conversation to an away member: they chose to', async () => {
    const { gw } = ctx;
    const { account } = await roundRobin(gw);
    const [agent, away] = [await teamMember(gw, account, 'agent'), await teamMember(gw, account, 'agent')];
    expect((await setAway(gw, away, 'me', 'away')).status).toBe(200);
    await askForAPerson(gw, account);
    const [conversation] = (await api(gw, account, 'GET', 'conversations')).body.data;
    expect(conversation.assigneeId).toBe(agent.id);
    const assigned = await as(gw, agent, 'POST', `conversations/${conversation.id}/assign`, { memberId: away.id });
    expect(assigned.status).toBe(200);
    expect(assigned.body.assigneeId).toBe(away.id);
    const res = await request(gw, 'GET', `/v1/conversations/${conversation.id}`, { apiKey: account.apiKey });
    expect(res.body.assigneeId).toBe(away.id);
  });
});

describe('a hand-off in a conversation an away member has', () => {
  /** A contact's message on the custom channel, as `fromId`. */
  const write = (gw: TestGateway, account: TestAccount, fromId: string, body: string) =>
    api(gw, account, 'POST', 'incoming_custom_channel_message', { body: incoming({ fromId, body }) });

  /** The contact asked for a person once, and the bot has their conversation again: it stays its assignee's. */
  async function givenBack(gw: TestGateway, account: TestAccount, assignee: Member) {
    const fromId = unique('lead');
    await write(gw, account, fromId, 'I want to talk to a human please');
    const [conversation] = (await api(gw, account, 'GET', 'conversations')).body.data;
    await api(gw, account, 'POST', `conversations/${conversation.id}/assign`, { body: { memberId: assignee.id } });
    await api(gw, account, 'POST', `contacts/${conversation.contactId}/bot`, { body: { active: true } });
    return { fromId, conversationId: conversation.id as string };
  }

  test('goes to the next available in turn, not left to them', async () => {
    const { gw } = ctx;
    const { account, hook } = await roundRobin(gw);
    const [first, second] = [
      await teamMember(gw, account, 'agent', 'First'),
      await teamMember(gw, account, 'agent', 'Second'),
    ];
    const { fromId, conversationId } = await givenBack(gw, account, first);
    await handoffEvents(hook, 1);
    // Going away hands on nothing: the bot has the conversation, nobody waits.
    await setAway(gw, first, 'me', 'away');
    expect((await api(gw, account, 'GET', `conversations/${conversationId}`)).body.assigneeId).toBe(first.id);

    await write(gw, account, fromId, 'I want to talk to a human please');
    expect((await api(gw, account, 'GET', `conversations/${conversationId}`)).body).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      assigneeId: second.id,
    });
    expect((await handoffEvents(hook, 2))[1]).toMatchObject({
      conversationId,
      reason: 'contact_asked',
      assignee: { id: second.id, name: 'Second' },
    });
  });

  test('without round robin, waits under Unassigned for every member to see', async () => {
    const { gw } = ctx;
    const { account, hook } = await handoffsHeard(gw);
    const agent = await teamMember(gw, account, 'agent');
    const { fromId, conversationId } = await givenBack(gw, account, agent);
    await handoffEvents(hook, 1);
    await setAway(gw, agent, 'me', 'away');

    await write(gw, account, fromId, 'I want to talk to a human please');
    expect((await api(gw, account, 'GET', `conversations/${conversationId}`)).body).toMatchObject({
      status: 'handed_off',
      assigneeId: null,
    });
    expect((await handoffEvents(hook, 2))[1]).toMatchObject({ conversationId, assignee: null });
  });

  test('one the member answered stays theirs when they go away; the contact writing again hands it on, unless someone gave it to them while it waits', async () => {
    const { gw } = ctx;
    const { account, hook } = await roundRobin(gw);
    const [first, second] = [
      await teamMember(gw, account, 'agent', 'First'),
      await teamMember(gw, account, 'agent', 'Second'),
    ];
    // The custom channel's receiver takes the team's replies: one answers the contact.
    const replies = await Receiver.start();
    receivers.push(replies);
    await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: replies.url } });
    const fromId = unique('lead');
    await write(gw, account, fromId, 'I want to talk to a human please');
    const [conversation] = (await api(gw, account, 'GET', 'conversations')).body.data;
    expect(conversation.assigneeId).toBe(first.id);
    const reply = await as(gw, first, 'POST', `contacts/${conversation.contactId}/messages`, {
      body: 'Hi, First here!',
    });
    expect(reply.status).toBe(201);
    await handoffEvents(hook, 1);
    // Answered, the contact waits for nobody: going away leaves the conversation theirs, and tells nobody.
    await setAway(gw, first, 'me', 'away');
    expect((await api(gw, account, 'GET', `conversations/${conversation.id}`)).body).toMatchObject({
      needsReply: false,
      assigneeId: first.id,
    });

    await write(gw, account, fromId, 'Thanks! One more question: do you ship to Spain?');
    expect((await api(gw, account, 'GET', `conversations/${conversation.id}`)).body).toMatchObject({
      status: 'handed_off',
      needsReply: true,
      assigneeId: second.id,
    });
    const told = await handoffEvents(hook, 2);
    expect(told).toHaveLength(2);
    expect(told[1]).toMatchObject({
      conversationId: conversation.id,
      reason: 'contact_asked',
      body: 'Thanks! One more question: do you ship to Spain?',
      assignee: { id: second.id, name: 'Second' },
    });

    // Someone gives it to the away member while the contact waits: they chose to, and the contact writing again
    // leaves it so.
    await api(gw, account, 'POST', `conversations/${conversation.id}/assign`, { body: { memberId: first.id } });
    await write(gw, account, fromId, 'Hello?');
    expect((await api(gw, account, 'GET', `conversations/${conversation.id}`)).body.assigneeId).toBe(first.id);
    expect(hook.requests.filter((r) => r.body?.type === 'handoff')).toHaveLength(2);
  });
});

describe("the console's stream", () => {
  test('tells the team of a member gone away or back (member.updated), and another account nothing', async () => {
    const { gw } = ctx;
    const [mine, theirs] = [await createAccount(gw), await createAccount(gw)];
    const [agent, admin, theirAdmin] = [
      await teamMember(gw, mine, 'agent'),
      await teamMember(gw, mine, 'admin'),
      await teamMember(gw, theirs, 'admin'),
    ];
    const open = async (who: Member) => {
      const stream = await openStream(gw, '/console/api/stream', { cookie: who.cookie });
      streams.push(stream);
      expect(stream.status).toBe(200);
      return stream;
    };
    const [heard, elsewhere] = [await open(admin), await open(theirAdmin)];
    const told = (stream: EventStream) => stream.events.filter((e) => e.event === 'member.updated');

    await setAway(gw, agent, 'me', 'away');
    await setAway(gw, agent, 'me', 'away');
    await setAway(gw, agent, 'me', 'available');
    await heard.until(() => told(heard).length >= 2);
    await setAway(gw, theirAdmin, 'me', 'away');
    await elsewhere.until(() => told(elsewhere).length >= 1);
    await setAway(gw, admin, 'me', 'away');
    await heard.until(() => told(heard).length >= 3);
    expect(told(heard).map((e) => e.data)).toEqual([{}, {}, {}]);
    expect(told(elsewhere)).toHaveLength(1);
  });

  test('tells the team of a member invited, joined and removed: the Members page and the picker follow at once', async () => {
    const { gw } = ctx;
    const account = await createAccount(gw);
    const admin = await teamMember(gw, account, 'admin');
    const stream = await openStream(gw, '/console/api/stream', { cookie: admin.cookie });
    streams.push(stream);
    const told = () => stream.events.filter((e) => e.event === 'member.updated').length;

    const invited = await api(gw, account, 'POST', 'members', {
      body: { email: 'new.agent@team.example', name: 'New', role: 'agent' },
    });
    expect(invited.status).toBe(201);
    await stream.until(() => told() >= 1);
    const token = new URL(invited.body.inviteUrl).hash.slice(1);
    const joined = await request(gw, 'POST', `/console/api/invites/${token}`, {
      headers: { origin: gw.url },
      body: { password: 'a-new-agent-long-passphrase' },
    });
    expect(joined.status).toBe(200);
    await stream.until(() => told() >= 2);
    expect((await api(gw, account, 'DELETE', `members/${invited.body.id}`)).status).toBe(204);
    await stream.until(() => told() >= 3);
  });
});
