import {
  advanceClock,
  createAccount,
  request,
  startGateway,
  untilIdle,
  type TestAccount,
  type TestGateway,
} from '../helpers/gateway';
import { Receiver } from '../gateway/api-support';
import { CREDENTIAL, createHost, listSearch, loadOptions, runLeadChat, triggerNode, type Host } from './helpers/n8n';
import { WebhookHost } from './helpers/webhookHost';

const locator = (value: string, mode: 'list' | 'email' | 'id' = 'list') => ({ __rl: true, mode, value });

/** Invites a member to the account's team and, unless `accept` is false, accepts the invitation as they would. */
async function addMember(
  gw: TestGateway,
  account: TestAccount,
  member: { email: string; name: string; role: 'admin' | 'agent' },
  accept = true,
): Promise<Record<string, any>> {
  const invited = await request(gw, 'POST', '/v1/members', { apiKey: account.apiKey, body: member });
  expect(invited.status).toBe(201);
  if (accept) {
    const token = new URL(invited.body.inviteUrl).hash.slice(1);
    const accepted = await request(gw, 'POST', `/console/api/invites/${token}`, {
      body: { password: 'a-long-password-1' },
    });
    expect(accepted.status).toBe(200);
  }
  return invited.body;
}

/** A contact writing on a custom channel: a conversation of no campaign, where no bot answers. */
async function visitorWrites(
  gw: TestGateway,
  account: TestAccount,
  fromId: string,
  body: string,
): Promise<{ contactId: string; conversationId: string }> {
  const sent = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
    apiKey: account.apiKey,
    body: { customData: { messageSid: `${fromId}-${Date.now()}`, fromId, toId: 'acme', body, channel: 'webchat' } },
  });
  expect(sent.status).toBe(200);
  const message = await request(gw, 'GET', `/v1/messages/${sent.body.messageId}`, { apiKey: account.apiKey });
  return { contactId: message.body.contactId, conversationId: message.body.conversationId };
}

/**
 * Conversation › Assign, the Team Member dropdown and the Assignee filter; Conversation › Add Note; the Hand-Off event
 * naming its assignee.
 */
describe('LeadChat node: the team inbox', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.stop();
  });

  describe('Conversation › Assign', () => {
    let account: TestAccount;
    let host: Host;
    let maya: Record<string, any>;
    let lee: Record<string, any>;
    let sam: Record<string, any>;
    const conversations: string[] = [];

    const conversation = async (id: string) =>
      (await request(gw, 'GET', `/v1/conversations/${id}`, { apiKey: account.apiKey })).body;
    const assign = (conversationId: string, member: ReturnType<typeof locator>) =>
      runLeadChat(host, { resource: 'conversation', operation: 'assign', conversationId, member });

    beforeAll(async () => {
      account = await createAccount(gw, { name: 'Acme Dental' });
      host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
      maya = await addMember(gw, account, { email: 'maya@acme.example', name: 'Maya Lopez', role: 'agent' });
      lee = await addMember(gw, account, { email: 'lee@acme.example', name: 'Lee Chen', role: 'admin' });
      // Invited, and has not opened the link yet.
      sam = await addMember(gw, account, { email: 'sam@acme.example', name: 'Sam Roy', role: 'agent' }, false);
      for (const visitor of ['visitor-1', 'visitor-2', 'visitor-3']) {
        conversations.push((await visitorWrites(gw, account, visitor, 'Do you have a slot on Friday?')).conversationId);
      }
    }, 60_000);

    test('the Team Member dropdown lists who can take a conversation, as "Name (email) · role", searched by name or email', async () => {
      const all = await listSearch(host, 'searchMembers');
      expect(all.results).toEqual([
        { name: `${account.name} (${account.email}) · owner`, value: expect.stringMatching(/^mem_/) },
        { name: 'Lee Chen (lee@acme.example) · admin', value: lee.id },
        { name: 'Maya Lopez (maya@acme.example) · agent', value: maya.id },
      ]);
      expect((await listSearch(host, 'searchMembers', 'maya')).results.map((r) => r.value)).toEqual([maya.id]);
      expect((await listSearch(host, 'searchMembers', 'LEE@ACME')).results.map((r) => r.value)).toEqual([lee.id]);
      // An invited member cannot take conversations yet: not offered, even when searched for.
      expect((await listSearch(host, 'searchMembers', 'sam')).results).toEqual([]);
    });

    test('an away member is offered, named so', async () => {
      const away = await request(gw, 'PUT', `/v1/members/${lee.id}/availability`, {
        apiKey: account.apiKey,
        body: { availability: 'away' },
      });
      expect(away.status).toBe(200);
      try {
        expect((await listSearch(host, 'searchMembers', 'lee')).results).toEqual([
          { name: 'Lee Chen (lee@acme.example) · admin · away', value: lee.id },
        ]);
      } finally {
        await request(gw, 'PUT', `/v1/members/${lee.id}/availability`, {
          apiKey: account.apiKey,
          body: { availability: 'available' },
        });
      }
    });

    test("picked from the list: the conversation is the member's, and the node outputs it", async () => {
      const run = await assign(conversations[0]!, locator(maya.id));
      expect(run.error).toBeUndefined();
      const stored = await conversation(conversations[0]!);
      expect(stored.assigneeId).toBe(maya.id);
      expect(run.output('LeadChat')).toEqual([{ json: stored, pairedItem: { item: 0 } }]);
    });

    test('by email, written in any case and with spaces, looked up in the team', async () => {
      const run = await assign(conversations[1]!, locator(' Lee@ACME.example ', 'email'));
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toMatchObject({ id: conversations[1], assigneeId: lee.id });
      expect((await conversation(conversations[1]!)).assigneeId).toBe(lee.id);
    });

    test('by ID, from the input item', async () => {
      const run = await runLeadChat(
        host,
        {
          resource: 'conversation',
          operation: 'assign',
          conversationId: '={{ $json.conversationId }}',
          member: locator('={{ $json.memberId }}', 'id'),
        },
        [{ json: { conversationId: conversations[2], memberId: maya.id } }],
      );
      expect(run.output('LeadChat')[0]).toMatchObject({
        json: { id: conversations[2], assigneeId: maya.id },
        pairedItem: { item: 0 },
      });
    });

    test("Nobody (Unassign): the conversation is nobody's", async () => {
      const assigned = await assign(conversations[2]!, locator(lee.id, 'id'));
      expect(assigned.output('LeadChat')[0]!.json.assigneeId).toBe(lee.id);
      const run = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'assign',
        conversationId: conversations[2],
        assignTo: 'nobody',
      });
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')[0]!.json).toMatchObject({ id: conversations[2], assigneeId: null });
      expect((await conversation(conversations[2]!)).assigneeId).toBeNull();
    });

    test('an email nobody of the team has fails the item, saying so, and changes nothing', async () => {
      const before = await conversation(conversations[0]!);
      const run = await assign(conversations[0]!, locator('nobody@acme.example', 'email'));
      expect(run.error?.message).toBe('No one on the team has the email nobody@acme.example');
      expect(run.error?.description).toMatch(/invite them to the team first, or pick a member from the list/);
      expect((await conversation(conversations[0]!)).assigneeId).toBe(before.assigneeId);
    });

    test('a member who has not accepted the invitation is refused, by email before any change, by ID by the API', async () => {
      const byEmail = await assign(conversations[0]!, locator('sam@acme.example', 'email'));
      expect(byEmail.error?.message).toBe('Sam Roy (sam@acme.example) · agent has not accepted the invitation yet');
      expect(byEmail.error?.description).toMatch(/Only an active member takes conversations/);

      const byId = await assign(conversations[0]!, locator(sam.id, 'id'));
      expect(byId.error?.message).toMatch(/^LeadChat: Sam Roy has not accepted the invitation yet/);
      expect(byId.error?.description).toMatch(
        /^HTTP 409 MEMBER_NOT_ACTIVE from POST \/conversations\/cnv_\w+\/assign\. Only a team member who accepted the invitation/,
      );
      expect((await conversation(conversations[0]!)).assigneeId).toBe(maya.id);
    });

    test('an unknown member ID or conversation fails with the API message; Continue On Fail goes on with the other items', async () => {
      const run = await runLeadChat(
        host,
        {
          resource: 'conversation',
          operation: 'assign',
          conversationId: '={{ $json.conversationId }}',
          member: locator('={{ $json.memberId }}', 'id'),
        },
        [
          { json: { conversationId: conversations[1], memberId: 'mem_nobody' } },
          { json: { conversationId: 'cnv_missing', memberId: maya.id } },
          { json: { conversationId: conversations[1], memberId: maya.id } },
        ],
        { continueOnFail: true },
      );
      const [noMember, noConversation, done] = run.output('LeadChat');
      expect(noMember).toEqual({
        json: {
          error: 'LeadChat: Member not found',
          details: expect.stringMatching(
            /^HTTP 404 MEMBER_NOT_FOUND from POST \/conversations\/cnv_\w+\/assign\. Check the Conversation ID and the Team Member/,
          ),
          httpCode: '404',
          errorCode: 'MEMBER_NOT_FOUND',
        },
        pairedItem: { item: 0 },
      });
      expect(noConversation!.json).toMatchObject({ error: 'LeadChat: Conversation not found', httpCode: '404' });
      expect(done).toMatchObject({ json: { id: conversations[1], assigneeId: maya.id }, pairedItem: { item: 2 } });
    });

    test('an empty member fails before calling the API', async () => {
      const run = await runLeadChat(
        host,
        {
          resource: 'conversation',
          operation: 'assign',
          conversationId: conversations[0],
          member: locator('={{ $json.memberId }}', 'id'),
        },
        [{ json: { memberId: ' ' } }],
      );
      expect(run.error?.message).toBe('Team Member is empty');
    });

    test("Get Many filters by assignee: one member's conversations, or the unassigned ones", async () => {
      const options = await loadOptions(host, 'getAssignees');
      expect(options.map((o) => o.value)).toEqual(['none', expect.stringMatching(/^mem_/), lee.id, maya.id]);
      expect(options[0]!.name).toBe('Nobody (Unassigned)');

      const getMany = async (assigneeId: string) =>
        (
          await runLeadChat(host, {
            resource: 'conversation',
            operation: 'getAll',
            returnAll: true,
            filters: { assigneeId },
          })
        )
          .output('LeadChat')
          .map((i) => i.json.id)
          .sort();
      expect(await getMany(maya.id)).toEqual([conversations[0], conversations[1]].sort());
      expect(await getMany('none')).toEqual([conversations[2]]);
      expect(await getMany(lee.id)).toEqual([]);
    });
  });

  describe('Conversation › Add Note', () => {
    let account: TestAccount;
    let host: Host;
    let conversationId: string;

    const notesOf = async (id: string) =>
      (await request(gw, 'GET', `/v1/conversations/${id}/notes`, { apiKey: account.apiKey })).body.data;
    const conversation = async (id: string) =>
      (await request(gw, 'GET', `/v1/conversations/${id}`, { apiKey: account.apiKey })).body;

    beforeAll(async () => {
      account = await createAccount(gw, { name: 'Acme Notes' });
      host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
      ({ conversationId } = await visitorWrites(gw, account, 'visitor-note', 'Can I get a quote?'));
    }, 60_000);

    test('adds a private note for the team, signed by nobody of it, and outputs it; the conversation stays as it was', async () => {
      const before = await conversation(conversationId);
      const run = await runLeadChat(
        host,
        {
          resource: 'conversation',
          operation: 'addNote',
          conversationId: '={{ $json.conversationId }}',
          text: '  Wants a quote by Friday  ',
        },
        [{ json: { conversationId } }],
      );
      expect(run.error).toBeUndefined();
      const [note] = await notesOf(conversationId);
      expect(note).toMatchObject({ conversationId, text: 'Wants a quote by Friday', authorId: null, authorName: null });
      expect(run.output('LeadChat')).toEqual([{ json: note, pairedItem: { item: 0 } }]);
      expect(await conversation(conversationId)).toEqual(before);
    });

    test('with an Idempotency Key, a note sent again is added once and the first one is output', async () => {
      const add = () =>
        runLeadChat(host, {
          resource: 'conversation',
          operation: 'addNote',
          conversationId,
          text: 'Called twice',
          additionalFields: { idempotencyKey: 'ticket-42' },
        });
      const first = await add();
      const again = await add();
      expect(again.output('LeadChat')[0]!.json).toEqual(first.output('LeadChat')[0]!.json);
      expect((await notesOf(conversationId)).filter((n: any) => n.text === 'Called twice')).toHaveLength(1);
    });

    test('an empty text fails before calling the API; an unknown conversation fails with 404, the others go on', async () => {
      const count = (await notesOf(conversationId)).length;
      const empty = await runLeadChat(host, {
        resource: 'conversation',
        operation: 'addNote',
        conversationId,
        text: ' ',
      });
      expect(empty.error?.message).toBe('Text is empty');
      const run = await runLeadChat(
        host,
        {
          resource: 'conversation',
          operation: 'addNote',
          conversationId: '={{ $json.conversationId }}',
          text: 'For the team',
        },
        [{ json: { conversationId: 'cnv_missing' } }, { json: { conversationId } }],
        { continueOnFail: true },
      );
      const [missing, done] = run.output('LeadChat');
      expect(missing!.json).toMatchObject({
        error: 'LeadChat: Conversation not found',
        httpCode: '404',
        errorCode: 'CONVERSATION_NOT_FOUND',
      });
      expect(done).toMatchObject({ json: { conversationId, text: 'For the team' }, pairedItem: { item: 1 } });
      expect(await notesOf(conversationId)).toHaveLength(count + 1);
    });
  });

  describe('LeadChat Trigger: Hand-Off under round robin', () => {
    let account: TestAccount;
    let host: WebhookHost;
    let agent: Record<string, any>;

    beforeAll(async () => {
      account = await createAccount(gw, { name: 'Acme Support' });
      agent = await addMember(gw, account, { email: 'ana@support.example', name: 'Ana Silva', role: 'agent' });
      const settings = await request(gw, 'PUT', '/v1/settings', {
        apiKey: account.apiKey,
        body: { handoffAssignment: 'round_robin' },
      });
      expect(settings.status).toBe(200);
      host = await WebhookHost.start(
        { [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } },
        { nodes: [triggerNode({ events: ['handoff'], registration: 'automatic' })] },
        'LeadChat Trigger',
      );
      await host.activate();
    }, 60_000);
    afterAll(async () => {
      await host.deactivate();
      await host.close();
    });

    test('a contact asking for a person starts an execution whose item names the agent the conversation went to', async () => {
      const { contactId, conversationId } = await visitorWrites(gw, account, 'visitor-h', 'human');
      await host.waitFor(() => host.executions.length >= 1, 'the hand-off execution');
      const item = host.executions[0]!.output('LeadChat Trigger')[0]!.json;
      expect(item).toMatchObject({
        event: 'handoff',
        contactId,
        conversationId,
        reason: 'contact_asked',
        body: 'human',
        assignee: { id: agent.id, name: 'Ana Silva', email: 'ana@support.example' },
      });
      const conversation = await request(gw, 'GET', `/v1/conversations/${conversationId}`, { apiKey: account.apiKey });
      expect(conversation.body.assigneeId).toBe(agent.id);
    });
  });

  describe('Conversation › Get Many: who waits for the team', () => {
    let account: TestAccount;
    let host: Host;
    let waiting: { contactId: string; conversationId: string };
    let newer: { contactId: string; conversationId: string };
    let answered: { contactId: string; conversationId: string };
    /** A gateway of its own, whose clock the test moves past the reminder. */
    let gw: TestGateway;
    /** The web chat's receiver of the team's replies, for a while: a reply that reaches the visitor answers them. */
    let chat: Receiver;

    beforeAll(async () => {
      gw = await startGateway({ LEADCHAT_TEST_CLOCK: '1', LEADCHAT_JOB_POLL: '100ms' });
      account = await createAccount(gw, { name: 'Acme Waiting Room' });
      chat = await Receiver.start();
      host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
      // Asks for a person and waits past the reminder (15 minutes by default): reminded.
      waiting = await visitorWrites(gw, account, 'visitor-w1', 'human');
      // Answered by the team, while the web chat received its replies: nothing to reply to.
      answered = await visitorWrites(gw, account, 'visitor-w3', 'human');
      const receives = async (url: string | null) =>
        expect(
          (await request(gw, 'PUT', '/v1/settings', { apiKey: account.apiKey, body: { customChannelWebhookUrl: url } }))
            .status,
        ).toBe(200);
      await receives(chat.url);
      const reply = await request(gw, 'POST', `/v1/contacts/${answered.contactId}/messages`, {
        apiKey: account.apiKey,
        body: { body: 'Here to help', conversationId: answered.conversationId },
      });
      expect(reply.status).toBe(201);
      await untilIdle(gw);
      expect(chat.requests.map((r) => r.body.body)).toEqual(['Here to help']);
      await receives(null);
      await advanceClock(gw, '16m');
      await untilIdle(gw);
      // Asks for a person since: waits, not reminded yet.
      newer = await visitorWrites(gw, account, 'visitor-w2', 'human');
    }, 60_000);
    afterAll(async () => {
      await gw.stop();
      await chat.close();
    });

    const getMany = async (filters: Record<string, boolean>) => {
      const run = await runLeadChat(host, { resource: 'conversation', operation: 'getAll', returnAll: true, filters });
      expect(run.error).toBeUndefined();
      return run
        .output('LeadChat')
        .map((i) => i.json.id)
        .sort();
    };

    test('Needs Reply keeps the conversations whose contact waits for an answer, or only the others', async () => {
      expect(await getMany({ needsReply: true })).toEqual([waiting.conversationId, newer.conversationId].sort());
      expect(await getMany({ needsReply: false })).toEqual([answered.conversationId]);
    });

    test('Has Failed Message keeps the conversations holding a failed outgoing message, or only the others', async () => {
      // Nothing received this account's custom channel when the contacts asked: each hand-off notice was stored failed.
      const all = [waiting.conversationId, newer.conversationId, answered.conversationId].sort();
      expect(await getMany({ failed: true })).toEqual(all);
      expect(await getMany({ failed: false })).toEqual([]);
    });

    test('Reminded keeps those the team was reminded of (a Hand-Off Waiting event went), or only the others', async () => {
      expect(await getMany({ reminded: true })).toEqual([waiting.conversationId]);
      expect(await getMany({ reminded: false })).toEqual([newer.conversationId, answered.conversationId].sort());
    });
  });
});
