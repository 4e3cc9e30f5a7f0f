import { createHmac } from 'node:crypto';

import type { INodePropertyOptions } from 'n8n-workflow';

import { createAccount, listAll, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import {
  CREDENTIAL,
  LEADCHAT_TRIGGER,
  createHost,
  listSearch,
  listSearchAll,
  runLeadChat,
  triggerNode,
  type Host,
} from './helpers/n8n';
import { WebhookHost } from './helpers/webhookHost';

/** More campaigns than one page of Return All (100), so Get Many and the dropdown have to follow nextCursor. */
const MANY = 103;

const FAQS = [
  { question: 'What are your opening hours?', answer: 'We are open Monday to Friday, 9am to 6pm.' },
  { question: 'How much does a teeth cleaning cost?', answer: 'A cleaning costs $90.' },
  { question: 'Where is the clinic?', answer: 'We are at 12 Main Street, next to the post office.' },
];

const locator = (value: string, mode: 'list' | 'id' = 'id') => ({ __rl: true, mode, value });

/** Campaign › Get, Get Many and Test Bot (and the Campaign dropdown), run as workflows against the gateway. */
describe('LeadChat node: campaigns', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  let dental: Record<string, any>;
  let bare: Record<string, any>;

  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });

  /** Every campaign as the API lists them (oldest first), walked page by page. */
  const listed = () => listAll(gw, account.apiKey, '/campaigns');

  beforeAll(async () => {
    gw = await startGateway();
    account = await createAccount(gw);
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
    const created = await api('POST', '/campaigns', {
      name: 'Smile Dental',
      channel: 'custom',
      customChannel: 'chat',
      bot: { faqs: FAQS, goal: 'The contact books a cleaning' },
    });
    expect(created.status).toBe(201);
    dental = created.body;
    bare = (await api('POST', '/campaigns', { name: 'Bare bot', channel: 'sms' })).body;
    for (let n = 2; n < MANY; n++) {
      expect((await api('POST', '/campaigns', { name: `Autumn promo ${String(n).padStart(3, '0')}` })).status).toBe(
        201,
      );
    }
  }, 120_000);
  afterAll(async () => {
    await gw.stop();
  });

  describe('Get Many', () => {
    test('Return All walks every page: each campaign once, in the API order, one item each paired to the input', async () => {
      const run = await runLeadChat(host, { resource: 'campaign', operation: 'getAll', returnAll: true });
      expect(run.error).toBeUndefined();
      const items = run.output('LeadChat');
      expect(items).toHaveLength(MANY);
      expect(items.map((i) => i.json)).toEqual(await listed());
      for (const item of items) expect(item.pairedItem).toEqual({ item: 0 });
      expect(items[0]!.json).toMatchObject({
        id: dental.id,
        name: 'Smile Dental',
        status: 'draft',
        bot: { faqs: FAQS },
      });
    });

    test('Limit stops after that many, across pages; the default is 50', async () => {
      const all = await listed();
      const over = await runLeadChat(host, { resource: 'campaign', operation: 'getAll', returnAll: false, limit: 101 });
      expect(over.output('LeadChat').map((i) => i.json.id)).toEqual(all.slice(0, 101).map((c) => c.id));
      const small = await runLeadChat(host, { resource: 'campaign', operation: 'getAll', limit: 2 });
      expect(small.output('LeadChat').map((i) => i.json.name)).toEqual(['Smile Dental', 'Bare bot']);
      const byDefault = await runLeadChat(host, { resource: 'campaign', operation: 'getAll' });
      expect(byDefault.output('LeadChat')).toHaveLength(50);
    });

    test("Name Contains keeps the campaigns whose name holds each input item's text, paired to it", async () => {
      const run = await runLeadChat(
        host,
        { resource: 'campaign', operation: 'getAll', returnAll: true, filters: { q: '={{ $json.name }}' } },
        [{ json: { name: 'SMILE' } }, { json: { name: 'promo 10' } }],
      );
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat').map((i) => [i.json.name, i.pairedItem])).toEqual([
        ['Smile Dental', { item: 0 }],
        ...Array.from({ length: 3 }, (_, n) => [`Autumn promo 10${n}`, { item: 1 }]),
      ]);
    });

    test('an account without campaigns outputs no items', async () => {
      const empty = await createAccount(gw);
      const emptyHost = await createHost({
        [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: empty.apiKey, ignoreSslIssues: true },
      });
      const run = await runLeadChat(emptyHost, { resource: 'campaign', operation: 'getAll', returnAll: true });
      expect(run.error).toBeUndefined();
      expect(run.output('LeadChat')).toEqual([]);
    });
  });

  describe('the Campaign dropdown', () => {
    test('shows every campaign of the account a page at a time, oldest first, with status and channel', async () => {
      const first = await listSearch(host, 'searchCampaigns');
      expect(first.results).toHaveLength(Math.min(MANY, 50));
      const all = await listSearchAll(host, 'searchCampaigns');
      expect(all.results).toHaveLength(MANY);
      expect(all.pages).toBe(Math.ceil(MANY / 50));
      const listed = (await listAll(gw, account.apiKey, '/campaigns')).map((c) => c.id);
      expect(all.results.map((r) => r.value)).toEqual(listed);
      expect(all.results).toContainEqual({ name: 'Smile Dental', value: dental.id, description: 'draft, custom' });
      expect(all.results).toContainEqual({ name: 'Bare bot', value: bare.id, description: 'draft, sms' });
    });

    test('searches names on the server, or finds a campaign by its exact ID', async () => {
      expect((await listSearch(host, 'searchCampaigns', 'smile')).results.map((r) => r.value)).toEqual([dental.id]);
      expect((await listSearch(host, 'searchCampaigns', bare.id)).results.map((r) => r.name)).toEqual(['Bare bot']);
      expect((await listSearch(host, 'searchCampaigns', 'nothing like it')).results).toEqual([]);
    });
  });

  describe('Get', () => {
    test('by ID or picked from the list, the campaign as the API has it', async () => {
      const expected = (await api('GET', `/campaigns/${dental.id}`)).body;
      const byId = await runLeadChat(host, { resource: 'campaign', operation: 'get', campaign: locator(dental.id) });
      expect(byId.output('LeadChat')).toEqual([{ json: expected, pairedItem: { item: 0 } }]);
      const picked = await runLeadChat(host, {
        resource: 'campaign',
        operation: 'get',
        campaign: locator(bare.id, 'list'),
      });
      expect(picked.output('LeadChat')[0]!.json).toMatchObject({ id: bare.id, name: 'Bare bot', channel: 'sms' });
    });

    test('the campaign ID can come from the input item, e.g. the campaignId of a trigger event', async () => {
      const run = await runLeadChat(
        host,
        { resource: 'campaign', operation: 'get', campaign: locator('={{ $json.campaignId }}') },
        [{ json: { campaignId: bare.id } }, { json: { campaignId: dental.id } }],
      );
      expect(run.output('LeadChat').map((i) => [i.json.name, i.pairedItem])).toEqual([
        ['Bare bot', { item: 0 }],
        ['Smile Dental', { item: 1 }],
      ]);
    });

    test('an unknown ID fails with the API message and what to check', async () => {
      const run = await runLeadChat(host, { resource: 'campaign', operation: 'get', campaign: locator('cmp_missing') });
      expect(run.error?.message).toBe('LeadChat: Campaign not found');
      expect(run.error?.description).toMatch(
        /HTTP 404 CAMPAIGN_NOT_FOUND from GET \/campaigns\/cmp_missing\. Check the Campaign/,
      );
    });

    test("another account's campaign is not found", async () => {
      const other = await createAccount(gw);
      const otherHost = await createHost({
        [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: other.apiKey, ignoreSslIssues: true },
      });
      const run = await runLeadChat(otherHost, {
        resource: 'campaign',
        operation: 'get',
        campaign: locator(dental.id),
      });
      expect(run.error?.message).toBe('LeadChat: Campaign not found');
    });

    test('an empty campaign fails before calling the API', async () => {
      const run = await runLeadChat(
        host,
        { resource: 'campaign', operation: 'get', campaign: locator('={{ $json.id }}') },
        [{ json: { id: ' ' } }],
      );
      expect(run.error?.message).toBe('Campaign is empty');
    });
  });

  describe('Test Bot', () => {
    test('a campaign with FAQs answers a question from them, and nothing is sent or stored', async () => {
      const run = await runLeadChat(host, {
        resource: 'campaign',
        operation: 'testBot',
        campaign: locator(dental.id, 'list'),
        message: 'what time do you open?',
      });
      expect(run.output('LeadChat')).toEqual([
        {
          json: {
            campaignId: dental.id,
            active: true,
            provider: 'faq',
            fallbackReason: null,
            reply: { kind: 'reply', body: 'We are open Monday to Friday, 9am to 6pm.', goalReached: false },
            basis: {
              confidence: expect.any(Number),
              sources: [{ kind: 'faq', index: 0, question: 'What are your opening hours?', use: 'answer' }],
            },
          },
          pairedItem: { item: 0 },
        },
      ]);
      const conversations = await api('GET', '/conversations');
      expect(conversations.body.data).toEqual([]);
    });

    test('each item asks its own question, paired to it', async () => {
      const run = await runLeadChat(
        host,
        { resource: 'campaign', operation: 'testBot', campaign: locator(dental.id), message: '={{ $json.question }}' },
        [{ json: { question: 'how much is a cleaning?' } }, { json: { question: 'where is the clinic?' } }],
      );
      expect(run.output('LeadChat').map((i) => [i.json.reply, i.pairedItem])).toEqual([
        [{ kind: 'reply', body: 'A cleaning costs $90.', goalReached: false }, { item: 0 }],
        [
          { kind: 'reply', body: 'We are at 12 Main Street, next to the post office.', goalReached: false },
          { item: 1 },
        ],
      ]);
    });

    test('a question the FAQs do not cover is handed off, with the reason and the notice the contact gets; so does a campaign without FAQs', async () => {
      const unsure = await runLeadChat(host, {
        resource: 'campaign',
        operation: 'testBot',
        campaign: locator(dental.id),
        message: 'Can you fix my car transmission?',
      });
      expect(unsure.output('LeadChat')[0]!.json.reply).toEqual({
        kind: 'handoff',
        reason: 'bot_not_confident',
        body: expect.stringMatching(/team will get back to you/),
      });
      const none = await runLeadChat(host, {
        resource: 'campaign',
        operation: 'testBot',
        campaign: locator(bare.id),
        message: 'What are your opening hours?',
      });
      expect(none.output('LeadChat')[0]!.json).toMatchObject({
        campaignId: bare.id,
        reply: {
          kind: 'handoff',
          reason: 'bot_no_knowledge',
          body: 'Thanks for your message! A member of our team will get back to you shortly.',
        },
      });
    });

    test("a message the gateway answers itself (STOP) comes out as the API answers it, the contact's confirmation with it", async () => {
      const run = await runLeadChat(host, {
        resource: 'campaign',
        operation: 'testBot',
        campaign: locator(dental.id),
        message: 'STOP',
      });
      expect(run.output('LeadChat')[0]!.json).toEqual({
        campaignId: dental.id,
        active: true,
        provider: 'gateway',
        fallbackReason: null,
        reply: {
          kind: 'opt_out',
          body: 'You are unsubscribed and will get no more messages from us. Reply START to subscribe again.',
        },
        basis: { confidence: null, sources: [] },
      });
    });

    test('First Name reaches the bot: it greets the contact by name', async () => {
      const params = { resource: 'campaign', operation: 'testBot', campaign: locator(dental.id), message: 'Hello' };
      const named = await runLeadChat(host, { ...params, additionalFields: { firstName: ' Maya ' } });
      expect(named.output('LeadChat')[0]!.json.reply).toEqual({
        kind: 'reply',
        body: 'Hi Maya! How can I help you?',
        goalReached: false,
      });
      const anonymous = await runLeadChat(host, params);
      expect(anonymous.output('LeadChat')[0]!.json.reply).toEqual({
        kind: 'reply',
        body: 'Hi! How can I help you?',
        goalReached: false,
      });
    });

    test('Conversation So Far is sent as the history the API takes, and the API checks it', async () => {
      const earlier = (count: number) =>
        Array.from({ length: count }, (_, n) => ({
          from: ['contact', 'bot', 'team'][n % 3],
          body: `Earlier message ${n}`,
        }));
      const params = {
        resource: 'campaign',
        operation: 'testBot',
        campaign: locator(dental.id),
        message: 'How much is a cleaning?',
      };
      const ok = await runLeadChat(host, { ...params, additionalFields: { history: { messages: earlier(3) } } });
      expect(ok.error).toBeUndefined();
      expect(ok.output('LeadChat')[0]!.json.reply).toMatchObject({ kind: 'reply', body: 'A cleaning costs $90.' });
      // The API reads at most 20 earlier messages: its refusal of 21 shows the node sends them all, in its field.
      const tooLong = await runLeadChat(host, { ...params, additionalFields: { history: { messages: earlier(21) } } });
      expect(tooLong.error?.message).toMatch(/^LeadChat: history/);
      expect(tooLong.error?.description).toMatch(
        /^HTTP 400 VALIDATION_ERROR from POST \/campaigns\/cmp_\w+\/bot\/test\./,
      );
    });

    test('an empty message or earlier message fails before calling the API, naming it', async () => {
      const noMessage = await runLeadChat(host, {
        resource: 'campaign',
        operation: 'testBot',
        campaign: locator(dental.id),
        message: '   ',
      });
      expect(noMessage.error?.message).toBe('Message is empty');
      const blankEarlier = await runLeadChat(host, {
        resource: 'campaign',
        operation: 'testBot',
        campaign: locator(dental.id),
        message: 'Hi',
        additionalFields: {
          history: {
            messages: [
              { from: 'contact', body: 'Hi' },
              { from: 'bot', body: ' ' },
            ],
          },
        },
      });
      expect(blankEarlier.error?.message).toBe('Earlier message 2 of Conversation So Far is empty');
    });

    test('an unknown campaign fails with what to check; Continue On Fail keeps the other items going', async () => {
      const run = await runLeadChat(
        host,
        {
          resource: 'campaign',
          operation: 'testBot',
          campaign: locator('={{ $json.id }}'),
          message: 'What are your opening hours?',
        },
        [{ json: { id: 'cmp_nothing' } }, { json: { id: dental.id } }],
        { continueOnFail: true },
      );
      const [missing, answered] = run.output('LeadChat');
      expect(missing).toEqual({
        json: {
          error: 'LeadChat: Campaign not found',
          details: expect.stringMatching(
            /^HTTP 404 CAMPAIGN_NOT_FOUND from POST \/campaigns\/cmp_nothing\/bot\/test\. Check the Campaign/,
          ),
          httpCode: '404',
          errorCode: 'CAMPAIGN_NOT_FOUND',
        },
        pairedItem: { item: 0 },
      });
      expect(answered).toMatchObject({
        json: { reply: { kind: 'reply', body: FAQS[0]!.answer } },
        pairedItem: { item: 1 },
      });
    });
  });

  describe('LeadChat Trigger: Goal Reached', () => {
    test('the trigger offers goal_reached as "Goal Reached", in the alphabetical order of the events', async () => {
      const type = host.nodeTypes.getByNameAndVersion(LEADCHAT_TRIGGER, 1);
      const options = type.description.properties.find((p) => p.name === 'events')!.options as INodePropertyOptions[];
      const goal = options.find((o) => o.value === 'goal_reached');
      expect(goal).toEqual({ name: 'Goal Reached', value: 'goal_reached', description: expect.stringMatching(/goal/) });
      const names = options.map((o) => o.name);
      expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    });

    test('subscribed to Goal Reached on activation, a goal_reached delivery starts an execution carrying it', async () => {
      const trigger = triggerNode({ events: ['goal_reached'], registration: 'automatic' }, 'wh-goal-reached');
      const hook = await WebhookHost.start(
        { [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } },
        { nodes: [trigger] },
        'LeadChat Trigger',
      );
      try {
        await hook.activate();
        const subscriptions = await api('GET', '/webhooks');
        expect(subscriptions.body.data).toEqual([expect.objectContaining({ url: hook.url, events: ['goal_reached'] })]);

        const payload = {
          type: 'goal_reached',
          occurredAt: new Date().toISOString(),
          contactId: 'ct_1',
          conversationId: 'cnv_1',
          campaignId: dental.id,
          goal: 'The contact books a cleaning',
          messageId: 'msg_1',
        };
        const body = JSON.stringify(payload);
        const secret = hook.staticData.webhookSecret as string;
        const at = String(Math.floor(Date.now() / 1000));
        const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
        const signature = createHmac('sha256', key).update(`msg_goal_1.${at}.${body}`).digest('base64');
        const res = await fetch(hook.url, {
          method: 'POST',
          body,
          headers: {
            'content-type': 'application/json',
            'webhook-id': 'msg_goal_1',
            'webhook-timestamp': at,
            'webhook-signature': `v1,${signature}`,
            'webhook-event': 'goal_reached',
          },
        });
        expect(res.status).toBe(200);
        await hook.waitFor(() => hook.executions.length === 1, 'the goal_reached execution');
        expect(hook.executions[0]!.output('LeadChat Trigger')[0]!.json).toEqual({
          event: 'goal_reached',
          deliveryId: 'msg_goal_1',
          ...payload,
        });
      } finally {
        await hook.deactivate();
        await hook.close();
      }
    });
  });
});
